// HIP port of tests/cuda-corpus/polybench-jacobi.cu (README.md): the same kernels.
// PolyBench/GPU-style Jacobi 1D and 2D: interior points only (the borders
// are excluded by the guards), then the copy-back kernels; double.

typedef double DATA_TYPE;

__global__ void jacobi1d_kernel1(int n, const DATA_TYPE *a, DATA_TYPE *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
}

__global__ void jacobi1d_kernel2(int n, DATA_TYPE *a, const DATA_TYPE *b) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > 0 && j < n - 1) a[j] = b[j];
}

__global__ void jacobi2d_kernel1(int n, const DATA_TYPE *a, DATA_TYPE *b) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    b[i * n + j] = 0.2 * (a[i * n + j] + a[i * n + (j - 1)] + a[i * n + (1 + j)] +
                          a[(1 + i) * n + j] + a[(i - 1) * n + j]);
}

__global__ void jacobi2d_kernel2(int n, DATA_TYPE *a, const DATA_TYPE *b) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) a[i * n + j] = b[i * n + j];
}
