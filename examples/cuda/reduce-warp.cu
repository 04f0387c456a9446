// reduce-warp.cu: a sum in two levels of warp shuffles. Each warp reduces its
// 32 values with __shfl_down_sync, lane 0 of every warp parks the warp's sum
// in shared memory, the first warp reduces those, and thread 0 adds the
// block's sum to the total with one atomicAdd.
//
//   scripts/cuda-to-ptx.sh examples/cuda/reduce-warp.cu
//
// Templates and __device__ helpers, as CUDA code usually has them: the
// kernel's name is mangled (_Z11reduce_warpPKfPfi).

template <typename T> __device__ T warp_sum(T value) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}

__global__ void reduce_warp(const float *in, float *total, int n) {
  __shared__ float warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  float v = 0.0f;
  // A grid-stride loop: a thread-dependent trip count.
  for (int j = i; j < n; j += blockDim.x * gridDim.x) v += in[j];
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int warps = (blockDim.x + warpSize - 1) / warpSize;
    v = lane < warps ? warp_sums[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(total, v);
  }
}
