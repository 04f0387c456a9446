// Convergence tokens: --spmd-reconverge inserts them (the thread-level
// convergence contract of its output, kept for thread-level consumers and
// --spmd-branch-fold's gate); --spmd-predicate removes those that nothing
// uses, because wave-level code runs converged by construction.

// RUN: spmd-opt %s -split-input-file --allow-unregistered-dialect --spmd-reconverge | FileCheck %s --check-prefix=RECONVERGE
// RUN: spmd-opt %s -split-input-file --allow-unregistered-dialect --spmd-reconverge --spmd-predicate | FileCheck %s

// RECONVERGE-LABEL: func.func @loop
// RECONVERGE: %[[ENTRY:.*]] = spmd.convergence.entry : !spmd.token
// RECONVERGE: spmd.convergence.loop %[[ENTRY]] : !spmd.token
// CHECK-LABEL: func.func @loop
// CHECK-NOT: spmd.convergence
// CHECK: spmd.exec.write
// CHECK-NOT: spmd.convergence
// CHECK: return
func.func @loop(%n: i32, %t: i32 {spmd.divergent}, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %more = arith.cmpi slt, %i, %n : i32
  cf.cond_br %more, ^body, ^exit
^body:
  %brk = arith.cmpi eq, %i, %t : i32
  cf.cond_br %brk, ^broke, ^latch
^latch:
  %next = arith.addi %i, %c1 : i32
  cf.br ^header(%next : i32)
^broke:
  %idx = arith.index_cast %i : i32 to index
  memref.store %i, %out[%idx] : memref<?xi32>
  cf.br ^exit
^exit:
  return
}

// -----

// A token that an operation uses stays, and so does its parent; the
// unused child of the inner loop goes.
// CHECK-LABEL: func.func @used
// CHECK: %[[ENTRY:.*]] = spmd.convergence.entry : !spmd.token
// CHECK: %[[OUTER:.*]] = spmd.convergence.loop %[[ENTRY]] : !spmd.token
// CHECK-NEXT: "acme.convergent"(%[[OUTER]]) : (!spmd.token) -> ()
// CHECK-NOT: spmd.convergence
// CHECK: return
func.func @used(%n: i32 {spmd.uniform}) {
  %entry = spmd.convergence.entry : !spmd.token
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^outer(%c0 : i32)
^outer(%i: i32):
  %outer = spmd.convergence.loop %entry : !spmd.token
  "acme.convergent"(%outer) : (!spmd.token) -> ()
  cf.br ^inner(%c0 : i32)
^inner(%j: i32):
  %inner = spmd.convergence.loop %outer : !spmd.token
  %j1 = arith.addi %j, %c1 : i32
  %again = arith.cmpi slt, %j1, %n : i32
  cf.cond_br %again, ^inner(%j1 : i32), ^latch
^latch:
  %i1 = arith.addi %i, %c1 : i32
  %more = arith.cmpi slt, %i1, %n : i32
  cf.cond_br %more, ^outer(%i1 : i32), ^exit
^exit:
  return
}
