// HIP port of tests/cuda-corpus/rodinia-srad.cu (README.md): the same kernels.
// Rodinia-style SRAD (speckle-reducing anisotropic diffusion), version 2:
// a first kernel computes the directional derivatives and the diffusion
// coefficient (clamped to [0, 1]) with neighbour indices that clamp at the
// image border; a second kernel applies the divergence. Block 16x16.

#define BLOCK_SIZE 16

__global__ void srad_coefficients(const float *image, float *dn, float *ds, float *dw,
                                  float *de, float *coef, int cols, int rows, float q0sqr) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * BLOCK_SIZE + tx;
  int row = blockIdx.y * BLOCK_SIZE + ty;
  __shared__ float tile[BLOCK_SIZE + 2][BLOCK_SIZE + 2];
  bool inside = row < rows && col < cols;
  float jc = inside ? image[row * cols + col] : 0.0f;
  tile[ty + 1][tx + 1] = jc;
  if (ty == 0) tile[0][tx + 1] = image[(row > 0 ? row - 1 : 0) * cols + (col < cols ? col : cols - 1)];
  if (ty == BLOCK_SIZE - 1 || row == rows - 1)
    tile[ty + 2][tx + 1] = image[(row + 1 < rows ? row + 1 : rows - 1) * cols + (col < cols ? col : cols - 1)];
  if (tx == 0) tile[ty + 1][0] = image[(row < rows ? row : rows - 1) * cols + (col > 0 ? col - 1 : 0)];
  if (tx == BLOCK_SIZE - 1 || col == cols - 1)
    tile[ty + 1][tx + 2] = image[(row < rows ? row : rows - 1) * cols + (col + 1 < cols ? col + 1 : cols - 1)];
  __syncthreads();
  if (!inside) return;
  float n = tile[ty][tx + 1] - jc;
  float s = tile[ty + 2][tx + 1] - jc;
  float w = tile[ty + 1][tx] - jc;
  float e = tile[ty + 1][tx + 2] - jc;
  float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  float l = (n + s + w + e) / jc;
  float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1.0f + 0.25f * l;
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  if (c < 0.0f)
    c = 0.0f;
  else if (c > 1.0f)
    c = 1.0f;
  int idx = row * cols + col;
  dn[idx] = n;
  ds[idx] = s;
  dw[idx] = w;
  de[idx] = e;
  coef[idx] = c;
}

__global__ void srad_update(float *image, const float *dn, const float *ds, const float *dw,
                            const float *de, const float *coef, int cols, int rows,
                            float lambda) {
  int col = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  int row = blockIdx.y * BLOCK_SIZE + threadIdx.y;
  if (row >= rows || col >= cols) return;
  int idx = row * cols + col;
  int south = row + 1 < rows ? idx + cols : idx;
  int east = col + 1 < cols ? idx + 1 : idx;
  float cn = coef[idx], cs = coef[south], cw = coef[idx], ce = coef[east];
  float d = cn * dn[idx] + cs * ds[idx] + cw * dw[idx] + ce * de[idx];
  image[idx] = image[idx] + 0.25f * lambda * d;
}
