// texture-object.cu: bindless textures and surfaces (CUDA's texture and
// surface *objects*, from NVIDIA's headers) in divergent code: a
// tex1Dfetch<float> and a tex1Dfetch<int> on a cudaTextureObject_t over
// a linear buffer, and surf2Dwrite on a cudaSurfaceObject_t.
//
//   scripts/cuda-to-ptx.sh examples/cuda/texture-object.cu
//   scripts/cuda-to-ptx.sh --reference examples/cuda/texture-object.cu  # clang
//
// With clang, CUDA's texture and surface functions become inline
// `tex.1d.v4` and `sust.b.2d` asm (clang's __clang_cuda_texture_intrinsics.h
// implements them); spmd's passes keep the asm as it is, inside the
// divergent branches and the data-dependent loop.
// Legacy texture *references* (texture<float, 1, ...> + tex1Dfetch(ref,
// i)) are gone from CUDA 12's headers: clang rejects them
// (tests/cuda-corpus/*-texref.cu).
//
// Arguments: the texture and surface objects are 64-bit handles
// (unsigned long long) that the host creates with cudaCreateTextureObject
// (a cudaResourceTypeLinear resource over a float or int buffer, element
// read mode, no normalisation) and cudaCreateSurfaceObject (a 2D
// cudaArray of float with cudaArraySurfaceLoadStore); everything else is
// a plain pointer or int.

// Gather through a texture: for i < n, with j = idx[i],
//   out[i] = tex[j] * 2      when 0 <= j < tex_len (tex1Dfetch<float>)
//   out[i] = -1              otherwise (no fetch)
// Example: tex = {10, 20, 30}, tex_len = 3, idx = {2, -1, 0, 7}: out =
// {60, -1, 20, -1}.
extern "C" __global__ void tex_gather(cudaTextureObject_t tex, const int *idx, float *out, int n,
                                      int tex_len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = idx[i];
  float r = -1.0f;
  if (j >= 0 && j < tex_len) r = 2.0f * tex1Dfetch<float>(tex, j);
  out[i] = r;
}

// A data-dependent walk through an int texture: thread i < n starts at
// element i and follows pos = tex[pos] until it reads a negative value or
// has taken max_steps steps; out[i] = the number of steps taken.
// Example: max_steps = 16, tex = {1, 2, -1, 0}, n = 4: out = {2, 1, 0, 3};
// tex = {1, 0} (a cycle), n = 2: out = {16, 16}.
extern "C" __global__ void tex_chase(cudaTextureObject_t tex, int *out, int n, int max_steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int pos = i, steps = 0;
  while (steps < max_steps) {
    int next = tex1Dfetch<int>(tex, pos);
    if (next < 0) break;
    pos = next;
    ++steps;
  }
  out[i] = steps;
}

// Surface write: thread (x, y) inside width x height writes
//   surf(x, y) = in[y * width + x] + 0.5, written[y * width + x] = 1
//                                          when in[...] >= 0
//   surf(x, y) = 0, written[y * width + x] = 0   otherwise
// (the result is the surface's array, copied back by the host, and the
// `written` buffer). A surface read of a texel written in the same launch
// is undefined in CUDA, so the kernel does not read the surface back.
// Example: width = 3, height = 1, in = {1, -3, 0}: surface = {1.5, 0,
// 0.5}, written = {1, 0, 1}.
extern "C" __global__ void surf_write(cudaSurfaceObject_t surf, const float *in, int *written,
                                      int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float v = in[y * width + x];
  int flag = 0;
  if (v >= 0.0f) {
    surf2Dwrite(v + 0.5f, surf, x * (int)sizeof(float), y);
    flag = 1;
  } else {
    surf2Dwrite(0.0f, surf, x * (int)sizeof(float), y);
  }
  written[y * width + x] = flag;
}
