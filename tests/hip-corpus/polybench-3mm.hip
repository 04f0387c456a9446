// HIP port of tests/cuda-corpus/polybench-3mm.cu (README.md): the same kernels.
// PolyBench/GPU-style 3mm: G = (A * B) * (C * D) with three kernels of the
// same shape; double precision.

typedef double DATA_TYPE;
#define NI 512
#define NJ 512
#define NK 512
#define NL 512
#define NM 512

__device__ void mat_product(int rows, int cols, int inner, const DATA_TYPE *x,
                            const DATA_TYPE *y, DATA_TYPE *z) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;
  DATA_TYPE sum = 0.0;
  for (int k = 0; k < inner; ++k) sum += x[i * inner + k] * y[k * cols + j];
  z[i * cols + j] = sum;
}

__global__ void mm3_kernel1(const DATA_TYPE *a, const DATA_TYPE *b, DATA_TYPE *e) {
  mat_product(NI, NJ, NK, a, b, e);
}
__global__ void mm3_kernel2(const DATA_TYPE *c, const DATA_TYPE *d, DATA_TYPE *f) {
  mat_product(NJ, NL, NM, c, d, f);
}
__global__ void mm3_kernel3(const DATA_TYPE *e, const DATA_TYPE *f, DATA_TYPE *g) {
  mat_product(NI, NL, NJ, e, f, g);
}
