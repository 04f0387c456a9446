// HIP port of tests/cuda-corpus/samples-matrixmul.cu (README.md): the same kernels.
// CUDA-samples-style tiled matrix multiplication, templated on the tile
// size (instantiated for 16 and 32), plus a variant for sizes that are not
// multiples of the tile (out-of-range tile elements read as zero).

template <int BLOCK_SIZE>
__global__ void matrix_mul_tiled(float *C, const float *A, const float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

template __global__ void matrix_mul_tiled<16>(float *, const float *, const float *, int, int);
template __global__ void matrix_mul_tiled<32>(float *, const float *, const float *, int, int);

#define TILE 16
__global__ void matrix_mul_ragged(float *C, const float *A, const float *B, int m, int k, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
    int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < m && ak < k ? A[row * k + ak] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = bk < k && col < n ? B[bk * n + col] : 0.0f;
    __syncthreads();
    for (int e = 0; e < TILE; ++e) acc = fmaf(As[threadIdx.y][e], Bs[e][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}
