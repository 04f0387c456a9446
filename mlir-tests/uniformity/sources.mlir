// RUN: spmd-opt %s -split-input-file --spmd-print-uniformity -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-print-uniformity=default-arguments=divergent -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIVARGS

// Thread-identity operations of every dialect are divergent; block, grid
// and subgroup sizes are uniform.
// CHECK-LABEL: // uniformity @thread_identity
// CHECK-NEXT: divergent: %{{.*}} = gpu.thread_id  y
// CHECK-NEXT: divergent: %{{.*}} = gpu.lane_id
// CHECK-NEXT: divergent: %{{.*}} = gpu.global_id  x
// CHECK-NEXT: divergent: %{{.*}} = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: divergent: %{{.*}} = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT: divergent: %{{.*}} = rocdl.workitem.id.x : i32
// CHECK-NEXT: uniform: %{{.*}} = gpu.block_id  x
// CHECK-NEXT: uniform: %{{.*}} = gpu.block_dim  x
// CHECK-NEXT: uniform: %{{.*}} = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: uniform: %{{.*}} = gpu.subgroup_size : index
func.func @thread_identity() {
  %0 = gpu.thread_id y
  %1 = gpu.lane_id
  %2 = gpu.global_id x
  %3 = nvvm.read.ptx.sreg.tid.x : i32
  %4 = nvvm.read.ptx.sreg.laneid : i32
  %5 = rocdl.workitem.id.x : i32
  %6 = gpu.block_id x
  %7 = gpu.block_dim x
  %8 = nvvm.read.ptx.sreg.ctaid.x : i32
  %9 = gpu.subgroup_size : index
  return
}

// -----

// Memory: atomics are divergent; a load is divergent iff its address is.
// CHECK-LABEL: // uniformity @memory
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform, %arg1 uniform
// CHECK-NEXT: divergent: %{{.*}} = gpu.thread_id  x
// CHECK-NEXT: uniform: %[[U:.*]] = memref.load %arg0[%arg1] : memref<?xi32>
// CHECK-NEXT: divergent: %{{.*}} = memref.load %arg0[%{{.*}}] : memref<?xi32>
// CHECK-NEXT: divergent: %{{.*}} = memref.atomic_rmw addi %[[U]], %arg0[%arg1] : (i32, memref<?xi32>) -> i32
func.func @memory(%buf: memref<?xi32>, %i: index) {
  %tid = gpu.thread_id x
  %u = memref.load %buf[%i] : memref<?xi32>
  %d = memref.load %buf[%tid] : memref<?xi32>
  %old = memref.atomic_rmw addi %u, %buf[%i] : (i32, memref<?xi32>) -> i32
  return
}

// -----

// Calls are divergent unless marked spmd.uniform.
// CHECK-LABEL: // uniformity @calls
// CHECK-NEXT: divergent: %{{.*}} = func.call @opaque() : () -> i32
// CHECK-NEXT: uniform: %{{.*}} = func.call @opaque() {spmd.uniform} : () -> i32
func.func private @opaque() -> i32
func.func @calls() {
  %a = func.call @opaque() : () -> i32
  %b = func.call @opaque() {spmd.uniform} : () -> i32
  return
}

// -----

// Subgroup operations: reductions and ballots are uniform, shuffles are not.
// CHECK-LABEL: // uniformity @subgroup
// CHECK: uniform: %{{.*}} = gpu.subgroup_reduce  add %{{.*}} : (i32) -> i32
// CHECK: uniform: %{{.*}} = spmd.ballot %{{.*}} : !spmd.mask
// CHECK: divergent: %{{.*}}, %{{.*}} = gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : i32
func.func @subgroup(%x: i32 {spmd.divergent}, %c: i1 {spmd.divergent}) {
  %w = arith.constant 32 : i32
  %o = arith.constant 1 : i32
  %r = gpu.subgroup_reduce add %x : (i32) -> i32
  %b = spmd.ballot %c : !spmd.mask
  %s, %valid = gpu.shuffle xor %r, %o, %w : i32
  return
}

// -----

// Function arguments: kernel arguments are always uniform; other functions
// follow default-arguments, overridden by spmd.divergent / spmd.uniform.
// CHECK-LABEL: // uniformity @plain
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform, %arg1 divergent, %arg2 uniform
// DIVARGS-LABEL: // uniformity @plain
// DIVARGS-NEXT: ^bb0 arguments: %arg0 divergent, %arg1 divergent, %arg2 uniform
// CHECK-LABEL: // uniformity @kernel
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
// DIVARGS-LABEL: // uniformity @kernel
// DIVARGS-NEXT: ^bb0 arguments: %arg0 uniform
func.func @plain(%a: i32, %b: i32 {spmd.divergent}, %c: i32 {spmd.uniform}) {
  return
}
gpu.module @m {
  gpu.func @kernel(%a: i32) kernel {
    gpu.return
  }
}

// -----

// Explicit marks are trusted both ways.
// CHECK-LABEL: // uniformity @marks
// CHECK: uniform branch: cf.cond_br %arg0, ^bb1, ^bb2 {spmd.uniformity = #spmd.uniformity<uniform>}
// CHECK: divergent branch: cf.cond_br %arg1, ^bb2, ^bb3 {spmd.uniformity = #spmd.uniformity<divergent>}
func.func @marks(%t: i1 {spmd.divergent}, %u: i1) {
  cf.cond_br %t, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  cf.cond_br %u, ^b, ^c {spmd.uniformity = #spmd.uniformity<divergent>}
^b:
  return
^c:
  return
}
