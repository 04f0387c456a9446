// HIP port of tests/cuda-corpus/rodinia-nn.cu (README.md): the same kernels.
// Rodinia-style nearest neighbour: the distance of every record's
// (latitude, longitude) to a query point, on a 2D grid of 1D blocks, with
// sqrtf and a bounds check on the flattened index.

struct LatLong {
  float lat;
  float lng;
};

__global__ void euclid(const LatLong *d_locations, float *d_distances, int num_records,
                       float lat, float lng) {
  int global_id = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  if (global_id < num_records) {
    const LatLong *p = d_locations + global_id;
    float dlat = lat - p->lat;
    float dlng = lng - p->lng;
    d_distances[global_id] = sqrtf(dlat * dlat + dlng * dlng);
  }
}

// A block-level arg-min over the distances (the host would finish it).
__global__ void block_argmin(const float *d_distances, int num_records, int *best_index,
                             float *best_distance) {
  __shared__ float dist[256];
  __shared__ int idx[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  dist[threadIdx.x] = i < num_records ? d_distances[i] : 3.0e38f;
  idx[threadIdx.x] = i < num_records ? i : -1;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && dist[threadIdx.x + s] < dist[threadIdx.x]) {
      dist[threadIdx.x] = dist[threadIdx.x + s];
      idx[threadIdx.x] = idx[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    best_index[blockIdx.x] = idx[0];
    best_distance[blockIdx.x] = dist[0];
  }
}
