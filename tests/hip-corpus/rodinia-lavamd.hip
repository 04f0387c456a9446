// HIP port of tests/cuda-corpus/rodinia-lavamd.cu (README.md): the same kernels.
// Rodinia-style lavaMD: particles in boxes interact with the particles of
// the neighbouring boxes through a double-precision potential with exp().
// One block per home box; the neighbour list has a per-box length.

#define NUMBER_PAR_PER_BOX 64
#define MAX_NEIGHBORS 26
#define DOT(a, b) ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z)

typedef struct {
  double v, x, y, z;
} FOUR_VECTOR;

typedef struct {
  int offset;
  int nn;
  int neighbors[MAX_NEIGHBORS];
} BOX;

__global__ void lavamd_kernel(double alpha, int number_boxes, const BOX *boxes,
                              const FOUR_VECTOR *rv, const double *qv, FOUR_VECTOR *fv) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  if (bx >= number_boxes) return;
  __shared__ FOUR_VECTOR rA[NUMBER_PAR_PER_BOX];
  __shared__ FOUR_VECTOR rB[NUMBER_PAR_PER_BOX];
  __shared__ double qB[NUMBER_PAR_PER_BOX];
  double a2 = 2.0 * alpha * alpha;
  int home = boxes[bx].offset;
  for (int w = tx; w < NUMBER_PAR_PER_BOX; w += blockDim.x) rA[w] = rv[home + w];
  __syncthreads();
  for (int k = 0; k < 1 + boxes[bx].nn; ++k) {
    int other = k == 0 ? bx : boxes[bx].neighbors[k - 1];
    int off = boxes[other].offset;
    for (int w = tx; w < NUMBER_PAR_PER_BOX; w += blockDim.x) {
      rB[w] = rv[off + w];
      qB[w] = qv[off + w];
    }
    __syncthreads();
    for (int w = tx; w < NUMBER_PAR_PER_BOX; w += blockDim.x) {
      FOUR_VECTOR acc = fv[home + w];
      for (int j = 0; j < NUMBER_PAR_PER_BOX; ++j) {
        double r2 = rA[w].v + rB[j].v - DOT(rA[w], rB[j]);
        if (r2 < 0.0) continue;  // outside the cutoff: skip the pair
        double u2 = a2 * r2;
        double vij = exp(-u2);
        double fs = 2.0 * vij;
        double dx = rA[w].x - rB[j].x;
        double dy = rA[w].y - rB[j].y;
        double dz = rA[w].z - rB[j].z;
        acc.v += qB[j] * vij;
        acc.x += qB[j] * fs * dx;
        acc.y += qB[j] * fs * dy;
        acc.z += qB[j] * fs * dz;
      }
      fv[home + w] = acc;
    }
    __syncthreads();
  }
}
