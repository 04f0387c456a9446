// A divergent loop: the latch parks the leaving lanes for the exit; exec is
// the loop mask; the value computed in the loop is kept per lane for the
// lanes that left early (spmd.mask.select), and the exit merges it.
// An empty wave must not spin: the latch stays guarded even with
// skip-empty-blocks=false.
//
// RUN: spmd-opt %s --spmd-predicate | FileCheck %s
// RUN: spmd-opt %s --spmd-predicate=skip-empty-blocks=false | FileCheck %s

// CHECK-LABEL: func.func @loop
// CHECK: ^[[H:bb[0-9]+]](%[[I:.*]]: i32, %[[M:.*]]: !spmd.mask, %[[KEPT:.*]]: i32):
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]]
// CHECK: %[[LEAVE:.*]] = spmd.ballot
// CHECK-NEXT: %[[PARK:.*]] = spmd.mask.select %[[LEAVE]], %[[NEXT]], %[[KEPT]] : i32
// CHECK-NEXT: %[[M2:.*]] = spmd.mask.or %[[M]], %[[LEAVE]] : !spmd.mask
// CHECK: spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK-NEXT: spmd.exec.br_zero ^[[X:bb[0-9]+]](%[[NEXT]] : i32), ^[[H]](%[[NEXT]], %[[M2]], %[[PARK]] : i32, !spmd.mask, i32)
// CHECK: ^[[X]](%[[ARR:.*]]: i32):
// CHECK-NEXT: %[[EX:.*]] = spmd.exec.read
// CHECK-NEXT: %[[ALL:.*]] = spmd.mask.or %[[EX]], %[[M2]]
// CHECK-NEXT: spmd.exec.write %[[ALL]] {spmd.exec_full, spmd.rejoin = 0 : i64}
// CHECK-NEXT: %[[OUT:.*]] = spmd.mask.select %[[M2]], %[[PARK]], %[[ARR]] : i32
// CHECK: return %[[OUT]] : i32
func.func @loop(%n: i32 {spmd.divergent}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^h(%c0 : i32)
^h(%i: i32):
  %next = arith.addi %i, %c1 : i32
  %done = arith.cmpi sge, %next, %n : i32
  cf.cond_br %done, ^x(%next : i32), ^h(%next : i32)
^x(%r: i32):
  return %r : i32
}
