// RUN: spmd-opt --spmd-lower-to-nvvm %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s
// RUN: spmd-opt --spmd-lower-to-nvvm %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s --check-prefix=NOSPMD
// RUN: spmd-opt --spmd-lower-to-nvvm %spmd_src_root/examples/listing1-kernel.mlir | mlir-opt --pass-pipeline='builtin.module(convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm),reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// The reconvergence paper's Listing 1 as a wave-level kernel (examples/listing1-kernel.mlir)
// after --spmd-lower-to-nvvm. Each thread of the warp runs the wave-level
// program and keeps its own bit of every mask (an i1): exec is threaded
// through the blocks as an extra block argument, a ballot is "my exec bit
// and my predicate", the mask operations are predicate operations, and
// stores run only in the thread whose exec bit is set. The regions of
// Listing 1 are short and acyclic, so their s_cbranch_execz skips become
// plain branches (running them with no active lane is harmless): the
// kernel has no vote at all.

// CHECK-LABEL: gpu.func @listing1
// CHECK-NOT:  nvvm.read.ptx.sreg.laneid
// CHECK:      %[[TRUE:.*]] = arith.constant true
// CHECK:      %[[X:.*]] = memref.load
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: memref.store

// Block A: lanes with x >= a park in the rejoin mask m; the others go on.
// CHECK-NEXT: %[[A_TO_D:.*]] = arith.cmpi sge, %[[X]]
// CHECK:      %[[M_A:.*]] = arith.ori %{{.*}}, %[[A_TO_D]] : i1
// CHECK:      %[[NOT_M:.*]] = arith.xori %[[M_A]], %{{.*}} : i1
// CHECK:      %[[EXEC_AB:.*]] = arith.andi %[[TRUE]], %[[NOT_M]] : i1
// CHECK-NOT:  nvvm.vote.sync
// CHECK:      cf.br ^[[B:bb[0-9]+]](%[[EXEC_AB]] : i1)

// Block B: the store is guarded by my exec bit; x >= b parks more lanes.
// CHECK:      ^[[B]](%[[EXEC_B:.*]]: i1):
// CHECK:      scf.if %[[EXEC_B]] {
// CHECK-NEXT:   memref.store %c2_i32
// CHECK-NEXT: }
// CHECK:      %[[B_TO_D:.*]] = arith.cmpi sge, %[[X]]
// CHECK:      %[[VOTED:.*]] = arith.select %[[EXEC_B]], %[[B_TO_D]], %{{.*}} : i1
// CHECK:      %[[M_B:.*]] = arith.ori %[[M_A]], %[[VOTED]] : i1
// CHECK:      cf.br ^[[C:bb[0-9]+]](%{{.*}} : i1)

// Block C.
// CHECK:      ^[[C]](%[[EXEC_C:.*]]: i1):
// CHECK:      scf.if %[[EXEC_C]] {
// CHECK-NEXT:   memref.store %c3_i32
// CHECK:      cf.br ^[[D:bb[0-9]+]](%[[M_B]], %[[EXEC_C]] : i1, i1)

// Block D: exec | m re-enables the parked lanes, the last store is guarded
// by the new exec bit.
// CHECK:      ^[[D]](%[[M:.*]]: i1, %[[EXEC_D:.*]]: i1):
// CHECK:      %[[EXEC_ALL:.*]] = arith.ori %[[EXEC_D]], %[[M]] : i1
// CHECK:      scf.if %[[EXEC_ALL]] {
// CHECK-NEXT:   memref.store %c4_i32
// CHECK:      gpu.return

// Nothing of the spmd dialect is left, not even argument attributes.
// NOSPMD-NOT: spmd

// The upstream lowering accepts the result.
// LLVM:     llvm.func @listing1
// LLVM:     llvm.store
// LLVM-NOT: nvvm.vote.sync
