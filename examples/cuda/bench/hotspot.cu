// hotspot.cu: a thermal-simulation step on a cols x rows chip, tiled in
// shared memory with two time steps per launch (each tile shrinks by one
// cell per step, so a TILE x TILE block writes its (TILE-4)^2 interior).
// Out-of-chip neighbours are clamped to the chip's edge.
// Launch: block (16,16,1), grid (ceil(cols/12), ceil(rows/12), 1).

#define TILE 16
#define STEPS 2
#define INNER (TILE - 2 * STEPS)

extern "C" __global__ void hotspot_step(const float *power, const float *temp_in, float *temp_out,
                                        int cols, int rows, float cap_inv, float rx, float ry,
                                        float rz, float ambient) {
  __shared__ float t[TILE][TILE], p[TILE][TILE], next[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int ox = blockIdx.x * INNER - STEPS, oy = blockIdx.y * INNER - STEPS;
  int gx = ox + tx, gy = oy + ty;
  if (gx >= 0 && gx < cols && gy >= 0 && gy < rows) {
    t[ty][tx] = temp_in[gy * cols + gx];
    p[ty][tx] = power[gy * cols + gx];
  }
  __syncthreads();
  // The tile's cells that lie on the chip, in tile coordinates.
  int lo_x = ox < 0 ? -ox : 0, hi_x = ox + TILE > cols ? cols - ox - 1 : TILE - 1;
  int lo_y = oy < 0 ? -oy : 0, hi_y = oy + TILE > rows ? rows - oy - 1 : TILE - 1;
  int w = tx - 1 < lo_x ? lo_x : tx - 1, e = tx + 1 > hi_x ? hi_x : tx + 1;
  int n = ty - 1 < lo_y ? lo_y : ty - 1, s = ty + 1 > hi_y ? hi_y : ty + 1;
  bool on_chip = tx >= lo_x && tx <= hi_x && ty >= lo_y && ty <= hi_y;
  bool done = false;
  for (int step = 1; step <= STEPS; ++step) {
    done = on_chip && tx >= step && tx < TILE - step && ty >= step && ty < TILE - step;
    if (done) {
      float c = t[ty][tx];
      next[ty][tx] = c + cap_inv * (p[ty][tx] + (t[s][tx] + t[n][tx] - 2.0f * c) * ry +
                                    (t[ty][e] + t[ty][w] - 2.0f * c) * rx + (ambient - c) * rz);
    }
    __syncthreads();
    if (step == STEPS) break;
    if (done) t[ty][tx] = next[ty][tx];
    __syncthreads();
  }
  if (done && tx >= STEPS && tx < TILE - STEPS && ty >= STEPS && ty < TILE - STEPS)
    temp_out[gy * cols + gx] = next[ty][tx];
}
