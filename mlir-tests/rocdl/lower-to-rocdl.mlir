// REQUIRES: spmd-predicate
// RUN: spmd-opt --pass-pipeline='builtin.module(spmd-gpu-to-rocdl{wave-size=64 chipset=gfx90a})' %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=W64
// RUN: spmd-opt --pass-pipeline='builtin.module(spmd-gpu-to-rocdl{wave-size=32 chipset=gfx1100})' %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=W32
// RUN: spmd-opt --spmd-reconverge=lane-branches=false --spmd-predicate='wave-size=64 lane-branches=false' --spmd-lower-to-rocdl %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=PASS
// RUN: not spmd-opt --spmd-lower-to-rocdl=wave-size=48 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: spmd-compile --target amdgcn --mcpu gfx90a %spmd_src_root/mlir-tests/nvvm/Inputs/while-break.mlir | FileCheck %s --check-prefix=ASM
// RUN: not spmd-compile --target amdgcn --mcpu sm_90 %s 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: spmd-opt --spmd-gpu-to-rocdl %S/Inputs/amdgpu-kernel-loop.mlir | FileCheck %s --check-prefix=LLVMFUNC
// RUN: spmd-compile --target amdgcn --mcpu gfx942 %S/Inputs/amdgpu-kernel-loop.mlir | FileCheck %s --check-prefix=LLVMASM
// RUN: not spmd-compile --target amdgcn %spmd_src_root/mlir-tests/nvvm/Inputs/llvm-switch-loop.mlir 2>&1 | FileCheck %s --check-prefix=NVIDIA
// RUN: mlir-translate --mlir-to-llvmir %S/Inputs/amdgpu-kernel-loop.mlir -o %t.ll
// RUN: spmd-compile --target amdgcn --mcpu gfx1100 --emit obj %t.ll -o %t.o
// RUN: llvm-readelf -h %t.o | FileCheck %s --check-prefix=ELF

// The wave-level lowering for AMD waves: each lane keeps its own exec bit
// (an i1 threaded through the blocks), the loop's back edge is a
// wave-wide decision (a ballot of the exec bits compared with 0, uniform,
// so the backend keeps it a scalar branch), and the store runs under the
// lane's bit where exec may be partial (here every lane is active again
// after the loop).
// W64:     gpu.module @
// W64:     llvm.func @while_break
// W64-NOT: nvvm.
// W64:     rocdl.ballot {{.*}} : i64
// W64:     llvm.icmp "ne"
// W64:     llvm.cond_br
// W32:     rocdl.ballot {{.*}} : i32

// The pass alone: wave-level spmd ops are gone, masks are bits.
// PASS-NOT: spmd.
// PASS:     rocdl.ballot {{.*}} : i64
// PASS:     arith.cmpi ne
// PASS:     cf.cond_br

// SIZE: error: wave-size=48 is not supported: waves of 32 or 64 lanes

// The AMDGPU backend: the vote is a scalar compare and branch.
// ASM: .amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
// ASM: s_cbranch_{{scc[01]|vccnz|vccz}}
// ASM: .wavefront_size: 64

// CHIP: spmd-compile: error: --mcpu must look like gfx90a or gfx1100, not 'sm_90'

// The llvm.func front door (amdgpu_kernel, llvm.amdgcn.* intrinsics): the
// loop's back edge votes with a ballot, the divergent store runs under the
// lane's exec bit, and nothing of arith/cf/scf/spmd is left.
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
