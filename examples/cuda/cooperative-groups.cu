// cooperative-groups.cu: CUDA's cooperative groups in divergent code, as
// the CUDA samples write them: cg::this_thread_block(), a
// tiled_partition<32> whose lanes shuffle (shfl_down, shfl) and vote
// (any, all, ballot), cg::reduce from <cooperative_groups/reduce.h>,
// cg::coalesced_threads() inside a data-dependent branch, and cg::sync on
// the block.
//
//   scripts/cuda-to-ptx.sh examples/cuda/cooperative-groups.cu
//   scripts/cuda-to-ptx.sh --reference examples/cuda/cooperative-groups.cu  # clang
//
// The group types are NVIDIA's (<cooperative_groups.h> of the CUDA root
// scripts/find-cuda.sh prints); everything they do inlines into shfl.sync,
// vote.sync, (sm_80+) redux.sync, activemask and barrier.sync.
//
// Launch: any grid, blockDim.x a multiple of 32 and at most 1024 (the
// kernels work on whole warp tiles). `n` elements; threads at or past `n`
// take part in the collectives with the value 0 but write nothing.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// Per-warp summaries. For each thread i < n (tile = the 32 threads of i's
// warp, values v = in[i], 0 past n):
//   out[4 * i + 0] = sum of v over the tile (shfl_down tree, broadcast
//                    from lane 0 with shfl)
//   out[4 * i + 1] = sum of v over the tile again, by cg::reduce (equal to
//                    the previous one)
//   out[4 * i + 2] = ballot of (v odd) over the tile (lane k is bit k)
//   out[4 * i + 3] = 1 if any v of the tile is negative, plus 2 if all v of
//                    the tile are below 100, plus 4 if this thread's v is
//                    the tile's maximum (cg::greater)
// Example: n = 32, in[i] = i: out[4i] = out[4i+1] = 496, out[4i+2] =
// 0xaaaaaaaa, out[4i+3] = 2 (+4 for i = 31).
extern "C" __global__ void cg_tile_summary(const int *in, int *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int sum = v;
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) sum += tile.shfl_down(sum, offset);
  sum = tile.shfl(sum, 0);
  int reduced = cg::reduce(tile, v, cg::plus<int>());
  unsigned odd = tile.ballot(v & 1);
  int flags = 0;
  if (tile.any(v < 0)) flags |= 1;
  if (tile.all(v < 100)) flags |= 2;
  int biggest = cg::reduce(tile, v, cg::greater<int>());
  if (v == biggest) flags |= 4;
  if (i < n) {
    out[4 * i + 0] = sum;
    out[4 * i + 1] = reduced;
    out[4 * i + 2] = (int)odd;
    out[4 * i + 3] = flags;
  }
}

// Warp-aggregated counting inside a divergent branch: only threads with
// in[i] > 0 enter; cg::coalesced_threads() is the group of those threads
// in the warp. Its first thread adds the group's size to *counter once,
// and every member gets the group's size and its rank in it:
//   out[i] = 1000 * (number of positive values among i's warp's threads
//            below n) + (number of positive values before i in its warp)
//            for in[i] > 0, and -1 otherwise;
//   *counter (zero it first) = the number of positive values in in[0..n).
// Example: n = 8, in = {5, -1, 2, 0, 7, 7, -3, 1} (five positives): out =
// {5000, -1, 5001, -1, 5002, 5003, -1, 5004}, *counter = 5.
extern "C" __global__ void cg_coalesced_count(const int *in, int *out, int *counter, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int result = -1;
  if (in[i] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    if (active.thread_rank() == 0) atomicAdd(counter, (int)active.size());
    int size = active.shfl((int)active.size(), 0);
    result = 1000 * size + (int)active.thread_rank();
  }
  out[i] = result;
}

// Block sums with a block-wide barrier between the phases: each warp
// reduces its values with cg::reduce, lane 0 stores the warp's sum in
// shared memory, cg::sync(block), then warp 0 sums the warps' partial
// sums. Values past n count as 0.
//   out[blockIdx.x] = sum of in[i] over the block's threads i < n.
// Example: n = 300, blockDim.x = 128, in[i] = 1: out = {128, 128, 44}.
extern "C" __global__ void cg_block_sum(const int *in, int *out, int n) {
  __shared__ int warp_sums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int warp_sum = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = warp_sum;
  cg::sync(block);
  if (tile.meta_group_rank() == 0) {
    int partial = tile.thread_rank() < tile.meta_group_size() ? warp_sums[tile.thread_rank()] : 0;
    int total = cg::reduce(tile, partial, cg::plus<int>());
    if (tile.thread_rank() == 0) out[blockIdx.x] = total;
  }
}
