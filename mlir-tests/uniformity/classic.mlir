// RUN: spmd-opt %s -split-input-file --spmd-print-uniformity -o /dev/null 2>&1 | FileCheck %s

// If on the thread id: the branch is divergent and the join argument that
// merges different values is divergent; values computed before it are not.
// CHECK-LABEL: // uniformity @if_on_thread_id
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform, %arg1 uniform
// CHECK-NEXT: divergent: %[[TID:.*]] = gpu.thread_id  x
// CHECK-NEXT: divergent: %[[T:.*]] = arith.index_cast %[[TID]] : index to i32
// CHECK-NEXT: divergent: %[[C:.*]] = arith.cmpi slt, %[[T]], %arg0 : i32
// CHECK-NEXT: uniform: %[[U:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: divergent branch: cf.cond_br %[[C]], ^bb1, ^bb2(%[[U]] : i32) (joins: ^bb2)
// CHECK-NEXT: uniform: %{{.*}} = arith.muli %[[U]], %arg0 : i32
// CHECK-NEXT: ^bb2 arguments: %{{.*}} divergent
gpu.module @m {
  gpu.func @if_on_thread_id(%n: i32, %out: memref<?xi32>) kernel {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %c = arith.cmpi slt, %t, %n : i32
    %u = arith.addi %n, %n : i32
    cf.cond_br %c, ^then, ^join(%u : i32)
  ^then:
    %v = arith.muli %u, %n : i32
    cf.br ^join(%v : i32)
  ^join(%x: i32):
    memref.store %x, %out[%tid] : memref<?xi32>
    gpu.return
  }
}

// -----

// A uniform loop inside a divergent if: the loop branch and its counter
// stay uniform; the value leaving the divergent region does not.
// CHECK-LABEL: // uniformity @uniform_loop_in_divergent_if
// CHECK: divergent branch: cf.cond_br %{{.*}}, ^bb1, ^bb4(%c0_i32 : i32) (joins: ^bb4)
// CHECK: ^bb2 arguments: %[[I:.*]] uniform
// CHECK: uniform branch: cf.cond_br %{{.*}}, ^bb3, ^bb4(%[[I]] : i32)
// CHECK: ^bb4 arguments: %{{.*}} divergent
// CHECK-NOT: temporal divergence
func.func @uniform_loop_in_divergent_if(%n: i32 {spmd.uniform}, %t: i32 {spmd.divergent}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %d = arith.cmpi slt, %t, %n : i32
  cf.cond_br %d, ^pre, ^join(%c0 : i32)
^pre:
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %more = arith.cmpi slt, %i, %n : i32
  cf.cond_br %more, ^body, ^join(%i : i32)
^body:
  %next = arith.addi %i, %c1 : i32
  cf.br ^header(%next : i32)
^join(%r: i32):
  return %r : i32
}

// -----

// A loop with a divergent exit: the counter is uniform inside the loop (all
// threads still in the loop agree on it) but divergent after it (threads
// left at different iterations): temporal divergence.
// CHECK-LABEL: // uniformity @divergent_exit
// CHECK: ^bb1 arguments: %[[I:.*]] uniform
// CHECK: uniform: %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK: divergent branch: cf.cond_br %{{.*}}, ^bb1(%[[NEXT]] : i32), ^bb2 (joins: ^bb2)
// CHECK: divergent: %{{.*}} = arith.muli %[[NEXT]], %[[NEXT]] : i32
// CHECK: temporal divergence: cycle headed by ^bb1
func.func @divergent_exit(%t: i32 {spmd.divergent}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %next = arith.addi %i, %c1 : i32
  %stay = arith.cmpi slt, %next, %t : i32
  cf.cond_br %stay, ^header(%next : i32), ^exit
^exit:
  %sq = arith.muli %next, %next : i32
  return %sq : i32
}

// -----

// A uniform branch nested in a divergent region: its own join merges
// threads that all took the same side, so it stays uniform.
// CHECK-LABEL: // uniformity @uniform_join_in_divergent_region
// CHECK: divergent branch: cf.cond_br %arg1, ^bb1, ^bb4(%c1_i32 : i32) (joins: ^bb4)
// CHECK: uniform branch: cf.cond_br %arg0, ^bb2, ^bb3
// CHECK: ^bb3 arguments: %{{.*}} uniform
// CHECK: ^bb4 arguments: %{{.*}} divergent
func.func @uniform_join_in_divergent_region(%u: i1 {spmd.uniform}, %t: i1 {spmd.divergent}) -> i32 {
  %a = arith.constant 1 : i32
  %b = arith.constant 2 : i32
  cf.cond_br %t, ^outer_then, ^outer_join(%a : i32)
^outer_then:
  cf.cond_br %u, ^left, ^inner_join(%a : i32)
^left:
  cf.br ^inner_join(%b : i32)
^inner_join(%x: i32):
  cf.br ^outer_join(%x : i32)
^outer_join(%y: i32):
  return %y : i32
}

// -----

// A switch on the lane id is divergent; every target with several
// incoming values is a join.
// CHECK-LABEL: // uniformity @switch_on_lane_id
// CHECK: divergent: %{{.*}} = gpu.lane_id
// CHECK: divergent branch: cf.switch {{.*}} (joins: ^bb3)
// CHECK: ^bb3 arguments: %{{.*}} divergent
func.func @switch_on_lane_id() -> i32 {
  %lane = gpu.lane_id
  %l = arith.index_cast %lane : index to i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.switch %l : i32, [
    default: ^a,
    1: ^b,
    2: ^join(%c2 : i32)
  ]
^a:
  cf.br ^join(%c1 : i32)
^b:
  cf.br ^join(%c2 : i32)
^join(%r: i32):
  return %r : i32
}

// -----

// Values that only appear uniform: the same constant on both sides of a
// divergent branch merges into a uniform value; different ones do not.
// CHECK-LABEL: // uniformity @same_constant
// CHECK: divergent branch
// CHECK: ^bb3 arguments: %{{.*}} uniform, %{{.*}} divergent, %{{.*}} uniform
func.func @same_constant(%t: i1 {spmd.divergent}, %u: i32 {spmd.uniform}) -> (i32, i32, i32) {
  cf.cond_br %t, ^a, ^b
^a:
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  cf.br ^join(%one, %one, %u : i32, i32, i32)
^b:
  %one_again = arith.constant 1 : i32
  %three = arith.constant 3 : i32
  cf.br ^join(%one_again, %three, %u : i32, i32, i32)
^join(%same: i32, %different: i32, %arg: i32):
  return %same, %different, %arg : i32, i32, i32
}
