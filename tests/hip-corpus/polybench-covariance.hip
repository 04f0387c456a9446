// HIP port of tests/cuda-corpus/polybench-covariance.cu (README.md): the same kernels.
// PolyBench/GPU-style covariance: means, centring, and the symmetric
// covariance matrix with a triangular inner loop; float.

typedef float DATA_TYPE;
#define FLOAT_N 3214212.01f

__global__ void cov_mean(DATA_TYPE *mean, const DATA_TYPE *data, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    mean[j] = 0.0f;
    for (int i = 0; i < n; ++i) mean[j] += data[i * m + j];
    mean[j] /= FLOAT_N;
  }
}

__global__ void cov_reduce(const DATA_TYPE *mean, DATA_TYPE *data, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < m) data[i * m + j] -= mean[j];
}

__global__ void cov_kernel(DATA_TYPE *symmat, const DATA_TYPE *data, int m, int n) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < m) {
    for (int j2 = j1; j2 < m; ++j2) {
      DATA_TYPE s = 0.0f;
      for (int i = 0; i < n; ++i) s += data[i * m + j1] * data[i * m + j2];
      symmat[j2 * m + j1] = s;
      symmat[j1 * m + j2] = s;
    }
  }
}
