// trap-assert.cu: __trap() and assert() in divergent branches. Each ends the
// branch in an `unreachable` block (the thread stops there), so the branch
// has no successor that post-dominates it.
//
//   scripts/cuda-to-ptx.sh --reference examples/cuda/trap-assert.cu   # clang
//   scripts/cuda-to-ptx.sh examples/cuda/trap-assert.cu                # spmd
//
// A dead end imposes nothing on reconvergence: the other successor is the
// rejoin point (mlir-tests/cuda/trap-assert.cu checks the PTX). assert()
// is CUDA's own, from <cassert> (a call of __assertfail, then a trap).

#include <cassert>

extern "C" __global__ void checked_scale(float *data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = data[i];
  if (v != v) __trap(); // NaN in the input
  assert(v < 1e30f);
  data[i] = v * factor;
}
