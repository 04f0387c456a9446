// warp-collectives-divergent.cu: warp collectives with partial member masks
// inside divergent code, as CUDA code writes them (issue #28). Each kernel
// writes one value per thread to `out`; `in` holds the data that makes the
// branches diverge. Any block size works: `live` is the mask of the lanes
// that exist in the thread's warp (the last warp of a block may be
// partial).
//
//   scripts/cuda-to-ptx.sh examples/cuda/warp-collectives-divergent.cu
//
// Every member mask names exactly the lanes that reach the collective: a
// ballot taken right before the branch, the lanes of a tile, or
// __activemask() inside a branch that reconverges at its end.

__device__ unsigned live_lanes() {
  unsigned base = threadIdx.x & ~31u;
  unsigned lanes = blockDim.x - base < 32 ? blockDim.x - base : 32;
  return 0xffffffffu >> (32 - lanes);
}

// Tiles of 16 lanes (cooperative groups' tiled_partition<16> builds the
// same masks): inside a data-dependent branch, the lanes of each tile that
// took it elect a leader, count themselves and broadcast the leader's value.
__global__ void tile_leaders(const int *in, int *out) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32;
  unsigned tile = (0xffffu << (lane & 16)) & live_lanes();
  int value = in[tid];
  bool keep = value % 3 != 0;
  unsigned members = __ballot_sync(tile, keep);
  int result = -1;
  if (keep) {
    int leader = __ffs(members) - 1;
    int first = __shfl_sync(members, value, leader);
    result = first * 100 + __popc(members);
  }
  out[tid] = result;
}

// __activemask() inside a branch: the lanes that took it, which then
// exchange values with a width-8 xor shuffle among themselves when a whole
// segment of 8 is present, and otherwise use the leader's value.
__global__ void active_segments(const int *in, int *out) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32;
  int value = in[tid];
  int result = 0;
  if (value & 1) {
    unsigned active = __activemask();
    unsigned segment = 0xffu << (lane & 24);
    if ((active & segment) == segment) {
      result = __shfl_xor_sync(segment, value, 1, 8) + 1000;
    } else {
      result = __shfl_sync(active, value, __ffs(active) - 1) + 2000;
    }
  }
  out[tid] = result;
}

// A loop whose trip count differs per lane: the lanes still in the loop
// vote each round with the mask of the previous round, and the ones that go
// on sum their values with that mask; then the whole (live) warp sums.
__global__ void shrinking_rounds(const int *in, int *out) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32;
  int rounds = in[tid] & 7;
  unsigned members = live_lanes();
  int acc = 0;
  for (int round = 0;; ++round) {
    bool go = round < rounds;
    members = __ballot_sync(members, go);
    if (!go) break;
    int leader = __ffs(members) - 1;
    acc += __shfl_sync(members, (int)lane + round, leader);
    if (__all_sync(members, acc > 40)) acc -= 7;
    if (__any_sync(members, (int)lane == rounds)) acc += 3;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    int other = __shfl_down_sync(live_lanes(), acc, offset);
    if (((live_lanes() >> (lane + offset)) & 1) && lane + offset < 32) acc += other;
  }
  out[tid] = acc;
}

// Lanes with a non-negative key group themselves by key (match.any) and
// exchange through shared memory, synchronised by __syncwarp on the lanes
// of their group.
__global__ void match_groups(const int *in, int *out) {
  __shared__ int slots[1024];
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  int key = in[tid] % 5 - 1;
  unsigned holders = __ballot_sync(live_lanes(), key >= 0);
  int result = -7;
  if (key >= 0) {
    unsigned peers = __match_any_sync(holders, key);
    slots[threadIdx.x] = key * 10 + (int)(threadIdx.x % 32);
    __syncwarp(peers);
    int last = 31 - __clz(peers);
    result = slots[(threadIdx.x & ~31u) + last] + 100 * __popc(peers);
  }
  out[tid] = result;
}

#if __CUDA_ARCH__ >= 800
// Lanes below a data-dependent bound reduce with the ballot of the bound as
// member mask, nested inside a second divergent branch.
__global__ void nested_reduce(const int *in, int *out) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  int value = in[tid];
  int result = 0;
  if (value % 4 != 0) {
    unsigned outer = __activemask();
    unsigned inner = __ballot_sync(outer, value > 8);
    if (value > 8) {
      result = __reduce_add_sync(inner, value) + __reduce_max_sync(inner, (unsigned)value);
    } else {
      result = __reduce_min_sync(outer & ~inner, value);
    }
  }
  out[tid] = result;
}
#endif
