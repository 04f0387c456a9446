// HIP port of tests/cuda-corpus/samples-simple-atomics.cu (README.md): the same kernels.
// CUDA-samples-style atomic intrinsics: every integer atomic on global
// memory, double atomicAdd, and atomicCAS loops (float max, double
// multiply) in a data-dependent branch.

__device__ float atomic_max_float(float *address, float val) {
  int *address_as_int = (int *)address;
  int old = *address_as_int, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(address_as_int, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

__device__ double atomic_mul_double(double *address, double val) {
  unsigned long long *p = (unsigned long long *)address;
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __double_as_longlong(val * __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

__global__ void atomics_kernel(int *g_odata, unsigned *u_odata, double *d_odata, float *f_odata,
                               const float *in, int n) {
  const unsigned tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid >= (unsigned)n) return;
  atomicAdd(&g_odata[0], 10);
  atomicExch(&g_odata[1], tid);
  atomicMax(&g_odata[2], tid);
  atomicMin(&g_odata[3], tid);
  atomicInc(&u_odata[0], 17);
  atomicDec(&u_odata[1], 137);
  atomicCAS(&g_odata[4], tid - 1, tid);
  atomicAnd(&g_odata[5], 2 * tid + 7);
  atomicOr(&g_odata[6], 1 << (tid % 32));
  atomicXor(&g_odata[7], tid);
  atomicSub(&g_odata[8], 10);
  float v = in[tid];
  if (v > 0.0f) {
    atomicAdd(&d_odata[0], (double)v);
    atomic_max_float(&f_odata[0], v);
  } else if (v < -1.0f) {
    atomic_mul_double(&d_odata[1], 1.0 + v * 1e-3);
  }
}

// System- and block-scoped variants (sm_60+), in a loop with a
// data-dependent trip count.
__global__ void scoped_atomics(int *counters, const int *work, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  for (int k = 0; k < work[tid]; ++k) {
    atomicAdd_block(&counters[k % 4], 1);
    if (k & 1) atomicMax_system(&counters[4], k);
  }
}
