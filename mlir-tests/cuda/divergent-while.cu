// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/divergent-while.cu -o %t.llc.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/divergent-while.cu -o %t.isa.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/divergent-while.cu -o %t.llc.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/divergent-while.cu -o %t.isa.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null

// A while loop with a data-dependent exit and an early exit
// (examples/cuda/divergent-while.cu): the loop runs until the warp's last
// thread leaves (a vote.sync.any of the exec bits decides the back edge);
// a thread whose exit condition holds clears its exec bit.
// Both routes (llc, gpu-module-to-binary), for sm_90 and sm_70, each
// assembled by ptxas for its target.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK: .entry collatz_steps(
// CHECK: vote.sync.any.pred
// CHECK: vote.sync.any.pred
// CHECK: mad.lo.s32 {{.*}}, 3, 1;
// CHECK: st.global.b32
// CHECK: ret;
