// RUN: spmd-opt %s -split-input-file --spmd-unify-loop-exits | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-unify-loop-exits | spmd-opt -split-input-file --spmd-print-cfg-analysis -o /dev/null 2>&1 | FileCheck %s --check-prefix=CYCLES

// A loop left at two places, to two different blocks: both exiting edges
// enter one guard block outside the loop that dispatches to ^x or ^y; the
// value computed in the loop reaches ^y through the guard's arguments.
// CHECK-LABEL: func.func @two_exits
// CHECK: ^[[LOOP:bb[0-9]+]]:
// CHECK: cf.cond_br %arg0, ^[[GUARD:bb[0-9]+]](%{{.*}} : i1, i32), ^[[BODY:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK: %[[V:.*]] = arith.addi
// CHECK: cf.cond_br %arg1, ^[[GUARD]](%{{.*}}, %[[V]] : i1, i32), ^[[LOOP]]
// CHECK: ^[[GUARD]](%[[P:.*]]: i1, %[[A:.*]]: i32):
// CHECK-NEXT: cf.cond_br %[[P]], ^[[X:bb[0-9]+]], ^[[Y:bb[0-9]+]]
// CHECK: ^[[Y]]:
// CHECK-NEXT: return %[[A]]
// CYCLES: cycle 0: header=^bb1 entries=[^bb1] latches=[^bb2] exiting=[^bb1, ^bb2] exits=[^bb3] depth=1 parent=none reducible
func.func @two_exits(%c: i1, %d: i1, %x: i32) -> i32 {
  cf.br ^loop
^loop:
  cf.cond_br %c, ^x, ^body
^body:
  %v = arith.addi %x, %x : i32
  cf.cond_br %d, ^y(%v : i32), ^loop
^x:
  return %x : i32
^y(%r: i32):
  return %r : i32
}
