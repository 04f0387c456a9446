// vlc.cu: bit packing and variable-length encoding.

// Eight values per output word, 4 bits each, saturated at 15 (negative
// values become 0). Any 1D grid/block; words = ceil(n / 8).
extern "C" __global__ void pack_nibbles(const int *values, unsigned *words, int n) {
  int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w * 8 >= n) return;
  unsigned word = 0;
  for (int k = 0; k < 8; ++k) {
    int i = w * 8 + k;
    if (i >= n) break;
    int v = values[i];
    if (v < 0)
      v = 0;
    else if (v > 15)
      v = 15;
    word |= (unsigned)v << (4 * k);
  }
  words[w] = word;
}

// Each thread encodes one byte symbol with the code table (codes[s] in
// the low lens[s] bits, lens[s] in 0..16); a warp's codes go one after the
// other into its own 32*16-bit window of the output (16 words per warp), at
// offsets from a shuffle prefix sum of the lengths. atomicOr makes the
// result independent of order. warp_bits[w] gets the warp's total length.
// Launch: blockDim.x a multiple of 32; out holds 16 words per warp of the
// grid and must start zeroed.
extern "C" __global__ void vlc_encode(const int *symbols, int n, const unsigned *codes,
                                      const int *lens, unsigned *out, int *warp_bits) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = t >> 5;
  unsigned code = 0;
  int len = 0;
  if (t < n) {
    int s = symbols[t] & 255;
    len = lens[s];
    if (len < 0) len = 0;
    if (len > 16) len = 16;
    code = len ? codes[s] & ((1u << len) - 1u) : 0u;
  }
  int end = len;
  for (int d = 1; d < 32; d <<= 1) {
    int other = __shfl_up_sync(0xffffffffu, end, d);
    if (lane >= d) end += other;
  }
  int start = end - len;
  if (lane == 31) warp_bits[warp] = end;
  if (len == 0) return;
  unsigned *window = out + warp * 16;
  int word = start >> 5, bit = start & 31;
  atomicOr(&window[word], code << bit);
  if (bit + len > 32) atomicOr(&window[word + 1], code >> (32 - bit));
}
