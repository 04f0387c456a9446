// HIP port of tests/cuda-corpus/samples-fp16.cu (README.md): the same kernels.
// CUDA-samples-style half precision: a half2 dot product (__hfma2 over
// pairs, then a conversion to float and a block reduction), a scaled copy
// with __hmul/__hadd and a divergent clamp (__hlt/__hgt), and a
// mixed-precision AXPY that converts with __float2half / __half2float.

// __half and __half2 as hip_shim.h gives them.

#define NUM_THREADS 128

__global__ void scalar_product_half2(const __half2 *a, const __half2 *b, float *results, int n2) {
  __shared__ float partial[NUM_THREADS];
  __half2 acc = __float2half2_rn(0.0f);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x)
    acc = __hfma2(a[i], b[i], acc);
  float2 f = __half22float2(acc);
  partial[threadIdx.x] = f.x + f.y;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) results[blockIdx.x] = partial[0];
}

__global__ void scale_clamp_half(const __half *in, __half *out, int n, float scale, float limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half s = __float2half(scale);
  __half lim = __float2half(limit);
  __half v = __hmul(in[i], s);
  if (__hgt(v, lim)) {
    v = lim;
  } else if (__hlt(v, __hneg(lim))) {
    v = __hneg(lim);
  } else {
    v = __hadd(v, __float2half(0.5f));
  }
  out[i] = v;
}

__global__ void haxpy_mixed(int n, float a, const __half *x, __half *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float r = a * __half2float(x[i]) + __half2float(y[i]);
    if (r != r) r = 0.0f;  // NaN guard
    y[i] = __float2half_rn(r);
  }
}

__global__ void half2_add_pairs(const __half2 *x, const __half2 *y, __half2 *z, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) {
    __half2 s = __hadd2(x[i], y[i]);
    z[i] = __hmul2(s, __halves2half2(__low2half(s), __float2half(2.0f)));
  }
}
