// warp-reduce-ballot.cu: a block sum whose last step runs in the lanes a
// ballot names. A grid-stride loop gives every thread its own trip count;
// each warp reduces with full-mask shuffles (or __reduce_add_sync on
// sm_80+); the warp totals go to shared memory; then
// `__ballot_sync(live, tid < warps)` names the lanes that hold a total, and
// inside `if (tid < warps)` those lanes, and only those, reduce them with
// the ballot as member mask.
//
//   scripts/cuda-to-ptx.sh examples/cuda/warp-reduce-ballot.cu
//
// `live` is the mask of the lanes that exist in this thread's warp (the
// last warp of a block whose size is not a multiple of 32 is partial).
// If the other lanes of warp 0 took part in the masked reduction, the sums
// would be wrong (spmd's PTX did that before issue #28).

__device__ int warp_total(unsigned mask, int value) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(mask, value);
#else
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    int other = __shfl_down_sync(mask, value, offset);
    // A source lane outside the mask gives an undefined value: skip it.
    int source = (threadIdx.x % warpSize) + offset;
    if (source < warpSize && (mask >> source) & 1) value += other;
  }
  return __shfl_sync(mask, value, __ffs(mask) - 1);
#endif
}

__global__ void reduce_ballot(const int *in, int *block_sums, unsigned n) {
  __shared__ int totals[32];
  unsigned tid = threadIdx.x;
  unsigned warp_base = tid & ~31u;
  unsigned lanes = blockDim.x - warp_base < 32 ? blockDim.x - warp_base : 32;
  unsigned live = 0xffffffffu >> (32 - lanes);
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sum = warp_total(live, sum);
  if (tid % warpSize == 0) totals[tid / warpSize] = sum;
  __syncthreads();
  unsigned warps = (blockDim.x + warpSize - 1) / warpSize;
  unsigned holders = __ballot_sync(live, tid < warps);
  if (tid < warps) {
    sum = totals[tid];
    sum = warp_total(holders, sum);
  }
  if (tid == 0) block_sums[blockIdx.x] = sum;
}
