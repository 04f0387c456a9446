// HIP port of tests/cuda-corpus/polybench-2mm.cu (README.md): the same kernels.
// PolyBench/GPU-style 2mm: D = alpha * A * B * C + beta * D as two matrix
// products, one thread per output element with a bounds check. DATA_TYPE
// is float unless -D DATA_TYPE=double.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define NI 1024
#define NJ 1024
#define NK 1024
#define NL 1024
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void mm2_kernel1(int ni, int nj, int nk, DATA_TYPE alpha, const DATA_TYPE *a,
                            const DATA_TYPE *b, DATA_TYPE *tmp) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) {
    DATA_TYPE acc = 0;
    for (int k = 0; k < nk; ++k) acc += alpha * a[i * nk + k] * b[k * nj + j];
    tmp[i * nj + j] = acc;
  }
}

__global__ void mm2_kernel2(int ni, int nj, int nl, DATA_TYPE beta, const DATA_TYPE *tmp,
                            const DATA_TYPE *c, DATA_TYPE *d) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nl) {
    d[i * nl + j] *= beta;
    for (int k = 0; k < nj; ++k) d[i * nl + j] += tmp[i * nj + k] * c[k * nl + j];
  }
}
