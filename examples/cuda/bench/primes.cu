// primes.cu: primality by trial division, leaving at the first divisor.
// Any 1D grid/block.

static __device__ __forceinline__ int smallest_factor(unsigned v) {
  if (v < 2) return 0;
  if ((v & 1u) == 0) return 2;
  if (v % 3 == 0) return 3;
  for (unsigned d = 5; d <= v / d; d += 6) {
    if (v % d == 0) return d;
    if (v % (d + 2) == 0) return d + 2;
  }
  return v;
}

// factor[i] = the smallest prime factor of values[i] (0 for 0 and 1).
extern "C" __global__ void smallest_factors(const unsigned *values, unsigned *factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  factor[i] = smallest_factor(values[i]);
}

// Counts the primes among base, base + 2, ..., one odd number per thread.
extern "C" __global__ void count_primes(unsigned base, int n, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = (base | 1u) + 2u * i;
  if (smallest_factor(v) == (int)v) atomicAdd(count, 1);
}
