// reduce-shfl.cu: warp-shuffle reductions with full masks. blockDim.x a
// multiple of 32 (at most 1024); any grid. Each thread first folds a
// grid-stride range.

static __device__ __forceinline__ int warp_sum(int v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

static __device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Sum of ints into *total with one atomicAdd per block (order-independent).
extern "C" __global__ void shfl_sum_atomic(const int *in, int *total, int n) {
  __shared__ int warp_totals[32];
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  acc = warp_sum(acc);
  if (lane == 0) warp_totals[wid] = acc;
  __syncthreads();
  if (wid == 0) {
    acc = lane < (int)(blockDim.x >> 5) ? warp_totals[lane] : 0;
    acc = warp_sum(acc);
    if (lane == 0) atomicAdd(total, acc);
  }
}

// Dot product of floats, one partial per block (deterministic order).
extern "C" __global__ void shfl_dot(const float *a, const float *b, float *block_dots, int n) {
  __shared__ float warp_totals[32];
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += a[i] * b[i];
  acc = warp_sum(acc);
  if (lane == 0) warp_totals[wid] = acc;
  __syncthreads();
  if (wid == 0) {
    acc = lane < (int)(blockDim.x >> 5) ? warp_totals[lane] : 0.0f;
    acc = warp_sum(acc);
    if (lane == 0) block_dots[blockIdx.x] = acc;
  }
}
