// CUDA-samples-style texture objects: a 1D fetch from a linear buffer
// (tex1Dfetch<float>), a 2D rotation/transform sampled with tex2D<float>
// (normalised coordinates, the off-image pixels written as zero), and an
// int4 fetch.

__global__ void tex1d_gather(cudaTextureObject_t tex, const int *indices, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = indices[i];
  out[i] = j >= 0 ? tex1Dfetch<float>(tex, j) : -1.0f;
}

__global__ void transform_kernel(float *output, cudaTextureObject_t tex_obj, int width, int height,
                                 float theta) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= (unsigned)width || y >= (unsigned)height) return;
  float u = (float)x / (float)width - 0.5f;
  float v = (float)y / (float)height - 0.5f;
  float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
  float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
  float r = 0.0f;
  if (tu >= 0.0f && tu <= 1.0f && tv >= 0.0f && tv <= 1.0f) r = tex2D<float>(tex_obj, tu, tv);
  output[y * width + x] = r;
}

__global__ void tex_int4_sum(cudaTextureObject_t tex, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int4 v = tex1Dfetch<int4>(tex, i);
    out[i] = v.x + v.y + v.z + v.w;
  }
}
