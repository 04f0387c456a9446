// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/reduce-warp.cu -o %t.llc.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/reduce-warp.cu -o %t.isa.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/reduce-warp.cu -o %t.llc.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/reduce-warp.cu -o %t.isa.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null

// The two-level warp-shuffle reduction (examples/cuda/reduce-warp.cu): a
// template __device__ helper inlined twice, a grid-stride loop, shuffles
// with the full mask, a barrier and a float atomicAdd.
// Both routes (llc, gpu-module-to-binary), for sm_90 and sm_70, each
// assembled by ptxas for its target.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK: .entry _Z11reduce_warpPKfPfi(
// CHECK: vote.sync.any.pred
// CHECK-COUNT-5: shfl.sync.down.b32 {{.*}}, -1;
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK-COUNT-5: shfl.sync.down.b32 {{.*}}, -1;
// CHECK: atom.global.add.f32
// CHECK: ret;
