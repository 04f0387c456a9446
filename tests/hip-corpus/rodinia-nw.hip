// HIP port of tests/cuda-corpus/rodinia-nw.cu (README.md): the same kernels.
// Rodinia-style Needleman-Wunsch: a block fills one 16x16 tile of the
// score matrix along its anti-diagonals in shared memory; the number of
// active threads grows then shrinks with the diagonal.

#define BLOCK_SIZE 16

__device__ __host__ int maximum3(int a, int b, int c) {
  int k = a <= b ? b : a;
  return k <= c ? c : k;
}

__global__ void nw_tile(const int *reference, int *matrix, int cols, int penalty,
                        int block_width, int tile_base, int upper_half) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int b_index_x = upper_half ? bx : bx + block_width - tile_base;
  int b_index_y = upper_half ? tile_base - 1 - bx : block_width - bx - 1;
  int base = cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x;
  __shared__ int score[BLOCK_SIZE + 1][BLOCK_SIZE + 1];
  __shared__ int ref[BLOCK_SIZE][BLOCK_SIZE];
  for (int ty = 0; ty < BLOCK_SIZE; ++ty)
    ref[ty][tx] = reference[base + cols * (ty + 1) + tx + 1];
  if (tx == 0) score[0][0] = matrix[base];
  score[tx + 1][0] = matrix[base + cols * (tx + 1)];
  score[0][tx + 1] = matrix[base + tx + 1];
  __syncthreads();
  for (int m = 0; m < BLOCK_SIZE; ++m) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      score[y][x] = maximum3(score[y - 1][x - 1] + ref[y - 1][x - 1],
                             score[y][x - 1] - penalty, score[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int m = BLOCK_SIZE - 2; m >= 0; --m) {
    if (tx <= m) {
      int x = tx + BLOCK_SIZE - m, y = BLOCK_SIZE - tx;
      score[y][x] = maximum3(score[y - 1][x - 1] + ref[y - 1][x - 1],
                             score[y][x - 1] - penalty, score[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int ty = 0; ty < BLOCK_SIZE; ++ty)
    matrix[base + cols * (ty + 1) + tx + 1] = score[ty + 1][tx + 1];
}
