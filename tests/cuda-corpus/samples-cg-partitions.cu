// Cooperative-groups partitions in divergent code (CUDA 11+ API, sm_70+):
// coalesced_threads() inside a data-dependent branch and loop, a
// tiled_partition<4> of a coalesced group, binary_partition and
// labeled_partition of a warp tile, cg::reduce and cg::inclusive_scan on
// those groups, and group sync.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

__global__ void coalesced_loop(const int *work, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int remaining = work[i];
  int acc = 0;
  while (remaining > 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    acc += cg::reduce(g, remaining, cg::plus<int>());
    if (g.thread_rank() == g.size() - 1) acc += 1000;
    remaining -= 1 + (i & 3);
    g.sync();
  }
  out[i] = acc;
}

__global__ void coalesced_tiles(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  if (v % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    cg::coalesced_group quad = cg::tiled_partition(active, 4);
    int quad_max = cg::reduce(quad, v, cg::greater<int>());
    int prefix = cg::inclusive_scan(active, 1);
    if (i < n) out[i] = quad_max * 100 + prefix;
  } else if (i < n) {
    out[i] = -1;
  }
}

__global__ void partitions(const int *in, int *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  int v = i < n ? in[i] : 0;
  cg::coalesced_group halves = cg::binary_partition(warp, v & 1);
  int half_sum = cg::reduce(halves, v, cg::plus<int>());
  cg::coalesced_group by_label = cg::labeled_partition(warp, v % 5);
  int label_rank = by_label.thread_rank();
  int ex = cg::exclusive_scan(warp, v);
  if (i < n) out[i] = half_sum + label_rank * 7 + ex;
  cg::sync(block);
}

__global__ void meta_group(const float *in, float *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  if (tile.any(v < 0.0f)) {
    float s = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0 && i < n) out[i / 8 + tile.meta_group_rank() * 0] = s;
  }
}
