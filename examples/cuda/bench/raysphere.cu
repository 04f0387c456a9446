// raysphere.cu: primary rays against a list of spheres (centre, radius,
// reflectivity: 5 floats each), nearest hit, Lambert shading and up to
// `bounces` mirror bounces. One pixel per thread; any 1D grid/block.

struct Hit {
  float t;
  int id;
};

static __device__ __forceinline__ Hit nearest(const float *s, int count, float ox, float oy,
                                              float oz, float dx, float dy, float dz) {
  Hit h = {3.0e38f, -1};
  for (int k = 0; k < count; ++k) {
    float cx = s[5 * k] - ox, cy = s[5 * k + 1] - oy, cz = s[5 * k + 2] - oz, r = s[5 * k + 3];
    float b = cx * dx + cy * dy + cz * dz;
    float disc = b * b - (cx * cx + cy * cy + cz * cz) + r * r;
    if (disc < 0.0f) continue;
    float root = sqrtf(disc);
    float t = b - root;
    if (t < 1e-3f) t = b + root;
    if (t < 1e-3f || t >= h.t) continue;
    h.t = t;
    h.id = k;
  }
  return h;
}

extern "C" __global__ void raytrace(const float *spheres, int count, float *image, int width,
                                    int height, int bounces) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height) return;
  float ox = 0.0f, oy = 0.0f, oz = -5.0f;
  float dx = (p % width - 0.5f * width) / width, dy = (p / width - 0.5f * height) / width,
        dz = 1.0f;
  float inv = rsqrtf(dx * dx + dy * dy + dz * dz);
  dx *= inv;
  dy *= inv;
  dz *= inv;
  float color = 0.0f, weight = 1.0f;
  for (int b = 0; b <= bounces; ++b) {
    Hit h = nearest(spheres, count, ox, oy, oz, dx, dy, dz);
    if (h.id < 0) {
      color += weight * 0.2f * (dy + 1.0f); // sky
      break;
    }
    const float *s = spheres + 5 * h.id;
    float hx = ox + h.t * dx, hy = oy + h.t * dy, hz = oz + h.t * dz;
    float nx = hx - s[0], ny = hy - s[1], nz = hz - s[2];
    float ninv = 1.0f / s[3];
    nx *= ninv;
    ny *= ninv;
    nz *= ninv;
    float lambert = -0.577f * nx + 0.577f * ny - 0.577f * nz;
    if (lambert > 0.0f) color += weight * (1.0f - s[4]) * lambert;
    weight *= s[4];
    if (weight < 0.01f) break;
    float dn = dx * nx + dy * ny + dz * nz;
    dx -= 2.0f * dn * nx;
    dy -= 2.0f * dn * ny;
    dz -= 2.0f * dn * nz;
    ox = hx;
    oy = hy;
    oz = hz;
  }
  image[p] = color;
}
