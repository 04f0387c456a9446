// histogram.cu: 256-bin byte histograms with integer atomics (the counts do
// not depend on the order). Any 1D grid/block.

// Straight to global memory; each word holds four bytes.
extern "C" __global__ void histo_global(const unsigned *words, int nwords, unsigned *bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x) {
    unsigned w = words[i];
    atomicAdd(&bins[w & 255], 1u);
    atomicAdd(&bins[(w >> 8) & 255], 1u);
    atomicAdd(&bins[(w >> 16) & 255], 1u);
    atomicAdd(&bins[w >> 24], 1u);
  }
}

// Per-block bins in shared memory, merged into global memory at the end
// (only the non-empty ones).
extern "C" __global__ void histo_shared(const unsigned *words, int nwords, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x) {
    unsigned w = words[i];
    for (int k = 0; k < 4; ++k) atomicAdd(&local[(w >> (8 * k)) & 255], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    unsigned c = local[b];
    if (c) atomicAdd(&bins[b], c);
  }
}

// Values in [lo, hi) into nbins equal bins; others are counted in
// bins[nbins] (out of range).
extern "C" __global__ void histo_range(const float *x, int n, float lo, float hi, int nbins,
                                       int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  int b;
  if (v < lo || v >= hi) {
    b = nbins;
  } else {
    b = (int)((v - lo) / (hi - lo) * nbins);
    if (b >= nbins) b = nbins - 1;
  }
  atomicAdd(&bins[b], 1);
}
