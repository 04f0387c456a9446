// warp-scan-partial.cu: an inclusive scan of a block in two steps, with the
// second step in part of one warp. Every warp scans its 32 values with
// width-32 __shfl_up_sync; each warp's last lane parks the warp's total;
// then only the first blockDim.x / 32 lanes of warp 0 scan those totals,
// with __shfl_up_sync(mask, v, i, width) whose member mask and width cover
// just those lanes (0xff for 256 threads); every thread adds the totals of
// the warps before it.
//
//   scripts/cuda-to-ptx.sh examples/cuda/warp-scan-partial.cu
//
// Lanes 8..31 of warp 0 are not in the member mask of the second step: they
// must not execute its shfl.sync (PTX: an executing thread outside the
// member mask is undefined; on an H100 it traps with an illegal
// instruction). spmd runs such collectives only in lanes whose exec bit is
// set (docs/design.md, "Warp collectives with member masks").
// The block size must be a multiple of 32 (the scan covers full warps).

__global__ void scan_block(const int *in, int *out) {
  __shared__ int totals[32];
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  int value = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = 1; i < warpSize; i *= 2) {
    int up = __shfl_up_sync(0xffffffffu, value, i);
    if (lane >= i) value += up;
  }
  if (lane == warpSize - 1) totals[warp] = value;
  __syncthreads();
  int warps = blockDim.x / warpSize;
  if (warp == 0 && lane < warps) {
    int total = totals[lane];
    unsigned mask = (1u << warps) - 1;
    for (int i = 1; i <= warps; i *= 2) {
      int up = __shfl_up_sync(mask, total, i, warps);
      if (lane >= i) total += up;
    }
    totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value += totals[warp - 1];
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}
