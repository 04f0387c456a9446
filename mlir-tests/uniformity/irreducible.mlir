// RUN: spmd-opt %s -split-input-file --spmd-print-uniformity -o /dev/null 2>&1 | FileCheck %s

// An irreducible cycle entered through a divergent branch: threads may
// enter at different entries, so every argument of the cycle is divergent
// (conservative rule), and values leaving it are divergent too.
// CHECK-LABEL: // uniformity @irreducible_divergent_entry
// CHECK: divergent branch: cf.cond_br %arg0, ^bb1(%c0_i32 : i32), ^bb2(%c0_i32 : i32)
// CHECK: ^bb1 arguments: %[[A:.*]] divergent
// CHECK: ^bb2 arguments: %[[B:.*]] divergent
// CHECK: ^bb3 arguments: %{{.*}} divergent
func.func @irreducible_divergent_entry(%t: i1 {spmd.divergent}, %u: i1 {spmd.uniform}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.cond_br %t, ^a(%c0 : i32), ^b(%c0 : i32)
^a(%x: i32):
  %x1 = arith.addi %x, %c1 : i32
  cf.cond_br %u, ^b(%x1 : i32), ^done(%x1 : i32)
^b(%y: i32):
  %y1 = arith.addi %y, %c1 : i32
  cf.br ^a(%y1 : i32)
^done(%r: i32):
  return %r : i32
}

// -----

// The same cycle entered through a uniform branch stays precise.
// CHECK-LABEL: // uniformity @irreducible_uniform_entry
// CHECK: uniform branch: cf.cond_br %arg0, ^bb1(%c0_i32 : i32), ^bb2(%c0_i32 : i32)
// CHECK: ^bb1 arguments: %{{.*}} uniform
// CHECK: uniform branch: cf.cond_br %arg1
// CHECK: ^bb2 arguments: %{{.*}} uniform
// CHECK: ^bb3 arguments: %{{.*}} uniform
func.func @irreducible_uniform_entry(%t: i1 {spmd.uniform}, %u: i1 {spmd.uniform}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.cond_br %t, ^a(%c0 : i32), ^b(%c0 : i32)
^a(%x: i32):
  %x1 = arith.addi %x, %c1 : i32
  cf.cond_br %u, ^b(%x1 : i32), ^done(%x1 : i32)
^b(%y: i32):
  %y1 = arith.addi %y, %c1 : i32
  cf.br ^a(%y1 : i32)
^done(%r: i32):
  return %r : i32
}

// -----

// A divergent `continue` that skips the branch's post-dominator (^bb2):
// the latch and the loop exit are joins. Threads still in the loop agree
// on the counter, but threads leave it in different iterations: the exit
// sees temporal divergence.
// CHECK-LABEL: // uniformity @continue_skips_post_dominator
// CHECK: ^bb1 arguments: %{{.*}} uniform
// CHECK: divergent branch: cf.cond_br %arg0, ^bb3, ^bb2 (joins: ^bb3, ^bb4)
// CHECK: uniform branch: cf.cond_br
// CHECK: temporal divergence: cycle headed by ^bb1
func.func @continue_skips_post_dominator(%d: i1 {spmd.divergent}, %u: i1 {spmd.uniform}, %n: i32 {spmd.uniform}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %next = arith.addi %i, %c1 : i32
  cf.cond_br %d, ^latch, ^p
^p:
  %more = arith.cmpi slt, %next, %n : i32
  cf.cond_br %more, ^latch, ^exit
^latch:
  cf.br ^header(%next : i32)
^exit:
  return %next : i32
}

// -----

// Values computed inside a divergently entered irreducible cycle from
// uniform operands only are divergent all the same: threads that entered at
// ^bb1 and at ^bb2 run the cycle out of phase (LLVM's "cycle assumed
// divergent"). A branch on such a value is divergent; constants and what
// lies after the cycle without using it stay uniform.
// CHECK-LABEL: // uniformity @values_in_divergently_entered_cycle
// CHECK: divergent branch: cf.cond_br %arg0
// CHECK: ^bb1 arguments: %{{.*}} divergent
// CHECK-NEXT: divergent: %{{.*}} = arith.addi %arg2, %c1_i32
// CHECK-NEXT: uniform branch: cf.cond_br %arg1
// CHECK: divergent: %{{.*}} = arith.muli %arg2, %arg2
// CHECK-NEXT: divergent: %{{.*}} = arith.cmpi eq
// CHECK-NEXT: divergent branch: cf.cond_br
// CHECK: ^bb3 arguments: %{{.*}} divergent
// CHECK-NEXT: uniform: %{{.*}} = arith.addi %arg2, %c1_i32
func.func @values_in_divergently_entered_cycle(%t: i1 {spmd.divergent}, %u: i1 {spmd.uniform}, %n: i32 {spmd.uniform}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.cond_br %t, ^a(%c0 : i32), ^b(%c0 : i32)
^a(%x: i32):
  %from_uniform = arith.addi %n, %c1 : i32
  cf.cond_br %u, ^b(%from_uniform : i32), ^done(%x : i32)
^b(%y: i32):
  %inside = arith.muli %n, %n : i32
  %stop = arith.cmpi eq, %inside, %c0 : i32
  cf.cond_br %stop, ^done(%inside : i32), ^a(%y : i32)
^done(%r: i32):
  %outside = arith.addi %n, %c1 : i32
  return %r : i32
}

// -----

// Entered uniformly, the same cycle keeps every value uniform.
// CHECK-LABEL: // uniformity @values_in_uniformly_entered_cycle
// CHECK: uniform branch: cf.cond_br %arg0
// CHECK: ^bb1 arguments: %{{.*}} uniform
// CHECK-NEXT: uniform: %{{.*}} = arith.addi %arg2, %c1_i32
// CHECK: uniform: %{{.*}} = arith.muli %arg2, %arg2
// CHECK-NEXT: uniform: %{{.*}} = arith.cmpi eq
// CHECK-NEXT: uniform branch: cf.cond_br
func.func @values_in_uniformly_entered_cycle(%t: i1 {spmd.uniform}, %u: i1 {spmd.uniform}, %n: i32 {spmd.uniform}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.cond_br %t, ^a(%c0 : i32), ^b(%c0 : i32)
^a(%x: i32):
  %from_uniform = arith.addi %n, %c1 : i32
  cf.cond_br %u, ^b(%from_uniform : i32), ^done(%x : i32)
^b(%y: i32):
  %inside = arith.muli %n, %n : i32
  %stop = arith.cmpi eq, %inside, %c0 : i32
  cf.cond_br %stop, ^done(%inside : i32), ^a(%y : i32)
^done(%r: i32):
  %outside = arith.addi %n, %c1 : i32
  return %r : i32
}
