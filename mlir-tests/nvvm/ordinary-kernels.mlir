// REQUIRES: ptxas
// Ordinary divergent kernels, in both front doors, all the way to PTX that
// ptxas accepts, through both routes and for sm_70 and sm_90.
//
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/nested-if.mlir | FileCheck %s --check-prefix=NESTED
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/loop-early-return.mlir | FileCheck %s --check-prefix=EARLY
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/while-break.mlir | FileCheck %s --check-prefix=BREAK
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/switch-tid.mlir | FileCheck %s --check-prefix=SWITCH
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/self-loop-unreachable.mlir | FileCheck %s --check-prefix=SELF
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/infinite-loop.mlir | FileCheck %s --check-prefix=INFINITE
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/math-intrinsics.mlir | FileCheck %s --check-prefix=MATH
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %S/Inputs/llvm-switch-loop.mlir | FileCheck %s --check-prefix=LLVM
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --via llc - < %S/Inputs/llvm-switch-loop.mlir | FileCheck %s --check-prefix=LLVM
//
// Every input through both routes for both targets, assembled by ptxas, is
// part of the PTX gate (crates/spmd-compile/tests/ptx_gate.rs).
//
// Short, acyclic divergent regions run with the thread's exec bit and no
// vote; loops decide their back edge with one vote.sync.any of the exec
// bits.
// NESTED:   .entry nested_if
// NESTED-NOT: vote.sync
// NESTED:   st.{{(global.)?}}b32
// EARLY:    .entry loop_early_return
// EARLY:    vote.sync.any.pred
// BREAK:    .entry while_break
// BREAK:    vote.sync.any.pred
// SWITCH:   .entry switch_tid
// SWITCH-NOT: vote.sync
// SWITCH:   ret;
// SELF:     .entry self_loop
// SELF:     vote.sync.any.pred
// INFINITE: .entry divergent_if
// INFINITE: bar.sync {{[[:space:]]*}}0
// MATH-NOT: .extern
// MATH:     .entry f
// MATH:     cvt.rpi.f32.f32
// MATH:     ex2.approx
// LLVM:     .entry k
// LLVM:     vote.sync.any.pred
