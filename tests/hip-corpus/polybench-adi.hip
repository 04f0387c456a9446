// HIP port of tests/cuda-corpus/polybench-adi.cu (README.md): the same kernels.
// PolyBench/GPU-style ADI (alternating direction implicit): forward and
// backward sweeps along rows, one thread per column; the backward sweep
// counts down and handles its last element separately; float.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__global__ void adi_kernel1(int n, const DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *x) {
  int i1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (i1 < n) {
    for (int i2 = 1; i2 < n; ++i2) {
      x[i1 * n + i2] -= x[i1 * n + (i2 - 1)] * a[i1 * n + i2] / b[i1 * n + (i2 - 1)];
      b[i1 * n + i2] -= a[i1 * n + i2] * a[i1 * n + i2] / b[i1 * n + (i2 - 1)];
    }
  }
}

__global__ void adi_kernel2(int n, const DATA_TYPE *b, DATA_TYPE *x) {
  int i1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (i1 < n) x[i1 * n + (n - 1)] = x[i1 * n + (n - 1)] / b[i1 * n + (n - 1)];
}

__global__ void adi_kernel3(int n, const DATA_TYPE *a, const DATA_TYPE *b, DATA_TYPE *x) {
  int i1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (i1 < n) {
    for (int i2 = 0; i2 < n - 2; ++i2) {
      int c = n - i2 - 2;
      x[i1 * n + c] = (x[i1 * n + c] - x[i1 * n + (c - 1)] * a[i1 * n + (c - 1)]) / b[i1 * n + (c - 1)];
    }
  }
}

__global__ void adi_kernel4(int n, const DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *x, int i1) {
  int i2 = blockIdx.x * blockDim.x + threadIdx.x;
  if (i2 < n && i1 > 0) {
    x[i1 * n + i2] -= x[(i1 - 1) * n + i2] * a[i1 * n + i2] / b[(i1 - 1) * n + i2];
    b[i1 * n + i2] -= a[i1 * n + i2] * a[i1 * n + i2] / b[(i1 - 1) * n + i2];
  }
}
