// HIP port of tests/cuda-corpus/polybench-atax-bicg.cu (README.md): the same kernels.
// PolyBench/GPU-style ATAX (y = A^T (A x)) and BiCG (s = A^T r, q = A p):
// one thread per row or column, each with its own bounds check; float.

typedef float DATA_TYPE;
#define NX 4096
#define NY 4096

__global__ void atax_kernel1(const DATA_TYPE *a, const DATA_TYPE *x, DATA_TYPE *tmp, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) {
    DATA_TYPE s = 0;
    for (int j = 0; j < ny; ++j) s += a[i * ny + j] * x[j];
    tmp[i] = s;
  }
}

__global__ void atax_kernel2(const DATA_TYPE *a, DATA_TYPE *y, const DATA_TYPE *tmp, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < ny) {
    DATA_TYPE s = 0;
    for (int i = 0; i < nx; ++i) s += a[i * ny + j] * tmp[i];
    y[j] = s;
  }
}

__global__ void bicg_kernel1(const DATA_TYPE *a, const DATA_TYPE *r, DATA_TYPE *s, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < ny) {
    s[j] = 0.0f;
    for (int i = 0; i < nx; ++i) s[j] += r[i] * a[i * ny + j];
  }
}

__global__ void bicg_kernel2(const DATA_TYPE *a, const DATA_TYPE *p, DATA_TYPE *q, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) {
    q[i] = 0.0f;
    for (int j = 0; j < ny; ++j) q[i] += a[i * ny + j] * p[j];
  }
}
