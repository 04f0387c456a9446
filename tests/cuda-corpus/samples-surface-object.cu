// CUDA-samples-style surface objects: a 2D surface read, transformed and
// written back (surf2Dread / surf2Dwrite with byte x-coordinates), only
// for pixels inside the image, plus a float4 surface write.

__global__ void surface_invert(cudaSurfaceObject_t input, cudaSurfaceObject_t output, int width,
                               int height) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < (unsigned)width && y < (unsigned)height) {
    uchar4 data;
    surf2Dread(&data, input, x * 4, y);
    if (data.w > 128) {
      data.x = 255 - data.x;
      data.y = 255 - data.y;
      data.z = 255 - data.z;
    }
    surf2Dwrite(data, output, x * 4, y);
  }
}

__global__ void surface_fill(cudaSurfaceObject_t surf, int width, int height, float t) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float v = surf2Dread<float>(surf, x * (int)sizeof(float), y);
  if (v < t) surf2Dwrite(v * 2.0f, surf, x * (int)sizeof(float), y);
}
