// binary-search.cu: one query per thread against a sorted array.
// Launch: any 1D grid/block; threads past nq do nothing.

// Index of the first element >= key (n when there is none).
extern "C" __global__ void lower_bound_search(const int *sorted, int n, const int *queries,
                                              int *result, int nq) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nq) return;
  int key = queries[t];
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + ((hi - lo) >> 1);
    if (sorted[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  result[t] = lo;
}

// Index of an element equal to key, or -1: leaves the loop as soon as it
// hits the key.
extern "C" __global__ void exact_search(const int *sorted, int n, const int *queries, int *result,
                                        int nq) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nq) return;
  int key = queries[t];
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + ((hi - lo) >> 1);
    int v = sorted[mid];
    if (v == key) {
      result[t] = mid;
      return;
    }
    if (v < key)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  result[t] = -1;
}
