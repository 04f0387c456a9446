// last-block-reduce.cu: a single-pass sum. Every block reduces its
// grid-stride share to a partial, publishes it behind __threadfence(), and
// counts itself in *done with atomicInc; the block that counts last adds the
// partials (in index order) and resets the counter. blockDim.x = 256; any
// grid; *done must be 0 at launch.

#define THREADS 256

static __device__ __forceinline__ float block_sum(float v, float *s) {
  unsigned tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (unsigned half = THREADS / 2; half > 0; half >>= 1) {
    if (tid < half) s[tid] += s[tid + half];
    __syncthreads();
  }
  float r = s[0];
  __syncthreads();
  return r;
}

extern "C" __global__ void sum_last_block(const float *in, float *partials, unsigned *done,
                                          float *result, int n) {
  __shared__ float s[THREADS];
  __shared__ bool is_last;
  float acc = 0.0f;
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS) acc += in[i];
  float block = block_sum(acc, s);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block;
    __threadfence();
    unsigned ticket = atomicInc(done, gridDim.x);
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  acc = 0.0f;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += THREADS) acc += ((volatile float *)partials)[i];
  float total = block_sum(acc, s);
  if (threadIdx.x == 0) {
    *result = total;
    *done = 0;
  }
}
