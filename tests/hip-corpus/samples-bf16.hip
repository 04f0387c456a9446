// HIP port of tests/cuda-corpus/samples-bf16.cu (README.md): the same kernels.
// bfloat16 arithmetic in the CUDA-samples style: conversions, __hmul on
// __hip_bfloat16 and __hip_bfloat162, __hfma (the CUDA file's sm_80 branch;
// no fallback needed here), a ReLU with a divergent branch and a float
// accumulation of a bf16 dot product with warp shuffles.

// bf16 as hip_shim.h gives it (HIP's __hip_bfloat16 names).

__global__ void bf16_relu_scale(const __hip_bfloat16 *in, __hip_bfloat16 *out, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __hip_bfloat16 v = in[i];
  if (__hlt(v, __float2bfloat16(0.0f))) {
    out[i] = __float2bfloat16(0.0f);
  } else {
    out[i] = __hmul(v, __float2bfloat16(scale));
  }
}

__global__ void bf16_dot(const __hip_bfloat162 *a, const __hip_bfloat162 *b, float *result, int n2) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x) {
    __hip_bfloat162 p = __hmul2(a[i], b[i]);
    float2 f = __bfloat1622float2(p);
    acc += f.x + f.y;
  }
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, acc);
}

__global__ void bf16_fma_convert(const float *x, const __hip_bfloat16 *w, __hip_bfloat16 *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __hip_bfloat16 xb = __float2bfloat16_rn(x[i]);
    __hip_bfloat16 r = __hfma(xb, w[i], __float2bfloat16(1.0f));
    y[i] = __bfloat162float(r) > 100.0f ? __float2bfloat16(100.0f) : r;
  }
}
