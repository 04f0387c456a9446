// half-precision.cu: 16-bit floating point from NVIDIA's cuda_fp16.h
// (__half, __half2) and cuda_bf16.h (__nv_bfloat16) in divergent code:
// conversions from and to float, __hmul/__hadd/__hfma and their half2
// forms, comparisons (__hgt, __hlt) that decide a data-dependent branch.
//
//   scripts/cuda-to-ptx.sh examples/cuda/half-precision.cu
//   scripts/cuda-to-ptx.sh --reference examples/cuda/half-precision.cu  # clang
//
// The kernels read and write float buffers (the 16-bit values live in
// registers only), so a harness needs no half-precision host code. fp16
// arithmetic is native on sm_53+ (add/mul/fma.rn.f16, .f16x2); bf16
// arithmetic is native on sm_90 (fma.rn.bf16) and goes through float
// below it (cvt.f32.bf16 and back). The fp16/bf16 roundings make the
// results exact only for small integers and simple fractions: the
// examples below use such values.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

// fp16 with a three-way divergent branch. For i < n, with
// h = half(in[i]) * half(scale):
//   out[i] = limit             when h > limit
//   out[i] = -limit            when h < -limit
//   out[i] = h * h + 0.25 (one __hfma in half precision) otherwise
// (the value is computed in __half and converted back to float).
// Example: scale = 2, limit = 8, in = {1, 5, -6, 0.5}: out = {4.25, 8, -8,
// 1.25}.
extern "C" __global__ void half_clamp_square(const float *in, float *out, int n, float scale,
                                             float limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half lim = __float2half(limit);
  __half h = __hmul(__float2half(in[i]), __float2half(scale));
  __half r;
  if (__hgt(h, lim)) {
    r = lim;
  } else if (__hlt(h, __hneg(lim))) {
    r = __hneg(lim);
  } else {
    r = __hfma(h, h, __float2half(0.25f));
  }
  out[i] = __half2float(r);
}

// half2: thread i < n2 packs (a[2i], a[2i+1]) and (b[2i], b[2i+1]) into two
// __half2, computes s = a + b and p = a * b lane-wise (__hadd2, __hmul2),
// and writes
//   out[2i] = s.x + p.x, out[2i+1] = s.y + p.y   when a[2i] >= 0
//   out[2i] = s.x - p.x, out[2i+1] = s.y - p.y   otherwise
// Example: a = {1, 2, -1, 3}, b = {3, 4, 2, 0.5}: out = {7, 14, 3, 2}.
extern "C" __global__ void half2_sum_product(const float *a, const float *b, float *out, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  __half2 x = __floats2half2_rn(a[2 * i], a[2 * i + 1]);
  __half2 y = __floats2half2_rn(b[2 * i], b[2 * i + 1]);
  __half2 s = __hadd2(x, y);
  __half2 p = __hmul2(x, y);
  __half2 r = a[2 * i] >= 0.0f ? __hadd2(s, p) : __hsub2(s, p);
  float2 f = __half22float2(r);
  out[2 * i] = f.x;
  out[2 * i + 1] = f.y;
}

// bf16 ReLU-AXPY: for i < n, with xb = bf16(x[i]), yb = bf16(y[i]):
//   out[i] = float(a * xb + yb) (one bf16 fma)   when xb > 0
//   out[i] = float(yb)                            otherwise
// Example: a = 2, x = {1, -1, 3}, y = {0.5, 4, -2}: out = {2.5, 4, 4}.
extern "C" __global__ void bf16_relu_axpy(const float *x, const float *y, float *out, int n,
                                          float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 xb = __float2bfloat16(x[i]);
  __nv_bfloat16 yb = __float2bfloat16(y[i]);
  __nv_bfloat16 r;
  if (__hgt(xb, __float2bfloat16(0.0f))) {
#if __CUDA_ARCH__ >= 800
    r = __hfma(__float2bfloat16(a), xb, yb);
#else
    // cuda_bf16.h declares the bf16 __hfma for sm_80+ only: fma in float.
    r = __float2bfloat16(fmaf(a, __bfloat162float(xb), __bfloat162float(yb)));
#endif
  } else {
    r = yb;
  }
  out[i] = __bfloat162float(r);
}
