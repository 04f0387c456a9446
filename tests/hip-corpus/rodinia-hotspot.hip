// HIP port of tests/cuda-corpus/rodinia-hotspot.cu (README.md): the same kernels.
// Rodinia-style HotSpot: a thermal simulation with a "pyramid" of
// iterations per launch in shared memory. Each step shrinks the valid
// region; boundary cells clamp their neighbours. Block 16x16.

#define BLOCK 16
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
#define CLAMP_RANGE(x, lo, hi) (x = (x < (lo)) ? lo : (x > (hi)) ? hi : x)

__global__ void hotspot_pyramid(int iterations, const float *power, const float *temp_src,
                                float *temp_dst, int cols, int rows, int border_cols,
                                int border_rows, float cap, float rx, float ry, float rz,
                                float step) {
  __shared__ float t_on[BLOCK][BLOCK];
  __shared__ float p_on[BLOCK][BLOCK];
  __shared__ float t_next[BLOCK][BLOCK];
  float amb = 80.0f;
  float step_div_cap = step / cap;
  float rx1 = 1.0f / rx, ry1 = 1.0f / ry, rz1 = 1.0f / rz;
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int small_rows = BLOCK - iterations * 2;
  int small_cols = BLOCK - iterations * 2;
  int y0 = small_rows * by - border_rows;
  int x0 = small_cols * bx - border_cols;
  int y = y0 + ty, x = x0 + tx;
  int idx = cols * y + x;
  if (IN_RANGE(y, 0, rows - 1) && IN_RANGE(x, 0, cols - 1)) {
    t_on[ty][tx] = temp_src[idx];
    p_on[ty][tx] = power[idx];
  }
  __syncthreads();
  int valid_y0 = y0 < 0 ? -y0 : 0;
  int valid_y1 = y0 + BLOCK - 1 > rows - 1 ? BLOCK - 1 - (y0 + BLOCK - rows) : BLOCK - 1;
  int valid_x0 = x0 < 0 ? -x0 : 0;
  int valid_x1 = x0 + BLOCK - 1 > cols - 1 ? BLOCK - 1 - (x0 + BLOCK - cols) : BLOCK - 1;
  int n = ty - 1, s = ty + 1, w = tx - 1, e = tx + 1;
  CLAMP_RANGE(n, valid_y0, valid_y1);
  CLAMP_RANGE(s, valid_y0, valid_y1);
  CLAMP_RANGE(w, valid_x0, valid_x1);
  CLAMP_RANGE(e, valid_x0, valid_x1);
  bool computed = false;
  for (int i = 0; i < iterations; ++i) {
    computed = false;
    if (IN_RANGE(tx, i + 1, BLOCK - i - 2) && IN_RANGE(ty, i + 1, BLOCK - i - 2) &&
        IN_RANGE(tx, valid_x0, valid_x1) && IN_RANGE(ty, valid_y0, valid_y1)) {
      computed = true;
      float c = t_on[ty][tx];
      t_next[ty][tx] = c + step_div_cap * (p_on[ty][tx] + (t_on[s][tx] + t_on[n][tx] - 2.0f * c) * ry1 +
                                           (t_on[ty][e] + t_on[ty][w] - 2.0f * c) * rx1 +
                                           (amb - c) * rz1);
    }
    __syncthreads();
    if (i == iterations - 1) break;
    if (computed) t_on[ty][tx] = t_next[ty][tx];
    __syncthreads();
  }
  if (computed) temp_dst[idx] = t_next[ty][tx];
}
