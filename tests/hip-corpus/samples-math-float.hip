// HIP port of tests/cuda-corpus/samples-math-float.cu (README.md): the same kernels.
// Single-precision math in divergent code: sinf/cosf/expf/logf/powf/
// sqrtf/rsqrtf/erff/tanhf/atan2f, the fast intrinsics (__expf, __sinf,
// __fdividef), fminf/fmaxf and a Black-Scholes-style option price with a
// branch on the sign of d.

__device__ float cnd(float d) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
              A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267793994605993438f;
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = RSQRT2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}

__global__ void black_scholes(float *call, float *put, const float *s, const float *x, const float *t,
                              float r, float v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float sqrt_t = sqrtf(t[i]);
    float d1 = (logf(s[i] / x[i]) + (r + 0.5f * v * v) * t[i]) / (v * sqrt_t);
    float d2 = d1 - v * sqrt_t;
    float cd1 = cnd(d1), cd2 = cnd(d2);
    float exp_rt = expf(-r * t[i]);
    call[i] = s[i] * cd1 - x[i] * exp_rt * cd2;
    put[i] = x[i] * exp_rt * (1.0f - cd2) - s[i] * (1.0f - cd1);
  }
}

__global__ void math_mix(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  float r;
  switch (i % 6) {
    case 0: r = sinf(v) * cosf(v); break;
    case 1: r = v > 0.0f ? powf(v, 1.5f) + rsqrtf(v) : erff(v); break;
    case 2: r = tanhf(v) + atan2f(v, 1.0f + fabsf(v)); break;
    case 3: r = __expf(v) * __sinf(v); break;
    case 4: r = __fdividef(v, 1.0f + v * v) + log2f(1.0f + fabsf(v)); break;
    default: r = fminf(fmaxf(v, -1.0f), 1.0f) + cbrtf(v); break;
  }
  out[i] = r;
}
