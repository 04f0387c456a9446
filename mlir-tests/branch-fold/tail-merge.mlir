// RUN: spmd-opt %s -split-input-file --spmd-branch-fold="stats fold-operations=false" 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold="tail-merge-size=5 fold-operations=false" | FileCheck %s --check-prefix=SIZE5
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold="enable-tail-merge=false fold-operations=false" | FileCheck %s --check-prefix=OFF
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold="tail-merge-threshold=1 fold-operations=false" | FileCheck %s --check-prefix=OFF
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold=disable | FileCheck %s --check-prefix=OFF

// FoldOperations is off: the dead filler operations that keep the
// candidate blocks apart would otherwise be erased (fold-operations.mlir
// covers that step).

// Two tails of three operations before a cf.br to the same block merge;
// the value that differs (%y vs %z) is threaded through an argument of
// the shared block.
// CHECK-LABEL: func.func @branch_tails
// CHECK:         cf.cond_br %arg0, ^bb1, ^bb2
// CHECK:       ^bb1:
// CHECK-NEXT:    arith.subi
// CHECK-NEXT:    cf.br ^[[TAIL:bb[0-9]+]](%arg2 : i32)
// CHECK:       ^bb2:
// CHECK-NEXT:    arith.divsi
// CHECK-NEXT:    cf.br ^[[TAIL]](%arg3 : i32)
// The shared block then absorbs ^join, its only successor.
// CHECK:       ^[[TAIL]](%[[V:.*]]: i32):
// CHECK-NEXT:    %[[A:.*]] = arith.addi %arg1, %[[V]]
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[A]]
// CHECK-NEXT:    memref.store %[[A]], %arg4[%[[I]]]
// CHECK-NEXT:    arith.muli %[[A]], %[[A]]
// CHECK-NEXT:    return
// SIZE5-LABEL: func.func @branch_tails
// SIZE5-COUNT-2: memref.store
// OFF-LABEL: func.func @branch_tails
// OFF-COUNT-2: memref.store
func.func @branch_tails(%c: i1, %x: i32, %y: i32, %z: i32, %m: memref<?xi32>) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %s = arith.subi %x, %y : i32
  %a1 = arith.addi %x, %y : i32
  %i1 = arith.index_cast %a1 : i32 to index
  memref.store %a1, %m[%i1] : memref<?xi32>
  cf.br ^join(%a1 : i32)
^b:
  %d = arith.divsi %x, %z : i32
  %b1 = arith.addi %x, %z : i32
  %i2 = arith.index_cast %b1 : i32 to index
  memref.store %b1, %m[%i2] : memref<?xi32>
  cf.br ^join(%b1 : i32)
^join(%v: i32):
  %w = arith.muli %v, %v : i32
  return %w : i32
}
// STATS-LABEL: spmd-branch-fold @branch_tails
// STATS:         tails merged: 1 (3 ops)

// -----

// Return tails (phase A) merge too.
// CHECK-LABEL: func.func @return_tails
// CHECK:         cf.br ^bb3
// CHECK:         cf.br ^bb3
// CHECK-NEXT:  ^bb3:
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    arith.xori
// CHECK-NEXT:    return
// OFF-LABEL: func.func @return_tails
// OFF-COUNT-2: arith.muli
func.func @return_tails(%c: i1, %x: i32, %y: i32) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %s = arith.subi %x, %y : i32
  %a1 = arith.addi %x, %x : i32
  %a2 = arith.muli %a1, %y : i32
  %a3 = arith.xori %a2, %x : i32
  return %a3 : i32
^b:
  %d = arith.divsi %x, %y : i32
  %b1 = arith.addi %x, %x : i32
  %b2 = arith.muli %b1, %y : i32
  %b3 = arith.xori %b2, %x : i32
  return %b3 : i32
}

