// HIP port of tests/cuda-corpus/rodinia-backprop.cu (README.md): the same kernels.
// Rodinia-style back-propagation: one block per 16 input rows computes the
// partial sums of the hidden layer in shared memory (a tree over the rows,
// with a guard on the step), then a second kernel adjusts the weights with
// momentum. Grid: (1, rows / 16), block (16, 16).

#define BLOCK_SIDE 16
#define LEARN_RATE 0.3f
#define MOMENTUM_F 0.3f

__device__ float squash(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void layer_forward(const float *inputs, const float *weights,
                              float *partial, int n_in, int n_hidden) {
  __shared__ float node[BLOCK_SIDE];
  __shared__ float w[BLOCK_SIDE][BLOCK_SIDE];
  int row_block = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = BLOCK_SIDE * row_block + ty + 1;
  int col = tx + 1;
  if (tx == 0) node[ty] = row <= n_in ? inputs[row] : 0.0f;
  __syncthreads();
  float v = 0.0f;
  if (row <= n_in && col <= n_hidden) v = weights[row * (n_hidden + 1) + col];
  w[ty][tx] = v * node[ty];
  __syncthreads();
  for (int step = 1; step < BLOCK_SIDE; step *= 2) {
    if (ty % (2 * step) == 0) w[ty][tx] += w[ty + step][tx];
    __syncthreads();
  }
  if (ty == 0 && col <= n_hidden) partial[row_block * n_hidden + tx] = w[0][tx];
}

__global__ void hidden_activate(const float *partial, float *hidden, int blocks,
                                int n_hidden) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n_hidden) return;
  float sum = 0.0f;
  for (int b = 0; b < blocks; ++b) sum += partial[b * n_hidden + j];
  hidden[j + 1] = squash(sum);
}

__global__ void adjust_weights(const float *delta, int n_hidden, const float *ly,
                               int n_in, float *w, float *oldw) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = BLOCK_SIDE * blockIdx.y + ty + 1;
  int col = tx + 1;
  if (row > n_in || col > n_hidden) return;
  int idx = row * (n_hidden + 1) + col;
  float dw = LEARN_RATE * delta[col] * ly[row] + MOMENTUM_F * oldw[idx];
  w[idx] += dw;
  oldw[idx] = dw;
  if (row == 1) {
    // the bias row, adjusted once per column
    int bias = col;
    float db = LEARN_RATE * delta[col] + MOMENTUM_F * oldw[bias];
    w[bias] += db;
    oldw[bias] = db;
  }
}
