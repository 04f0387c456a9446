// stencil1d.cu: 7-point 1D stencils with boundary branches.

#define RADIUS 3
#define BLOCK 256

__constant__ float weights[2 * RADIUS + 1] = {0.05f, 0.1f, 0.15f, 0.4f, 0.15f, 0.1f, 0.05f};

// Shared-memory tile with a halo; the first and last RADIUS points are
// copied unchanged. blockDim.x must be BLOCK (256); any grid.
extern "C" __global__ void stencil1d_shared(const float *in, float *out, int n) {
  __shared__ float tile[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * BLOCK + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  tile[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < RADIUS) {
    int left = g - RADIUS, right = g + BLOCK;
    tile[l - RADIUS] = left >= 0 && left < n ? in[left] : 0.0f;
    tile[l + BLOCK] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g >= n) return;
  if (g < RADIUS || g >= n - RADIUS) {
    out[g] = tile[l];
    return;
  }
  float s = 0.0f;
#pragma unroll
  for (int k = -RADIUS; k <= RADIUS; ++k) s += weights[k + RADIUS] * tile[l + k];
  out[g] = s;
}

// No shared memory; out-of-range neighbours are mirrored at the ends.
// Any 1D grid/block.
extern "C" __global__ void stencil1d_mirror(const float *in, float *out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  float s = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int j = g + k;
    if (j < 0)
      j = -j;
    else if (j >= n)
      j = 2 * (n - 1) - j;
    s += weights[k + RADIUS] * in[j];
  }
  out[g] = s;
}
