// HIP port of tests/cuda-corpus/rodinia-pathfinder.cu (README.md): the same kernels.
// Rodinia-style PathFinder: dynamic programming over the rows of a grid,
// several rows per launch with a halo that shrinks each step.

#define BLOCK_SIZE 256
#define HALO 1
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
#define CLAMP_RANGE(x, lo, hi) (x = (x < (lo)) ? lo : (x > (hi)) ? hi : x)
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

__global__ void dynproc_kernel(int iteration, const int *wall, const int *src, int *results,
                               int cols, int rows, int start_step, int border) {
  __shared__ int prev[BLOCK_SIZE];
  __shared__ int result[BLOCK_SIZE];
  int bx = blockIdx.x, tx = threadIdx.x;
  int small_block_cols = BLOCK_SIZE - iteration * HALO * 2;
  int blk_x = small_block_cols * bx - border;
  int blk_x_max = blk_x + BLOCK_SIZE - 1;
  int xidx = blk_x + tx;
  int valid_x_min = blk_x < 0 ? -blk_x : 0;
  int valid_x_max = blk_x_max > cols - 1 ? BLOCK_SIZE - 1 - (blk_x_max - cols + 1) : BLOCK_SIZE - 1;
  int w = tx - 1, e = tx + 1;
  CLAMP_RANGE(w, valid_x_min, valid_x_max);
  CLAMP_RANGE(e, valid_x_min, valid_x_max);
  bool is_valid = IN_RANGE(tx, valid_x_min, valid_x_max);
  if (IN_RANGE(xidx, 0, cols - 1)) prev[tx] = src[xidx];
  __syncthreads();
  bool computed = false;
  for (int i = 0; i < iteration; ++i) {
    computed = false;
    if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && is_valid) {
      computed = true;
      int shortest = MIN(prev[w], prev[tx]);
      shortest = MIN(shortest, prev[e]);
      result[tx] = shortest + wall[cols * (start_step + i) + xidx];
    }
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) prev[tx] = result[tx];
    __syncthreads();
  }
  if (computed) results[xidx] = result[tx];
}

// (The host launcher is left out: host code.)
