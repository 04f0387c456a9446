// Which per-lane values the lowering keeps for parked lanes (one
// spmd.mask.select at each parking branch plus one merge at the rejoin
// point), and which it does not need to.
//
// RUN: spmd-opt %s --spmd-predicate | FileCheck %s

// A value the loop recomputes and the exit reads is kept; a value used only
// inside the loop, a dead arithmetic chain, and the loop counter (not read
// after the loop) are not.
// CHECK-LABEL: func.func @live_after_loop
// CHECK: ^[[H:bb[0-9]+]](%[[I:.*]]: i32, %[[M:.*]]: !spmd.mask, %[[KEPT:.*]]: i32):
// CHECK: %[[SQ:.*]] = arith.muli
// CHECK: %[[LEAVE:.*]] = spmd.ballot
// CHECK-NEXT: %[[PARK:.*]] = spmd.mask.select %[[LEAVE]], %[[SQ]], %[[KEPT]] : i32
// CHECK-NOT: spmd.mask.select
// CHECK: spmd.exec.write %{{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}
// CHECK-NEXT: %[[OUT:.*]] = spmd.mask.select %{{.*}}, %[[PARK]], %[[SQ]] : i32
// CHECK-NOT: spmd.mask.select
// CHECK: return %[[OUT]] : i32
func.func @live_after_loop(%n: i32 {spmd.divergent}, %out: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : index
  cf.br ^h(%c0 : i32)
^h(%i: i32):
  %next = arith.addi %i, %c1 : i32
  %sq = arith.muli %next, %next : i32
  %tmp = arith.subi %next, %c1 : i32
  memref.store %tmp, %out[%z] : memref<?xi32>
  %dead = arith.addi %sq, %c1 : i32
  %done = arith.cmpi sge, %next, %n : i32
  cf.cond_br %done, ^x, ^h(%next : i32)
^x:
  return %sq : i32
}

// The only parking edge passes a value the wave cannot recompute before the
// rejoin point (it is defined before the branch, outside any cycle): the
// merge reads it directly, with no copy at the branch.
// CHECK-LABEL: func.func @direct
// CHECK: %[[W:.*]] = arith.addi
// CHECK: %[[C:.*]] = spmd.ballot
// CHECK-NOT: spmd.mask.select
// CHECK: spmd.exec.write %{{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}
// CHECK-NEXT: %[[R:.*]] = spmd.mask.select %[[C]], %[[W]], %{{.*}} : i32
// CHECK-NEXT: return %[[R]] : i32
func.func @direct(%t: i32 {spmd.divergent}, %v: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %d = arith.cmpi sgt, %t, %c0 : i32
  %w = arith.addi %v, %t : i32
  cf.cond_br %d, ^join(%w : i32), ^then
^then:
  %x = arith.muli %w, %w : i32
  cf.br ^join(%x : i32)
^join(%r: i32):
  return %r : i32
}

// A parking edge that passes poison needs no copy, and when every parking
// edge does, the argument needs no merge either.
// CHECK-LABEL: func.func @poison
// CHECK-NOT: spmd.mask.select
// CHECK: return
func.func @poison(%t: i32 {spmd.divergent}) -> i32 {
  %c0 = arith.constant 0 : i32
  %p = ub.poison : i32
  %d = arith.cmpi sgt, %t, %c0 : i32
  cf.cond_br %d, ^join(%p : i32), ^then
^then:
  %x = arith.muli %t, %t : i32
  cf.br ^join(%x : i32)
^join(%r: i32):
  return %r : i32
}
