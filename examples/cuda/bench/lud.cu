// lud.cu: the three kernels of a blocked in-place LU decomposition
// (no pivoting) of an n x n row-major matrix, for the diagonal block at
// (off, off). BS = 16; n and off multiples of BS.

#define BS 16

// Factors the diagonal block: block b of BS threads takes the one at
// off + b * BS (grid 1 for the LU step; a larger grid factors several
// diagonal blocks, as a block-Jacobi preconditioner does). Thread r owns
// row r.
extern "C" __global__ void lud_diagonal(float *m, int n, int off) {
  __shared__ float a[BS][BS];
  int r = threadIdx.x;
  off += blockIdx.x * BS;
  for (int c = 0; c < BS; ++c) a[r][c] = m[(off + r) * n + off + c];
  __syncthreads();
  for (int k = 0; k < BS - 1; ++k) {
    if (r > k) {
      float l = a[r][k] / a[k][k];
      a[r][k] = l;
      for (int c = k + 1; c < BS; ++c) a[r][c] -= l * a[k][c];
    }
    __syncthreads();
  }
  for (int c = 0; c < BS; ++c) m[(off + r) * n + off + c] = a[r][c];
}

// The blocks right of and below the diagonal block, one pair per block of
// 2*BS threads: the first BS threads solve L * X = A for column c of the
// block to the right, the others X * U = A for row c of the block below.
// grid (n - off) / BS - 1.
extern "C" __global__ void lud_perimeter(float *m, int n, int off) {
  __shared__ float diag[BS][BS], right[BS][BS], below[BS][BS];
  int t = threadIdx.x, c = t % BS;
  int blk = off + (blockIdx.x + 1) * BS;
  if (t < BS) {
    for (int r = 0; r < BS; ++r) {
      diag[r][c] = m[(off + r) * n + off + c];
      right[r][c] = m[(off + r) * n + blk + c];
    }
  } else {
    for (int r = 0; r < BS; ++r) below[r][c] = m[(blk + r) * n + off + c];
  }
  __syncthreads();
  if (t < BS) {
    // Forward substitution down column c (L has a unit diagonal).
    for (int r = 1; r < BS; ++r) {
      float s = right[r][c];
      for (int k = 0; k < r; ++k) s -= diag[r][k] * right[k][c];
      right[r][c] = s;
    }
    for (int r = 0; r < BS; ++r) m[(off + r) * n + blk + c] = right[r][c];
  } else {
    // Row c of the block below: x * U = a, left to right.
    for (int k = 0; k < BS; ++k) {
      float s = below[c][k];
      for (int j = 0; j < k; ++j) s -= below[c][j] * diag[j][k];
      below[c][k] = s / diag[k][k];
    }
    for (int k = 0; k < BS; ++k) m[(blk + c) * n + off + k] = below[c][k];
  }
}

// The trailing submatrix: A -= L * U, one BS x BS block per block.
// block (BS, BS), grid ((n-off)/BS - 1, (n-off)/BS - 1).
extern "C" __global__ void lud_internal(float *m, int n, int off) {
  __shared__ float l[BS][BS], u[BS][BS];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = off + (blockIdx.y + 1) * BS + ty, col = off + (blockIdx.x + 1) * BS + tx;
  l[ty][tx] = m[row * n + off + tx];
  u[ty][tx] = m[(off + ty) * n + col];
  __syncthreads();
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < BS; ++k) s += l[ty][k] * u[k][tx];
  m[row * n + col] -= s;
}
