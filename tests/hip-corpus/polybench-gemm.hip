// HIP port of tests/cuda-corpus/polybench-gemm.cu (README.md): the same kernels.
// PolyBench/GPU-style GEMM: C = alpha * A * B + beta * C; double by
// default (-D DATA_TYPE=float for single).

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#define ALPHA 32412
#define BETA 2123

__global__ void gemm_kernel(int ni, int nj, int nk, const DATA_TYPE *a, const DATA_TYPE *b, DATA_TYPE *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) {
    c[i * nj + j] *= BETA;
    for (int k = 0; k < nk; ++k) c[i * nj + j] += ALPHA * a[i * nk + k] * b[k * nj + j];
  }
}
