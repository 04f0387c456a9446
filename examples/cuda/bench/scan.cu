// scan.cu: inclusive prefix sums of ints with warp shuffles. blockDim.x a
// multiple of 32 (at most 1024); any grid covering n.

static __device__ __forceinline__ int warp_inclusive(int v, int lane) {
  for (int d = 1; d < 32; d <<= 1) {
    int o = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += o;
  }
  return v;
}

// Scans each block's slice; block_sums[blockIdx.x] gets its total.
extern "C" __global__ void scan_block(const int *in, int *out, int *block_sums, int n) {
  __shared__ int warp_total[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  int v = i < n ? in[i] : 0;
  v = warp_inclusive(v, lane);
  if (lane == 31) warp_total[wid] = v;
  __syncthreads();
  if (wid == 0) {
    int w = lane < nwarps ? warp_total[lane] : 0;
    w = warp_inclusive(w, lane);
    if (lane < nwarps) warp_total[lane] = w;
  }
  __syncthreads();
  if (wid > 0) v += warp_total[wid - 1];
  if (i < n) out[i] = v;
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}

// Adds the scanned totals of the preceding blocks (offsets[b] = sum of the
// blocks before b, inclusive scan of block_sums shifted by one).
extern "C" __global__ void scan_add_offsets(int *out, const int *scanned_sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0 || i >= n) return;
  out[i] += scanned_sums[blockIdx.x - 1];
}
