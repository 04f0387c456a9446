// REQUIRES: spmd-predicate
// RUN: spmd-opt --pass-pipeline='builtin.module(spmd-gpu-to-rocdl{wave-size=64 chipset=gfx90a lane-branches=false})' %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=W64
// RUN: spmd-opt --pass-pipeline='builtin.module(spmd-gpu-to-rocdl{wave-size=64 chipset=gfx90a})' %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=LANES
// RUN: spmd-opt --pass-pipeline='builtin.module(spmd-gpu-to-rocdl{wave-size=32 chipset=gfx1100 lane-branches=false})' %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=W32
// RUN: spmd-opt --spmd-reconverge=lane-branches=false --spmd-predicate='wave-size=64 lane-branches=false' --spmd-lower-to-rocdl %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=PASS
// RUN: spmd-opt --spmd-reconverge=lane-branches=false --spmd-predicate='wave-size=64 lane-branches=false' --spmd-lower-to-rocdl=wave-size=64 %spmd_src_root/examples/divergent-kernel.mlir | FileCheck %s --check-prefix=README64
// RUN: spmd-opt --spmd-reconverge=lane-branches=false --spmd-predicate='wave-size=32 lane-branches=false' --spmd-lower-to-rocdl=wave-size=32 %spmd_src_root/examples/divergent-kernel.mlir | FileCheck %s --check-prefix=README32
// RUN: not spmd-opt --spmd-lower-to-rocdl=wave-size=48 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: spmd-compile --target amdgcn --mcpu gfx90a --lane-branches false %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=ASM
// RUN: not spmd-compile --target amdgcn --mcpu sm_90 %s 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: spmd-opt --spmd-gpu-to-rocdl=lane-branches=false %S/Inputs/amdgpu-kernel-loop.mlir | FileCheck %s --check-prefix=LLVMFUNC
// RUN: spmd-compile --target amdgcn --mcpu gfx942 %S/Inputs/amdgpu-kernel-loop.mlir | FileCheck %s --check-prefix=LLVMASM
// RUN: not spmd-compile --target amdgcn %spmd_src_root/mlir-tests/nvvm/Inputs/llvm-switch-loop.mlir 2>&1 | FileCheck %s --check-prefix=NVIDIA
// RUN: mlir-translate --mlir-to-llvmir %S/Inputs/amdgpu-kernel-loop.mlir -o %t.ll
// RUN: spmd-compile --target amdgcn --mcpu gfx1100 --emit obj %t.ll -o %t.o
// RUN: llvm-readelf -h %t.o | FileCheck %s --check-prefix=ELF

// The wave-level lowering for AMD waves (lane-branches=false: every
// divergent branch as exec-mask code): exec is the wave's mask, a
// uniform i64 (wave64) or i32 (wave32) threaded through the blocks; a
// ballot is the ballot of the frozen predicate and'ed with exec; a lane's
// own bit is llvm.amdgcn.inverse.ballot of a mask (free in the backend);
// the loop's exits are scalar tests of the mask against 0, so the backend
// keeps them scalar branches.
// W64:     gpu.module @
// W64:     llvm.func @while_break
// W64-NOT: nvvm.
// W64:     rocdl.ballot {{.*}} : i64
// W64:     llvm.and {{.*}} : i64
// W64:     llvm.icmp "eq" {{.*}} : i64
// W64:     llvm.cond_br
// W32:     rocdl.ballot {{.*}} : i32
// W32:     llvm.icmp "eq" {{.*}} : i32

// By default (lane-branches=true) the loop, which needs no converged
// lanes, stays the thread-level loop: its exits are per-lane branches that
// the backend lowers with its own exec-mask code, and no mask is computed.
// LANES:     llvm.func @while_break
// LANES-NOT: rocdl.ballot
// LANES:     ^bb1(%{{.*}}: i32):
// LANES:     llvm.cond_br %{{.*}}, ^bb4(%{{.*}} : i32), ^bb2
// LANES-NOT: rocdl.ballot
// LANES:     llvm.store
// LANES-NOT: rocdl.

// The pass alone: wave-level spmd ops are gone, masks are wave-wide.
// PASS-NOT: spmd.
// PASS:     %[[LIVE:.*]] = rocdl.ballot %{{.*}} : i64
// PASS:     ^bb1({{.*}}, %[[EXEC:.*]]: i64):
// PASS:     %[[P:.*]] = llvm.freeze
// PASS:     %[[B:.*]] = rocdl.ballot %[[P]] : i64
// PASS:     %[[LEAVE:.*]] = arith.andi %[[B]], %[[EXEC]] : i64
// PASS:     llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.i64"(%[[LEAVE]]) : (i64) -> i1
// PASS:     arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// PASS:     cf.cond_br

// The README's kernel (examples/divergent-kernel.mlir) in both wave sizes:
// the uniform branch on %n stays a branch, the divergent if becomes two
// masked regions whose stores run under the lane's bit of exec, and the
// barrier runs with every lane after the join.
// README64-LABEL: gpu.func @divergent_if
// README64:       %[[LIVE:.*]] = rocdl.ballot %{{.*}} : i64
// README64:       cf.cond_br %{{.*}}, ^bb1(%[[LIVE]] : i64), ^bb{{.*}}(%[[LIVE]] : i64)
// README64:       %[[LOW:.*]] = rocdl.ballot %{{.*}} : i64
// README64:       %[[BIT:.*]] = llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.i64"
// README64:       scf.if %[[BIT]] {
// README64-NEXT:    memref.store
// README64:       llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.i64"
// README64:       scf.if
// README64-NEXT:    memref.store %arg1
// README64:       gpu.barrier
// README64-NOT:   spmd.
// README32-LABEL: gpu.func @divergent_if
// README32:       rocdl.ballot %{{.*}} : i32
// README32:       llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.i32"({{.*}}) : (i32) -> i1
// README32:       scf.if
// README32:       scf.if
// README32:       gpu.barrier
// README32-NOT:   spmd.

// SIZE: error: wave-size=48 is not supported: waves of 32 or 64 lanes

// The AMDGPU backend: the vote is a scalar compare and branch.
// ASM: .amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
// ASM: s_cbranch_{{scc[01]|vccnz|vccz}}
// ASM: .wavefront_size: 64

// CHIP: spmd-compile: error: --mcpu must look like gfx90a or gfx1100, not 'sm_90'

// The llvm.func front door (amdgpu_kernel, llvm.amdgcn.* intrinsics), with
// lane-branches=false: the loop's back edge votes with a ballot, the
// divergent store runs under the lane's exec bit, and nothing of
// arith/cf/scf/spmd is left.
// LLVMFUNC:     llvm.func amdgpu_kernelcc @product
// LLVMFUNC-NOT: {{arith\.|cf\.|scf\.|spmd\.}}
// LLVMFUNC:     rocdl.ballot {{.*}} : i64
// LLVMFUNC:     llvm.cond_br
// LLVMFUNC:     llvm.store
// LLVMASM:      .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// LLVMASM:      product:
// LLVMASM:      s_cbranch_
// LLVMASM:      .amdhsa_kernel product

// LLVM IR in (as HIP's device compilation writes it), a code object out.
// ELF: Machine: {{ *}}EM_AMDGPU

// A kernel made for NVIDIA GPUs is refused for amdgcn.
// NVIDIA: error: 'k' is an NVIDIA kernel (ptx_kernel calling convention or NVVM operations), not one for --target amdgcn
module {}
