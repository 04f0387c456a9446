// HIP port of tests/cuda-corpus/samples-printf-assert.cu (README.md): the same kernels.
// CUDA-samples-style printf and assert: device printf in a divergent
// branch, assert on a data-dependent condition (needs <cassert>), and NULL
// pointer checks on optional buffers.

// printf and assert as hip_shim.h gives them.

__global__ void print_negatives(const float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] < 0.0f) printf("block %d thread %d: data[%d] = %f\n", blockIdx.x, threadIdx.x, i, data[i]);
}

__global__ void checked_copy(const int *src, int *dst, const int *optional_bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = src[i];
  assert(v >= 0);
  if (optional_bias != NULL) v += optional_bias[i];
  dst[i] = v;
}

__global__ void hello_once(int *flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    printf("Hello from the first thread, grid of %d blocks\n", gridDim.x);
    *flag = 1;
  }
}
