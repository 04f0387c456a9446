// double-math.cu: double-precision math from NVIDIA's libdevice (exp,
// pow, atan, log, sin, sqrt, and atan2/cos/fabs/floor/fmin around them) in
// divergent code: which function a thread calls depends on its data, a
// data-dependent loop (a Newton iteration) runs each thread until its own
// convergence, and a series loop stops early once its terms underflow.
//
//   scripts/cuda-to-ptx.sh examples/cuda/double-math.cu
//   scripts/cuda-to-ptx.sh --reference examples/cuda/double-math.cu  # clang
//
// clang links libdevice (.venv/cuda/nvvm/libdevice/libdevice.10.bc, from
// the CUDA root scripts/find-cuda.sh prints) into the module and inlines
// the __nv_* functions before spmd sees it, so spmd's passes see their
// bodies: polynomials (fma.rn.f64), range reductions with their own
// branches, and two slow paths that stay .func calls
// (__internal_trig_reduction_slowpathd for sin/cos of large arguments,
// __internal_accurate_pow). sqrt is a single sqrt.rn.f64, floor a
// cvt.rmi.f64.f64, fmin a min.f64.
//
// Expected results are those of the C library to a few ulps (libdevice's
// documented error bounds: exp, log, sin 1 ulp; pow 2 ulps; atan 2 ulps):
// compare with a relative tolerance of 1e-14.

// A different function per case, chosen by the value's range. For i < n,
// with x = in[i]:
//   x <  -10          : out[i] = exp(x / 10)          (small, positive)
//   -10 <= x < 0      : out[i] = atan(x) + sin(x)
//   0 <= x < 1        : out[i] = sqrt(x) * cos(x)
//   1 <= x < 100      : out[i] = log(x) + pow(x, 1.5)
//   x >= 100 or NaN   : out[i] = atan2(floor(x), 7.0), NaN stays NaN
// Example: in = {-20, -1, 0.25, 4, 200}: out = {exp(-2) = 0.1353352832366127,
// atan(-1) + sin(-1) = -1.626869148205345, 0.5 * cos(0.25) =
// 0.4844562108553224, log(4) + 8 = 9.386294361119891, atan2(200, 7) =
// 1.535810607966371}.
extern "C" __global__ void piecewise_math(const double *in, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = in[i];
  double r;
  if (x < -10.0)
    r = exp(x / 10.0);
  else if (x < 0.0)
    r = atan(x) + sin(x);
  else if (x < 1.0)
    r = sqrt(x) * cos(x);
  else if (x < 100.0)
    r = log(x) + pow(x, 1.5);
  else
    r = atan2(floor(x), 7.0);
  out[i] = r;
}

// Newton's method for the cube root of a[i] > 0, from the starting guess
// 1 + a / 3: each thread iterates until its own step is at most
// 1e-15 * |y|, or 50 steps, so the trip count is per thread. For i < n:
//   out[2i]     = the cube root of a[i] (to about 1e-15 relative), or 0
//                 for a[i] <= 0 (no iteration)
//   out[2i + 1] = the number of Newton steps taken (as a double)
// Example: a = {27, 1e-3, 8, 1000, -5}: out = {3, 9, 0.1, 11, 2, 7, 10, 14,
// 0, 0} (step counts of a host computation in plain double arithmetic;
// clang contracts the update into fma.rn.f64, which may change a count by
// one).
extern "C" __global__ void newton_cbrt(const double *a, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = a[i];
  double y = 0.0;
  int steps = 0;
  if (v > 0.0) {
    y = 1.0 + v / 3.0;
    while (steps < 50) {
      double step = (y * y * y - v) / (3.0 * y * y);
      y -= step;
      ++steps;
      if (fabs(step) <= 1e-15 * fabs(y)) break;
    }
  }
  out[2 * i] = y;
  out[2 * i + 1] = (double)steps;
}

// A weighted sum whose weights decay with pow and whose loop stops early
// once the term underflows: out[i] = sum over k = 0..m-1 of
// pow(w[i], k) * sin(k * 0.5), stopping at the first term whose magnitude
// is below 1e-300 (w[i] in [0, 1)); fmin caps the result at 1e6.
// Example: w = {0, 0.5}, m = 3: out = {0 (pow(0, 0) = 1 times sin 0 = 0,
// then pow(0, 1) = 0: stop), 0.5 sin 0.5 + 0.25 sin 1 =
// 0.4500805155040756}.
extern "C" __global__ void decaying_series(const double *w, double *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (int k = 0; k < m; ++k) {
    double weight = pow(w[i], (double)k);
    if (k > 0 && fabs(weight) < 1e-300) break;
    s += weight * sin(k * 0.5);
  }
  out[i] = fmin(s, 1e6);
}
