// RUN: spmd-opt --spmd-lower-to-nvvm %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s
// RUN: spmd-opt --spmd-lower-to-nvvm %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s --check-prefix=NOSPMD
// RUN: spmd-opt --spmd-lower-to-nvvm %spmd_src_root/examples/listing1-kernel.mlir | mlir-opt --pass-pipeline='builtin.module(convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm),reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// Seed 004's Listing 1 as a wave-level kernel (examples/listing1-kernel.mlir)
// after --spmd-lower-to-nvvm. Each thread of the warp runs the wave-level
// program: the masks are i32 values every thread holds, exec is threaded
// through the blocks as an extra block argument, ballots vote over the live
// lanes, and stores run only in the thread whose exec bit is set.

// Entry: laneid, the live lanes of this warp from the linear thread id and
// the block size, and my lane bit.
// CHECK-LABEL: gpu.func @listing1
// CHECK:      %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK:      nvvm.read.ptx.sreg.tid.x : i32
// CHECK:      %[[BASE:.*]] = arith.andi %{{.*}}, %c-32_i32 : i32
// CHECK:      %[[LEFT:.*]] = arith.subi %{{.*}}, %[[BASE]] : i32
// CHECK:      %[[FULL:.*]] = arith.cmpi uge, %[[LEFT]], %c32_i32 : i32
// CHECK:      %[[LIVE:.*]] = arith.select %[[FULL]], %c-1_i32, %{{.*}} : i32
// CHECK:      %[[BIT:.*]] = arith.shli %{{.*}}, %[[LANE]] : i32

// Block A runs with exec = live until its exec.write: its load and store
// need no guard, and its ballot votes with the bare predicate.
// CHECK:      %[[X:.*]] = memref.load
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: memref.store
// CHECK-NEXT: %[[A_TO_D:.*]] = arith.cmpi sge, %[[X]]
// CHECK:      %[[VOTE_A:.*]] = nvvm.vote.sync ballot %[[LIVE]], %[[A_TO_D]] -> i32
// CHECK:      %[[M_A:.*]] = arith.ori %{{.*}}, %[[VOTE_A]] : i32
// exec.read/andn/write: exec & ~m.
// CHECK:      %[[NOT_M:.*]] = arith.xori %[[M_A]], %c-1_i32{{.*}} : i32
// CHECK:      %[[EXEC_AB:.*]] = arith.andi %[[LIVE]], %[[NOT_M]] : i32
// exec.br_zero: a uniform branch on exec == 0; both successors get exec.
// CHECK:      %[[NONE:.*]] = arith.cmpi eq, %[[EXEC_AB]], %c0
// CHECK:      cf.cond_br %[[NONE]], ^[[D:bb[0-9]+]](%[[M_A]], %[[EXEC_AB]] : i32, i32), ^[[B:bb[0-9]+]](%[[EXEC_AB]] : i32)

// Block B: the store is guarded by my exec bit, the ballot votes with
// (predicate & my bit).
// CHECK:      ^[[B]](%[[EXEC_B:.*]]: i32):
// CHECK:      %[[MINE:.*]] = arith.andi %[[EXEC_B]], %[[BIT]] : i32
// CHECK:      %[[ACTIVE:.*]] = arith.cmpi ne, %[[MINE]], %c0
// CHECK:      scf.if %[[ACTIVE]] {
// CHECK-NEXT:   memref.store %c2_i32
// CHECK-NEXT: }
// CHECK:      %[[B_TO_D:.*]] = arith.cmpi sge, %[[X]]
// CHECK:      %[[VOTED:.*]] = arith.select %[[ACTIVE]], %[[B_TO_D]], %false : i1
// CHECK:      nvvm.vote.sync ballot %[[LIVE]], %[[VOTED]] -> i32
// CHECK:      cf.cond_br %{{.*}}, ^[[D]](%{{.*}}, %{{.*}} : i32, i32), ^[[C:bb[0-9]+]](%{{.*}} : i32)

// CHECK:      ^[[C]](%[[EXEC_C:.*]]: i32):
// CHECK:      arith.andi %[[EXEC_C]], %[[BIT]] : i32
// CHECK:      scf.if
// CHECK-NEXT:   memref.store %c3_i32
// CHECK:      cf.br ^[[D]](%{{.*}}, %[[EXEC_C]] : i32, i32)

// Block D: the rejoin mask (a former !spmd.mask block argument) is an i32;
// exec | m re-enables the lanes, the last store is guarded by the new exec.
// CHECK:      ^[[D]](%[[M:.*]]: i32, %[[EXEC_D:.*]]: i32):
// CHECK:      %[[EXEC_ALL:.*]] = arith.ori %[[EXEC_D]], %[[M]] : i32
// CHECK:      arith.andi %[[EXEC_ALL]], %[[BIT]] : i32
// CHECK:      scf.if
// CHECK-NEXT:   memref.store %c4_i32
// CHECK:      gpu.return

// Nothing of the spmd dialect is left, not even argument attributes.
// NOSPMD-NOT: spmd

// The upstream lowering accepts the result.
// LLVM:     llvm.func @listing1
// LLVM:     nvvm.read.ptx.sreg.laneid
// LLVM:     nvvm.vote.sync ballot
// LLVM:     llvm.store
