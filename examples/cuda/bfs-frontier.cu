// bfs-frontier.cu: one level of a breadth-first search over a graph in CSR
// form (row_offsets, columns). Each thread takes one vertex of the current
// frontier and visits its edges; the first thread to reach an unvisited
// vertex claims it with atomicCAS on its distance and appends it to the next
// frontier with atomicAdd.
//
//   scripts/cuda-to-ptx.sh examples/cuda/bfs-frontier.cu
//
// Divergence everywhere: the frontier bound, the edge loop's trip count (the
// vertex's degree), and the claim.

extern "C" __global__ void bfs_frontier(const int *row_offsets, const int *columns,
                                        const int *frontier, int frontier_size, int *distance,
                                        int *next_frontier, int *next_size, int level) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= frontier_size) return;
  int u = frontier[t];
  for (int e = row_offsets[u]; e < row_offsets[u + 1]; ++e) {
    int v = columns[e];
    if (distance[v] != -1) continue; // cheap test before the atomic
    if (atomicCAS(&distance[v], -1, level + 1) == -1) {
      int slot = atomicAdd(next_size, 1);
      next_frontier[slot] = v;
    }
  }
}
