// transpose.cu: out = in^T for a rows x cols row-major matrix.
// block (32, 8); grid (ceil(cols/32), ceil(rows/32)); bounds checked.

#define TILE 32
#define ROWS 8

// Through a padded shared tile, coalesced on both sides.
extern "C" __global__ void transpose_tiled(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (x < cols && y + k < rows) tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (x < rows && y + k < cols) out[(y + k) * rows + x] = tile[threadIdx.x][threadIdx.y + k];
}

// Straight from global memory (strided writes).
extern "C" __global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (x < cols && y + k < rows) out[x * rows + y + k] = in[(y + k) * cols + x];
}
