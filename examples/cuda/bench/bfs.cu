// bfs.cu: level-synchronous breadth-first search over mask arrays. Node v
// has edges edges[first[v] .. first[v]+degree[v]-1]. One thread per node;
// any 1D grid/block. Every node reached at level `level` gets cost level+1,
// so concurrent writers store the same values.

extern "C" __global__ void bfs_expand(const int *first, const int *degree, const int *edges,
                                      int *frontier, int *next, const int *visited, int *cost,
                                      int n, int level) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !frontier[v]) return;
  frontier[v] = 0;
  int begin = first[v], end = begin + degree[v];
  for (int e = begin; e < end; ++e) {
    int u = edges[e];
    if (!visited[u]) {
      cost[u] = level + 1;
      next[u] = 1;
    }
  }
}

// Marks the new frontier visited and raises *again when there is one.
extern "C" __global__ void bfs_commit(int *frontier, int *next, int *visited, int *again, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  if (next[v]) {
    frontier[v] = 1;
    visited[v] = 1;
    *again = 1;
    next[v] = 0;
  }
}
