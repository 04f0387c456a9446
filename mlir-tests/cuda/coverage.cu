// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/coverage.cu -o %t.llc.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/coverage.cu -o %t.isa.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/coverage.cu -o %t.llc.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/coverage.cu -o %t.isa.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null

// Every function of the CUDA header (examples/cuda/coverage.cu) through the
// pipeline; for sm_70 the sm_80-only ones are left out by the kernel.
// Both routes (llc, gpu-module-to-binary), for sm_90 and sm_70, each
// assembled by ptxas for its target. `__activemask()` is the
// exec mask in wave-level code (a ballot of the threads' exec bits,
// src/ir/collectives.rs); the only activemask.b32 left reads the live mask
// at the kernel's entry.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK: .extern .shared .align 4 .b8 dynamic_tile[];
// CHECK: .entry coverage(
// CHECK-DAG: vote.sync.ballot.b32
// CHECK-DAG: vote.sync.any.pred
// CHECK-DAG: vote.sync.all.pred
// CHECK-DAG: vote.sync.uni.pred
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: shfl.sync.up.b32
// CHECK-DAG: shfl.sync.down.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: match.any.sync.b32
// CHECK-DAG: match.all.sync.b32
// CHECK-DAG: bar.red.popc.u32
// CHECK-DAG: bar.red.and.pred
// CHECK-DAG: bar.red.or.pred
// CHECK-DAG: bar.warp.sync
// CHECK-DAG: membar.cta
// CHECK-DAG: membar.gl
// CHECK-DAG: membar.sys
// CHECK-DAG: atom.global.add.f32
// CHECK-DAG: atom.global.add.f64
// CHECK-DAG: atom.global.inc.u32
// CHECK-DAG: atom.global.dec.u32
// CHECK-DAG: atom.shared.add.f32
// CHECK-DAG: ld.global.nc
// CHECK-DAG: ld.const
// CHECK-DAG: ex2.approx
// CHECK-DAG: lg2.approx
// CHECK-DAG: sin.approx
// CHECK-DAG: cos.approx
// CHECK-DAG: call.uni (retval0), vprintf,
// SM90-DAG: redux.sync.add.s32
// SM90-DAG: nanosleep.u32
