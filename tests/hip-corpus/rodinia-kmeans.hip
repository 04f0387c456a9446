// HIP port of tests/cuda-corpus/rodinia-kmeans.cu (README.md): the same kernels.
// Rodinia-style k-means: features are transposed to feature-major order,
// then each point finds its nearest cluster centre (constant memory) and
// counts the points whose membership changed with a block reduction.

#define NFEATURES_MAX 34
#define NCLUSTERS_MAX 8
#define THREADS 256

__constant__ float c_clusters[NFEATURES_MAX * NCLUSTERS_MAX];

__global__ void invert_mapping(const float *input, float *output, int npoints, int nfeatures) {
  int point = blockIdx.x * blockDim.x + threadIdx.x;
  if (point < npoints) {
    for (int i = 0; i < nfeatures; ++i) output[point + npoints * i] = input[point * nfeatures + i];
  }
}

__global__ void find_nearest(const float *features, int nfeatures, int npoints, int nclusters,
                             int *membership, int *delta_out) {
  __shared__ int changed[THREADS];
  int point = blockIdx.x * blockDim.x + threadIdx.x;
  int moved = 0;
  if (point < npoints) {
    int index = -1;
    float min_dist = 3.402823466e+38f;
    for (int c = 0; c < nclusters; ++c) {
      float dist = 0.0f;
      for (int f = 0; f < nfeatures; ++f) {
        float d = features[f * npoints + point] - c_clusters[c * nfeatures + f];
        dist += d * d;
      }
      if (dist < min_dist) {
        min_dist = dist;
        index = c;
      }
    }
    if (membership[point] != index) {
      moved = 1;
      membership[point] = index;
    }
  }
  changed[threadIdx.x] = moved;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) changed[threadIdx.x] += changed[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0 && changed[0] != 0) atomicAdd(delta_out, changed[0]);
}
