// HIP port of tests/cuda-corpus/rodinia-leukocyte.cu (README.md): the same kernels.
// Rodinia-style leukocyte tracking: the GICOV score of each pixel over a
// set of ellipse samples (double sin/cos/sqrt, variance with early
// rejection), then a grey-scale dilation with a structuring element that
// skips its zero entries and the pixels off the image.

#define NPOINTS 150
#define NCIRCLES 7
#define MAX_RADIUS 12

__constant__ double c_sin[NPOINTS];
__constant__ double c_cos[NPOINTS];

__global__ void gicov_kernel(int width, int height, const float *grad_x, const float *grad_y,
                             float *gicov_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + MAX_RADIUS;
  int j = blockIdx.y + MAX_RADIUS;
  if (i >= width - MAX_RADIUS || j >= height - MAX_RADIUS) return;
  double best = 0.0;
  for (int k = 0; k < NCIRCLES; ++k) {
    double radius = 2.0 * k + 2.0;
    double sum = 0.0, sumsq = 0.0;
    for (int n = 0; n < NPOINTS; ++n) {
      int y = j + (int)rint(radius * c_sin[n]);
      int x = i + (int)rint(radius * c_cos[n]);
      double p = grad_x[y * width + x] * c_cos[n] + grad_y[y * width + x] * c_sin[n];
      sum += p;
      sumsq += p * p;
    }
    double mean = sum / NPOINTS;
    double var = (sumsq - sum * mean) / (NPOINTS - 1);
    if (var <= 0.0) continue;
    double score = mean * mean / var;
    if (score > best) best = score;
  }
  gicov_out[j * width + i] = (float)sqrt(best);
}

__global__ void dilate_kernel(int img_m, int img_n, int strel_m, int strel_n,
                              const float *strel, const float *img, float *dilated) {
  int thread_id = blockIdx.x * blockDim.x + threadIdx.x;
  int i = thread_id % img_m;
  int j = thread_id / img_m;
  if (j >= img_n) return;
  int el_center_i = strel_m / 2, el_center_j = strel_n / 2;
  float maxv = 0.0f;
  for (int el_i = 0; el_i < strel_m; ++el_i) {
    int y = i - el_center_i + el_i;
    if (y < 0 || y >= img_m) continue;
    for (int el_j = 0; el_j < strel_n; ++el_j) {
      int x = j - el_center_j + el_j;
      if (x < 0 || x >= img_n || strel[el_i * strel_n + el_j] == 0.0f) continue;
      float v = img[x * img_m + y];
      if (v > maxv) maxv = v;
    }
  }
  dilated[j * img_m + i] = maxv;
}
