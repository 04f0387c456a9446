// black-scholes.cu: European call and put prices. The normal distribution
// function is a polynomial in 1/(1+0.2316419|d|), mirrored for d > 0.
// Any 1D grid/block (grid-stride).

static __device__ __forceinline__ float cnd(float d) {
  const float k1 = 0.31938153f, k2 = -0.356563782f, k3 = 1.781477937f, k4 = -1.821255978f,
              k5 = 1.330274429f;
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = 0.3989422804f * expf(-0.5f * d * d) *
            (k * (k1 + k * (k2 + k * (k3 + k * (k4 + k * k5)))));
  if (d > 0.0f) c = 1.0f - c;
  return c;
}

extern "C" __global__ void black_scholes(float *call, float *put, const float *spot,
                                         const float *strike, const float *years, float rate,
                                         float vol, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float s = spot[i], x = strike[i], t = years[i];
    float sq = sqrtf(t);
    float d1 = (logf(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sq);
    float d2 = d1 - vol * sq;
    float disc = x * expf(-rate * t);
    float c1 = cnd(d1), c2 = cnd(d2);
    call[i] = s * c1 - disc * c2;
    put[i] = disc * (1.0f - c2) - s * (1.0f - c1);
  }
}
