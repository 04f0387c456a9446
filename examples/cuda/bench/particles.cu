// particles.cu: particle loops whose trip counts depend on the data.
// Any 1D grid/block; threads past n do nothing.

// Each particle takes steps[i] ballistic steps in a box [0, box]^2,
// bouncing off the walls, and stops early after 64 bounces.
extern "C" __global__ void particle_bounce(float *px, float *py, float *vx, float *vy,
                                           const int *steps, int *bounces, int n, float dt,
                                           float gravity, float box) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = px[i], y = py[i], u = vx[i], w = vy[i];
  int nsteps = steps[i], hits = 0;
  for (int s = 0; s < nsteps; ++s) {
    x += u * dt;
    y += w * dt;
    w -= gravity * dt;
    if (x < 0.0f) {
      x = -x;
      u = -u;
      ++hits;
    } else if (x > box) {
      x = 2.0f * box - x;
      u = -u;
      ++hits;
    }
    if (y < 0.0f) {
      y = -y;
      w = -0.9f * w;
      ++hits;
    } else if (y > box) {
      y = 2.0f * box - y;
      w = -w;
      ++hits;
    }
    if (hits >= 64) break;
  }
  px[i] = x;
  py[i] = y;
  vx[i] = u;
  vy[i] = w;
  bounces[i] = hits;
}

// A photon random walk through a slab: exponential free paths from an
// integer hash, absorption of a fraction of the weight at each collision,
// Russian roulette below a weight threshold; the walk ends when the photon
// leaves the slab, dies, or after max_steps.
extern "C" __global__ void photon_walk(const unsigned *seeds, float *depth, int *steps_taken, int n,
                                       float thickness, float absorb, int max_steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned state = seeds[i] | 1u;
  float z = 0.0f, dir = 1.0f, weight = 1.0f;
  int s = 0;
  for (; s < max_steps; ++s) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    float r = (state >> 8) * (1.0f / 16777216.0f) + 1e-7f;
    z += dir * -logf(r);
    if (z < 0.0f || z > thickness) break;
    weight *= 1.0f - absorb;
    if (weight < 0.01f) {
      if ((state & 15u) != 0u) {
        weight = 0.0f;
        break;
      }
      weight *= 16.0f;
    }
    dir = (state & 0x100u) ? -dir : dir;
  }
  depth[i] = z * weight;
  steps_taken[i] = s;
}
