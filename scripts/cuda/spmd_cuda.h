/* spmd_cuda.h: enough of the CUDA device API for clang to compile ordinary
 * CUDA kernels with no CUDA SDK:
 *
 *   clang-22 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *     --cuda-gpu-arch=sm_90 --cuda-feature=+ptx78 \
 *     -I scripts/cuda -include spmd_cuda.h kernel.cu ...
 *
 * (scripts/cuda-to-ptx.sh does this). Written for spmd; everything is built
 * on clang builtins (__nvvm_*, __builtin_*, __scoped_atomic_*) and clang's own
 * <__clang_cuda_builtin_vars.h> for threadIdx and friends. docs/cuda.md
 * lists what is covered and what is not. Device code only.
 */
#ifndef SPMD_CUDA_H
#define SPMD_CUDA_H

#if !defined(__CUDA__) || !defined(__CUDA_ARCH__)
#error "spmd_cuda.h is for CUDA device compilation (clang -x cuda --cuda-device-only)"
#endif

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif

/* ---- qualifiers -------------------------------------------------------- */

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
/* __noinline__ and __restrict__ are understood by clang itself. */

#define __SPMD_FN static __device__ inline __attribute__((always_inline))
#define __SPMD_HD static __host__ __device__ inline __attribute__((always_inline)) constexpr

typedef __SIZE_TYPE__ size_t;
typedef long clock_t;

/* ---- vector types ------------------------------------------------------ */
/* Alignments as nvcc's: the size for 1, 2 and 4 components (at most 16),
 * the element's for 3. */

#define __SPMD_VEC1(T, N, A) struct __attribute__((aligned(A))) N##1 { T x; };
#define __SPMD_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; };
#define __SPMD_VEC3(T, N, A) struct __attribute__((aligned(A))) N##3 { T x, y, z; };
#define __SPMD_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };
#define __SPMD_MAKE(T, N)                                                       \
  __SPMD_HD N##1 make_##N##1(T x) { return N##1{x}; }                          \
  __SPMD_HD N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                  \
  __SPMD_HD N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }          \
  __SPMD_HD N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define __SPMD_VECTORS(T, N, A1, A2, A4)                                        \
  __SPMD_VEC1(T, N, A1) __SPMD_VEC2(T, N, A2) __SPMD_VEC3(T, N, A1)             \
  __SPMD_VEC4(T, N, A4) __SPMD_MAKE(T, N)

__SPMD_VECTORS(signed char, char, 1, 2, 4)
__SPMD_VECTORS(unsigned char, uchar, 1, 2, 4)
__SPMD_VECTORS(short, short, 2, 4, 8)
__SPMD_VECTORS(unsigned short, ushort, 2, 4, 8)
__SPMD_VECTORS(int, int, 4, 8, 16)
__SPMD_VECTORS(unsigned int, uint, 4, 8, 16)
__SPMD_VECTORS(long, long, 8, 16, 16)
__SPMD_VECTORS(unsigned long, ulong, 8, 16, 16)
__SPMD_VECTORS(long long, longlong, 8, 16, 16)
__SPMD_VECTORS(unsigned long long, ulonglong, 8, 16, 16)
__SPMD_VECTORS(float, float, 4, 8, 16)
__SPMD_VECTORS(double, double, 8, 16, 16)

#undef __SPMD_VEC1
#undef __SPMD_VEC2
#undef __SPMD_VEC3
#undef __SPMD_VEC4
#undef __SPMD_MAKE
#undef __SPMD_VECTORS

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* ---- threadIdx, blockIdx, blockDim, gridDim, warpSize ------------------ */
/* clang's header declares them (each field read is an sreg read) and leaves
 * their conversions to dim3 and uint3 to the CUDA headers: here. */

#include <__clang_cuda_builtin_vars.h>

#define __SPMD_BUILTIN_VAR_CONVERSIONS(T)                                       \
  __device__ inline T::operator dim3() const { return dim3(x, y, z); }         \
  __device__ inline T::operator uint3() const { return uint3{x, y, z}; }
