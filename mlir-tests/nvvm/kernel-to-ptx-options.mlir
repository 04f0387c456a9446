// REQUIRES: ptxas
// The options and failure modes of scripts/kernel-to-ptx.sh.
//
// Targets before sm_75 get PTX 6.2, the first with activemask (the live
// mask of the votes):
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --mcpu sm_60 %S/Inputs/llvm-switch-loop.mlir -o %t.sm60.ptx
// RUN: FileCheck %s --check-prefix=SM60 < %t.sm60.ptx
// RUN: %ptxas -arch=sm_60 %t.sm60.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --via isa --mcpu sm_60 %S/Inputs/llvm-switch-loop.mlir -o %t.isa60.ptx
// RUN: %ptxas -arch=sm_60 %t.isa60.ptx -o /dev/null
// SM60: .version 6.2
// SM60: .target sm_60
// SM60: vote.sync.any.pred
//
// --ptx raises the PTX version further (sm_70 gets 6.2; __nanosleep needs 6.3):
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --mcpu sm_70 --ptx 63 %S/Inputs/nested-if.mlir -o %t.ptx63.ptx
// RUN: FileCheck %s --check-prefix=PTX63 < %t.ptx63.ptx
// RUN: %ptxas -arch=sm_70 %t.ptx63.ptx -o /dev/null
// RUN: not %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --ptx 5 %S/Inputs/nested-if.mlir 2>&1 | FileCheck %s --check-prefix=BADPTX
// PTX63: .version 6.3
// BADPTX: spmd-compile: error: --ptx must be a PTX ISA version of 62 (6.2) or more
//
// Too old a target, or a malformed one, is refused up front:
// RUN: not %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --mcpu sm_20 %S/Inputs/nested-if.mlir 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --mcpu volta %S/Inputs/nested-if.mlir 2>&1 | FileCheck %s --check-prefix=BADCPU
// OLD: spmd-compile: error: --mcpu sm_20 is too old: the exec-mask lowering needs vote.sync (PTX 6.0, sm_30 or newer)
// BADCPU: spmd-compile: error: --mcpu must look like sm_70 or sm_90a, not 'volta'
//
// Waves of 64 lanes: the wave size reaches spmd-predicate too, so the mask
// carriers of the LLVM-dialect kernel are i64 there; the NVVM lowering keeps
// the thread's own bit, an i1, in the loop's carrier instead (the loop's
// back edge is a warp-wide vote).
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --wave-size 64 --emit nvvm %S/Inputs/llvm-switch-loop.mlir | FileCheck %s --check-prefix=WAVE64
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false --wave-size 64 %S/Inputs/llvm-switch-loop.mlir -o %t.w64.ptx
// RUN: %ptxas -arch=sm_90 %t.w64.ptx -o /dev/null
// WAVE64: llvm.func ptx_kernelcc @k(
// WAVE64-NOT: llvm.trunc {{.*}} : i64 to i1
// WAVE64: nvvm.vote.sync any
// WAVE64: llvm.br ^bb1({{.*}} : {{.*}}i1)
//
// LLVM math that NVPTX cannot select (llvm.exp.f32 would abort llc) becomes
// a call of libdevice's function, which the driver links and inlines:
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --emit llvm %s | FileCheck %s --check-prefix=LIBDEVICE-IR
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh %s -o %t.exp.ptx
// RUN: FileCheck %s --check-prefix=LIBDEVICE < %t.exp.ptx
// RUN: %ptxas -arch=sm_90 %t.exp.ptx -o /dev/null
// LIBDEVICE-IR-NOT: @llvm.exp.f32
// LIBDEVICE-IR: call {{.*}}float @__nv_expf(
// LIBDEVICE-IR: define internal {{.*}}float @__nv_expf(
// LIBDEVICE-NOT: .extern
// LIBDEVICE: .entry uses_exp(
// LIBDEVICE: ex2.approx
module attributes {llvm.target_triple = "nvptx64-nvidia-cuda"} {
  llvm.func ptx_kernelcc @uses_exp(%out: !llvm.ptr<1>, %x: f32) {
    %e = llvm.intr.exp(%x) : (f32) -> f32
    llvm.store %e, %out : f32, !llvm.ptr<1>
    llvm.return
  }
}
