// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s
// Every output is reconverging and verifies:
// RUN: spmd-opt %s -split-input-file --spmd-reconverge | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null
// All four orderings are correct:
// RUN: spmd-opt %s -split-input-file --spmd-reconverge=ordering=df | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-reconverge=ordering=bf | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-reconverge=ordering=rpot | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null

// Figure 2a -> 2b: neither B nor C post-dominates the divergent A. One Flow
// block is inserted; it post-dominates A and dispatches on an i1 predicate
// to B or to D, forwarding D's argument.
// CHECK-LABEL: func.func @figure_2a
// CHECK: spmd.convergence.entry
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: cf.cond_br %arg0, ^[[B:bb[0-9]+]], ^[[FLOW:bb[0-9]+]](%[[T]], %{{.*}} : i1, i32)
// CHECK: ^[[B]]:
// CHECK: %[[Y:.*]] = arith.addi
// CHECK: cf.br ^[[FLOW]](%[[F]], %[[Y]] : i1, i32)
// CHECK: ^[[FLOW]](%[[P:.*]]: i1, %[[V:.*]]: i32):
// CHECK-NEXT: spmd.flow_br %[[P]], ^[[C:bb[0-9]+]], ^[[D:bb[0-9]+]](%[[V]] : i32)
// CHECK: ^[[C]]:
// CHECK-NEXT: cf.br ^[[D]](%arg1 : i32)
// CHECK: ^[[D]](%[[R:.*]]: i32):
// CHECK-NEXT: return %[[R]] : i32
// CHECK-NOT: spmd.flow_br
func.func @figure_2a(%t: i1 {spmd.divergent}, %x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  cf.cond_br %t, ^b, ^c
^b:
  %y = arith.addi %x, %c1 : i32
  cf.br ^d(%y : i32)
^c:
  cf.br ^d(%x : i32)
^d(%r: i32):
  return %r : i32
}

// -----

// Figure 4's walk A -> C -> B -> D: with A divergent and C visited first,
// the open edges A->B and C->D are rerouted through one Flow block, to
// which B then attaches.
// CHECK-LABEL: func.func @figure_4
// CHECK: cf.cond_br %arg0, ^[[C:bb[0-9]+]], ^[[FLOW:bb[0-9]+]](%true : i1)
// CHECK: ^[[FLOW]](%[[P:.*]]: i1):
// CHECK-NEXT: spmd.flow_br %[[P]], ^[[B:bb[0-9]+]], ^[[D:bb[0-9]+]]
// CHECK: ^[[B]]:
// CHECK-NEXT: memref.store %c1_i32
// CHECK-NEXT: cf.br ^[[D]]
// CHECK: ^[[C]]:
// CHECK-NEXT: memref.store %c2_i32
// CHECK: cf.br ^[[FLOW]](%false : i1)
// CHECK: ^[[D]]:
// CHECK-NEXT: return
func.func @figure_4(%t: i1 {spmd.divergent}, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.cond_br %t, ^c, ^b
^b:
  memref.store %c1, %out[%c0] : memref<?xi32>
  cf.br ^d
^c:
  memref.store %c2, %out[%c0] : memref<?xi32>
  cf.br ^d
^d:
  return
}

// -----

// A nested reconverging CFG (both branches divergent, each with a
// post-dominating successor) is left unchanged: no Flow, no token.
// CHECK-LABEL: func.func @nested_reconverging
// CHECK-NOT: spmd.{{flow_br|convergence}}
// CHECK: return
func.func @nested_reconverging(%t: i1 {spmd.divergent}, %u: i1 {spmd.divergent}) {
  cf.cond_br %t, ^a, ^join
^a:
  cf.cond_br %u, ^b, ^inner
^b:
  cf.br ^inner
^inner:
  cf.br ^join
^join:
  return
}

// -----

// Uniform branches are preserved, even when they do not reconverge.
// CHECK-LABEL: func.func @uniform_unstructured
// CHECK-NOT: spmd.flow_br
// CHECK: cf.cond_br %arg0, ^bb1, ^bb2
func.func @uniform_unstructured(%u: i1, %v: i1) {
  cf.cond_br %u, ^a, ^b
^a:
  cf.cond_br %v, ^b, ^c
^b:
  cf.br ^c
^c:
  return
}
