// HIP port of tests/cuda-corpus/samples-device-calls.cu (README.md): the same kernels.
// Device-side calls and odd control flow: __noinline__ helpers called from
// divergent branches with per-thread arguments, device recursion, function
// pointers chosen per thread, a switch with fall-through, goto, a spin lock
// (atomicCAS + __threadfence, one winner per warp at a time), __nanosleep
// back-off (sm_70+; CUDA's header emits it as inline asm, and ptxas takes
// it in the sm_70 route's PTX 6.2) and a per-thread local array indexed by
// a data-dependent value.

__device__ __noinline__ int collatz_steps(int x) {
  int steps = 0;
  while (x > 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

__device__ int fib_rec(int n) { return n < 2 ? n : fib_rec(n - 1) + fib_rec(n - 2); }

__device__ float op_square(float x) { return x * x; }
__device__ float op_negate(float x) { return -x; }
__device__ float op_halve(float x) { return 0.5f * x; }
typedef float (*unary_fn)(float);

__global__ void call_mix(const int *in, int *out, float *fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int r;
  if (v > 0)
    r = collatz_steps(v);
  else
    r = fib_rec(-v & 15);
  unary_fn fns[3] = {op_square, op_negate, op_halve};
  fout[i] = fns[(v & 0x7fffffff) % 3]((float)r);
  out[i] = r;
}

__global__ void switch_goto(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i], acc = 0, tries = 0;
retry:
  switch (v & 7) {
    case 0: acc += 1;  // fall through
    case 1: acc += 2; break;
    case 2:
    case 3: acc *= 3; break;
    case 4: v >>= 1; if (++tries < 4) goto retry; break;
    default: acc -= v; break;
  }
  int local[8];
  for (int k = 0; k < 8; ++k) local[k] = k * v;
  out[i] = acc + local[(v ^ i) & 7];
}

__device__ void lock(int *mutex) {
  while (atomicCAS(mutex, 0, 1) != 0) __nanosleep(32);
  __threadfence();
}

__device__ void unlock(int *mutex) {
  __threadfence();
  atomicExch(mutex, 0);
}

// One lane per warp takes the lock at a time (the others wait for their
// turn in the loop): the classic SIMT-safe spin lock.
__global__ void locked_update(int *mutex, float *total, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || in[i] == 0.0f) return;
  for (int lane = 0; lane < 32; ++lane) {
    if ((int)(threadIdx.x & 31) == lane) {
      lock(mutex);
      *total += in[i];
      unlock(mutex);
    }
  }
}
