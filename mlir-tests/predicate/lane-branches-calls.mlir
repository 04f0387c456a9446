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

// -----

// Indirect calls. A pointer loaded from a constant table of function
// addresses (what a front end makes of `fn_t table[] = {f, g}; table[i](x)`)
// can only be one of them: the call needs converged lanes only if one of
// them may. A select between function addresses likewise. A table that is
// not constant, or a pointer from anywhere else, may be anything (parks).
// CHECK-LABEL: llvm.func @calls_through_lane_local_table
// CHECK-NOT:   spmd.exec.write
// CHECK:       llvm.cond_br %{{.*}} {spmd.uniformity = #divergent}
// CHECK:       llvm.call %{{.*}}(%{{.*}}) {convergent}
// CHECK-LABEL: llvm.func @calls_through_table_with_shuffle
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK-LABEL: llvm.func @calls_through_mutable_table
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK-LABEL: llvm.func @calls_selected_function
// CHECK-NOT:   spmd.exec.write
// CHECK:       llvm.cond_br %{{.*}} {spmd.uniformity = #divergent}
// CHECK-LABEL: llvm.func @calls_pointer_argument
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
llvm.func @square(%x: f32) -> f32 attributes {convergent} {
  %y = llvm.fmul %x, %x : f32
  llvm.return %y : f32
}
llvm.func @negate(%x: f32) -> f32 attributes {convergent} {
  %y = llvm.fneg %x : f32
  llvm.return %y : f32
}
llvm.func @rotate_lanes(%x: f32) -> f32 attributes {convergent} {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c32 = llvm.mlir.constant(32 : i32) : i32
  %s, %ok = gpu.shuffle xor %x, %c1, %c32 : f32
  llvm.return %s : f32
}
llvm.mlir.global private constant @lane_local_table() {addr_space = 4 : i32} : !llvm.array<2 x ptr> {
  %f = llvm.mlir.addressof @square : !llvm.ptr
  %g = llvm.mlir.addressof @negate : !llvm.ptr
  %0 = llvm.mlir.undef : !llvm.array<2 x ptr>
  %1 = llvm.insertvalue %f, %0[0] : !llvm.array<2 x ptr>
  %2 = llvm.insertvalue %g, %1[1] : !llvm.array<2 x ptr>
  llvm.return %2 : !llvm.array<2 x ptr>
}
llvm.mlir.global private constant @shuffling_table() {addr_space = 4 : i32} : !llvm.array<2 x ptr> {
  %f = llvm.mlir.addressof @square : !llvm.ptr
  %g = llvm.mlir.addressof @rotate_lanes : !llvm.ptr
  %0 = llvm.mlir.undef : !llvm.array<2 x ptr>
  %1 = llvm.insertvalue %f, %0[0] : !llvm.array<2 x ptr>
  %2 = llvm.insertvalue %g, %1[1] : !llvm.array<2 x ptr>
  llvm.return %2 : !llvm.array<2 x ptr>
}
llvm.mlir.global private @mutable_table() {addr_space = 1 : i32} : !llvm.array<2 x ptr> {
  %f = llvm.mlir.addressof @square : !llvm.ptr
  %g = llvm.mlir.addressof @negate : !llvm.ptr
  %0 = llvm.mlir.undef : !llvm.array<2 x ptr>
  %1 = llvm.insertvalue %f, %0[0] : !llvm.array<2 x ptr>
  %2 = llvm.insertvalue %g, %1[1] : !llvm.array<2 x ptr>
  llvm.return %2 : !llvm.array<2 x ptr>
}
llvm.func @calls_through_lane_local_table(%t: i32 {spmd.divergent}, %x: f32, %out: !llvm.ptr<1>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %table = llvm.mlir.addressof @lane_local_table : !llvm.ptr<4>
  %small = llvm.icmp "slt" %t, %c0 : i32
  llvm.cond_br %small, ^then, ^join
^then:
  %slot = llvm.getelementptr %table[%t] : (!llvm.ptr<4>, i32) -> !llvm.ptr<4>, !llvm.ptr
  %fn = llvm.load %slot : !llvm.ptr<4> -> !llvm.ptr
  %v = llvm.call %fn(%x) {convergent} : !llvm.ptr, (f32) -> f32
  llvm.store %v, %out : f32, !llvm.ptr<1>
  llvm.br ^join
^join:
  llvm.return
}
llvm.func @calls_through_table_with_shuffle(%t: i32 {spmd.divergent}, %x: f32, %out: !llvm.ptr<1>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %table = llvm.mlir.addressof @shuffling_table : !llvm.ptr<4>
  %small = llvm.icmp "slt" %t, %c0 : i32
  llvm.cond_br %small, ^then, ^join
^then:
  %slot = llvm.getelementptr %table[%t] : (!llvm.ptr<4>, i32) -> !llvm.ptr<4>, !llvm.ptr
  %fn = llvm.load %slot : !llvm.ptr<4> -> !llvm.ptr
  %v = llvm.call %fn(%x) {convergent} : !llvm.ptr, (f32) -> f32
  llvm.store %v, %out : f32, !llvm.ptr<1>
  llvm.br ^join
^join:
  llvm.return
}
llvm.func @calls_through_mutable_table(%t: i32 {spmd.divergent}, %x: f32, %out: !llvm.ptr<1>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %table = llvm.mlir.addressof @mutable_table : !llvm.ptr<1>
  %small = llvm.icmp "slt" %t, %c0 : i32
  llvm.cond_br %small, ^then, ^join
^then:
  %slot = llvm.getelementptr %table[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, !llvm.ptr
  %fn = llvm.load %slot : !llvm.ptr<1> -> !llvm.ptr
  %v = llvm.call %fn(%x) {convergent} : !llvm.ptr, (f32) -> f32
  llvm.store %v, %out : f32, !llvm.ptr<1>
  llvm.br ^join
^join:
  llvm.return
}
llvm.func @calls_selected_function(%t: i32 {spmd.divergent}, %x: f32, %out: !llvm.ptr<1>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %small = llvm.icmp "slt" %t, %c0 : i32
  llvm.cond_br %small, ^then, ^join
^then:
  %f = llvm.mlir.addressof @square : !llvm.ptr
  %g = llvm.mlir.addressof @negate : !llvm.ptr
  %odd = llvm.trunc %t : i32 to i1
  %fn = llvm.select %odd, %f, %g : i1, !llvm.ptr
  %v = llvm.call %fn(%x) {convergent} : !llvm.ptr, (f32) -> f32
  llvm.store %v, %out : f32, !llvm.ptr<1>
  llvm.br ^join
^join:
  llvm.return
}
llvm.func @calls_pointer_argument(%t: i32 {spmd.divergent}, %fn: !llvm.ptr, %x: f32, %out: !llvm.ptr<1>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %small = llvm.icmp "slt" %t, %c0 : i32
  llvm.cond_br %small, ^then, ^join
^then:
  %v = llvm.call %fn(%x) {convergent} : !llvm.ptr, (f32) -> f32
  llvm.store %v, %out : f32, !llvm.ptr<1>
  llvm.br ^join
^join:
  llvm.return
}