__SPMD_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_threadIdx_t)
__SPMD_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_blockIdx_t)
__SPMD_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_blockDim_t)
__SPMD_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_gridDim_t)
#undef __SPMD_BUILTIN_VAR_CONVERSIONS

/* ---- barriers and fences ----------------------------------------------- */
/* __syncthreads() is a clang builtin (bar.sync 0 / barrier.sync.aligned). */

__SPMD_FN int __syncthreads_count(int predicate) { return __nvvm_bar0_popc(predicate); }
__SPMD_FN int __syncthreads_and(int predicate) { return __nvvm_bar0_and(predicate); }
__SPMD_FN int __syncthreads_or(int predicate) { return __nvvm_bar0_or(predicate); }
__SPMD_FN void __syncwarp(unsigned int mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
__SPMD_FN void __threadfence_block() { __nvvm_membar_cta(); }
__SPMD_FN void __threadfence() { __nvvm_membar_gl(); }
__SPMD_FN void __threadfence_system() { __nvvm_membar_sys(); }

/* ---- atomics ----------------------------------------------------------- */
/* Relaxed read-modify-writes at device scope, as CUDA's atomicXxx. They
 * return the old value. */

#define __SPMD_ATOMIC(name, builtin, T)                                         \
  __SPMD_FN T name(T *address, T val) {                                         \
    return builtin(address, val, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);       \
  }
#define __SPMD_ATOMIC_INTEGERS(name, builtin)                                   \
  __SPMD_ATOMIC(name, builtin, int)                                             \
  __SPMD_ATOMIC(name, builtin, unsigned int)                                    \
  __SPMD_ATOMIC(name, builtin, unsigned long long)

__SPMD_ATOMIC_INTEGERS(atomicAdd, __scoped_atomic_fetch_add)
__SPMD_ATOMIC(atomicAdd, __scoped_atomic_fetch_add, float)
__SPMD_ATOMIC(atomicAdd, __scoped_atomic_fetch_add, double)
__SPMD_ATOMIC(atomicSub, __scoped_atomic_fetch_sub, int)
__SPMD_ATOMIC(atomicSub, __scoped_atomic_fetch_sub, unsigned int)
__SPMD_ATOMIC_INTEGERS(atomicExch, __scoped_atomic_exchange_n)
__SPMD_FN float atomicExch(float *address, float val) {
  return __builtin_bit_cast(float, atomicExch((int *)address, __builtin_bit_cast(int, val)));
}
__SPMD_ATOMIC_INTEGERS(atomicMin, __scoped_atomic_fetch_min)
__SPMD_ATOMIC(atomicMin, __scoped_atomic_fetch_min, long long)
__SPMD_ATOMIC_INTEGERS(atomicMax, __scoped_atomic_fetch_max)
__SPMD_ATOMIC(atomicMax, __scoped_atomic_fetch_max, long long)
__SPMD_ATOMIC_INTEGERS(atomicAnd, __scoped_atomic_fetch_and)
__SPMD_ATOMIC_INTEGERS(atomicOr, __scoped_atomic_fetch_or)
__SPMD_ATOMIC_INTEGERS(atomicXor, __scoped_atomic_fetch_xor)
#undef __SPMD_ATOMIC
#undef __SPMD_ATOMIC_INTEGERS

/* ((old >= val) ? 0 : old + 1) and (((old == 0) | (old > val)) ? val : old - 1):
 * LLVM's uinc_wrap and udec_wrap. */
__SPMD_FN unsigned int atomicInc(unsigned int *address, unsigned int val) {
  return __nvvm_atom_inc_gen_ui(address, val);
}
__SPMD_FN unsigned int atomicDec(unsigned int *address, unsigned int val) {
  return __nvvm_atom_dec_gen_ui(address, val);
}

#define __SPMD_ATOMIC_CAS(T)                                                    \
  __SPMD_FN T atomicCAS(T *address, T compare, T val) {                         \
    __scoped_atomic_compare_exchange_n(address, &compare, val, false, __ATOMIC_RELAXED, \
                                       __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE); \
    return compare; /* the old value, whether or not it was swapped */          \
  }
__SPMD_ATOMIC_CAS(int)
__SPMD_ATOMIC_CAS(unsigned int)
__SPMD_ATOMIC_CAS(unsigned long long)
__SPMD_ATOMIC_CAS(unsigned short) /* sm_70 */
#undef __SPMD_ATOMIC_CAS

/* ---- warp vote, shuffle, match and reduce ------------------------------- */

__SPMD_FN unsigned int __ballot_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_ballot_sync(mask, predicate != 0);
}
__SPMD_FN int __any_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_any_sync(mask, predicate != 0);
}
__SPMD_FN int __all_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_all_sync(mask, predicate != 0);
}
__SPMD_FN int __uni_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_uni_sync(mask, predicate != 0);
}
/* activemask.b32 needs PTX 6.2: with sm_70's default PTX 6.0 clang reports
 * "needs target feature ptx62" where it is used. */
