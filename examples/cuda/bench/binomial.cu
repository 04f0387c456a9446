// binomial.cu: American put options on a binomial tree, one option per
// block, backward induction over STEPS levels in shared memory (two
// buffers). blockDim.x = 256; grid = the number of options.

#define STEPS 512

extern "C" __global__ void binomial_put(const float *spot, const float *strike, const float *years,
                                        float *price, float rate, float vol) {
  __shared__ float a[STEPS + 1], b[STEPS + 1];
  int opt = blockIdx.x;
  float s = spot[opt], x = strike[opt], t = years[opt];
  float dt = t / STEPS;
  float vdt = vol * sqrtf(dt);
  float up = expf(vdt), disc = expf(-rate * dt);
  float pu = (expf(rate * dt) - 1.0f / up) / (up - 1.0f / up);
  float pd = 1.0f - pu;
  pu *= disc;
  pd *= disc;
  // Leaves: node j has price s * up^(2j - STEPS).
  for (int j = threadIdx.x; j <= STEPS; j += blockDim.x) {
    float payoff = x - s * expf(vdt * (2.0f * j - STEPS));
    a[j] = payoff > 0.0f ? payoff : 0.0f;
  }
  __syncthreads();
  float *cur = a, *nxt = b;
  for (int level = STEPS - 1; level >= 0; --level) {
    for (int j = threadIdx.x; j <= level; j += blockDim.x) {
      float hold = pu * cur[j + 1] + pd * cur[j];
      float exercise = x - s * expf(vdt * (2.0f * j - level));
      nxt[j] = exercise > hold ? exercise : hold;
    }
    __syncthreads();
    float *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  if (threadIdx.x == 0) price[opt] = cur[0];
}
