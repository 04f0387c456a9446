// life.cu: Conway's game of life on a width x height torus (cells 0/1).
// block 2D, grid 2D covering the board (bounds checked).

extern "C" __global__ void life_step(const int *cells, int *next, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int xl = x == 0 ? width - 1 : x - 1, xr = x == width - 1 ? 0 : x + 1;
  int yu = y == 0 ? height - 1 : y - 1, yd = y == height - 1 ? 0 : y + 1;
  int alive = cells[yu * width + xl] + cells[yu * width + x] + cells[yu * width + xr] +
              cells[y * width + xl] + cells[y * width + xr] + cells[yd * width + xl] +
              cells[yd * width + x] + cells[yd * width + xr];
  int self = cells[y * width + x];
  int out;
  if (self)
    out = alive == 2 || alive == 3;
  else
    out = alive == 3;
  next[y * width + x] = out;
}
