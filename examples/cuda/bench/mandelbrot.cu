// mandelbrot.cu: escape-time fractals. Each thread computes one pixel of a
// width x height image; the iteration is unrolled four times, each step
// returning as soon as the orbit leaves the radius-2 disk.
// Launch: any 1D grid/block covering width*height threads (bounds checked).

static __device__ __forceinline__ int escape4(float cr, float ci, float x, float y, int max_iter) {
  for (int i = 0; i < max_iter; i += 4) {
    float t;
    t = x * x - y * y + cr; y = 2.0f * x * y + ci; x = t;
    if (x * x + y * y > 4.0f) return i;
    t = x * x - y * y + cr; y = 2.0f * x * y + ci; x = t;
    if (x * x + y * y > 4.0f) return i + 1;
    t = x * x - y * y + cr; y = 2.0f * x * y + ci; x = t;
    if (x * x + y * y > 4.0f) return i + 2;
    t = x * x - y * y + cr; y = 2.0f * x * y + ci; x = t;
    if (x * x + y * y > 4.0f) return i + 3;
  }
  return max_iter;
}

extern "C" __global__ void mandelbrot(int *out, int width, int height, float x0, float y0,
                                      float step, int max_iter) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height) return;
  int px = p % width, py = p / width;
  out[p] = escape4(x0 + px * step, y0 + py * step, 0.0f, 0.0f, max_iter);
}

// The Julia set of c = (cr, ci): the pixel is the orbit's start.
extern "C" __global__ void julia(int *out, int width, int height, float x0, float y0, float step,
                                 float cr, float ci, int max_iter) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height) return;
  int px = p % width, py = p / width;
  out[p] = escape4(cr, ci, x0 + px * step, y0 + py * step, max_iter);
}