__SPMD_FN unsigned int __activemask() { return __nvvm_activemask(); }

/* The shfl.sync `c` operand: (32 - width) << 8 packs the segment mask, the low
 * bits clamp the source lane (31 for idx/down/bfly, 0 for up). */
__SPMD_FN int __spmd_shfl_c(int width, int clamp) { return ((32 - width) << 8) | clamp; }

#define __SPMD_SHFL(name, kind, lane_t, clamp)                                  \
  __SPMD_FN int name(unsigned int mask, int var, lane_t lane, int width = 32) { \
    return __nvvm_shfl_sync_##kind##_i32(mask, var, (int)lane, __spmd_shfl_c(width, clamp)); \
  }                                                                             \
  __SPMD_FN unsigned int name(unsigned int mask, unsigned int var, lane_t lane, int width = 32) { \
    return (unsigned int)name(mask, (int)var, lane, width);                    \
  }                                                                             \
  __SPMD_FN float name(unsigned int mask, float var, lane_t lane, int width = 32) { \
    return __nvvm_shfl_sync_##kind##_f32(mask, var, (int)lane, __spmd_shfl_c(width, clamp)); \
  }                                                                             \
  __SPMD_FN long long name(unsigned int mask, long long var, lane_t lane, int width = 32) { \
    int lo = name(mask, (int)(unsigned long long)var, lane, width);             \
    int hi = name(mask, (int)((unsigned long long)var >> 32), lane, width);     \
    return (long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo); \
  }                                                                             \
  __SPMD_FN unsigned long long name(unsigned int mask, unsigned long long var, lane_t lane, \
                                    int width = 32) {                           \
    return (unsigned long long)name(mask, (long long)var, lane, width);        \
  }                                                                             \
  __SPMD_FN double name(unsigned int mask, double var, lane_t lane, int width = 32) { \
    return __builtin_bit_cast(double, name(mask, __builtin_bit_cast(long long, var), lane, width)); \
  }
__SPMD_SHFL(__shfl_sync, idx, int, 0x1f)
__SPMD_SHFL(__shfl_up_sync, up, unsigned int, 0)
__SPMD_SHFL(__shfl_down_sync, down, unsigned int, 0x1f)
__SPMD_SHFL(__shfl_xor_sync, bfly, int, 0x1f)
#undef __SPMD_SHFL

/* match.sync: sm_70. */
__SPMD_FN unsigned int __match_any_sync(unsigned int mask, unsigned int value) {
  return __nvvm_match_any_sync_i32(mask, value);
}
__SPMD_FN unsigned int __match_any_sync(unsigned int mask, int value) {
  return __nvvm_match_any_sync_i32(mask, (unsigned int)value);
}
__SPMD_FN unsigned int __match_all_sync(unsigned int mask, unsigned int value, int *pred) {
  return __nvvm_match_all_sync_i32p(mask, value, pred);
}

