// RUN: spmd-opt --pass-pipeline='builtin.module(spmd-gpu-to-nvvm{predicate=false})' %spmd_src_root/examples/divergent-kernel-wave.mlir | FileCheck %s
// RUN: spmd-opt --spmd-gpu-to-nvvm=predicate=false %spmd_src_root/examples/listing1-kernel.mlir | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=HOST

// The named pipeline on wave-level input: spmd-lower-to-nvvm, then the
// upstream conversions. What is left is the LLVM and NVVM dialects only.
// CHECK:     gpu.module @kernels
// CHECK:     llvm.func @divergent_if({{.*}}) attributes {gpu.kernel, nvvm.kernel}
// CHECK-NOT: spmd
// CHECK-NOT: scf.
// CHECK-NOT: cf.
// CHECK-NOT: arith.
// CHECK:     nvvm.read.ptx.sreg.tid.x
// CHECK:     llvm.cond_br
// CHECK:     llvm.store
// CHECK:     nvvm.barrier
// CHECK:     llvm.return

// mlir-translate on the whole module translates only host code: the
// device code has to be taken out of the gpu.module first, which
// scripts/kernel-to-ptx.sh does (or gpu-module-to-binary).
// HOST-NOT: define
