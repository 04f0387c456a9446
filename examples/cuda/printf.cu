// printf.cu: device-side printf. clang packs the arguments into a local
// buffer and calls vprintf(format, buffer); ptxas knows vprintf.
//
//   scripts/cuda-to-ptx.sh examples/cuda/printf.cu
//
// The printf is in a divergent branch: only threads with a negative input
// print (one line each).

extern "C" __global__ void report_negative(const float *values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && values[i] < 0.0f)
    printf("block %d thread %d: values[%d] = %f\n", blockIdx.x, threadIdx.x, i, (double)values[i]);
}
