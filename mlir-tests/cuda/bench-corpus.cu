// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: rm -rf %t && mkdir -p %t
// RUN: bash -c 'set -euo pipefail; export LC_ALL=C; for f in %spmd_src_root/examples/cuda/bench/*.cu; do b=$(basename "$f" .cu); %spmd_src_root/scripts/cuda-to-ptx.sh --mcpu sm_90 "$f" -o %t/$b.spmd.ptx; %ptxas -arch=sm_90 %t/$b.spmd.ptx -o /dev/null; %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 "$f" -o %t/$b.clang.ptx; %ptxas -arch=sm_90 %t/$b.clang.ptx -o /dev/null; done'
// RUN: cat %t/*.spmd.ptx | FileCheck %s
// RUN: cat %t/*.clang.ptx | FileCheck %s

// The benchmark corpus of issue #29 (examples/cuda/bench, docs/cuda-bench.md):
// every file through spmd's pipeline (scripts/cuda-to-ptx.sh) and through
// clang alone (--reference) for sm_90, both assembled by ptxas, and every
// kernel comes out as an .entry on both routes. scripts/bench-cuda.sh
// compares the two; examples/cuda/bench/recipes.json launches each kernel.

// backprop.cu
// CHECK-DAG: .entry layer_forward(
// CHECK-DAG: .entry adjust_weights(
// bfs.cu
// CHECK-DAG: .entry bfs_expand(
// CHECK-DAG: .entry bfs_commit(
// binary-search.cu
// CHECK-DAG: .entry lower_bound_search(
// CHECK-DAG: .entry exact_search(
// binomial.cu
// CHECK-DAG: .entry binomial_put(
// bitonic.cu
// CHECK-DAG: .entry bitonic_sort_shared(
// CHECK-DAG: .entry bitonic_step_global(
// black-scholes.cu
// CHECK-DAG: .entry black_scholes(
// btree-search.cu
// CHECK-DAG: .entry btree_find(
// CHECK-DAG: .entry btree_find_warp(
// histogram.cu
// CHECK-DAG: .entry histo_global(
// CHECK-DAG: .entry histo_shared(
// CHECK-DAG: .entry histo_range(
// hotspot.cu
// CHECK-DAG: .entry hotspot_step(
// inverse-cnd.cu
// CHECK-DAG: .entry inverse_cnd(
// CHECK-DAG: .entry normal_lattice(
// jacobi2d.cu
// CHECK-DAG: .entry jacobi2d_dirichlet(
// CHECK-DAG: .entry heat2d_neumann(
// kmeans.cu
// CHECK-DAG: .entry kmeans_assign(
// last-block-reduce.cu
// CHECK-DAG: .entry sum_last_block(
// life.cu
// CHECK-DAG: .entry life_step(
// lud.cu
// CHECK-DAG: .entry lud_diagonal(
// CHECK-DAG: .entry lud_perimeter(
// CHECK-DAG: .entry lud_internal(
// mandelbrot.cu
// CHECK-DAG: .entry mandelbrot(
// CHECK-DAG: .entry julia(
// nbody.cu
// CHECK-DAG: .entry nbody_accel(
// CHECK-DAG: .entry nbody_integrate(
// particles.cu
// CHECK-DAG: .entry particle_bounce(
// CHECK-DAG: .entry photon_walk(
// primes.cu
// CHECK-DAG: .entry smallest_factors(
// CHECK-DAG: .entry count_primes(
// raysphere.cu
// CHECK-DAG: .entry raytrace(
// reduce-shfl.cu
// CHECK-DAG: .entry shfl_sum_atomic(
// CHECK-DAG: .entry shfl_dot(
// reduce-tree.cu
// CHECK-DAG: .entry reduce_tree_sum(
// CHECK-DAG: .entry reduce_tree_minmax(
// scan.cu
// CHECK-DAG: .entry scan_block(
// CHECK-DAG: .entry scan_add_offsets(
// spmv.cu
// CHECK-DAG: .entry spmv_csr_scalar(
// CHECK-DAG: .entry spmv_csr_vector(
// stencil1d.cu
// CHECK-DAG: .entry stencil1d_shared(
// CHECK-DAG: .entry stencil1d_mirror(
// strmatch.cu
// CHECK-DAG: .entry match_naive(
// CHECK-DAG: .entry match_first(
// transpose.cu
// CHECK-DAG: .entry transpose_tiled(
// CHECK-DAG: .entry transpose_naive(
// vlc.cu
// CHECK-DAG: .entry pack_nibbles(
// CHECK-DAG: .entry vlc_encode(
