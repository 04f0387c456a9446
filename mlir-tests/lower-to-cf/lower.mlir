// RUN: spmd-opt %s -split-input-file --spmd-lower-to-cf | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-lower-to-cf | FileCheck %s --check-prefix=NOSPMD

// After the pass no spmd op or discardable spmd attribute is left (function
// argument attributes such as {spmd.divergent} stay).
// NOSPMD-NOT: {{spmd\.(flow_br|convergence|reconvergence|uniformity)|!spmd}}

// A Flow block keeps its condition, successors and the operands of both
// edges; `loop` is dropped. Tokens and markers disappear.
// CHECK-LABEL: func.func @flow_loop
// CHECK-SAME: (%[[N:.*]]: i32, %[[T:.*]]: i32 {spmd.divergent})
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: cf.br ^[[H:bb[0-9]+]](%[[C0]] : i32)
// CHECK-NEXT: ^[[H]](%[[I:.*]]: i32):
// CHECK-NEXT: %[[DONE:.*]] = arith.cmpi eq, %[[I]], %[[T]] : i32
// CHECK-NEXT: cf.cond_br %[[DONE]], ^[[EXIT:bb[0-9]+]](%[[I]], %[[N]] : i32, i32), ^[[H]](%[[N]] : i32)
// CHECK-NEXT: ^[[EXIT]](%[[A:.*]]: i32, %[[B:.*]]: i32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: return %[[SUM]] : i32
func.func @flow_loop(%n: i32, %t: i32 {spmd.divergent}) -> i32 {
  %entry = spmd.convergence.entry : !spmd.token
  %c0 = arith.constant 0 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %iter = spmd.convergence.loop %entry : !spmd.token
  %done = arith.cmpi eq, %i, %t : i32
  spmd.flow_br loop %done, ^exit(%i, %n : i32, i32), ^header(%n : i32)
^exit(%a: i32, %b: i32):
  %sum = arith.addi %a, %b : i32
  return %sum : i32
}

// -----

// Nested loop tokens (a loop token whose parent is a loop token) and an
// anchor are erased users first; markers and uniformity attributes go too.
// CHECK-LABEL: func.func @nested_tokens_and_markers
// CHECK-SAME: (%[[C:.*]]: i1 {spmd.divergent}, %[[D:.*]]: i1) {
// CHECK-NEXT: cf.cond_br %[[C]], ^[[OUTER:bb[0-9]+]], ^[[JOIN:bb[0-9]+]]{{$}}
// CHECK-NEXT: ^[[OUTER]]:
// CHECK-NEXT: cf.br ^[[INNER:bb[0-9]+]]{{$}}
// CHECK-NEXT: ^[[INNER]]:
// CHECK-NEXT: cf.cond_br %[[D]], ^[[INNER]], ^[[OUTER]]{{$}}
// CHECK-NEXT: ^[[JOIN]]:
// CHECK-NEXT: return
func.func @nested_tokens_and_markers(%c: i1 {spmd.divergent}, %d: i1) {
  %entry = spmd.convergence.entry : !spmd.token
  %anchor = spmd.convergence.anchor : !spmd.token
  spmd.reconvergence.head 0
  cf.cond_br %c, ^outer, ^join {spmd.uniformity = #spmd.uniformity<divergent>}
^outer:
  %outer_tok = spmd.convergence.loop %entry : !spmd.token
  cf.br ^inner
^inner:
  %inner_tok = spmd.convergence.loop %outer_tok : !spmd.token
  spmd.flow_br %d, ^inner, ^outer
^join:
  spmd.reconvergence.tail 0
  return
}

// -----

// Code without spmd ops is left unchanged.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: cf.cond_br %{{.*}}, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return
func.func @plain(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}
