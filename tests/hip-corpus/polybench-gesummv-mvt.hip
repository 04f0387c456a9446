// HIP port of tests/cuda-corpus/polybench-gesummv-mvt.cu (README.md): the same kernels.
// PolyBench/GPU-style GESUMMV (y = alpha A x + beta B x) and MVT
// (x1 += A y1, x2 += A^T y2); float.

typedef float DATA_TYPE;
#define ALPHA 43532.0f
#define BETA 12313.0f

__global__ void gesummv_kernel(int n, const DATA_TYPE *a, const DATA_TYPE *b, const DATA_TYPE *x,
                               DATA_TYPE *y, DATA_TYPE *tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    DATA_TYPE t = 0, s = 0;
    for (int j = 0; j < n; ++j) {
      t += a[i * n + j] * x[j];
      s += b[i * n + j] * x[j];
    }
    tmp[i] = t;
    y[i] = ALPHA * t + BETA * s;
  }
}

__global__ void mvt_kernel1(int n, const DATA_TYPE *a, DATA_TYPE *x1, const DATA_TYPE *y1) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int j = 0; j < n; ++j) x1[i] += a[i * n + j] * y1[j];
}

__global__ void mvt_kernel2(int n, const DATA_TYPE *a, DATA_TYPE *x2, const DATA_TYPE *y2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int j = 0; j < n; ++j) x2[i] += a[j * n + i] * y2[j];
}
