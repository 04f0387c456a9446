// HIP port of tests/cuda-corpus/rodinia-particlefilter.cu (README.md): the same kernels.
// Rodinia-style particle filter: likelihood with double pow/sqrt, particle
// motion with atan-based heading, weight normalisation in shared memory,
// and resampling by a linear search of the CDF for each particle (a
// data-dependent loop with an early exit).

#define PI_D 3.1415926535897932
#define THREADS_PER_BLOCK 128

__device__ double randu_lcg(int *seed, int index) {
  const long long M = 2147483647LL, A = 1103515245LL, C = 12345LL;
  long long next = (A * seed[index] + C) % M;
  seed[index] = (int)(next < 0 ? -next : next);
  return fabs((double)seed[index] / (double)M);
}

__device__ double randn_box_muller(int *seed, int index) {
  double u = randu_lcg(seed, index);
  double v = randu_lcg(seed, index);
  double cosine = cos(2.0 * PI_D * v);
  double rt = -2.0 * log(u);
  return sqrt(rt) * cosine;
}

__global__ void likelihood_kernel(double *px, double *py, double *weights,
                                  const unsigned char *frame, const int *obj_x,
                                  const int *obj_y, int n_obj, int width, int height,
                                  int *seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ double partial[THREADS_PER_BLOCK];
  double w = 0.0;
  if (i < n) {
    double heading = atan(py[i] / (px[i] + 1e-9));
    px[i] += 1.0 + 5.0 * randn_box_muller(seed, i) * cos(heading);
    py[i] += -2.0 + 2.0 * randn_box_muller(seed, i) * sin(heading);
    double like = 0.0;
    for (int k = 0; k < n_obj; ++k) {
      int x = (int)floor(px[i]) + obj_x[k];
      int y = (int)floor(py[i]) + obj_y[k];
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      double fg = frame[y * width + x];
      like += (pow(fg - 100.0, 2.0) - pow(fg - 228.0, 2.0)) / 50.0;
    }
    w = weights[i] * exp(like / n_obj);
    weights[i] = w;
  }
  partial[threadIdx.x] = w;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(&weights[n], partial[0]);
}

__global__ void normalize_weights(double *weights, double *cdf, double *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double total = weights[n];
  if (i < n) weights[i] /= total;
  if (i == 0) {
    double running = 0.0;
    for (int k = 0; k < n; ++k) {
      running += weights[k] / total;
      cdf[k] = running;
    }
    u[0] = 1.0 / (double)n * fmin(0.999, fabs(sqrt(running) - 0.5));
  }
}

__global__ void resample_kernel(const double *px, const double *py, const double *cdf,
                                const double *u, double *xj, double *yj, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double target = u[0] + (double)i / (double)n;
  int found = -1;
  for (int k = 0; k < n; ++k) {
    if (cdf[k] >= target) {
      found = k;
      break;
    }
  }
  if (found == -1) found = n - 1;
  xj[i] = px[found];
  yj[i] = py[found];
}
