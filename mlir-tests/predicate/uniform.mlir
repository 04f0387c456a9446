// Uniform branches stay scalar branches (and get the trusted mark); a
// function without divergent branches gets no mask code at all.
//
// RUN: spmd-opt %s --spmd-predicate | FileCheck %s
// RUN: spmd-opt %s --spmd-predicate=wave-size=64 | FileCheck %s --check-prefix=WAVE64
// WAVE64: func.func @uniform({{.*}} attributes {spmd.wave_size = 64 : i64}

// CHECK-LABEL: func.func @uniform
// CHECK-SAME: attributes {spmd.wave_size = 32 : i64}
// CHECK-NOT: spmd.exec
// CHECK-NOT: spmd.ballot
// CHECK: cf.cond_br %{{.*}}, ^bb1, ^bb2 {spmd.uniformity = #uniform}
func.func @uniform(%n: i32 {spmd.uniform}, %out: memref<?xi32> {spmd.uniform}) {
  %c0 = arith.constant 0 : i32
  %z = arith.constant 0 : index
  %p = arith.cmpi sgt, %n, %c0 : i32
  cf.cond_br %p, ^a, ^b
^a:
  memref.store %n, %out[%z] : memref<?xi32>
  cf.br ^b
^b:
  return
}

// A uniform branch inside a divergent region forces the guard even with
// skip-empty-blocks=false (its condition needs an active lane).
// CHECK-LABEL: func.func @uniform_inside
// CHECK: spmd.exec.br_zero
// CHECK: cf.cond_br %{{.*}} {spmd.uniformity = #uniform}
// RUN: spmd-opt %s --spmd-predicate=skip-empty-blocks=false | FileCheck %s --check-prefix=FALL
// FALL-LABEL: func.func @uniform_inside
// FALL: spmd.exec.br_zero
func.func @uniform_inside(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}, %out: memref<?xi32> {spmd.uniform}) {
  %c0 = arith.constant 0 : i32
  %z = arith.constant 0 : index
  %d = arith.cmpi sgt, %t, %c0 : i32
  cf.cond_br %d, ^join, ^then
^then:
  %p = arith.cmpi sgt, %n, %c0 : i32
  cf.cond_br %p, ^a, ^join
^a:
  memref.store %n, %out[%z] : memref<?xi32>
  cf.br ^join
^join:
  return
}
