// REQUIRES: clang
// RUN: %clang -x c++ -std=c++17 -O1 -I %spmd_src_root/scripts/cuda %s -o %t -lm
// RUN: %t | FileCheck %s
//
// The accuracy of scripts/cuda/spmd_cuda_math.h, on the host: the header is
// compiled as plain C++ inside a namespace, with host stand-ins for the PTX
// approximations it uses (so on a GPU, ex2.approx's own error of up to 2
// ulp adds to the expf/exp2f/exp10f figures), and every function is compared
// with glibc in double precision over a sweep of each float range and a set
// of special values. The program fails if a function exceeds its bound.
//
// CHECK: expf {{.*}} ok
// CHECK: exp2f {{.*}} ok
// CHECK: exp10f {{.*}} ok
// CHECK: logf {{.*}} ok
// CHECK: log2f {{.*}} ok
// CHECK: log10f {{.*}} ok
// CHECK: powf {{.*}} ok
// CHECK: sinf {{.*}} ok
// CHECK: cosf {{.*}} ok
// CHECK: tanf {{.*}} ok
// CHECK: tanhf {{.*}} ok
// CHECK: sincosf {{.*}} ok
// CHECK: ldexpf {{.*}} ok
// CHECK: special values ok
// CHECK-NOT: FAIL

// Host stand-ins for the __nvvm_* builtins the math header uses.
static inline float __nvvm_ex2_approx_f(float x) { return (float)__builtin_exp2((double)x); }

#define __SPMD_MATH static inline
namespace spmd {
#include "spmd_cuda_math.h"
}

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static float from_bits(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }

// The distance from got to the exact value want, in units of the last place
// of the float nearest to want.
static double ulps(float got, double want) {
  if (isnan(want)) return isnan(got) ? 0.0 : 1e9;
  if (isinf((float)want) || isinf(got)) return got == (float)want ? 0.0 : 1e9;
  double a = fabs(want);
  int e;
  frexp(a < 0x1p-126 ? 0x1p-126 : a, &e); // a = m * 2^e, m in [0.5, 1)
  double ulp = ldexp(1.0, e - 24);
  return fabs((double)got - want) / ulp;
}

struct Sweep {
  double worst = 0.0;
  float worst_x = 0.0f;
  void add(float x, float got, double want) {
    double u = ulps(got, want);
    if (u > worst) { worst = u; worst_x = x; }
  }
};

static void report(const char *name, const Sweep &s, double bound) {
  bool ok = s.worst <= bound;
  printf("%-8s max %.3f ulp (at %a), bound %.1f: %s\n", name, s.worst, s.worst_x, bound,
         ok ? "ok" : "FAIL");
  failures += !ok;
}

// Every 2^shift-th float bit pattern with magnitude in [lo, hi], both signs.
template <class F> static void sweep(float lo, float hi, int step, F f) {
  uint32_t a, b;
  memcpy(&a, &lo, 4);
  memcpy(&b, &hi, 4);
  for (uint32_t i = a; i <= b; i += step) {
    f(from_bits(i));
    f(-from_bits(i));
  }
}

