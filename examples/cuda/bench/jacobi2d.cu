// jacobi2d.cu: 2D five-point stencils over a width x height grid (row
// major). Launch: 2D blocks, a 2D grid covering the grid (bounds checked).

// Dirichlet boundary: edge cells keep their value.
extern "C" __global__ void jacobi2d_dirichlet(const float *in, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int i = y * width + x;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - width] + in[i + width]);
}

// Neumann boundary (zero flux): a missing neighbour is the cell itself; a
// heat-equation step with diffusion coefficient alpha.
extern "C" __global__ void heat2d_neumann(const float *in, float *out, int width, int height,
                                          float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int i = y * width + x;
  float c = in[i];
  float w = x > 0 ? in[i - 1] : c;
  float e = x < width - 1 ? in[i + 1] : c;
  float n = y > 0 ? in[i - width] : c;
  float s = y < height - 1 ? in[i + width] : c;
  out[i] = c + alpha * (w + e + n + s - 4.0f * c);
}
