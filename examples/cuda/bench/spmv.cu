// spmv.cu: y = A x for a sparse matrix in CSR form with slack: row r has
// its row_len[r] entries at cols/vals[row_start[r] ...] (row_len may be
// negative or zero: empty row).

// One thread per row. Any 1D grid/block.
extern "C" __global__ void spmv_csr_scalar(const int *row_start, const int *row_len,
                                           const int *cols, const float *vals, const float *x,
                                           float *y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  int begin = row_start[r], end = begin + row_len[r];
  for (int k = begin; k < end; ++k) s += vals[k] * x[cols[k]];
  y[r] = s;
}

// One warp per row, lanes striding the row, a shuffle reduction at the
// end. blockDim.x a multiple of 32.
extern "C" __global__ void spmv_csr_vector(const int *row_start, const int *row_len,
                                           const int *cols, const float *vals, const float *x,
                                           float *y, int rows) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (r >= rows) return;
  float s = 0.0f;
  int begin = row_start[r], end = begin + row_len[r];
  for (int k = begin + lane; k < end; k += 32) s += vals[k] * x[cols[k]];
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) y[r] = s;
}
