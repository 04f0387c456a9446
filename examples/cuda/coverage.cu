// coverage.cu: one kernel that uses every function, type and variable of
// scripts/cuda/spmd_cuda.h, so that the header is compiled (and assembled by
// ptxas) as a whole. Not meant to compute anything sensible.
//
//   scripts/cuda-to-ptx.sh examples/cuda/coverage.cu
//
// __trap and assert are in trap-assert.cu (spmd's pipeline does not take
// divergent branches into unreachable blocks yet).
//
// __activemask and __nanosleep need PTX 6.2/6.3 and __reduce_*_sync needs
// sm_80 and PTX 7.0, but sm_70's default (the PTX version llc and
// kernel-to-ptx.sh emit for it) is 6.0: they are used only for sm_80+.

__constant__ float coverage_table[4] = {1.0f, 2.0f, 4.0f, 8.0f};
__device__ int coverage_counter;

struct Sums {
  float f;
  int i;
  unsigned int u;
  long long ll;
  double d;
};

__device__ __noinline__ void coverage_store(Sums *out, const Sums &s) { *out = s; }

extern "C" __global__ void __launch_bounds__(256)
coverage(const float *__restrict__ in, Sums *out, int *ints, unsigned int *uints,
         unsigned long long *ulls, long long *lls, float *floats, double *doubles,
         unsigned short *shorts, int n) {
  __shared__ float tile[256];
  __shared__ __align__(16) int itile[256];
  extern __shared__ float dynamic_tile[]; // sized at launch

  // Index variables, dim3, warpSize.
  dim3 tid = threadIdx, bid = blockIdx, bdim = blockDim, gdim = gridDim;
  uint3 tid3 = threadIdx;
  unsigned int gid = bid.x * bdim.x + tid.x + tid3.y * gdim.y + bid.z * gdim.z + bdim.y + tid.z;
  unsigned int lane = threadIdx.x % warpSize;
  dim3 three(3), two_d(2, 2);
  gid += three.x + three.y + two_d.z + blockIdx.y + blockDim.z + gridDim.x;

  // Vector types and their make_ functions.
  char4 c4 = make_char4(1, 2, 3, 4);
  uchar4 u4 = make_uchar4(1, 2, 3, 4);
  short2 s2 = make_short2(1, 2);
  ushort3 us3 = make_ushort3(1, 2, 3);
  int2 i2 = make_int2(1, 2);
  int3 i3 = make_int3(1, 2, 3);
  int4 i4 = make_int4(1, 2, 3, 4);
  int1 i1 = make_int1(5);
  uint2 ui2 = make_uint2(1, 2);
  uint3 ui3 = make_uint3(1, 2, 3);
  uint4 ui4 = make_uint4(1, 2, 3, 4);
  long2 l2 = make_long2(1, 2);
  ulong4 ul4 = make_ulong4(1, 2, 3, 4);
  longlong2 ll2 = make_longlong2(1, 2);
  ulonglong2 ull2 = make_ulonglong2(1, 2);
  float2 f2 = make_float2(1.0f, 2.0f);
  float3 f3 = make_float3(1.0f, 2.0f, 3.0f);
  float4 f4 = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
  double2 d2 = make_double2(1.0, 2.0);
  double4 d4 = make_double4(1.0, 2.0, 3.0, 4.0);
  static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4");
  static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3");
  static_assert(alignof(float2) == 8 && alignof(uchar4) == 4 && alignof(double2) == 16, "align");
  int vsum = c4.w + u4.x + s2.y + us3.z + i2.y + i3.z + i4.w + i1.x + (int)ui2.y + (int)ui3.z +
             (int)ui4.w + (int)l2.y + (int)ul4.w + (int)ll2.x + (int)ull2.y;

  // Shared memory, constant memory, barriers and fences.
  float x = gid < (unsigned int)n ? in[gid] : 0.0f;
  tile[tid.x] = x;
  itile[tid.x] = (int)gid;
  __syncthreads();
  int count = __syncthreads_count(x > 0.0f);
  int all = __syncthreads_and(x > 0.0f);
  int any = __syncthreads_or(x > 0.0f);
  __syncwarp();
  __syncwarp(0x0000ffffu);
  __threadfence_block();
  __threadfence();
  __threadfence_system();
  dynamic_tile[tid.x] = x * 2.0f;
  __syncthreads();
  x += tile[(tid.x + 1) % 256] + coverage_table[tid.x % 4] + (float)itile[(tid.x + 7) % 256] +
       dynamic_tile[(tid.x + 3) % 256];

  // Atomics.
  int iold = atomicAdd(&ints[0], 1) + atomicSub(&ints[1], 1) + atomicExch(&ints[2], 3) +
             atomicCAS(&ints[3], 0, 1) + atomicMin(&ints[4], (int)gid) + atomicMax(&ints[5], 7) +
             atomicAnd(&ints[6], 0xff) + atomicOr(&ints[7], 0x100) + atomicXor(&ints[8], 5) +
             atomicAdd(&coverage_counter, 1) + atomicAdd((int *)&itile[0], 1);
  unsigned int uold = atomicAdd(&uints[0], 1u) + atomicSub(&uints[1], 1u) +
                      atomicExch(&uints[2], 2u) + atomicCAS(&uints[3], 0u, 1u) +
                      atomicMin(&uints[4], gid) + atomicMax(&uints[5], gid) +
                      atomicAnd(&uints[6], 0xffu) + atomicOr(&uints[7], 1u) +
                      atomicXor(&uints[8], 3u) + atomicInc(&uints[9], 16u) +
                      atomicDec(&uints[10], 16u);
  unsigned long long ullold = atomicAdd(&ulls[0], 1ull) + atomicExch(&ulls[1], 2ull) +
                              atomicCAS(&ulls[2], 0ull, 1ull) + atomicMin(&ulls[3], 4ull) +
                              atomicMax(&ulls[4], 5ull) + atomicAnd(&ulls[5], 6ull) +
                              atomicOr(&ulls[6], 7ull) + atomicXor(&ulls[7], 8ull);
  long long llold = atomicMin(&lls[0], -1ll) + atomicMax(&lls[1], 1ll);
  float fold = atomicAdd(&floats[0], 1.5f) + atomicExch(&floats[1], 2.5f) + atomicAdd(&tile[0], x);
  double dold = atomicAdd(&doubles[0], 0.5);
  unsigned short sold = atomicCAS(&shorts[0], (unsigned short)0, (unsigned short)1);

  // Warp vote, shuffle, match and reduce.
  unsigned int full = 0xffffffffu;
  unsigned int ballot = __ballot_sync(full, x > 1.0f);
  int vote = __any_sync(full, x > 2.0f) + __all_sync(full, x > 3.0f) + __uni_sync(full, x > 4.0f);
  int si = __shfl_sync(full, (int)gid, 0) + __shfl_up_sync(full, (int)gid, 1) +
           __shfl_down_sync(full, (int)gid, 2) + __shfl_xor_sync(full, (int)gid, 4) +
           __shfl_sync(full, (int)gid, 3, 16) + __shfl_xor_sync(full, (int)gid, 1, 8);
  unsigned int su = __shfl_sync(full, gid, 1) + __shfl_down_sync(full, gid, 1u);
  float sf = __shfl_sync(full, x, 5) + __shfl_up_sync(full, x, 1) +
             __shfl_down_sync(full, x, 16) + __shfl_xor_sync(full, x, 16);
  long long sll = __shfl_xor_sync(full, llold, 1);
  unsigned long long sull = __shfl_down_sync(full, ullold, 1);
  double sd = __shfl_sync(full, dold, 0);
  unsigned int match = __match_any_sync(full, gid & 3u) + __match_any_sync(full, (int)lane & 1);
  int match_pred;
  match += __match_all_sync(full, gid >> 5, &match_pred);
#if __CUDA_ARCH__ >= 800
  unsigned int active = __activemask();
  int red = __reduce_add_sync(active, (int)gid) + __reduce_min_sync(active, (int)gid) +
            __reduce_max_sync(active, (int)gid);
  unsigned int ured = __reduce_add_sync(active, gid) + __reduce_min_sync(active, gid) +
                      __reduce_max_sync(active, gid) + __reduce_and_sync(active, gid) +
                      __reduce_or_sync(active, gid) + __reduce_xor_sync(active, gid);
#else
  unsigned int active = full;
  int red = 0;
  unsigned int ured = 0;
#endif

  // Integer functions and conversions.
  int ia = (int)gid - 100;
  unsigned int ub = gid;
  long long la = ia;
  int ifn = min(ia, 3) + max(ia, 3) + (int)min(ia, ub) + (int)max(ub, ia) + (int)min(ub, 3u) +
            (int)max(ub, 3u) + (int)min(la, 5ll) + (int)max(la, 5ll) + (int)umin(ub, 9u) +
            (int)umax(ub, 9u) + abs(ia) + (int)labs((long)ia) + (int)llabs(la) + __popc(ub) +
            __popcll(ullold) + __clz(ia) + __clzll(la) + __ffs(ia) + __ffsll(la) +
            (int)__brev(ub) + (int)__brevll(ullold) + __mul24(ia, 3) + (int)__umul24(ub, 3u) +
            __mulhi(ia, ia) + (int)__umulhi(ub, ub) + (int)__mul64hi(la, la) +
            (int)__umul64hi(ullold, ullold) + (int)__byte_perm(ub, 0x12345678u, 0x3210u) +
            (int)min(ullold, 3ull) + (int)max(ullold, 3ull);
  int conv = __float_as_int(x) + (int)__float_as_uint(x) + (int)__int_as_float(ia) +
             (int)__uint_as_float(ub) + (int)__double_as_longlong(dold) +
             (int)__longlong_as_double(la) + __float2int_rn(x) + __float2int_rz(x) +
             __float2int_rd(x) + __float2int_ru(x) + (int)__float2uint_rn(x) +
             (int)__float2uint_rz(x) + (int)__int2float_rn(ia) + (int)__uint2float_rn(ub);

  // Float math: accurate versions.
  float y = fabsf(x) + 0.5f;
  float m = sqrtf(y) + expf(x) + exp2f(x) + exp10f(x) + logf(y) + log2f(y) + log10f(y) +
            powf(y, 1.5f) + sinf(x) + cosf(x) + tanf(x) + tanhf(x) + ceilf(x) + floorf(x) +
            truncf(x) + roundf(x) + rintf(x) + nearbyintf(x) + fminf(x, y) + fmaxf(x, y) +
            fmaf(x, y, 1.0f) + copysignf(y, x) + fdimf(x, y) + fmodf(x, 3.0f) + ldexpf(x, 3) +
            min(x, y) + max(x, y);
  float sn, cs;
  sincosf(x, &sn, &cs);
  m += sn + cs + (isnan(x) ? 1.0f : 0.0f) + (isinf(x) ? 1.0f : 0.0f) +
       (isfinite(x) ? 1.0f : 0.0f) + (signbit(x) ? 1.0f : 0.0f);
  // The C++ float overloads.
  m += fabs(x) + sqrt(y) + exp(x) + exp2(x) + log(y) + log2(y) + log10(y) + pow(y, 2.0f) +
       sin(x) + cos(x) + tan(x) + tanh(x) + floor(x) + ceil(x) + trunc(x) + round(x) + rint(x) +
       fmin(x, y) + fmax(x, y) + fma(x, y, x) + copysign(x, y);
  // Fast versions.
  float fast_sn, fast_cs;
  __sincosf(x, &fast_sn, &fast_cs);
  m += rsqrtf(y) + __fdividef(x, y) + __expf(x) + __exp10f(x) + __logf(y) + __log2f(y) +
       __log10f(y) + __powf(y, x) + __sinf(x) + __cosf(x) + __tanf(x) + fast_sn + fast_cs +
       __saturatef(x) + __fadd_rn(x, y) + __fmul_rn(x, y) + __fmaf_rn(x, y, x) +
       __fdiv_rn(x, y) + __frcp_rn(y) + __fsqrt_rn(y);
  // Double functions.
  double d = dold + sd;
  double md = fabs(d) + sqrt(d) + floor(d) + ceil(d) + trunc(d) + round(d) + rint(d) +
              fmin(d, 1.0) + fmax(d, 1.0) + fma(d, d, 1.0) + copysign(d, -1.0) + min(d, 2.0) +
              max(d, 2.0) + (isnan(d) ? 1.0 : 0.0) + (isinf(d) ? 1.0 : 0.0) +
              (isfinite(d) ? 1.0 : 0.0) + (signbit(d) ? 1.0 : 0.0);

  // Read-only loads, clocks.
  float ro = __ldg(&in[0]) + (float)__ldg((const int *)ints) + (float)__ldg((const unsigned int *)uints) +
             (float)__ldg((const long long *)lls) + (float)__ldg((const unsigned long long *)ulls) +
             (float)__ldg((const double *)doubles);
  long long t0 = clock64();
  clock_t t1 = clock();
#if __CUDA_ARCH__ >= 800
  if (x > 1e30f) __nanosleep(100);
#endif

  Sums s;
  s.f = x + m + ro + f2.x + f2.y + f3.z + f4.w + fold + sf + (float)(sn + cs);
  s.i = vsum + count + all + any + iold + vote + si + red + ifn + conv + (int)sold + match_pred;
  s.u = uold + ballot + su + match + ured + active + lane;
  s.ll = llold + sll + (long long)sull + t0 + (long long)t1;
  s.d = md + d2.y + d4.w;
  coverage_store(&out[gid], s);
  if (gid == 0) printf("coverage: %d %f\n", s.i, (double)s.f);
}
