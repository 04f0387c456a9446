// RUN: spmd-opt %s -split-input-file --spmd-branch-fold=stats 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold=fold-operations=false | FileCheck %s --check-prefix=NOFOLD
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold --spmd-verify-reconverging -o /dev/null

// FoldOperations: upstream folders and canonicalization patterns of the
// non-control-flow operations; the branches they make constant are then
// folded by OptimizeBranches through the property gate.

// The condition folds to `false` (3 + 0 < 3); the branch, its dead side
// and the join disappear.
// CHECK-LABEL: func.func @constant_condition
// CHECK-NEXT:    return %arg1 : i32
// CHECK-NEXT:  }
// NOFOLD-LABEL: func.func @constant_condition
// NOFOLD:         arith.cmpi
// NOFOLD:         cf.cond_br
func.func @constant_condition(%x: i32, %y: i32) -> i32 {
  %k = arith.constant 3 : i32
  %z = arith.constant 0 : i32
  %a = arith.addi %k, %z : i32
  %c = arith.cmpi slt, %a, %k : i32
  cf.cond_br %c, ^a, ^b
^a:
  cf.br ^j(%x : i32)
^b:
  cf.br ^j(%y : i32)
^j(%r: i32):
  return %r : i32
}
// STATS-LABEL: spmd-branch-fold @constant_condition
// STATS:         blocks removed: 3 (4 -> 1)
// STATS:         ops folded: 3
// STATS:         branches folded: 1

// -----

// A Flow block whose selector comparison becomes constant is redundant
// too. Operations in Flow blocks are not handed to the greedy driver (a
// pattern could turn the comparison into an operation a Flow block may not
// hold); OptimizeBranches evaluates the `arith.cmpi` of two constants there.
// CHECK-LABEL: func.func @folded_flow_predicate
// CHECK-NEXT:    return %arg0
func.func @folded_flow_predicate(%x: i32, %y: i32) -> i32 {
  %k = arith.constant 3 : i32
  %z = arith.constant 0 : i32
  %a = arith.addi %k, %z : i32
  cf.br ^flow
^flow:
  %p = arith.cmpi eq, %a, %k : i32
  spmd.flow_br %p, ^t, ^f
^t:
  return %x : i32
^f:
  return %y : i32
}

// -----

// Convergent operations are not handed to the greedy driver: the unused
// shuffle stays (`-canonicalize` erases it), the shuffle and the barrier
// keep their block and order, and only their operands are replaced in
// place by the folded values (%a = %x + 0 becomes %x). The divergent
// branch around them stays.
// CHECK-LABEL: func.func @convergent_stays
// CHECK:         cf.cond_br %arg1, ^bb1, ^bb2(%arg0 : i32)
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    %[[S:.*]], %{{.*}} = gpu.shuffle xor %arg0,
// CHECK-NEXT:    gpu.shuffle xor %arg0,
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    cf.br ^bb2(%[[S]] : i32)
func.func @convergent_stays(%x: i32, %c: i1 {spmd.divergent}) -> i32 {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %w = arith.constant 32 : i32
  %a = arith.addi %x, %c0 : i32
  cf.cond_br %c, ^t, ^e
^t:
  %s, %v = gpu.shuffle xor %a, %one, %w : i32
  %u, %v2 = gpu.shuffle xor %x, %one, %w : i32
  gpu.barrier
  %b = arith.muli %s, %one : i32
  cf.br ^j(%b : i32)
^e:
  cf.br ^j(%a : i32)
^j(%r: i32):
  return %r : i32
}
// STATS-LABEL: spmd-branch-fold @convergent_stays
// STATS:         ops folded: 3

