// HIP port of tests/cuda-corpus/samples-simple-templates.cu (README.md): the same kernels.
// CUDA-samples-style templates: a kernel templated on the element type
// with a SharedMemory<T> specialisation per type, a functor template
// parameter, and a templated device helper with a compile-time branch.

template <typename T>
struct SharedMemory {
  __device__ T *getPointer() {
    extern __device__ void error(void);
    error();
    return NULL;
  }
};

template <>
struct SharedMemory<int> {
  __device__ int *getPointer() {
    extern __shared__ int s_int[];
    return s_int;
  }
};

template <>
struct SharedMemory<float> {
  __device__ float *getPointer() {
    extern __shared__ float s_float[];
    return s_float;
  }
};

template <>
struct SharedMemory<double> {
  __device__ double *getPointer() {
    extern __shared__ double s_double[];
    return s_double;
  }
};

template <class T>
__global__ void test_kernel(const T *g_idata, T *g_odata, int n) {
  SharedMemory<T> smem;
  T *sdata = smem.getPointer();
  const unsigned tid = threadIdx.x;
  const unsigned num_threads = blockDim.x;
  sdata[tid] = tid < (unsigned)n ? g_idata[tid] : (T)0;
  __syncthreads();
  sdata[tid] = (T)num_threads * sdata[tid];
  __syncthreads();
  if (tid < (unsigned)n) g_odata[tid] = sdata[(tid + 1) % num_threads];
}

template __global__ void test_kernel<int>(const int *, int *, int);
template __global__ void test_kernel<float>(const float *, float *, int);
template __global__ void test_kernel<double>(const double *, double *, int);

struct Clamp {
  float lo, hi;
  __device__ float operator()(float x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

struct LeakyRelu {
  float slope;
  __device__ float operator()(float x) const { return x >= 0.0f ? x : slope * x; }
};

template <typename Op, int UNROLL>
__global__ void apply_op(float *data, int n, Op op) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    int i = base + u;
    if (i < n) data[i] = op(data[i]);
  }
}

template __global__ void apply_op<Clamp, 4>(float *, int, Clamp);
template __global__ void apply_op<LeakyRelu, 2>(float *, int, LeakyRelu);

template <bool Inclusive, typename T>
__device__ T warp_prefix(T v) {
  unsigned lane = threadIdx.x & 31;
  T x = v;
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= (unsigned)d) x += y;
  }
  if (Inclusive) return x;
  return x - v;
}

template <bool Inclusive>
__global__ void warp_scan(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = warp_prefix<Inclusive>(in[i]);
}

template __global__ void warp_scan<true>(const int *, int *);
template __global__ void warp_scan<false>(const int *, int *);
