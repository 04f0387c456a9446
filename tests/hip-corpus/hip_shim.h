// hip_shim.h: just enough of HIP's device-side API for the kernels of
// tests/hip-corpus, without ROCm. Written for this corpus (nothing here is
// copied from ROCm's or clang's headers); it is what clang-22 needs to
// compile the corpus as HIP device code:
//
//   clang-22 -x hip --offload-arch=gfx90a --cuda-device-only -nogpulib \
//     -nogpuinc -include tests/hip-corpus/hip_shim.h -O2 -S -emit-llvm F.hip
//
// What it maps, and how:
//  * the function and variable qualifiers (__global__, __device__, ...) to
//    clang's CUDA/HIP attributes; __launch_bounds__(threads[, blocks]) to
//    amdgpu_flat_work_group_size(1, threads);
//  * threadIdx, blockIdx: the workitem and workgroup id builtins;
//    blockDim: __builtin_amdgcn_workgroup_size_{x,y,z} (the implicit
//    kernel arguments); gridDim: the block counts at the start of the
//    implicit kernel arguments (code object v5 and newer, clang-22's
//    default). They are expressions, not variables: `&threadIdx` does not
//    compile;
//  * __syncthreads: a workgroup release fence, s_barrier, an acquire fence;
//    __threadfence: a sequentially consistent agent-scope fence;
//    __syncwarp: the same as __syncthreads at wavefront scope;
//  * warpSize: __builtin_amdgcn_wavefrontsize() (64 on gfx9, 32 on gfx10+);
//    lane masks are 64-bit as in HIP; the mask argument of the *_sync
//    functions is ignored (all active lanes take part, as on AMD GPUs);
//  * shuffles with ds_bpermute, votes with ballot; __activemask is the
//    ballot of true; __match_any_sync / __match_all_sync with
//    readfirstlane (a loop over the distinct values, for match_any);
//  * the CUDA atomics on __hip_atomic builtins (relaxed, agent scope; the
//    _block and _system variants at workgroup and system scope);
//  * math: what the AMDGPU backend selects natively as __builtin_* (the
//    LLVM intrinsics: sqrt, exp, log, sin and cos in float, fma, fabs,
//    fmin/fmax, floor, rint, ...); the functions it cannot select (double
//    exp, log, sin, cos, pow, atan; float tanh, atan2, erf, cbrt) are
//    declared as the ROCm device library's __ocml_* functions, which HIP's
//    headers call. No device library is linked, so they stay undefined
//    calls in the IR (their real bodies would be inlined, with control
//    flow of their own);
//  * half and bfloat16 (hip_fp16.h / hip_bf16.h style): _Float16 and
//    __bf16 with the few conversions and operators the corpus uses;
//  * float2/float4/int4 as plain structs; __ldg as a plain load; printf
//    as clang's device printf (calls to the undefined __ockl_printf_*
//    hostcall functions); assert as a trap.
//
// What it omits: everything else of HIP (host API, streams, dynamic
// parallelism, textures and surfaces, which need image descriptors and
// ROCm's device library, cooperative groups beyond hip_cg_shim.h, the
// full math library, vector types' operators, managed memory).
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
// The maximum threads per block only: clang ignores CUDA's launch_bounds
// attribute for AMDGPU, and the minimum blocks per multiprocessor has no
// direct AMDGPU counterpart (HIP turns it into a waves-per-EU hint).
#define __launch_bounds__(...) __SHIM_LAUNCH_BOUNDS(__VA_ARGS__, 0)
#define __SHIM_LAUNCH_BOUNDS(threads, ...) __attribute__((amdgpu_flat_work_group_size(1, threads)))
#define __SHIM__ static __device__ __forceinline__

#ifndef NULL
#define NULL nullptr
#endif

// ---- indices and sizes -------------------------------------------------

struct __shim_uint3 {
  unsigned x, y, z;
};

__SHIM__ __shim_uint3 __shim_thread_idx() {
  return {__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
          __builtin_amdgcn_workitem_id_z()};
}
__SHIM__ __shim_uint3 __shim_block_idx() {
  return {__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
          __builtin_amdgcn_workgroup_id_z()};
}
__SHIM__ __shim_uint3 __shim_block_dim() {
  return {__builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
          __builtin_amdgcn_workgroup_size_z()};
}
// hidden_block_count_{x,y,z}: the first three words of the implicit
// arguments (code object v5+).
__SHIM__ __shim_uint3 __shim_grid_dim() {
  typedef const unsigned __attribute__((address_space(4))) *implicit_words;
  implicit_words words = (implicit_words)__builtin_amdgcn_implicitarg_ptr();
  return {words[0], words[1], words[2]};
}

