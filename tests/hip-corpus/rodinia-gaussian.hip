// HIP port of tests/cuda-corpus/rodinia-gaussian.cu (README.md): the same kernels.
// Rodinia-style Gaussian elimination: Fan1 computes the multipliers of
// one column, Fan2 updates the trailing sub-matrix and right-hand side.

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

// (The host loop that launches fan1 and fan2 is left out: host code.)
