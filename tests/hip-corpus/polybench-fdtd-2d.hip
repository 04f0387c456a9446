// HIP port of tests/cuda-corpus/polybench-fdtd-2d.cu (README.md): the same kernels.
// PolyBench/GPU-style FDTD-2D: the three field updates of one time step;
// row 0 of ey takes the source term, the others the curl (a divergent
// branch on the row index); float.

typedef float DATA_TYPE;

__global__ void fdtd_step1(const DATA_TYPE *fict, DATA_TYPE *ey, const DATA_TYPE *hz, int t, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    if (i == 0)
      ey[i * ny + j] = fict[t];
    else
      ey[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}

__global__ void fdtd_step2(DATA_TYPE *ex, const DATA_TYPE *hz, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny && j > 0) ex[i * (ny + 1) + j] -= 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

__global__ void fdtd_step3(const DATA_TYPE *ex, const DATA_TYPE *ey, DATA_TYPE *hz, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny)
    hz[i * ny + j] -= 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] +
                              ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
