// reduce-shared.cu: the classic shared-memory tree reduction. Each block
// sums blockDim.x elements (blockDim.x a power of two, at most 1024) and
// writes one partial sum; a second launch (or the host) adds the partials.
//
//   scripts/cuda-to-ptx.sh examples/cuda/reduce-shared.cu
//
// The `if (tid < s)` inside the loop is divergent (it depends on the thread
// id); the loop itself is uniform (s depends on blockDim only), so every
// thread reaches the __syncthreads() at the end of each trip.

extern "C" __global__ void reduce_shared(const float *in, float *block_sums, unsigned int n) {
  __shared__ float partial[1024];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}
