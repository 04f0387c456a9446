// HIP port of tests/cuda-corpus/polybench-gramschmidt.cu (README.md): the same kernels.
// PolyBench/GPU-style Gram-Schmidt: the norm of column k by thread 0 only
// (a single-lane branch with sqrt), the normalisation, and the
// projection of the later columns (threads j <= k sit out); double.

typedef double DATA_TYPE;

__global__ void gramschmidt_kernel1(DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k, int m, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid == 0) {
    DATA_TYPE nrm = 0.0;
    for (int i = 0; i < m; ++i) nrm += a[i * n + k] * a[i * n + k];
    r[k * n + k] = sqrt(nrm);
  }
}

__global__ void gramschmidt_kernel2(DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) q[i * n + k] = a[i * n + k] / r[k * n + k];
}

__global__ void gramschmidt_kernel3(DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k && j < n) {
    r[k * n + j] = 0.0;
    for (int i = 0; i < m; ++i) r[k * n + j] += q[i * n + k] * a[i * n + j];
    for (int i = 0; i < m; ++i) a[i * n + j] -= q[i * n + k] * r[k * n + j];
  }
}
