/* spmd_cuda_math.h: the single-precision math library of spmd's CUDA header.
 *
 * Included by spmd_cuda.h; not meant to be included on its own. Every
 * function is written for this project from the usual textbook methods
 * (argument reduction, then a short polynomial), with clang builtins for what
 * the hardware does in one instruction. There is no libdevice behind it.
 *
 * The includer defines __SPMD_MATH (the declaration specifiers of every
 * function, `__device__ inline` in CUDA) and nothing else is needed: the
 * host-side accuracy test (mlir-tests/cuda/math-accuracy.cu) includes this
 * file inside a namespace, with host stand-ins for the few __nvvm_* builtins.
 *
 * Accuracy, as measured on the host by that test over sweeps of each range
 * (exact stand-ins for the PTX approximations; on a GPU, ex2.approx.f32's
 * own error, about 2 ulp, adds to the exponentials):
 *   expf, exp2f, exp10f            < 0.8 ulp + ex2.approx's error
 *   logf, log2f, log10f            < 0.8 ulp
 *   powf, sinf, cosf, tanf, tanhf  0.5 ulp in the sweeps (they work in
 *                                  double precision: slow where FP64 is)
 *   special values (0, inf, NaN, negative, powf's C99 cases) as glibc.
 * sinf, cosf, tanf reduce the argument in double precision: exact for
 * |x| < 2^20 pi/2; beyond that they lose accuracy (no Payne-Hanek).
 * The __-prefixed fast versions (__expf, __logf, __sinf, ...) are the PTX
 * .approx instructions, with their documented errors.
 */
#ifndef SPMD_CUDA_MATH_H
#define SPMD_CUDA_MATH_H

#ifndef __SPMD_MATH
#error "spmd_cuda_math.h is included by spmd_cuda.h (define __SPMD_MATH first)"
#endif

/* ---- bit views and classification ------------------------------------ */

__SPMD_MATH unsigned int __spmd_fbits(float x) { return __builtin_bit_cast(unsigned int, x); }
__SPMD_MATH float __spmd_ffrom(unsigned int b) { return __builtin_bit_cast(float, b); }
__SPMD_MATH unsigned long long __spmd_dbits(double x) {
  return __builtin_bit_cast(unsigned long long, x);
}
__SPMD_MATH double __spmd_dfrom(unsigned long long b) { return __builtin_bit_cast(double, b); }

__SPMD_MATH bool isnan(float x) { return __builtin_isnan(x); }
__SPMD_MATH bool isinf(float x) { return __builtin_isinf(x); }
__SPMD_MATH bool isfinite(float x) { return __builtin_isfinite(x); }
__SPMD_MATH bool signbit(float x) { return __builtin_signbit(x); }
__SPMD_MATH bool isnan(double x) { return __builtin_isnan(x); }
__SPMD_MATH bool isinf(double x) { return __builtin_isinf(x); }
__SPMD_MATH bool isfinite(double x) { return __builtin_isfinite(x); }
__SPMD_MATH bool signbit(double x) { return __builtin_signbit(x); }

/* ---- one instruction each ---------------------------------------------- */

__SPMD_MATH float fabsf(float x) { return __builtin_fabsf(x); }
__SPMD_MATH float ceilf(float x) { return __builtin_ceilf(x); }
__SPMD_MATH float floorf(float x) { return __builtin_floorf(x); }
__SPMD_MATH float truncf(float x) { return __builtin_truncf(x); }
__SPMD_MATH float rintf(float x) { return __builtin_rintf(x); }
__SPMD_MATH float nearbyintf(float x) { return __builtin_nearbyintf(x); }
/* Halfway cases away from zero, as C's round. */
__SPMD_MATH float roundf(float x) { return __builtin_roundf(x); }
__SPMD_MATH float fminf(float a, float b) { return __builtin_fminf(a, b); }
__SPMD_MATH float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__SPMD_MATH float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__SPMD_MATH float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
__SPMD_MATH float fdimf(float a, float b) { return a > b ? a - b : (a <= b ? 0.0f : a + b); }
/* frem: the NVPTX backend expands it (truncated quotient, as C's fmod). */
__SPMD_MATH float fmodf(float a, float b) { return __builtin_fmodf(a, b); }
__SPMD_MATH float sqrtf(float x) { return __builtin_sqrtf(x); }

