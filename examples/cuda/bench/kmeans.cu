// kmeans.cu: the assignment step of k-means: each point (nf features,
// feature-major: features[f * n + i]) goes to its nearest of k centroids
// (centroids[c * nf + f], in __shared__ when they fit); *changed counts the
// points whose membership moved. blockDim.x >= 1, k * nf <= 2048; any grid
// covering n.

extern "C" __global__ void kmeans_assign(const float *features, const float *centroids,
                                         int *membership, int *changed, int n, int nf, int k) {
  __shared__ float c[2048];
  for (int j = threadIdx.x; j < k * nf; j += blockDim.x) c[j] = centroids[j];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int best = 0;
  float best_d = 3.0e38f;
  for (int cl = 0; cl < k; ++cl) {
    float d = 0.0f;
    for (int f = 0; f < nf; ++f) {
      float diff = features[f * n + i] - c[cl * nf + f];
      d += diff * diff;
      if (d >= best_d) break; // partial distance already too large
    }
    if (d < best_d) {
      best_d = d;
      best = cl;
    }
  }
  if (membership[i] != best) {
    membership[i] = best;
    atomicAdd(changed, 1);
  }
}
