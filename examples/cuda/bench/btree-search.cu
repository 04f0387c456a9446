// btree-search.cu: lookups in a B+tree-like index stored implicitly: node i
// has ORDER keys keys[i*ORDER .. i*ORDER+ORDER-1] and children
// i*ORDER+1 .. i*ORDER+ORDER; the tree has `levels` levels, and a leaf's
// records[leaf*ORDER + k] is the value stored under its key k. The arrays
// hold (ORDER^levels - 1) / (ORDER - 1) nodes.

#define ORDER 8

// One query per thread: descend by counting the keys <= the query, then
// scan the leaf for an exact match. Any 1D grid/block.
extern "C" __global__ void btree_find(const int *keys, const int *records, int levels,
                                      const int *queries, int *result, int nq) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nq) return;
  int key = queries[t];
  int node = 0;
  for (int level = 0; level + 1 < levels; ++level) {
    int k = 0;
    while (k < ORDER - 1 && keys[node * ORDER + k] <= key) ++k;
    node = node * ORDER + k + 1;
  }
  for (int k = 0; k < ORDER; ++k) {
    int stored = keys[node * ORDER + k];
    if (stored == key) {
      result[t] = records[node * ORDER + k];
      return;
    }
    if (stored > key) break;
  }
  result[t] = -1;
}

// One query per warp: lane k compares key k of the node and a ballot picks
// the child. blockDim.x a multiple of 32; warps past nq return as a whole.
extern "C" __global__ void btree_find_warp(const int *keys, const int *records, int levels,
                                           const int *queries, int *result, int nq) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= nq) return;
  int key = queries[warp];
  int node = 0;
  for (int level = 0; level + 1 < levels; ++level) {
    bool le = lane < ORDER - 1 && keys[node * ORDER + lane] <= key;
    node = node * ORDER + __popc(__ballot_sync(0xffffffffu, le)) + 1;
  }
  bool hit = lane < ORDER && keys[node * ORDER + lane] == key;
  unsigned hits = __ballot_sync(0xffffffffu, hit);
  if (lane == 0) result[warp] = hits ? records[node * ORDER + __ffs(hits) - 1] : -1;
}