__SPMD_MATH double fabs(double x) { return __builtin_fabs(x); }
__SPMD_MATH double ceil(double x) { return __builtin_ceil(x); }
__SPMD_MATH double floor(double x) { return __builtin_floor(x); }
__SPMD_MATH double trunc(double x) { return __builtin_trunc(x); }
__SPMD_MATH double rint(double x) { return __builtin_rint(x); }
__SPMD_MATH double round(double x) { return __builtin_round(x); }
__SPMD_MATH double fmin(double a, double b) { return __builtin_fmin(a, b); }
__SPMD_MATH double fmax(double a, double b) { return __builtin_fmax(a, b); }
__SPMD_MATH double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
__SPMD_MATH double copysign(double a, double b) { return __builtin_copysign(a, b); }
__SPMD_MATH double sqrt(double x) { return __builtin_sqrt(x); }

/* ---- scaling by powers of two ----------------------------------------- */

/* 2^k as a float, for -126 <= k <= 127. */
__SPMD_MATH float __spmd_pow2f(int k) { return __spmd_ffrom((unsigned int)(k + 127) << 23); }

/* x * 2^k for -252 <= k <= 254, in two exact steps (one rounding at most,
 * when the result is subnormal). */
__SPMD_MATH float __spmd_scalef(float x, int k) {
  int half = k / 2;
  return x * __spmd_pow2f(half) * __spmd_pow2f(k - half);
}

/* x * 2^k, rounded once. */
__SPMD_MATH float ldexpf(float x, int k) {
  if (x == 0.0f || !__builtin_isfinite(x)) return x;
  if (__builtin_fabsf(x) < 0x1p-126f) { /* subnormal: make it normal */
    x *= 0x1p+24f;
    k -= 24;
  }
  unsigned int b = __spmd_fbits(x);
  int e = (int)((b >> 23) & 0xffu) - 127;
  k = k < -400 ? -400 : (k > 400 ? 400 : k);
  int ne = e + k;
  if (ne > 127) return __builtin_copysignf(__builtin_inff(), x);
  if (ne < -151) return __builtin_copysignf(0.0f, x);
  if (ne >= -126) return __spmd_ffrom((b & 0x807fffffu) | ((unsigned int)(ne + 127) << 23));
  /* Subnormal result: exponent ne + 64 (normal), then one rounding. */
  return __spmd_ffrom((b & 0x807fffffu) | ((unsigned int)(ne + 64 + 127) << 23)) * 0x1p-64f;
}

/* ---- exponentials ------------------------------------------------------ */

/* 2^(hi + lo) for a finite argument: the integer part k goes to the
 * exponent, the fraction f in [-0.5, 0.5] to ex2.approx. */
__SPMD_MATH float __spmd_exp2_split(float hi, float lo) {
  if (hi > 128.5f) return __builtin_inff();
  if (hi < -151.0f) return 0.0f;
  float k = __builtin_rintf(hi);
  float f = (hi - k) + lo; /* hi - k is exact */
  return __spmd_scalef(__nvvm_ex2_approx_f(f), (int)k);
}

__SPMD_MATH float exp2f(float x) {
  if (__builtin_isnan(x)) return x + x;
  return __spmd_exp2_split(x, 0.0f);
}

/* e^x = 2^(x * log2 e); x * log2 e is carried as hi + lo, with fma for the
 * rounding error of the product and a second constant for log2 e's tail. */
__SPMD_MATH float __spmd_exp_base(float x, float c_hi, float c_lo) {
  if (__builtin_isnan(x)) return x + x;
  float hi = x * c_hi;
  float lo = __builtin_fmaf(x, c_hi, -hi) + x * c_lo;
  return __spmd_exp2_split(hi, lo);
}

__SPMD_MATH float expf(float x) {
  return __spmd_exp_base(x, 0x1.715476p+0f /* log2 e, rounded */, 0x1.4ae0c0p-26f /* the rest */);
}

