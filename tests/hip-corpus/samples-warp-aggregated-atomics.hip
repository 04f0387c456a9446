// HIP port of tests/cuda-corpus/samples-warp-aggregated-atomics.cu (README.md): the same kernels.
// CUDA-samples-style warp-aggregated atomics: only the threads that pass
// a filter reach the atomic; inside that branch cg::coalesced_threads()
// (and, for comparison, __activemask/__ballot_sync by hand) elects a leader
// that does one atomicAdd for the group and broadcasts the base offset.

#include "hip_cg_shim.h"  // in place of <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ int atomic_agg_inc(int *ctr) {
  cg::coalesced_group active = cg::coalesced_threads();
  int res;
  if (active.thread_rank() == 0) res = atomicAdd(ctr, active.size());
  res = active.shfl(res, 0);
  return res + active.thread_rank();
}

__global__ void filter_k(int *dst, int *nres, const int *src, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n && src[i] > 0) dst[atomic_agg_inc(nres)] = src[i];
}

__device__ int atomic_agg_inc_manual(int *ctr) {
  unsigned mask = __activemask();
  int leader = __ffs(mask) - 1;
  int lane = threadIdx.x % 32;
  int res = 0;
  if (lane == leader) res = atomicAdd(ctr, __popc(mask));
  res = __shfl_sync(mask, res, leader);
  return res + __popc(mask & ((1u << lane) - 1));
}

__global__ void filter_manual(int *dst, int *nres, const int *src, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n && (src[i] & 3) == 1) dst[atomic_agg_inc_manual(nres)] = src[i];
}

// Grouped by key: lanes with the same bucket aggregate with match.any.
__global__ void bucket_counts(int *buckets, const int *keys, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  int key = keys[i];
  if (key < 0) return;
  unsigned active = __activemask();
  unsigned peers = __match_any_sync(active, key & 15);
  int leader = __ffs(peers) - 1;
  if ((int)(threadIdx.x % 32) == leader) atomicAdd(&buckets[key & 15], __popc(peers));
}
