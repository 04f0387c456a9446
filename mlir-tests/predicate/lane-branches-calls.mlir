// RUN: spmd-opt %s -split-input-file --spmd-reconverge=lane-branches=true --spmd-predicate=lane-branches=true | FileCheck %s

// Calls under a divergent branch: the branch stays a per-lane branch when
// the callee cannot reach an operation that needs converged lanes (its body
// holds none, or it is a declaration known to compute per lane), and
// becomes exec-mask code (a park) otherwise.

// A callee whose body only computes, even through a recursive helper: the
// call is lane-local.
// CHECK-LABEL: func.func @calls_pure_body
// CHECK-NOT:   spmd.exec.write
// CHECK:       cf.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^{{bb[0-9]+}} {spmd.uniformity = #divergent}
// CHECK:       call @twice
func.func @twice(%x: i32) -> i32 {
  %d = func.call @again(%x) : (i32) -> i32
  return %d : i32
}
func.func @again(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %stop = arith.cmpi sle, %x, %c0 : i32
  cf.cond_br %stop, ^done, ^more
^done:
  return %x : i32
^more:
  %c1 = arith.constant 1 : i32
  %y = arith.subi %x, %c1 : i32
  %r = func.call @again(%y) : (i32) -> i32
  return %r : i32
}
func.func @calls_pure_body(%t: i32 {spmd.divergent}, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %small = arith.cmpi slt, %t, %c0 : i32
  cf.cond_br %small, ^then, ^join
^then:
  %v = func.call @twice(%t) : (i32) -> i32
  memref.store %v, %buf[%i0] : memref<4xi32>
  cf.br ^join
^join:
  return
}

// -----

// A callee that shuffles: the lanes that call it must run it together, so
// the branch parks.
// CHECK-LABEL: func.func @calls_shuffle
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK:       call @rotate
func.func @rotate(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %s, %ok = gpu.shuffle xor %x, %c1, %c32 : i32
  return %s : i32
}
func.func @calls_shuffle(%t: i32 {spmd.divergent}, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %small = arith.cmpi slt, %t, %c0 : i32
  cf.cond_br %small, ^then, ^join
^then:
  %v = func.call @rotate(%t) : (i32) -> i32
  memref.store %v, %buf[%i0] : memref<4xi32>
  cf.br ^join
^join:
  return
}

// -----

// Declarations. A convergent one may hold anything (parks); a math
// library's (OCML, libdevice) computes per lane although front ends mark it
// convergent; an llvm.func declared without `convergent`, called without
// it, has no convergent behaviour by LLVM's rule.
// CHECK-LABEL: func.func @calls_convergent_declaration
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK:       llvm.call @opaque
// CHECK-LABEL: func.func @calls_math_library
// CHECK-NOT:   spmd.exec.write
// CHECK:       cf.cond_br %{{.*}} {spmd.uniformity = #divergent}
// CHECK:       llvm.call @__ocml_sin_f32
// CHECK-LABEL: func.func @calls_plain_declaration
// CHECK-NOT:   spmd.exec.write
// CHECK:       cf.cond_br %{{.*}} {spmd.uniformity = #divergent}
// CHECK:       llvm.call @plain
// CHECK-LABEL: func.func @calls_plain_declaration_convergently
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK:       llvm.call @plain
llvm.func @opaque(f32) -> f32 attributes {convergent}
llvm.func @__ocml_sin_f32(f32) -> f32 attributes {convergent}
llvm.func @plain(f32) -> f32
func.func @calls_convergent_declaration(%t: i32 {spmd.divergent}, %x: f32, %buf: memref<4xf32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %small = arith.cmpi slt, %t, %c0 : i32
  cf.cond_br %small, ^then, ^join
^then:
  %v = llvm.call @opaque(%x) {convergent} : (f32) -> f32
  memref.store %v, %buf[%i0] : memref<4xf32>
  cf.br ^join
^join:
  return
}
func.func @calls_math_library(%t: i32 {spmd.divergent}, %x: f32, %buf: memref<4xf32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %small = arith.cmpi slt, %t, %c0 : i32
  cf.cond_br %small, ^then, ^join
^then:
  %v = llvm.call @__ocml_sin_f32(%x) {convergent} : (f32) -> f32
  memref.store %v, %buf[%i0] : memref<4xf32>
  cf.br ^join
^join:
  return
}
func.func @calls_plain_declaration(%t: i32 {spmd.divergent}, %x: f32, %buf: memref<4xf32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %small = arith.cmpi slt, %t, %c0 : i32
  cf.cond_br %small, ^then, ^join
^then:
  %v = llvm.call @plain(%x) : (f32) -> f32
  memref.store %v, %buf[%i0] : memref<4xf32>
  cf.br ^join
^join:
  return
}
func.func @calls_plain_declaration_convergently(%t: i32 {spmd.divergent}, %x: f32, %buf: memref<4xf32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %small = arith.cmpi slt, %t, %c0 : i32
  cf.cond_br %small, ^then, ^join
^then:
  %v = llvm.call @plain(%x) {convergent} : (f32) -> f32
  memref.store %v, %buf[%i0] : memref<4xf32>
  cf.br ^join
^join:
  return
}
