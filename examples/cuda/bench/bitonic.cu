// bitonic.cu: bitonic sorting networks on (key, value) pairs.

#define SORT_N 1024

// Sorts each block's SORT_N pairs in shared memory, ascending by key, or
// descending for odd blocks (so that pairs of blocks form bitonic runs).
// blockDim.x = 512 (two elements per thread); n a multiple of SORT_N, grid
// n / SORT_N.
extern "C" __global__ void bitonic_sort_shared(int *keys, int *values) {
  __shared__ int k[SORT_N], v[SORT_N];
  int base = blockIdx.x * SORT_N;
  for (int i = threadIdx.x; i < SORT_N; i += blockDim.x) {
    k[i] = keys[base + i];
    v[i] = values[base + i];
  }
  bool descending = blockIdx.x & 1;
  for (int size = 2; size <= SORT_N; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int i = threadIdx.x; i < SORT_N; i += blockDim.x) {
        int j = i ^ stride;
        if (j > i) {
          bool up = ((i & size) == 0) != descending;
          int a = k[i], b = k[j];
          if ((a > b) == up) {
            k[i] = b;
            k[j] = a;
            int t = v[i];
            v[i] = v[j];
            v[j] = t;
          }
        }
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < SORT_N; i += blockDim.x) {
    keys[base + i] = k[i];
    values[base + i] = v[i];
  }
}

// One compare-exchange step of the global network (size, stride) on n keys:
// one thread per element, the lower index of each pair does the work.
// Any 1D grid/block covering n.
extern "C" __global__ void bitonic_step_global(int *keys, int *values, int n, int size,
                                               int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = i ^ stride;
  if (i >= n || j <= i || j >= n) return;
  bool up = (i & size) == 0;
  int a = keys[i], b = keys[j];
  if ((a > b) == up) {
    keys[i] = b;
    keys[j] = a;
    int t = values[i];
    values[i] = values[j];
    values[j] = t;
  }
}
