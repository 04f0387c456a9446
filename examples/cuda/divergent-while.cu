// divergent-while.cu: a while loop whose exit depends on the data, with a
// divergent if-else inside and a second, early exit: the length of each
// element's Collatz sequence, capped.
//
//   scripts/cuda-to-ptx.sh examples/cuda/divergent-while.cu
//
// Threads of a warp leave the loop at different trips; the warp keeps
// running it until its last thread is done.

extern "C" __global__ void collatz_steps(const unsigned int *start, int *steps, int n,
                                         int max_steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int x = start[i];
  int count = 0;
  while (x != 1u) {
    if (x & 1u)
      x = 3u * x + 1u;
    else
      x >>= 1;
    if (++count == max_steps) {
      count = -1; // gave up
      break;
    }
  }
  steps[i] = count;
}