__SPMD_MATH float exp10f(float x) {
  return __spmd_exp_base(x, 0x1.a934f0p+1f /* log2 10, rounded */, 0x1.2f346ep-24f);
}

/* ---- logarithms -------------------------------------------------------- */

/* For a positive finite x: x = 2^e * m with m in [sqrt(1/2), sqrt(2)), and
 * log(m) = log(1 + f) = f - f^2/2 + s * (f^2/2 + R(s^2)), s = f / (2 + f),
 * where R(z) = 2z/3 + 2z^2/5 + ... is the tail of 2 atanh(s) = log(1 + f).
 * The result is hi + lo, hi = f - f^2/2 cut to 12 significant bits (so that
 * products with 12-bit constants are exact), lo the rest. */
struct __spmd_log_parts {
  int e;
  float hi, lo;
};

__SPMD_MATH __spmd_log_parts __spmd_log_reduce(float x) {
  int e = 0;
  if (x < 0x1p-126f) { /* subnormal: make it normal first */
    x *= 0x1p+23f;
    e = -23;
  }
  unsigned int b = __spmd_fbits(x);
  e += (int)((b >> 23) & 0xffu) - 127;
  float m = __spmd_ffrom((b & 0x007fffffu) | 0x3f800000u); /* [1, 2) */
  if (m > 0x1.6a09e6p+0f) { /* sqrt 2 */
    m *= 0.5f;
    e += 1;
  }
  float f = m - 1.0f; /* exact */
  float s = f / (2.0f + f);
  float z = s * s;
  float r = z * (0x1.555556p-1f + z * (0x1.99999ap-2f + z * (0x1.24924ap-2f + z * 0x1.c71c72p-3f)));
  float hfsq = 0.5f * f * f;
  float hi = __spmd_ffrom(__spmd_fbits(f - hfsq) & 0xfffff000u);
  float lo = (f - hi) - hfsq + s * (hfsq + r);
  return __spmd_log_parts{e, hi, lo};
}

/* The special values of the logarithms, or 0 if x is an ordinary positive
 * number (*special is set when the answer is the return value). */
__SPMD_MATH float __spmd_log_special(float x, bool *special) {
  *special = true;
  if (__builtin_isnan(x)) return x + x;
  if (x == 0.0f) return -__builtin_inff();
  if (x < 0.0f) return __builtin_nanf("");
  if (__builtin_isinf(x)) return x;
  *special = false;
  return 0.0f;
}

/* e * c + (hi + lo) * d, with c = c_hi + c_lo and d = d_hi + d_lo in 12-bit
 * high parts: the large products are exact, the small ones are summed
 * first. */
__SPMD_MATH float __spmd_log_combine(__spmd_log_parts p, float c_hi, float c_lo, float d_hi,
                                     float d_lo) {
  float fe = (float)p.e;
  float a = fe * c_hi;   /* exact */
  float b = p.hi * d_hi; /* exact */
  float w = a + b;
  float small = fe * c_lo + (p.lo + p.hi) * d_lo + p.lo * d_hi;
  return small + ((a - w) + b) + w;
}

__SPMD_MATH float logf(float x) {
  bool special;
  float v = __spmd_log_special(x, &special);
  if (special) return v;
  /* ln 2 = 0x1.62ep-1 + 0x1.0bfbe8p-15 */
  return __spmd_log_combine(__spmd_log_reduce(x), 0x1.62e000p-1f, 0x1.0bfbe8p-15f, 1.0f, 0.0f);
}

__SPMD_MATH float log2f(float x) {
  bool special;
  float v = __spmd_log_special(x, &special);
  if (special) return v;
  /* 1 / ln 2 = 0x1.714p+0 + 0x1.47652cp-12 */
  return __spmd_log_combine(__spmd_log_reduce(x), 1.0f, 0.0f, 0x1.714000p+0f, 0x1.47652cp-12f);
}

