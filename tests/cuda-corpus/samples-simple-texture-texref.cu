// CUDA-samples-style texture fetch through legacy texture *references*: a
// 1D reference read with tex1Dfetch and a 2D reference sampled with tex2D.
// CUDA 12 removed texture references, so clang rejects this file: an
// EXPECTED FAILURE of both routes (README.md).

texture<float, 1, cudaReadModeElementType> tex_lin;
texture<float, 2, cudaReadModeElementType> tex_img;

__global__ void fetch_linear(float *out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i % stride == 0 ? tex1Dfetch(tex_lin, i) : 0.0f;
}

__global__ void sample_image(float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D(tex_img, x + 0.5f, y + 0.5f);
}