/* redux.sync: sm_80 and PTX 7.0. */
__SPMD_FN int __reduce_add_sync(unsigned int mask, int value) {
  return __nvvm_redux_sync_add(value, mask);
}
__SPMD_FN unsigned int __reduce_add_sync(unsigned int mask, unsigned int value) {
  return (unsigned int)__nvvm_redux_sync_add((int)value, mask);
}
__SPMD_FN int __reduce_min_sync(unsigned int mask, int value) {
  return __nvvm_redux_sync_min(value, mask);
}
__SPMD_FN unsigned int __reduce_min_sync(unsigned int mask, unsigned int value) {
  return __nvvm_redux_sync_umin(value, mask);
}
__SPMD_FN int __reduce_max_sync(unsigned int mask, int value) {
  return __nvvm_redux_sync_max(value, mask);
}
__SPMD_FN unsigned int __reduce_max_sync(unsigned int mask, unsigned int value) {
  return __nvvm_redux_sync_umax(value, mask);
}
__SPMD_FN unsigned int __reduce_and_sync(unsigned int mask, unsigned int value) {
  return (unsigned int)__nvvm_redux_sync_and((int)value, mask);
}
__SPMD_FN unsigned int __reduce_or_sync(unsigned int mask, unsigned int value) {
  return (unsigned int)__nvvm_redux_sync_or((int)value, mask);
}
__SPMD_FN unsigned int __reduce_xor_sync(unsigned int mask, unsigned int value) {
  return (unsigned int)__nvvm_redux_sync_xor((int)value, mask);
}

/* ---- integer functions -------------------------------------------------- */

__SPMD_FN int min(int a, int b) { return a < b ? a : b; }
__SPMD_FN unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
__SPMD_FN unsigned int min(int a, unsigned int b) { return min((unsigned int)a, b); }
__SPMD_FN unsigned int min(unsigned int a, int b) { return min(a, (unsigned int)b); }
__SPMD_FN long long min(long long a, long long b) { return a < b ? a : b; }
__SPMD_FN unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__SPMD_FN int max(int a, int b) { return a > b ? a : b; }
__SPMD_FN unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
__SPMD_FN unsigned int max(int a, unsigned int b) { return max((unsigned int)a, b); }
__SPMD_FN unsigned int max(unsigned int a, int b) { return max(a, (unsigned int)b); }
__SPMD_FN long long max(long long a, long long b) { return a > b ? a : b; }
__SPMD_FN unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
__SPMD_FN unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
__SPMD_FN unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
__SPMD_FN int abs(int a) { return a < 0 ? -a : a; }
__SPMD_FN long labs(long a) { return a < 0 ? -a : a; }
__SPMD_FN long long llabs(long long a) { return a < 0 ? -a : a; }

__SPMD_FN int __popc(unsigned int x) { return __builtin_popcount(x); }
__SPMD_FN int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__SPMD_FN int __clz(int x) { return __builtin_clzg((unsigned int)x, 32); }
__SPMD_FN int __clzll(long long x) { return __builtin_clzg((unsigned long long)x, 64); }
__SPMD_FN int __ffs(int x) { return __builtin_ffs(x); }
__SPMD_FN int __ffsll(long long x) { return __builtin_ffsll(x); }
__SPMD_FN unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__SPMD_FN unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__SPMD_FN int __mul24(int a, int b) { return __nvvm_mul24_i(a, b); }
__SPMD_FN unsigned int __umul24(unsigned int a, unsigned int b) { return __nvvm_mul24_ui(a, b); }
__SPMD_FN int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__SPMD_FN unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
__SPMD_FN long long __mul64hi(long long a, long long b) {
  return (long long)(((__int128)a * b) >> 64);
}
__SPMD_FN unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
__SPMD_FN unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  return __nvvm_prmt(x, y, s);
}

/* ---- reinterpretation and conversions ---------------------------------- */

__SPMD_FN int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__SPMD_FN unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__SPMD_FN float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__SPMD_FN float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__SPMD_FN long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__SPMD_FN double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__SPMD_FN int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
__SPMD_FN int __float2int_rz(float x) { return __nvvm_f2i_rz(x); }
__SPMD_FN int __float2int_rd(float x) { return __nvvm_f2i_rm(x); }
__SPMD_FN int __float2int_ru(float x) { return __nvvm_f2i_rp(x); }
__SPMD_FN unsigned int __float2uint_rn(float x) { return __nvvm_f2ui_rn(x); }
__SPMD_FN unsigned int __float2uint_rz(float x) { return __nvvm_f2ui_rz(x); }
__SPMD_FN float __int2float_rn(int x) { return __nvvm_i2f_rn(x); }
__SPMD_FN float __uint2float_rn(unsigned int x) { return __nvvm_ui2f_rn(x); }

