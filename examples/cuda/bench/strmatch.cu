// strmatch.cu: exact string matching of a short pattern in a long text of
// bytes. Any 1D grid/block; one text position per thread.

// match[i] = 1 where the pattern starts at i (0 otherwise); *count gets the
// number of matches. The comparison stops at the first mismatch.
extern "C" __global__ void match_naive(const unsigned char *text, int n, const unsigned char *pattern,
                                       int m, int *match, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int hit = 0;
  if (i + m <= n) {
    int k = 0;
    while (k < m && text[i + k] == pattern[k]) ++k;
    hit = k == m;
  }
  match[i] = hit;
  if (hit) atomicAdd(count, 1);
}

// The same with a byte-class test first (only positions whose byte is the
// pattern's first one go on), and the first match position with atomicMin
// (*first starts at n).
extern "C" __global__ void match_first(const unsigned char *text, int n, const unsigned char *pattern,
                                       int m, int *first) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + m > n) return;
  if (text[i] != pattern[0]) return;
  for (int k = 1; k < m; ++k)
    if (text[i + k] != pattern[k]) return;
  atomicMin(first, i);
}
