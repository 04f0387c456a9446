// Rodinia-style k-means with the features read through a legacy texture
// *reference* (texture<float, 1, cudaReadModeElementType> + tex1Dfetch),
// as the original benchmark did. CUDA 12 removed texture references from
// its headers, so clang rejects this file: an EXPECTED FAILURE of both
// routes (README.md).

#define NCLUSTERS_MAX 8
#define NFEATURES_MAX 34

texture<float, 1, cudaReadModeElementType> t_features;
__constant__ float c_centres[NCLUSTERS_MAX * NFEATURES_MAX];

__global__ void kmeans_point(int nfeatures, int npoints, int nclusters, int *membership) {
  int point = blockIdx.x * blockDim.x + threadIdx.x;
  if (point >= npoints) return;
  int best = -1;
  float best_d = 3.0e38f;
  for (int c = 0; c < nclusters; ++c) {
    float d = 0.0f;
    for (int f = 0; f < nfeatures; ++f) {
      float diff = tex1Dfetch(t_features, f * npoints + point) - c_centres[c * nfeatures + f];
      d += diff * diff;
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  membership[point] = best;
}
