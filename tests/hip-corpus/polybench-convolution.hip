// HIP port of tests/cuda-corpus/polybench-convolution.cu (README.md): the same kernels.
// PolyBench/GPU-style 2D and 3D convolution with fixed 3x3(x3)
// coefficients; interior points only; float for 2D, double for 3D.

typedef float DATA_TYPE;
typedef double DATA_TYPE3;

__global__ void convolution2d_kernel(int ni, int nj, const DATA_TYPE *a, DATA_TYPE *b) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  DATA_TYPE c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
  DATA_TYPE c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
  DATA_TYPE c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
  if (i < ni - 1 && j < nj - 1 && i > 0 && j > 0) {
    b[i * nj + j] = c11 * a[(i - 1) * nj + (j - 1)] + c21 * a[(i - 1) * nj + j] + c31 * a[(i - 1) * nj + (j + 1)] +
                    c12 * a[i * nj + (j - 1)] + c22 * a[i * nj + j] + c32 * a[i * nj + (j + 1)] +
                    c13 * a[(i + 1) * nj + (j - 1)] + c23 * a[(i + 1) * nj + j] + c33 * a[(i + 1) * nj + (j + 1)];
  }
}

__global__ void convolution3d_kernel(int ni, int nj, int nk, const DATA_TYPE3 *a, DATA_TYPE3 *b, int i) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  DATA_TYPE3 c11 = +2, c21 = +5, c31 = -8, c12 = -3, c22 = +6, c32 = -9, c13 = +4, c23 = +7, c33 = +10;
#define A3(x, y, z) a[(x) * (nk * nj) + (y) * nk + (z)]
  if (i < ni - 1 && j < nj - 1 && k < nk - 1 && i > 0 && j > 0 && k > 0) {
    b[i * (nk * nj) + j * nk + k] =
        c11 * A3(i - 1, j - 1, k - 1) + c13 * A3(i + 1, j - 1, k - 1) + c21 * A3(i - 1, j - 1, k - 1) +
        c23 * A3(i + 1, j - 1, k - 1) + c31 * A3(i - 1, j - 1, k - 1) + c33 * A3(i + 1, j - 1, k - 1) +
        c12 * A3(i, j - 1, k) + c22 * A3(i, j, k) + c32 * A3(i, j + 1, k) + c11 * A3(i - 1, j - 1, k + 1) +
        c13 * A3(i + 1, j - 1, k + 1) + c21 * A3(i - 1, j, k + 1) + c23 * A3(i + 1, j, k + 1) +
        c31 * A3(i - 1, j + 1, k + 1) + c33 * A3(i + 1, j + 1, k + 1);
  }
#undef A3
}