#define threadIdx (__shim_thread_idx())
#define blockIdx (__shim_block_idx())
#define blockDim (__shim_block_dim())
#define gridDim (__shim_grid_dim())
#define warpSize (__builtin_amdgcn_wavefrontsize())

// ---- barriers and fences -----------------------------------------------

__SHIM__ void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__SHIM__ void __syncwarp(unsigned long long = ~0ull) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
__SHIM__ void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
// s_sleep takes a constant (units of 64 clocks), not nanoseconds.
__SHIM__ void __nanosleep(unsigned) { __builtin_amdgcn_s_sleep(1); }

// ---- bits --------------------------------------------------------------

__SHIM__ int __popc(unsigned x) { return __builtin_popcount(x); }
__SHIM__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__SHIM__ int __ffs(unsigned x) { return __builtin_ffs((int)x); }
__SHIM__ int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
__SHIM__ int __clz(unsigned x) { return __builtin_clzg(x, 32); }
__SHIM__ unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
__SHIM__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__SHIM__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__SHIM__ double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__SHIM__ long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }

// ---- wave functions ----------------------------------------------------

typedef unsigned long long __shim_lanemask;

__SHIM__ int __lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
__SHIM__ __shim_lanemask __ballot_sync(__shim_lanemask, int predicate) {
  return __builtin_amdgcn_ballot_w64(predicate != 0);
}
__SHIM__ __shim_lanemask __activemask() { return __builtin_amdgcn_ballot_w64(true); }
__SHIM__ int __any_sync(__shim_lanemask mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
__SHIM__ int __all_sync(__shim_lanemask mask, int predicate) {
  return __ballot_sync(mask, predicate) == __activemask();
}

// ds_bpermute moves 32 bits from lane index/4; wider values in 32-bit parts.
template <typename T>
__SHIM__ T __shim_permute(int lane, T value) {
  static_assert(sizeof(T) % 4 == 0, "shuffles move 32-bit words");
  struct words {
    int w[sizeof(T) / 4];
  } in = __builtin_bit_cast(words, value), out;
  for (unsigned i = 0; i < sizeof(T) / 4; ++i) out.w[i] = __builtin_amdgcn_ds_bpermute(lane << 2, in.w[i]);
  return __builtin_bit_cast(T, out);
}

// The shuffles of CUDA within sections of `width` lanes; a source outside
// the caller's section gives the caller's own value.
template <typename T>
__SHIM__ T __shfl_sync(__shim_lanemask, T value, int source, int width = warpSize) {
  int self = __lane_id();
  return __shim_permute((self & -width) + (source & (width - 1)), value);
}
template <typename T>
__SHIM__ T __shfl_up_sync(__shim_lanemask, T value, unsigned delta, int width = warpSize) {
  int self = __lane_id();
  int source = (self & (width - 1)) >= (int)delta ? self - (int)delta : self;
  return __shim_permute(source, value);
}
template <typename T>
__SHIM__ T __shfl_down_sync(__shim_lanemask, T value, unsigned delta, int width = warpSize) {
  int self = __lane_id();
  int source = (self & (width - 1)) + (int)delta < width ? self + (int)delta : self;
  return __shim_permute(source, value);
}
template <typename T>
__SHIM__ T __shfl_xor_sync(__shim_lanemask, T value, int lane_mask, int width = warpSize) {
  int self = __lane_id();
  int source = self ^ lane_mask;
  return __shim_permute((source & -width) == (self & -width) ? source : self, value);
}

// The lanes holding the same value as this one: one round per distinct
// value, the first active lane's value each time.
__SHIM__ __shim_lanemask __match_any_sync(__shim_lanemask, int value) {
  __shim_lanemask peers;
  for (;;) {
    int first = __builtin_amdgcn_readfirstlane(value);
    peers = __builtin_amdgcn_ballot_w64(value == first);
    if (value == first) break;
  }
  return peers;
}
__SHIM__ __shim_lanemask __match_all_sync(__shim_lanemask, int value, int *predicate) {
  __shim_lanemask active = __activemask();
  int first = __builtin_amdgcn_readfirstlane(value);
  *predicate = __builtin_amdgcn_ballot_w64(value == first) == active;
  return *predicate ? active : 0;
}

// ---- atomics -----------------------------------------------------------

// The value parameter takes the pointer's type (no deduction from it), as
// CUDA's overloads convert their arguments.
template <typename T>
struct __shim_same {
  typedef T type;
};
#define __SHIM_ATOMIC(name, builtin, scope)                                                   \
  template <typename T>                                                                       \
  __SHIM__ T name(T *address, typename __shim_same<T>::type value) {                          \
    return builtin(address, value, __ATOMIC_RELAXED, scope);                                  \
  }
__SHIM_ATOMIC(atomicAdd, __hip_atomic_fetch_add, __HIP_MEMORY_SCOPE_AGENT)
__SHIM_ATOMIC(atomicAdd_block, __hip_atomic_fetch_add, __HIP_MEMORY_SCOPE_WORKGROUP)
__SHIM_ATOMIC(atomicSub, __hip_atomic_fetch_sub, __HIP_MEMORY_SCOPE_AGENT)
__SHIM_ATOMIC(atomicExch, __hip_atomic_exchange, __HIP_MEMORY_SCOPE_AGENT)
__SHIM_ATOMIC(atomicMax, __hip_atomic_fetch_max, __HIP_MEMORY_SCOPE_AGENT)
__SHIM_ATOMIC(atomicMax_system, __hip_atomic_fetch_max, __HIP_MEMORY_SCOPE_SYSTEM)
__SHIM_ATOMIC(atomicMin, __hip_atomic_fetch_min, __HIP_MEMORY_SCOPE_AGENT)
__SHIM_ATOMIC(atomicAnd, __hip_atomic_fetch_and, __HIP_MEMORY_SCOPE_AGENT)
__SHIM_ATOMIC(atomicOr, __hip_atomic_fetch_or, __HIP_MEMORY_SCOPE_AGENT)
__SHIM_ATOMIC(atomicXor, __hip_atomic_fetch_xor, __HIP_MEMORY_SCOPE_AGENT)
#undef __SHIM_ATOMIC

template <typename T>
__SHIM__ T atomicCAS(T *address, typename __shim_same<T>::type compare,
                     typename __shim_same<T>::type value) {
  __hip_atomic_compare_exchange_strong(address, &compare, value, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  return compare;
}
// CUDA's wrapping increment and decrement (old >= limit ? 0 : old + 1, and
// old == 0 || old > limit ? limit : old - 1).
__SHIM__ unsigned atomicInc(unsigned *address, unsigned limit) {
  return __builtin_amdgcn_atomic_inc32(address, limit, __ATOMIC_RELAXED, "agent");
}
__SHIM__ unsigned atomicDec(unsigned *address, unsigned limit) {
  return __builtin_amdgcn_atomic_dec32(address, limit, __ATOMIC_RELAXED, "agent");
}

// ---- math --------------------------------------------------------------

// Selected natively by the AMDGPU backend (LLVM intrinsics).
__SHIM__ float sqrtf(float x) { return __builtin_sqrtf(x); }
__SHIM__ float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
__SHIM__ float expf(float x) { return __builtin_expf(x); }
__SHIM__ float logf(float x) { return __builtin_logf(x); }
__SHIM__ float log2f(float x) { return __builtin_log2f(x); }
__SHIM__ float powf(float x, float y) { return __builtin_powf(x, y); }
__SHIM__ float sinf(float x) { return __builtin_sinf(x); }
__SHIM__ float cosf(float x) { return __builtin_cosf(x); }
__SHIM__ float fabsf(float x) { return __builtin_fabsf(x); }
__SHIM__ float fminf(float x, float y) { return __builtin_fminf(x, y); }
__SHIM__ float fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
__SHIM__ float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
__SHIM__ float __expf(float x) { return __builtin_amdgcn_exp2f(x * 1.4426950408889634f); }
__SHIM__ float __sinf(float x) { return __builtin_amdgcn_sinf(x * 0.15915494309189535f); }
__SHIM__ float __fdividef(float x, float y) { return x * __builtin_amdgcn_rcpf(y); }
__SHIM__ double sqrt(double x) { return __builtin_sqrt(x); }
__SHIM__ double fabs(double x) { return __builtin_fabs(x); }
__SHIM__ double fmin(double x, double y) { return __builtin_fmin(x, y); }
__SHIM__ double floor(double x) { return __builtin_floor(x); }
__SHIM__ double rint(double x) { return __builtin_rint(x); }

// Not selectable: ROCm device library functions, left undefined.
extern "C" {
__device__ float __ocml_tanh_f32(float);
__device__ float __ocml_atan2_f32(float, float);
__device__ float __ocml_erf_f32(float);
__device__ float __ocml_cbrt_f32(float);
__device__ double __ocml_exp_f64(double);
__device__ double __ocml_log_f64(double);
__device__ double __ocml_sin_f64(double);
__device__ double __ocml_cos_f64(double);
__device__ double __ocml_pow_f64(double, double);
__device__ double __ocml_atan_f64(double);
}
__SHIM__ float tanhf(float x) { return __ocml_tanh_f32(x); }
__SHIM__ float atan2f(float y, float x) { return __ocml_atan2_f32(y, x); }
__SHIM__ float erff(float x) { return __ocml_erf_f32(x); }
__SHIM__ float cbrtf(float x) { return __ocml_cbrt_f32(x); }
__SHIM__ double exp(double x) { return __ocml_exp_f64(x); }
__SHIM__ double log(double x) { return __ocml_log_f64(x); }
__SHIM__ double sin(double x) { return __ocml_sin_f64(x); }
__SHIM__ double cos(double x) { return __ocml_cos_f64(x); }
__SHIM__ double pow(double x, double y) { return __ocml_pow_f64(x, y); }
__SHIM__ double atan(double x) { return __ocml_atan_f64(x); }

// ---- vector types, loads, printf, assert -------------------------------

struct float2 {
  float x, y;
};
struct __attribute__((aligned(16))) float4 {
  float x, y, z, w;
};
struct __attribute__((aligned(16))) int4 {
  int x, y, z, w;
};

template <typename T>
__SHIM__ T __ldg(const T *address) {
  return *address;
}

extern "C" __device__ int printf(const char *format, ...);
#define assert(condition) ((condition) ? (void)0 : __builtin_trap())

// ---- half and bfloat16 -------------------------------------------------

typedef _Float16 __half;
typedef _Float16 __half2 __attribute__((ext_vector_type(2)));
typedef __bf16 __hip_bfloat16;
typedef __bf16 __hip_bfloat162 __attribute__((ext_vector_type(2)));

__SHIM__ __half __float2half(float x) { return (__half)x; }
__SHIM__ __half __float2half_rn(float x) { return (__half)x; }
__SHIM__ float __half2float(__half x) { return (float)x; }
__SHIM__ __half2 __float2half2_rn(float x) { return (__half2){(__half)x, (__half)x}; }
__SHIM__ float2 __half22float2(__half2 x) { return {(float)x.x, (float)x.y}; }
__SHIM__ __half2 __halves2half2(__half low, __half high) { return (__half2){low, high}; }
__SHIM__ __half __low2half(__half2 x) { return x.x; }
__SHIM__ __half __hadd(__half a, __half b) { return a + b; }
__SHIM__ __half __hmul(__half a, __half b) { return a * b; }
__SHIM__ __half __hneg(__half a) { return -a; }
__SHIM__ bool __hgt(__half a, __half b) { return a > b; }
__SHIM__ bool __hlt(__half a, __half b) { return a < b; }
__SHIM__ __half2 __hadd2(__half2 a, __half2 b) { return a + b; }
__SHIM__ __half2 __hmul2(__half2 a, __half2 b) { return a * b; }
__SHIM__ __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __builtin_elementwise_fma(a, b, c); }

__SHIM__ __hip_bfloat16 __float2bfloat16(float x) { return (__hip_bfloat16)x; }
__SHIM__ __hip_bfloat16 __float2bfloat16_rn(float x) { return (__hip_bfloat16)x; }
__SHIM__ float __bfloat162float(__hip_bfloat16 x) { return (float)x; }
__SHIM__ float2 __bfloat1622float2(__hip_bfloat162 x) { return {(float)x.x, (float)x.y}; }
__SHIM__ __hip_bfloat16 __hmul(__hip_bfloat16 a, __hip_bfloat16 b) { return a * b; }
__SHIM__ bool __hlt(__hip_bfloat16 a, __hip_bfloat16 b) { return a < b; }
__SHIM__ __hip_bfloat162 __hmul2(__hip_bfloat162 a, __hip_bfloat162 b) { return a * b; }
__SHIM__ __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return (__hip_bfloat16)__builtin_fmaf((float)a, (float)b, (float)c);
}
