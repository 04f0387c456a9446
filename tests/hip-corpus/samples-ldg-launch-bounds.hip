// HIP port of tests/cuda-corpus/samples-ldg-launch-bounds.cu (README.md): the same kernels.
// Read-only loads and launch bounds: __ldg on float, float4 and int, a
// __launch_bounds__(256, 2) SpMV-like CSR kernel with a per-row trip count,
// and __restrict__ pointers.

__global__ void __launch_bounds__(256, 2)
    csr_spmv(const int *__restrict__ row_ptr, const int *__restrict__ cols,
             const float *__restrict__ vals, const float *__restrict__ x, float *__restrict__ y,
             int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  int end = __ldg(&row_ptr[row + 1]);
  for (int k = __ldg(&row_ptr[row]); k < end; ++k) sum += __ldg(&vals[k]) * __ldg(&x[__ldg(&cols[k])]);
  y[row] = sum;
}

__global__ void __launch_bounds__(128) saxpy4(const float4 *__restrict__ x, float4 *y, float a, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 xv = __ldg(&x[i]);
    float4 yv = y[i];
    yv.x += a * xv.x;
    yv.y += a * xv.y;
    yv.z += a * xv.z;
    yv.w += a * xv.w;
    y[i] = yv;
  }
}

__global__ void __launch_bounds__(512, 1) gather_double(const double *__restrict__ src,
                                                          const int *__restrict__ idx,
                                                          double *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = __ldg(idx + i);
    dst[i] = j < 0 ? 0.0 : __ldg(src + j);
  }
}
