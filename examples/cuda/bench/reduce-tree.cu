// reduce-tree.cu: shared-memory tree reductions, one partial result per
// block. blockDim.x a power of two from 64 to 1024; any grid. Each thread
// first folds a grid-stride range of the input.

extern "C" __global__ void reduce_tree_sum(const int *in, int *block_sums, int n) {
  __shared__ int s[1024];
  unsigned tid = threadIdx.x;
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) acc += in[i];
  s[tid] = acc;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 32; half >>= 1) {
    if (tid < half) s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid < 32) { // the last 64 partials: warp 0, synchronised with __syncwarp
    int v = s[tid] + s[tid + 32];
    for (int off = 16; off > 0; off >>= 1) {
      __syncwarp();
      s[tid] = v;
      __syncwarp();
      v += s[tid + off];
    }
    if (tid == 0) block_sums[blockIdx.x] = v;
  }
}

// Minimum and maximum of floats (exact whatever the order).
extern "C" __global__ void reduce_tree_minmax(const float *in, float *block_min, float *block_max,
                                              int n) {
  __shared__ float lo[1024], hi[1024];
  unsigned tid = threadIdx.x;
  float a = 3.0e38f, b = -3.0e38f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
    float v = in[i];
    if (v < a) a = v;
    if (v > b) b = v;
  }
  lo[tid] = a;
  hi[tid] = b;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (tid < half) {
      if (lo[tid + half] < lo[tid]) lo[tid] = lo[tid + half];
      if (hi[tid + half] > hi[tid]) hi[tid] = hi[tid + half];
    }
    __syncthreads();
  }
  if (tid == 0) {
    block_min[blockIdx.x] = lo[0];
    block_max[blockIdx.x] = hi[0];
  }
}
