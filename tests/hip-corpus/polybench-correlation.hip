// HIP port of tests/cuda-corpus/polybench-correlation.cu (README.md): the same kernels.
// PolyBench/GPU-style correlation: column means, standard deviations (with
// the small-value guard on sqrt), centring and the upper triangle of the
// correlation matrix (the inner loop starts at the thread's own column);
// double precision.

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#define FLOAT_N 3214212.01
#define EPS 0.005

__global__ void corr_mean(const DATA_TYPE *data, DATA_TYPE *mean, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    DATA_TYPE s = 0.0;
    for (int i = 0; i < n; ++i) s += data[i * m + j];
    mean[j] = s / (DATA_TYPE)FLOAT_N;
  }
}

__global__ void corr_std(const DATA_TYPE *data, const DATA_TYPE *mean, DATA_TYPE *stddev, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    DATA_TYPE s = 0.0;
    for (int i = 0; i < n; ++i) {
      DATA_TYPE d = data[i * m + j] - mean[j];
      s += d * d;
    }
    s /= (DATA_TYPE)FLOAT_N;
    s = sqrt(s);
    stddev[j] = s <= EPS ? 1.0 : s;
  }
}

__global__ void corr_reduce(DATA_TYPE *data, const DATA_TYPE *mean, const DATA_TYPE *stddev, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < m) {
    data[i * m + j] -= mean[j];
    data[i * m + j] /= sqrt((DATA_TYPE)FLOAT_N) * stddev[j];
  }
}

__global__ void corr_corr(const DATA_TYPE *data, DATA_TYPE *symmat, int m, int n) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < m - 1) {
    symmat[j1 * m + j1] = 1.0;
    for (int j2 = j1 + 1; j2 < m; ++j2) {
      DATA_TYPE s = 0.0;
      for (int i = 0; i < n; ++i) s += data[i * m + j1] * data[i * m + j2];
      symmat[j1 * m + j2] = s;
      symmat[j2 * m + j1] = s;
    }
  }
  if (j1 == m - 1) symmat[j1 * m + j1] = 1.0;
}
