// backprop.cu: a layer of a fully connected network, forward and weight
// update. Weights are row-major n_in x n_hid. n_in and n_hid multiples of
// 16.

#define TB 16

// Partial sums of input * weights: block (16,16) takes 16 inputs (y) by 16
// hidden units (x), multiplies in shared memory and reduces along y with a
// tree; partial[blockIdx.y * n_hid + unit]. grid (n_hid/16, n_in/16).
extern "C" __global__ void layer_forward(const float *input, const float *weights, float *partial,
                                         int n_in, int n_hid) {
  __shared__ float in[TB];
  __shared__ float prod[TB][TB];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TB + ty, unit = blockIdx.x * TB + tx;
  if (tx == 0) in[ty] = input[row];
  __syncthreads();
  prod[ty][tx] = weights[row * n_hid + unit] * in[ty];
  __syncthreads();
  for (int span = 1; span < TB; span <<= 1) {
    if (ty % (2 * span) == 0) prod[ty][tx] += prod[ty + span][tx];
    __syncthreads();
  }
  if (ty == 0) partial[blockIdx.y * n_hid + unit] = prod[0][tx];
}

// Momentum update w += eta * delta[unit] * input[row] + momentum * dw,
// dw remembered. block (16,16), grid (n_hid/16, n_in/16); the first row
// (bias) uses an input of 1.
extern "C" __global__ void adjust_weights(float *weights, float *prev_dw, const float *delta,
                                          const float *input, int n_in, int n_hid, float eta,
                                          float momentum) {
  int row = blockIdx.y * TB + threadIdx.y, unit = blockIdx.x * TB + threadIdx.x;
  if (row >= n_in || unit >= n_hid) return;
  float x = row == 0 ? 1.0f : input[row];
  int i = row * n_hid + unit;
  float dw = eta * delta[unit] * x + momentum * prev_dw[i];
  weights[i] += dw;
  prev_dw[i] = dw;
}
