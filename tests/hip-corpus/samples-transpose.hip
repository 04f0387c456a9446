// HIP port of tests/cuda-corpus/samples-transpose.cu (README.md): the same kernels.
// CUDA-samples-style transpose: naive, coalesced through a padded shared
// tile (no bank conflicts), with each thread doing TILE_DIM / BLOCK_ROWS
// rows, and bounds checks for matrices that are not multiples of the tile.

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive(float *odata, const float *idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    if (x < width && y + i < height) odata[x * height + (y + i)] = idata[(y + i) * width + x];
}

__global__ void transpose_no_bank_conflicts(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    if (x < width && y + i < height) tile[threadIdx.y + i][threadIdx.x] = idata[(y + i) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    if (x < height && y + i < width) odata[(y + i) * height + x] = tile[threadIdx.x][threadIdx.y + i];
}

// Diagonal block ordering (avoids partition camping on old GPUs): square
// matrices only; blocks off the matrix return early.
__global__ void transpose_diagonal(float *odata, const float *idata, int width) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int blockIdx_y = blockIdx.x;
  int blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;
  int x = blockIdx_x * TILE_DIM + threadIdx.x;
  int y = blockIdx_y * TILE_DIM + threadIdx.y;
  if (blockIdx_x * TILE_DIM >= width) return;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[(y + i) * width + x];
  __syncthreads();
  x = blockIdx_y * TILE_DIM + threadIdx.x;
  y = blockIdx_x * TILE_DIM + threadIdx.y;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) odata[(y + i) * width + x] = tile[threadIdx.x][threadIdx.y + i];
}
