// HIP port of tests/cuda-corpus/samples-scan.cu (README.md): the same kernels.
// CUDA-samples-style prefix sums: a work-efficient shared-memory scan
// (up-sweep and down-sweep, the number of active threads halving then
// doubling), a warp scan with __shfl_up_sync for blocks of any size, and
// the uniform add of block sums.

#define MAX_BLOCK 1024

__global__ void scan_blelloch(const float *in, float *out, float *block_sums, int n) {
  extern __shared__ float temp[];
  int tid = threadIdx.x;
  int base = blockIdx.x * blockDim.x * 2;
  int m = blockDim.x * 2;
  temp[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0.0f;
  temp[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0.0f;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == 0) {
    if (block_sums) block_sums[blockIdx.x] = temp[m - 1];
    temp[m - 1] = 0.0f;
  }
  for (int d = 1; d < m; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = temp[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

__global__ void scan_shfl(const int *in, int *out, int *block_sums, int n) {
  __shared__ int warp_sums[MAX_BLOCK / 32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  int value = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(0xffffffffu, value, d);
    if (lane >= d) value += up;
  }
  if (lane == 31) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    int nwarps = (blockDim.x + 31) / 32;
    int s = lane < nwarps ? warp_sums[lane] : 0;
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(0xffffffffu, s, d);
      if (lane >= d) s += up;
    }
    warp_sums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) value += warp_sums[warp - 1];
  if (i < n) out[i] = value;
  if (threadIdx.x == blockDim.x - 1 && block_sums != NULL) block_sums[blockIdx.x] = value;
}

__global__ void uniform_add(int *data, const int *block_sums, int n) {
  __shared__ int add;
  if (threadIdx.x == 0) add = blockIdx.x > 0 ? block_sums[blockIdx.x - 1] : 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && add != 0) data[i] += add;
}
