// HIP port of tests/cuda-corpus/polybench-syrk-syr2k.cu (README.md): the same kernels.
// PolyBench/GPU-style SYRK (C = alpha A A^T + beta C) and SYR2K
// (C = alpha A B^T + alpha B A^T + beta C); float.

typedef float DATA_TYPE;
#define ALPHA 12435.0f
#define BETA 4546.0f

__global__ void syrk_kernel(int n, int m, const DATA_TYPE *a, DATA_TYPE *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    c[i * n + j] *= BETA;
    for (int k = 0; k < m; ++k) c[i * n + j] += ALPHA * a[i * m + k] * a[j * m + k];
  }
}

__global__ void syr2k_kernel(int n, int m, const DATA_TYPE *a, const DATA_TYPE *b, DATA_TYPE *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    c[i * n + j] *= BETA;
    for (int k = 0; k < m; ++k)
      c[i * n + j] += ALPHA * a[i * m + k] * b[j * m + k] + ALPHA * b[i * m + k] * a[j * m + k];
  }
}
