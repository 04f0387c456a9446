// nbody.cu: all-pairs gravitational accelerations. Bodies are float4
// (x, y, z, mass) stored as 4 floats each; tiles of blockDim.x bodies go
// through shared memory. blockDim.x <= 256; any grid covering n.

#define MAX_TILE 256

extern "C" __global__ void nbody_accel(const float *bodies, float *accel, int n, float soft2) {
  __shared__ float4 tile[MAX_TILE];
  const float4 *b = (const float4 *)bodies;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? b[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += blockDim.x) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? b[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    int count = n - base < (int)blockDim.x ? n - base : blockDim.x;
    for (int k = 0; k < count; ++k) {
      float4 o = tile[k];
      float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
      float r2 = dx * dx + dy * dy + dz * dz + soft2;
      float inv = rsqrtf(r2);
      float f = o.w * inv * inv * inv;
      ax += dx * f;
      ay += dy * f;
      az += dz * f;
    }
    __syncthreads();
  }
  if (i < n) {
    accel[3 * i] = ax;
    accel[3 * i + 1] = ay;
    accel[3 * i + 2] = az;
  }
}

// Leapfrog update of positions and velocities (vel as 3 floats per body).
extern "C" __global__ void nbody_integrate(float *bodies, float *vel, const float *accel, int n,
                                           float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) {
    float v = vel[3 * i + c] + dt * accel[3 * i + c];
    vel[3 * i + c] = v;
    bodies[4 * i + c] += dt * v;
  }
}
