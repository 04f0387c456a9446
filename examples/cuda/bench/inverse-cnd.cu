// inverse-cnd.cu: the inverse of the standard normal distribution function
// by rational approximations: a central one for 0.02425 <= p <= 0.97575
// and a tail one in sqrt(-2 log q) otherwise (Acklam's coefficients).
// Any 1D grid/block (grid-stride).

static __device__ __forceinline__ float icnd(float p) {
  const float a0 = -3.969683028665376e+01f, a1 = 2.209460984245205e+02f,
              a2 = -2.759285104469687e+02f, a3 = 1.383577518672690e+02f,
              a4 = -3.066479806614716e+01f, a5 = 2.506628277459239e+00f;
  const float b0 = -5.447609879822406e+01f, b1 = 1.615858368580409e+02f,
              b2 = -1.556989798598866e+02f, b3 = 6.680131188771972e+01f,
              b4 = -1.328068155288572e+01f;
  const float c0 = -7.784894002430293e-03f, c1 = -3.223964580411365e-01f,
              c2 = -2.400758277161838e+00f, c3 = -2.549732539343734e+00f,
              c4 = 4.374664141464968e+00f, c5 = 2.938163982698783e+00f;
  const float d0 = 7.784695709041462e-03f, d1 = 3.224671290700398e-01f,
              d2 = 2.445134137142996e+00f, d3 = 3.754408661907416e+00f;
  if (p <= 0.0f) return -3.0e38f;
  if (p >= 1.0f) return 3.0e38f;
  float x;
  if (p < 0.02425f || p > 0.97575f) {
    float q = sqrtf(-2.0f * logf(p < 0.5f ? p : 1.0f - p));
    x = (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
        ((((d0 * q + d1) * q + d2) * q + d3) * q + 1.0f);
    if (p > 0.5f) x = -x;
  } else {
    float q = p - 0.5f, r = q * q;
    x = (((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q /
        (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1.0f);
  }
  return x;
}

extern "C" __global__ void inverse_cnd(const float *p, float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = icnd(p[i]);
}

// Normal samples from a uniform lattice: u = (i + 0.5) / n.
extern "C" __global__ void normal_lattice(float *x, int n, float mean, float sigma) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = mean + sigma * icnd((i + 0.5f) / n);
}
