// HIP port of tests/cuda-corpus/rodinia-streamcluster.cu (README.md): the same kernels.
// Rodinia-style streamcluster: the gain of opening a candidate centre. Each
// thread takes one point, computes its distance to the candidate (the
// coordinates of the candidate are staged in shared memory), and either
// records a switch or adds its saving to the lower cost of its centre.

#define MAX_DIM 64

typedef struct {
  float weight;
  long assign;
  float cost;
} Point;

__device__ float dist_sq(const float *coords, const float *centre, int idx, int dim, int num) {
  float r = 0.0f;
  for (int i = 0; i < dim; ++i) {
    float t = coords[i * num + idx] - centre[i];
    r += t * t;
  }
  return r;
}

__global__ void pgain_kernel(const Point *points, const float *coords, float *work_mem,
                             const int *center_table, char *switch_membership, int num,
                             int dim, long x, int k) {
  extern __shared__ float centre[];
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = threadIdx.x; i < dim; i += blockDim.x) centre[i] = coords[i * num + x];
  __syncthreads();
  if (tid >= num) return;
  float cost = dist_sq(coords, centre, tid, dim, num) * points[tid].weight;
  float current = points[tid].cost;
  int base = tid * (k + 1);
  if (cost < current) {
    switch_membership[tid] = 1;
    work_mem[base + k] = cost - current;
  } else {
    int assign = center_table[points[tid].assign];
    work_mem[base + assign] += current - cost;
  }
}
