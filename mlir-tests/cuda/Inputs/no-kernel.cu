// Device code without a __global__ function (stages.cu).
__device__ int twice(int v) { return 2 * v; }
