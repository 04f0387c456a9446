// HIP port of tests/cuda-corpus/rodinia-lud.cu (README.md): the same kernels.
// Rodinia-style LU decomposition, blocked: the diagonal block factorised by
// one block (triangular loops where the active threads shrink), the
// perimeter blocks (two halves of the block take different paths) and the
// internal blocks (a plain tile product).

#define BS 16

__global__ void lud_diagonal(float *m, int dim, int offset) {
  __shared__ float s[BS][BS];
  int tx = threadIdx.x;
  int base = offset * dim + offset;
  for (int i = 0; i < BS; ++i) s[i][tx] = m[base + i * dim + tx];
  __syncthreads();
  for (int i = 0; i < BS - 1; ++i) {
    if (tx > i) {
      for (int j = 0; j < i; ++j) s[tx][i] -= s[tx][j] * s[j][i];
      s[tx][i] /= s[i][i];
    }
    __syncthreads();
    if (tx > i) {
      for (int j = 0; j < i + 1; ++j) s[i + 1][tx] -= s[i + 1][j] * s[j][tx];
    }
    __syncthreads();
  }
  for (int i = 1; i < BS; ++i) m[base + i * dim + tx] = s[i][tx];
}

__global__ void lud_perimeter(float *m, int dim, int offset) {
  __shared__ float dia[BS][BS];
  __shared__ float row[BS][BS];
  __shared__ float col[BS][BS];
  int bx = blockIdx.x, tx = threadIdx.x;
  int base = offset * dim + offset;
  if (tx < BS) {
    int idx = tx;
    for (int i = 0; i < BS / 2; ++i) dia[i][idx] = m[base + i * dim + idx];
    for (int i = 0; i < BS; ++i) row[i][idx] = m[base + (bx + 1) * BS + i * dim + idx];
  } else {
    int idx = tx - BS;
    for (int i = BS / 2; i < BS; ++i) dia[i][idx] = m[base + i * dim + idx];
    for (int i = 0; i < BS; ++i) col[i][idx] = m[base + (bx + 1) * BS * dim + i * dim + idx];
  }
  __syncthreads();
  if (tx < BS) {
    int idx = tx;
    for (int i = 1; i < BS; ++i)
      for (int j = 0; j < i; ++j) row[i][idx] -= dia[i][j] * row[j][idx];
  } else {
    int idx = tx - BS;
    for (int i = 0; i < BS; ++i) {
      for (int j = 0; j < i; ++j) col[idx][i] -= col[idx][j] * dia[j][i];
      col[idx][i] /= dia[i][i];
    }
  }
  __syncthreads();
  if (tx < BS) {
    for (int i = 1; i < BS; ++i) m[base + (bx + 1) * BS + i * dim + tx] = row[i][tx];
  } else {
    int idx = tx - BS;
    for (int i = 0; i < BS; ++i) m[base + (bx + 1) * BS * dim + i * dim + idx] = col[i][idx];
  }
}

__global__ void lud_internal(float *m, int dim, int offset) {
  __shared__ float peri_row[BS][BS];
  __shared__ float peri_col[BS][BS];
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int g_row = offset + (by + 1) * BS;
  int g_col = offset + (bx + 1) * BS;
  peri_row[ty][tx] = m[(offset + ty) * dim + g_col + tx];
  peri_col[ty][tx] = m[(g_row + ty) * dim + offset + tx];
  __syncthreads();
  float sum = 0.0f;
  for (int i = 0; i < BS; ++i) sum += peri_col[ty][i] * peri_row[i][tx];
  m[(g_row + ty) * dim + g_col + tx] -= sum;
}
