// HIP port of tests/cuda-corpus/samples-histogram.cu (README.md): the same kernels.
// CUDA-samples-style histogram: 64-bin per-warp sub-histograms in shared
// memory updated with shared atomics on packed bytes, merged per block,
// then a merge kernel with a strided sum and a block reduction; plus a
// 256-bin version that skips out-of-range data.

#define HISTOGRAM64_BIN_COUNT 64
#define HISTOGRAM256_BIN_COUNT 256
#define WARP_COUNT 6
#define MERGE_THREADBLOCK_SIZE 256

__device__ inline void add_byte(unsigned *s_warp_hist, unsigned data) {
  atomicAdd(s_warp_hist + data, 1u);
}

__device__ inline void add_word(unsigned *s_warp_hist, unsigned data) {
  add_byte(s_warp_hist, (data >> 2) & 0x3FU);
  add_byte(s_warp_hist, (data >> 10) & 0x3FU);
  add_byte(s_warp_hist, (data >> 18) & 0x3FU);
  add_byte(s_warp_hist, (data >> 26) & 0x3FU);
}

__global__ void histogram64_kernel(unsigned *d_partial, const unsigned *d_data, unsigned count) {
  __shared__ unsigned s_hist[WARP_COUNT * HISTOGRAM64_BIN_COUNT];
  unsigned *s_warp_hist = s_hist + (threadIdx.x >> 5) * HISTOGRAM64_BIN_COUNT;
  for (unsigned i = threadIdx.x; i < WARP_COUNT * HISTOGRAM64_BIN_COUNT; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += blockDim.x * gridDim.x)
    add_word(s_warp_hist, d_data[pos]);
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < HISTOGRAM64_BIN_COUNT; bin += blockDim.x) {
    unsigned sum = 0;
    for (unsigned w = 0; w < WARP_COUNT; ++w) sum += s_hist[bin + w * HISTOGRAM64_BIN_COUNT];
    d_partial[blockIdx.x * HISTOGRAM64_BIN_COUNT + bin] = sum;
  }
}

__global__ void merge_histogram64(unsigned *d_hist, const unsigned *d_partial, unsigned partial_count) {
  __shared__ unsigned data[MERGE_THREADBLOCK_SIZE];
  unsigned sum = 0;
  for (unsigned i = threadIdx.x; i < partial_count; i += MERGE_THREADBLOCK_SIZE)
    sum += d_partial[blockIdx.x + i * HISTOGRAM64_BIN_COUNT];
  data[threadIdx.x] = sum;
  for (unsigned stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) d_hist[blockIdx.x] = data[0];
}

__global__ void histogram256_range(const float *values, unsigned *hist, int n, float lo, float hi) {
  __shared__ unsigned local[HISTOGRAM256_BIN_COUNT];
  for (int b = threadIdx.x; b < HISTOGRAM256_BIN_COUNT; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = values[i];
    if (v < lo || v >= hi || v != v) continue;
    int bin = (int)((v - lo) / (hi - lo) * HISTOGRAM256_BIN_COUNT);
    atomicAdd(&local[bin], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < HISTOGRAM256_BIN_COUNT; b += blockDim.x)
    if (local[b]) atomicAdd(&hist[b], local[b]);
}
