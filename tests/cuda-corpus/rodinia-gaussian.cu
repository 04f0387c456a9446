// Rodinia-style Gaussian elimination: Fan1 computes the multipliers of
// one column, Fan2 updates the trailing sub-matrix and right-hand side; a
// simple host loop launches them (no main).

__global__ void fan1(const float *m_a, float *m_mult, int size, int t) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= size - 1 - t) return;
  float pivot = m_a[size * t + t];
  m_mult[size * (row + t + 1) + t] = pivot != 0.0f ? m_a[size * (row + t + 1) + t] / pivot : 0.0f;
}

__global__ void fan2(float *m_a, float *b, const float *m_mult, int size, int t) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= size - 1 - t || y >= size - t) return;
  float m = m_mult[size * (x + 1 + t) + t];
  m_a[size * (x + 1 + t) + (y + t)] -= m * m_a[size * t + (y + t)];
  if (y == 0) b[x + 1 + t] -= m * b[t];
}

void forward_sub(float *m_a, float *b, float *m_mult, int size) {
  dim3 block1(512), grid1((size + 511) / 512);
  dim3 block2(16, 16), grid2((size + 15) / 16, (size + 15) / 16);
  for (int t = 0; t < size - 1; ++t) {
    fan1<<<grid1, block1>>>(m_a, m_mult, size, t);
    fan2<<<grid2, block2>>>(m_a, b, m_mult, size, t);
  }
}