/* ---- float math ---------------------------------------------------------- */

#define __SPMD_MATH __SPMD_FN
#include "spmd_cuda_math.h"

__SPMD_FN float min(float a, float b) { return fminf(a, b); }
__SPMD_FN float max(float a, float b) { return fmaxf(a, b); }
__SPMD_FN double min(double a, double b) { return fmin(a, b); }
__SPMD_FN double max(double a, double b) { return fmax(a, b); }

/* The fast versions: PTX .approx instructions and explicit roundings. */
__SPMD_FN float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
__SPMD_FN float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
__SPMD_FN float __expf(float x) { return __nvvm_ex2_approx_f(x * 0x1.715476p+0f); }
__SPMD_FN float __exp10f(float x) { return __nvvm_ex2_approx_f(x * 0x1.a934f0p+1f); }
__SPMD_FN float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0x1.62e430p-1f; }
__SPMD_FN float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
__SPMD_FN float __log10f(float x) { return __nvvm_lg2_approx_f(x) * 0x1.344136p-2f; }
__SPMD_FN float __powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
__SPMD_FN float __sinf(float x) { return __nvvm_sin_approx_f(x); }
__SPMD_FN float __cosf(float x) { return __nvvm_cos_approx_f(x); }
__SPMD_FN float __tanf(float x) { return __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x)); }
__SPMD_FN void __sincosf(float x, float *s, float *c) {
  *s = __nvvm_sin_approx_f(x);
  *c = __nvvm_cos_approx_f(x);
}
__SPMD_FN float __saturatef(float x) { return __nvvm_saturate_f(x); }
__SPMD_FN float __fadd_rn(float a, float b) { return __nvvm_add_rn_f(a, b); }
__SPMD_FN float __fmul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }
__SPMD_FN float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__SPMD_FN float __fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
__SPMD_FN float __frcp_rn(float x) { return __nvvm_rcp_rn_f(x); }
__SPMD_FN float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }

/* ---- loads through the read-only cache ---------------------------------- */

__SPMD_FN int __ldg(const int *p) { return __nvvm_ldg_i(p); }
__SPMD_FN unsigned int __ldg(const unsigned int *p) { return __nvvm_ldg_ui(p); }
__SPMD_FN long long __ldg(const long long *p) { return __nvvm_ldg_ll(p); }
__SPMD_FN unsigned long long __ldg(const unsigned long long *p) { return __nvvm_ldg_ull(p); }
__SPMD_FN float __ldg(const float *p) { return __nvvm_ldg_f(p); }
__SPMD_FN double __ldg(const double *p) { return __nvvm_ldg_d(p); }

/* ---- clocks, sleep, trap ------------------------------------------------ */

__SPMD_FN clock_t clock() { return (clock_t)__nvvm_read_ptx_sreg_clock(); }
__SPMD_FN long long clock64() { return (long long)__nvvm_read_ptx_sreg_clock64(); }
__SPMD_FN void __nanosleep(unsigned int ns) { __nvvm_nanosleep(ns); } /* sm_70 */
__SPMD_FN void __trap() { __builtin_trap(); }

/* ---- printf and assert --------------------------------------------------- */
/* clang turns device-side printf into vprintf(format, packed arguments);
 * ptxas knows vprintf and __assertfail as system calls. */

extern "C" __device__ int vprintf(const char *format, const char *arguments);
extern "C" __device__ int printf(const char *format, ...);
extern "C" __device__ __attribute__((noreturn)) void
__assertfail(const char *message, const char *file, unsigned int line, const char *function,
             size_t char_size);

#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e)                                                               \
  ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif

#undef __SPMD_FN
#undef __SPMD_HD
#undef __SPMD_MATH

#endif /* SPMD_CUDA_H */
