// RUN: spmd-opt %s -split-input-file --spmd-branch-fold=stats 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold=hoist-common-code=false | FileCheck %s --check-prefix=OFF

// Identical leading operations of both successors (including a store of
// the same value to the same address) move in front of the branch.
// CHECK-LABEL: func.func @hoist
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = arith.addi %arg1, %arg1
// CHECK-NEXT:    memref.store %[[A]], %arg2[%[[C0]]]
// CHECK-NEXT:    cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    arith.muli %[[A]], %[[A]]
// OFF-LABEL: func.func @hoist
// OFF-COUNT-2: arith.addi
func.func @hoist(%c: i1 {spmd.divergent}, %x: i32, %m: memref<?xi32>) {
  %i = arith.constant 0 : index
  cf.cond_br %c, ^a, ^b
^a:
  %a = arith.addi %x, %x : i32
  memref.store %a, %m[%i] : memref<?xi32>
  %z = arith.muli %a, %a : i32
  memref.store %z, %m[%i] : memref<?xi32>
  return
^b:
  %b = arith.addi %x, %x : i32
  memref.store %b, %m[%i] : memref<?xi32>
  return
}
// STATS-LABEL: spmd-branch-fold @hoist
// STATS:         ops hoisted: 2

// -----

// Stores of different values are not hoisted.
// CHECK-LABEL: func.func @different_stores
// CHECK:         cf.cond_br
// CHECK-COUNT-2: memref.store
func.func @different_stores(%c: i1 {spmd.divergent}, %x: i32, %y: i32, %m: memref<?xi32>) {
  %i = arith.constant 0 : index
  cf.cond_br %c, ^a, ^b
^a:
  memref.store %x, %m[%i] : memref<?xi32>
  return
^b:
  memref.store %y, %m[%i] : memref<?xi32>
  return
}

// -----

// A successor with another predecessor does not run its prefix for
// every thread of the branch: no hoisting.
// CHECK-LABEL: func.func @shared_successor
// CHECK:         cf.cond_br
// CHECK-COUNT-2: arith.addi
func.func @shared_successor(%c: i1, %d: i1, %x: i32) -> i32 {
  cf.cond_br %d, ^p, ^b
^p:
  cf.cond_br %c, ^a, ^b
^a:
  %a = arith.addi %x, %x : i32
  return %a : i32
^b:
  %b = arith.addi %x, %x : i32
  %b2 = arith.muli %b, %b : i32
  return %b2 : i32
}

// -----

// Nothing is hoisted into a Flow block: Flow blocks hold only their
// terminator.
// CHECK-LABEL: func.func @no_hoist_into_flow
// CHECK:         spmd.flow_br
// CHECK-COUNT-2: arith.addi
func.func @no_hoist_into_flow(%c: i1, %x: i32) -> i32 {
  spmd.flow_br %c, ^a, ^b
^a:
  %a = arith.addi %x, %x : i32
  return %a : i32
^b:
  %b = arith.addi %x, %x : i32
  %b2 = arith.muli %b, %b : i32
  return %b2 : i32
}
