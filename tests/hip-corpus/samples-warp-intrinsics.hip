// HIP port of tests/cuda-corpus/samples-warp-intrinsics.cu (README.md): the same kernels.
// Warp-level intrinsics in divergent code: __shfl_sync family with the
// ballot of a branch as member mask, __activemask in a loop, __syncwarp,
// __popc/__ffs/__clz/__brev, and __match_any_sync/__match_all_sync
// (sm_70+).

__global__ void shuffle_broadcast(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  unsigned pos = __ballot_sync(0xffffffffu, v > 0);
  if (v > 0) {
    int leader = __ffs(pos) - 1;
    int from_leader = __shfl_sync(pos, v, leader);
    int next = __shfl_down_sync(pos, v, 1);
    int xored = __shfl_xor_sync(pos, v, 2);
    out[i] = from_leader + (lane + 1 < 32 && (pos >> (lane + 1)) & 1 ? next : 0) +
             ((pos >> (lane ^ 2)) & 1 ? xored : 0);
  } else if (i < n) {
    out[i] = __popc(pos) - __clz(pos) + (int)__brev(pos);
  }
}

__global__ void active_loop(const int *trip, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = trip[i];
  int acc = 0;
  while (t > 0) {
    unsigned active = __activemask();
    acc += __popc(active);
    __syncwarp(active);
    t -= 1 + (acc & 1);
  }
  out[i] = acc;
}

__global__ void match_keys(const int *keys, int *group_size, int *all_same) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = keys[i];
  if (k == -1) return;
  unsigned active = __activemask();
  unsigned peers = __match_any_sync(active, k);
  int pred;
  unsigned all_mask = __match_all_sync(active, k >> 4, &pred);
  group_size[i] = __popc(peers);
  all_same[i] = pred ? (int)all_mask : 0;
}

__global__ void vote_flags(const float *x, unsigned *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool in_range = i < n;
  float v = in_range ? x[i] : 0.0f;
  unsigned nans = __ballot_sync(0xffffffffu, in_range && v != v);
  int any_big = __any_sync(0xffffffffu, v > 1e6f);
  int all_pos = __all_sync(0xffffffffu, !in_range || v > 0.0f);
  if ((threadIdx.x & 31) == 0 && in_range) flags[i / 32] = nans ^ (any_big << 1) ^ all_pos;
}