int main() {
  Sweep s;
  sweep(0.0f, 89.0f, 1009, [&](float x) { s.add(x, spmd::expf(x), exp((double)x)); });
  report("expf", s, 1.0);
  s = Sweep();
  sweep(0.0f, 128.0f, 1009, [&](float x) { s.add(x, spmd::exp2f(x), exp2((double)x)); });
  report("exp2f", s, 1.0);
  s = Sweep();
  sweep(0.0f, 38.6f, 1009, [&](float x) { s.add(x, spmd::exp10f(x), pow(10.0, (double)x)); });
  report("exp10f", s, 1.0);
  s = Sweep();
  sweep(0x1p-149f, 0x1.fffffep127f, 1009, [&](float x) {
    if (x > 0) s.add(x, spmd::logf(x), log((double)x));
  });
  report("logf", s, 1.0);
  s = Sweep();
  sweep(0x1p-149f, 0x1.fffffep127f, 1009, [&](float x) {
    if (x > 0) s.add(x, spmd::log2f(x), log2((double)x));
  });
  report("log2f", s, 1.0);
  s = Sweep();
  sweep(0x1p-149f, 0x1.fffffep127f, 1009, [&](float x) {
    if (x > 0) s.add(x, spmd::log10f(x), log10((double)x));
  });
  report("log10f", s, 1.0);
  s = Sweep();
  const float exponents[] = {-150.0f, -33.3f, -2.5f, -1.0f, -0.5f, 0.1f,
                             0.5f,    1.5f,   2.0f,  3.0f,  7.25f, 40.0f};
  for (float y : exponents) {
    sweep(0x1p-20f, 0x1p+20f, 997, [&](float x) {
      s.add(x, spmd::powf(x, y), pow((double)x, (double)y));
    });
  }
  report("powf", s, 1.0);
  Sweep sn, cs, tn;
  sweep(0.0f, 823550.0f, 2003, [&](float x) {
    sn.add(x, spmd::sinf(x), sin((double)x));
    cs.add(x, spmd::cosf(x), cos((double)x));
    tn.add(x, spmd::tanf(x), tan((double)x));
  });
  report("sinf", sn, 1.0);
  report("cosf", cs, 1.0);
  report("tanf", tn, 1.0);
  s = Sweep();
  sweep(0.0f, 12.0f, 2003, [&](float x) { s.add(x, spmd::tanhf(x), tanh((double)x)); });
  report("tanhf", s, 1.0);
  s = Sweep();
  sweep(0.0f, 1000.0f, 997, [&](float x) {
    float a, b;
    spmd::sincosf(x, &a, &b);
    s.add(x, a, sin((double)x));
    s.add(x, b, cos((double)x));
  });
  report("sincosf", s, 1.0);
  s = Sweep();
  const int scales[] = {-300, -200, -149, -126, -20, 0, 5, 127, 200, 300};
  for (int k : scales) {
    sweep(0x1p-149f, 0x1.fffffep127f, 99991, [&](float x) {
      s.add(x, spmd::ldexpf(x, k), (double)ldexpf(x, k));
    });
  }
  report("ldexpf", s, 0.0);

  // Special values: bit-for-bit what glibc gives (any NaN for a NaN).
  const float inf = INFINITY, nan = NAN;
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f,
                            inf, -inf, nan, 0x1p-149f, -0x1p-149f, 0x1.fffffep127f,
                            -0x1.fffffep127f, 1e-40f, 100.0f, -100.0f, 0x1p+24f, 0x1p+25f + 2.0f};
  int bad = 0;
  auto same = [&](const char *what, float x, float y, float got, float want) {
    bool eq = (isnan(got) && isnan(want)) || (got == want && signbit(got) == signbit(want));
    if (!eq) {
      printf("FAIL %s(%a, %a) = %a, glibc %a\n", what, x, y, got, want);
      ++bad;
    }
  };
  for (float x : specials) {
    for (float y : specials) same("powf", x, y, spmd::powf(x, y), powf(x, y));
    if (isnan(x) || isinf(x) || x == 0.0f || x == 1.0f || x < 0.0f) {
      same("logf", x, 0, spmd::logf(x), logf(x));
      same("log2f", x, 0, spmd::log2f(x), log2f(x));
    }
    if (isnan(x) || isinf(x) || x == 0.0f || fabsf(x) >= 100.0f) {
      same("expf", x, 0, spmd::expf(x), expf(x));
      same("exp2f", x, 0, spmd::exp2f(x), exp2f(x));
    }
    if (isnan(x) || isinf(x) || x == 0.0f) {
      same("sinf", x, 0, spmd::sinf(x), sinf(x));
      same("cosf", x, 0, spmd::cosf(x), cosf(x));
      same("tanhf", x, 0, spmd::tanhf(x), tanhf(x));
    }
  }
  printf("special values %s\n", bad ? "FAIL" : "ok");
  failures += bad != 0;
  return failures != 0;
}
