// hip_cg_shim.h: the few cooperative-groups pieces that the corpus's
// reduction and warp-aggregated-atomics kernels use, on top of
// hip_shim.h's wave functions; written for this corpus, not HIP's
// hip_cooperative_groups.h. Included by those files in place of
// <cooperative_groups.h> and <cooperative_groups/reduce.h>.
//
// Maps: this_thread_block() (sync, thread_rank, size, group_index),
// tiled_partition<N>() of a block into thread_block_tile<N> (N a power of
// two up to the wave size: thread_rank, size, meta_group_rank, shfl,
// shfl_down, ballot, any, all), coalesced_threads() (thread_rank, size,
// shfl, sync), cg::sync and cg::reduce with cg::plus and cg::greater
// (a shfl_xor butterfly over a tile).
// Omits: grid and multi-grid groups, tiled_partition of a coalesced group,
// binary_partition, labeled_partition, scans, reduce over coalesced groups.
#pragma once

namespace cooperative_groups {

struct thread_block {
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned thread_rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  __device__ unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ __shim_uint3 group_index() const { return blockIdx; }
};

__device__ inline thread_block this_thread_block() { return {}; }

template <unsigned N>
struct thread_block_tile {
  static_assert(N > 0 && N <= 64 && (N & (N - 1)) == 0, "a tile is a power of two up to 64");
  __device__ unsigned thread_rank() const { return __lane_id() & (N - 1); }
  __device__ unsigned size() const { return N; }
  __device__ unsigned meta_group_rank() const { return this_thread_block().thread_rank() / N; }
  __device__ void sync() const { __syncwarp(); }
  template <typename T>
  __device__ T shfl(T value, int source) const {
    return __shfl_sync(~0ull, value, source, N);
  }
  template <typename T>
  __device__ T shfl_down(T value, unsigned delta) const {
    return __shfl_down_sync(~0ull, value, delta, N);
  }
  template <typename T>
  __device__ T shfl_xor(T value, int lane_mask) const {
    return __shfl_xor_sync(~0ull, value, lane_mask, N);
  }
  // A wave-wide mask shifted down to this tile's lanes.
  __device__ unsigned long long own(unsigned long long wave_mask) const {
    unsigned long long lanes = N == 64 ? ~0ull : (1ull << N) - 1;
    return (wave_mask >> (__lane_id() & -(int)N)) & lanes;
  }
  __device__ unsigned long long ballot(int predicate) const {
    return own(__ballot_sync(~0ull, predicate));
  }
  __device__ bool any(int predicate) const { return ballot(predicate) != 0; }
  __device__ bool all(int predicate) const { return ballot(predicate) == own(__activemask()); }
};

template <unsigned N>
__device__ thread_block_tile<N> tiled_partition(const thread_block &) {
  return {};
}

// The lanes active where it was made.
struct coalesced_group {
  unsigned long long mask;
  __device__ unsigned thread_rank() const {
    return __popcll(mask & ((1ull << __lane_id()) - 1));
  }
  __device__ unsigned size() const { return __popcll(mask); }
  __device__ void sync() const { __syncwarp(mask); }
  // From the member of rank `source`: the source-th set bit of the mask.
  template <typename T>
  __device__ T shfl(T value, unsigned source) const {
    unsigned long long rest = mask;
    for (unsigned i = 0; i < source; ++i) rest &= rest - 1;
    return __shfl_sync(mask, value, __ffsll(rest) - 1);
  }
};

__device__ inline coalesced_group coalesced_threads() { return {__activemask()}; }

template <typename Group>
__device__ void sync(const Group &group) {
  group.sync();
}

template <typename T>
struct plus {
  __device__ T operator()(T a, T b) const { return a + b; }
};
template <typename T>
struct greater {
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <unsigned N, typename T, typename Op>
__device__ T reduce(const thread_block_tile<N> &tile, T value, Op op) {
  for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
  return value;
}

}  // namespace cooperative_groups
