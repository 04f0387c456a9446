// HIP port of tests/cuda-corpus/rodinia-bfs.cu (README.md): the same kernels.
// Rodinia-style breadth-first search over a CSR graph: a frontier mask,
// an "updating" mask and a global stop flag. Threads whose node is not in
// the frontier do nothing; the edge loop has a per-node trip count.

struct GraphNode {
  int first_edge;
  int degree;
};

__global__ void bfs_visit(const GraphNode *nodes, const int *edges, bool *frontier,
                          bool *updating, const bool *visited, int *cost, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && frontier[tid]) {
    frontier[tid] = false;
    int begin = nodes[tid].first_edge;
    int end = begin + nodes[tid].degree;
    for (int e = begin; e < end; ++e) {
      int dst = edges[e];
      if (!visited[dst]) {
        cost[dst] = cost[tid] + 1;
        updating[dst] = true;
      }
    }
  }
}

__global__ void bfs_update(bool *frontier, bool *updating, bool *visited, bool *again,
                           int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  if (updating[tid]) {
    frontier[tid] = true;
    visited[tid] = true;
    *again = true;
    updating[tid] = false;
  }
}
