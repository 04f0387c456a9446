// HIP port of tests/cuda-corpus/samples-reduction-cg.cu (README.md): the same kernels.
// CUDA-samples-style reduction with cooperative groups: a templated
// block reduction (shared memory down to one warp, then a
// tiled_partition<32> shuffle loop), a grid-stride variant with
// cg::reduce, and a vote-driven early exit on a tile (any/all/ballot).

#include "hip_cg_shim.h"  // in place of <cooperative_groups.h>

namespace cg = cooperative_groups;

template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <>
struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce_block(const T *g_idata, T *g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * gridDim.x;
  unsigned int i = blockIdx.x * blockSize + threadIdx.x;
  T sum = 0;
  if (nIsPow2) {
    i = blockIdx.x * blockSize * 2 + threadIdx.x;
    gridSize <<= 1;
    while (i < n) {
      sum += g_idata[i];
      if (i + blockSize < n) sum += g_idata[i + blockSize];
      i += gridSize;
    }
  } else {
    while (i < n) {
      sum += g_idata[i];
      i += gridSize;
    }
  }
  sdata[tid] = sum;
  cg::sync(cta);
  if (blockSize >= 512 && tid < 256) sdata[tid] = sum = sum + sdata[tid + 256];
  cg::sync(cta);
  if (blockSize >= 256 && tid < 128) sdata[tid] = sum = sum + sdata[tid + 128];
  cg::sync(cta);
  if (blockSize >= 128 && tid < 64) sdata[tid] = sum = sum + sdata[tid + 64];
  cg::sync(cta);
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    if (blockSize >= 64) sum += sdata[tid + 32];
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) sum += tile32.shfl_down(sum, offset);
  }
  if (cta.thread_rank() == 0) g_odata[blockIdx.x] = sum;
}

template __global__ void reduce_block<int, 256, true>(const int *, int *, unsigned int);
template __global__ void reduce_block<float, 128, false>(const float *, float *, unsigned int);
template __global__ void reduce_block<double, 512, true>(const double *, double *, unsigned int);

// Grid-stride sum with cg::reduce on each warp tile and an atomic per tile.
__global__ void reduce_cg_atomic(const int *in, int *total, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int sum = 0;
  for (int i = block.group_index().x * block.size() + block.thread_rank(); i < n;
       i += gridDim.x * block.size())
    sum += in[i];
  int tile_sum = cg::reduce(tile, sum, cg::plus<int>());
  if (tile.thread_rank() == 0) atomicAdd(total, tile_sum);
}

// Tile votes: a tile whose values are all zero leaves early; otherwise the
// lanes holding a negative value are counted from the ballot and the
// largest value is found with cg::reduce and cg::greater.
__global__ void tile_votes(const int *in, int *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  if (tile.all(v == 0)) return;
  unsigned negatives = tile.ballot(v < 0);
  int biggest = cg::reduce(tile, v, cg::greater<int>());
  if (tile.any(v == biggest) && tile.thread_rank() == 0)
    out[i / 32] = biggest * 64 + __popc(negatives);
}