__SPMD_MATH float log10f(float x) {
  bool special;
  float v = __spmd_log_special(x, &special);
  if (special) return v;
  /* log10 2 = 0x1.344p-2 + 0x1.3509f8p-18, 1 / ln 10 = 0x1.bcap-2 + 0x1.7b1526p-14 */
  return __spmd_log_combine(__spmd_log_reduce(x), 0x1.344000p-2f, 0x1.3509f8p-18f, 0x1.bca000p-2f,
                            0x1.7b1526p-14f);
}

/* ---- double-precision helpers (powf, sinf, cosf, tanf, tanhf) ---------- */

/* log2(a) for a positive, finite, normal double; about 1e-16 relative. */
__SPMD_MATH double __spmd_log2_d(double a) {
  unsigned long long b = __spmd_dbits(a);
  int e = (int)((b >> 52) & 0x7ffu) - 1023;
  double m = __spmd_dfrom((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 0x1.6a09e667f3bcdp+0) {
    m *= 0.5;
    e += 1;
  }
  double f = m - 1.0;
  double s = f / (2.0 + f);
  double z = s * s;
  /* R(z) = sum 2 z^n / (2n + 1), n = 1..11: |z| < 0.0295, the rest < 1e-18. */
  double r = 2.0 / 23.0;
  r = r * z + 2.0 / 21.0;
  r = r * z + 2.0 / 19.0;
  r = r * z + 2.0 / 17.0;
  r = r * z + 2.0 / 15.0;
  r = r * z + 2.0 / 13.0;
  r = r * z + 2.0 / 11.0;
  r = r * z + 2.0 / 9.0;
  r = r * z + 2.0 / 7.0;
  r = r * z + 2.0 / 5.0;
  r = r * z + 2.0 / 3.0;
  r *= z;
  double hfsq = 0.5 * f * f;
  double ln_m = f - (hfsq - s * (hfsq + r));
  return (double)e + ln_m * 0x1.71547652b82fep+0; /* 1 / ln 2 */
}

/* 2^t for -1100 < t < 1024 (callers stay well inside). */
__SPMD_MATH double __spmd_exp2_d(double t) {
  double k = __builtin_rint(t);
  double g = (t - k) * 0x1.62e42fefa39efp-1; /* |g| <= ln(2) / 2 */
  /* Taylor series of e^g to g^14 / 14!: the rest is below 1e-17. */
  double p = 1.0 / 87178291200.0;
  p = p * g + 1.0 / 6227020800.0;
  p = p * g + 1.0 / 479001600.0;
  p = p * g + 1.0 / 39916800.0;
  p = p * g + 1.0 / 3628800.0;
  p = p * g + 1.0 / 362880.0;
  p = p * g + 1.0 / 40320.0;
  p = p * g + 1.0 / 5040.0;
  p = p * g + 1.0 / 720.0;
  p = p * g + 1.0 / 120.0;
  p = p * g + 1.0 / 24.0;
  p = p * g + 1.0 / 6.0;
  p = p * g + 0.5;
  p = p * g + 1.0;
  p = p * g + 1.0;
  int ki = (int)k;
  int half = ki / 2;
  double s1 = __spmd_dfrom((unsigned long long)(half + 1023) << 52);
  double s2 = __spmd_dfrom((unsigned long long)(ki - half + 1023) << 52);
  return p * s1 * s2;
}

/* sin and cos of r for |r| <= pi/4 + a little, in double (Taylor series to
 * r^15 and r^16: the rest is below 1e-16). */
__SPMD_MATH double __spmd_sin_poly(double r) {
  double z = r * r;
  double p = -1.0 / 1307674368000.0;
  p = p * z + 1.0 / 6227020800.0;
  p = p * z - 1.0 / 39916800.0;
  p = p * z + 1.0 / 362880.0;
  p = p * z - 1.0 / 5040.0;
  p = p * z + 1.0 / 120.0;
  p = p * z - 1.0 / 6.0;
  return r + r * z * p;
}

__SPMD_MATH double __spmd_cos_poly(double r) {
  double z = r * r;
  double p = 1.0 / 20922789888000.0;
  p = p * z - 1.0 / 87178291200.0;
  p = p * z + 1.0 / 479001600.0;
  p = p * z - 1.0 / 3628800.0;
  p = p * z + 1.0 / 40320.0;
  p = p * z - 1.0 / 720.0;
  p = p * z + 1.0 / 24.0;
  p = p * z - 0.5;
  return 1.0 + z * p;
}

/* x = q * pi/2 + r, |r| <= pi/4 (about), quadrant q mod 4 in *quadrant.
 * pi/2 in two parts; q * hi is exact for |q| < 2^20. */
__SPMD_MATH double __spmd_reduce_pio2(float x, int *quadrant) {
  double xd = (double)x;
  double q = __builtin_rint(xd * 0x1.45f306dc9c883p-1); /* 2 / pi */
  double r = (xd - q * 0x1.921fb544p+0) - q * 0x1.0b4611a626331p-34;
  /* q may exceed an int's range for huge x; only q mod 4 matters. */
  double q4 = q - 4.0 * __builtin_floor(q * 0.25);
  *quadrant = (int)q4;
  /* Past 2^20 pi/2 the reduction loses accuracy; keep r in range so that the
   * results stay within [-1, 1]. */
  return __builtin_fmin(__builtin_fmax(r, -0x1.921fb54442d18p-1), 0x1.921fb54442d18p-1);
}

/* ---- powers ------------------------------------------------------------ */

/* y is an odd integer (every float of magnitude >= 2^24 is even). */
__SPMD_MATH bool __spmd_is_odd_integer(float y) {
  float a = __builtin_fabsf(y);
  if (a >= 0x1p+24f || __builtin_truncf(a) != a) return false;
  return ((unsigned int)a & 1u) != 0;
}

/* C99 Annex F's special cases, then 2^(y log2 |x|) in double precision. */
__SPMD_MATH float powf(float x, float y) {
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (__builtin_isnan(x) || __builtin_isnan(y)) return x + y;
  bool odd = __spmd_is_odd_integer(y);
  float ax = __builtin_fabsf(x);
  if (__builtin_isinf(y)) {
    if (ax == 1.0f) return 1.0f;
    return ((ax > 1.0f) == (y > 0.0f)) ? __builtin_inff() : 0.0f;
  }
  if (x == 0.0f || __builtin_isinf(x)) {
    /* |x|^y is 0 or inf; the sign is x's for odd integer y. */
    bool big = (x == 0.0f) == (y < 0.0f);
    float magnitude = big ? __builtin_inff() : 0.0f;
    return odd ? __builtin_copysignf(magnitude, x) : magnitude;
  }
  if (x < 0.0f && __builtin_truncf(y) != y) return __builtin_nanf("");
  double t = (double)y * __spmd_log2_d((double)ax);
  float r;
  if (t >= 128.0)
    r = __builtin_inff();
  else if (t < -151.0)
    r = 0.0f;
  else
    r = (float)__spmd_exp2_d(t);
  return (x < 0.0f && odd) ? -r : r;
}

/* ---- trigonometry ------------------------------------------------------ */

__SPMD_MATH float sinf(float x) {
  if (!__builtin_isfinite(x)) return x - x; /* NaN, and NaN for inf */
  if (__builtin_fabsf(x) < 0x1p-12f) return x; /* x^3/6 is below half an ulp; keeps -0 */
  int q;
  double r = __spmd_reduce_pio2(x, &q);
  double v = (q & 1) ? __spmd_cos_poly(r) : __spmd_sin_poly(r);
  return (float)((q & 2) ? -v : v);
}

__SPMD_MATH float cosf(float x) {
  if (!__builtin_isfinite(x)) return x - x;
  int q;
  double r = __spmd_reduce_pio2(x, &q);
  double v = (q & 1) ? __spmd_sin_poly(r) : __spmd_cos_poly(r);
  return (float)(((q + 1) & 2) ? -v : v);
}

__SPMD_MATH void sincosf(float x, float *s, float *c) {
  if (!__builtin_isfinite(x)) {
    *s = *c = x - x;
    return;
  }
  if (__builtin_fabsf(x) < 0x1p-12f) {
    *s = x;
    *c = 1.0f;
    return;
  }
  int q;
  double r = __spmd_reduce_pio2(x, &q);
  double sr = __spmd_sin_poly(r), cr = __spmd_cos_poly(r);
  double sv = (q & 1) ? cr : sr, cv = (q & 1) ? sr : cr;
  *s = (float)((q & 2) ? -sv : sv);
  *c = (float)(((q + 1) & 2) ? -cv : cv);
}

__SPMD_MATH float tanf(float x) {
  if (!__builtin_isfinite(x)) return x - x;
  if (__builtin_fabsf(x) < 0x1p-12f) return x;
  int q;
  double r = __spmd_reduce_pio2(x, &q);
  double sr = __spmd_sin_poly(r), cr = __spmd_cos_poly(r);
  return (float)((q & 1) ? -cr / sr : sr / cr);
}

/* tanh x = (e^2x - 1) / (e^2x + 1), in double; odd Taylor terms near 0. */
__SPMD_MATH float tanhf(float x) {
  if (__builtin_isnan(x)) return x + x;
  float a = __builtin_fabsf(x);
  if (a >= 10.0f) return __builtin_copysignf(1.0f, x); /* 1 - tanh 10 < 2^-24 */
  double d = (double)a;
  double t;
  if (a < 0x1p-6f) {
    double z = d * d; /* x - x^3/3 + 2x^5/15 - 17x^7/315 */
    t = d + d * z * (-1.0 / 3.0 + z * (2.0 / 15.0 + z * (-17.0 / 315.0)));
  } else {
    double e2 = __spmd_exp2_d(2.0 * d * 0x1.71547652b82fep+0);
    t = (e2 - 1.0) / (e2 + 1.0);
  }
  return __builtin_copysignf((float)t, x);
}

/* ---- float overloads of the C++ names ---------------------------------- */

__SPMD_MATH float fabs(float x) { return fabsf(x); }
__SPMD_MATH float ceil(float x) { return ceilf(x); }
__SPMD_MATH float floor(float x) { return floorf(x); }
__SPMD_MATH float trunc(float x) { return truncf(x); }
__SPMD_MATH float rint(float x) { return rintf(x); }
__SPMD_MATH float round(float x) { return roundf(x); }
__SPMD_MATH float fmin(float a, float b) { return fminf(a, b); }
__SPMD_MATH float fmax(float a, float b) { return fmaxf(a, b); }
__SPMD_MATH float fma(float a, float b, float c) { return fmaf(a, b, c); }
__SPMD_MATH float copysign(float a, float b) { return copysignf(a, b); }
__SPMD_MATH float sqrt(float x) { return sqrtf(x); }
__SPMD_MATH float exp(float x) { return expf(x); }
__SPMD_MATH float exp2(float x) { return exp2f(x); }
__SPMD_MATH float log(float x) { return logf(x); }
__SPMD_MATH float log2(float x) { return log2f(x); }
__SPMD_MATH float log10(float x) { return log10f(x); }
__SPMD_MATH float pow(float x, float y) { return powf(x, y); }
__SPMD_MATH float sin(float x) { return sinf(x); }
__SPMD_MATH float cos(float x) { return cosf(x); }
__SPMD_MATH float tan(float x) { return tanf(x); }
__SPMD_MATH float tanh(float x) { return tanhf(x); }

/* Double-precision transcendentals are not provided. Declaring them as
 * unavailable keeps exp(1.0) from silently becoming the float version. */
#define __SPMD_NO_DOUBLE(name)                                                   \
  __SPMD_MATH double name(double)                                                \
      __attribute__((unavailable("spmd_cuda.h has no double-precision " #name)));
__SPMD_NO_DOUBLE(exp)
__SPMD_NO_DOUBLE(exp2)
__SPMD_NO_DOUBLE(log)
__SPMD_NO_DOUBLE(log2)
__SPMD_NO_DOUBLE(log10)
__SPMD_NO_DOUBLE(sin)
__SPMD_NO_DOUBLE(cos)
__SPMD_NO_DOUBLE(tan)
__SPMD_NO_DOUBLE(tanh)
#undef __SPMD_NO_DOUBLE
__SPMD_MATH double pow(double, double)
    __attribute__((unavailable("spmd_cuda.h has no double-precision pow")));

#endif /* SPMD_CUDA_MATH_H */
