// RUN: spmd-opt %s -split-input-file -allow-unregistered-dialect --spmd-print-uniformity -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-opt %s -split-input-file -allow-unregistered-dialect --spmd-print-uniformity=default-arguments=uniform -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNIARGS
// RUN: spmd-opt %s -split-input-file -allow-unregistered-dialect '--spmd-print-uniformity=divergent-ops=acme.lane,llvm.acme.* uniform-ops=func.call' -o /dev/null 2>&1 | FileCheck %s --check-prefix=USER

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

// Memory: atomics are divergent; a load is divergent iff its address is,
// unless the memory is private to each thread (an alloca, the private
// address space, or a generic LLVM pointer, which may point there): then
// the same address reads a different value in each thread.
// CHECK-LABEL: // uniformity @memory
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform, %arg1 uniform, %arg2 uniform, %arg3 uniform, %arg4 uniform
// CHECK-NEXT: divergent: %{{.*}} = gpu.thread_id  x
// CHECK-NEXT: uniform: %[[U:.*]] = memref.load %arg0[%arg1] : memref<?xi32>
// CHECK-NEXT: divergent: %{{.*}} = memref.load %arg0[%{{.*}}] : memref<?xi32>
// CHECK-NEXT: divergent: %{{.*}} = memref.atomic_rmw addi %[[U]], %arg0[%arg1] : (i32, memref<?xi32>) -> i32
// CHECK-NEXT: uniform: %[[A:.*]] = memref.alloca() : memref<4xi32>
// CHECK-NEXT: uniform: %[[V:.*]] = memref.subview %[[A]][0] [2] [1]
// CHECK-NEXT: divergent: %{{.*}} = memref.load %[[A]][%arg1] : memref<4xi32>
// CHECK-NEXT: divergent: %{{.*}} = memref.load %[[V]][%arg1]
// CHECK-NEXT: divergent: %{{.*}} = memref.load %arg2[%arg1] : memref<4xi32, #gpu.address_space<private>>
// CHECK-NEXT: uniform: %{{.*}} = memref.load %arg3[%arg1] : memref<4xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: divergent: %{{.*}} = llvm.load %arg4 : !llvm.ptr -> i32
// CHECK-NEXT: uniform: %[[G:.*]] = llvm.addrspacecast %arg4 : !llvm.ptr to !llvm.ptr<1>
// CHECK-NEXT: uniform: %{{.*}} = llvm.load %[[G]] : !llvm.ptr<1> -> i32
func.func @memory(%buf: memref<?xi32> {spmd.uniform}, %i: index {spmd.uniform},
                  %private: memref<4xi32, #gpu.address_space<private>> {spmd.uniform},
                  %shared: memref<4xi32, #gpu.address_space<workgroup>> {spmd.uniform},
                  %generic: !llvm.ptr {spmd.uniform}) {
  %tid = gpu.thread_id x
  %u = memref.load %buf[%i] : memref<?xi32>
  %d = memref.load %buf[%tid] : memref<?xi32>
  %old = memref.atomic_rmw addi %u, %buf[%i] : (i32, memref<?xi32>) -> i32
  %slot = memref.alloca() : memref<4xi32>
  %view = memref.subview %slot[0] [2] [1] : memref<4xi32> to memref<2xi32, strided<[1]>>
  %p1 = memref.load %slot[%i] : memref<4xi32>
  %p2 = memref.load %view[%i] : memref<2xi32, strided<[1]>>
  %p3 = memref.load %private[%i] : memref<4xi32, #gpu.address_space<private>>
  %s = memref.load %shared[%i] : memref<4xi32, #gpu.address_space<workgroup>>
  %g1 = llvm.load %generic : !llvm.ptr -> i32
  %global = llvm.addrspacecast %generic : !llvm.ptr to !llvm.ptr<1>
  %g2 = llvm.load %global : !llvm.ptr<1> -> i32
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
// may be called from divergent code, so their arguments are divergent
// unless default-arguments=uniform; spmd.divergent / spmd.uniform override.
// CHECK-LABEL: // uniformity @plain
// CHECK-NEXT: ^bb0 arguments: %arg0 divergent, %arg1 divergent, %arg2 uniform
// UNIARGS-LABEL: // uniformity @plain
// UNIARGS-NEXT: ^bb0 arguments: %arg0 uniform, %arg1 divergent, %arg2 uniform
// CHECK-LABEL: // uniformity @kernel
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
// UNIARGS-LABEL: // uniformity @kernel
// UNIARGS-NEXT: ^bb0 arguments: %arg0 uniform
// CHECK-LABEL: // uniformity @device_function
// CHECK-NEXT: ^bb0 arguments: %arg0 divergent
// CHECK-LABEL: // uniformity @llvm_device_function
// CHECK-NEXT: ^bb0 arguments: %arg0 divergent
// CHECK-LABEL: // uniformity @ptx_kernel
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
// CHECK-LABEL: // uniformity @amdgpu_kernel
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
// CHECK-LABEL: // uniformity @nvvm_kernel
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
// CHECK-LABEL: // uniformity @rocdl_kernel
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
// CHECK-LABEL: // uniformity @gpu_kernel_attribute
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
func.func @plain(%a: i32, %b: i32 {spmd.divergent}, %c: i32 {spmd.uniform}) {
  return
}
gpu.module @m {
  gpu.func @kernel(%a: i32) kernel {
    gpu.return
  }
  gpu.func @device_function(%a: i32) {
    gpu.return
  }
}
llvm.func @llvm_device_function(%a: i32) {
  llvm.return
}
llvm.func ptx_kernelcc @ptx_kernel(%a: i32) {
  llvm.return
}
llvm.func amdgpu_kernelcc @amdgpu_kernel(%a: i32) {
  llvm.return
}
llvm.func @nvvm_kernel(%a: i32) attributes {nvvm.kernel} {
  llvm.return
}
llvm.func @rocdl_kernel(%a: i32) attributes {rocdl.kernel} {
  llvm.return
}
llvm.func @gpu_kernel_attribute(%a: i32) attributes {gpu.kernel} {
  llvm.return
}

// -----

// Intrinsics that MLIR has no op for stay llvm.call_intrinsic after
// mlir-translate --import-llvm: the table knows them by name, and unknown
// ones are divergent. Inline assembly is divergent (CUDA reads %laneid
// that way).
// CHECK-LABEL: // uniformity @imported
// CHECK-NEXT: ^bb0 arguments: %arg0 uniform
// CHECK-NEXT: divergent: %{{.*}} = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.laneid"() : () -> i32
// CHECK-NEXT: divergent: %{{.*}} = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK-NEXT: divergent: %{{.*}} = llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"() : () -> i32
// CHECK-NEXT: divergent: %{{.*}} = llvm.call_intrinsic "llvm.amdgcn.mbcnt.lo"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// CHECK-NEXT: uniform: %{{.*}} = llvm.call_intrinsic "llvm.amdgcn.workgroup.id.x"() : () -> i32
// CHECK-NEXT: uniform: %{{.*}} = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
// CHECK-NEXT: uniform: %{{.*}} = llvm.call_intrinsic "llvm.amdgcn.readfirstlane.i32"(%{{.*}}) : (i32) -> i32
// CHECK-NEXT: uniform: %{{.*}} = llvm.call_intrinsic "llvm.smax.i32"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// CHECK-NEXT: divergent: %{{.*}} = llvm.call_intrinsic "llvm.amdgcn.not.in.the.table"() : () -> i32
// CHECK-NEXT: divergent: %{{.*}} = llvm.inline_asm "mov.u32 $0, %laneid;", "=r" : () -> i32
// CHECK-NEXT: divergent: %{{.*}} = llvm.call_intrinsic "llvm.acme.lane"() : () -> i32
// CHECK-NEXT: divergent: %{{.*}} = "acme.lane"() {spmd.divergent} : () -> i32
// USER-LABEL: // uniformity @imported
// USER: uniform: %{{.*}} = llvm.call_intrinsic "llvm.smax.i32"
// USER: divergent: %{{.*}} = llvm.call_intrinsic "llvm.acme.lane"() : () -> i32
// USER-NEXT: divergent: %{{.*}} = "acme.lane"() {spmd.divergent} : () -> i32
llvm.func amdgpu_kernelcc @imported(%u: i32) {
  %0 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.laneid"() : () -> i32
  %1 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %2 = llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"() : () -> i32
  %3 = llvm.call_intrinsic "llvm.amdgcn.mbcnt.lo"(%u, %u) : (i32, i32) -> i32
  %4 = llvm.call_intrinsic "llvm.amdgcn.workgroup.id.x"() : () -> i32
  %5 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
  %6 = llvm.call_intrinsic "llvm.amdgcn.readfirstlane.i32"(%3) : (i32) -> i32
  %7 = llvm.call_intrinsic "llvm.smax.i32"(%u, %4) : (i32, i32) -> i32
  %8 = llvm.call_intrinsic "llvm.amdgcn.not.in.the.table"() : () -> i32
  %9 = llvm.inline_asm "mov.u32 $0, %laneid;", "=r" : () -> i32
  %10 = llvm.call_intrinsic "llvm.acme.lane"() : () -> i32
  %11 = "acme.lane"() {spmd.divergent} : () -> i32
  llvm.return
}

// -----

// The user's names: divergent-ops makes an in-house op or intrinsic a
// source, uniform-ops makes a call uniform.
// CHECK-LABEL: // uniformity @in_house
// CHECK-NEXT: uniform: %{{.*}} = "acme.lane"() : () -> i32
// CHECK-NEXT: divergent: %{{.*}} = func.call @opaque() : () -> i32
// USER-LABEL: // uniformity @in_house
// USER-NEXT: divergent: %{{.*}} = "acme.lane"() : () -> i32
// USER-NEXT: uniform: %{{.*}} = func.call @opaque() : () -> i32
func.func private @opaque() -> i32
func.func @in_house() {
  %0 = "acme.lane"() : () -> i32
  %1 = func.call @opaque() : () -> i32
  return
}

// -----

// Explicit marks are trusted both ways.
// CHECK-LABEL: // uniformity @marks
// CHECK: uniform branch: cf.cond_br %arg0, ^bb1, ^bb2 {spmd.uniformity = #spmd.uniformity<uniform>}
// CHECK: divergent branch: cf.cond_br %arg1, ^bb2, ^bb3 {spmd.uniformity = #spmd.uniformity<divergent>}
func.func @marks(%t: i1 {spmd.divergent}, %u: i1 {spmd.uniform}) {
  cf.cond_br %t, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  cf.cond_br %u, ^b, ^c {spmd.uniformity = #spmd.uniformity<divergent>}
^b:
  return
^c:
  return
}

// -----

// Collectives and cross-lane operations, classified by the one table of
// src/ir/collectives.rs: data from other lanes and the elected lane are
// sources even on uniform operands; votes, reads of one lane and
// reductions are uniform; match.sync follows its operands.
// CHECK-LABEL: // uniformity @collectives
// CHECK: divergent: %{{.*}} = nvvm.elect.sync -> i1
// CHECK-NEXT: uniform: %{{.*}} = nvvm.vote.sync  ballot
// CHECK-NEXT: uniform: %{{.*}} = nvvm.match.sync  any
// CHECK-NEXT: divergent: %{{.*}} = rocdl.update.dpp
// CHECK-NEXT: uniform: %{{.*}} = rocdl.readfirstlane
// CHECK-NEXT: divergent: %{{.*}} = llvm.call_intrinsic "llvm.amdgcn.mov.dpp.i32"
// CHECK-NEXT: uniform: %{{.*}} = llvm.call_intrinsic "llvm.amdgcn.wave.reduce.umin"
func.func @collectives(%v: i32 {spmd.uniform}, %p: i1 {spmd.uniform}) {
  %m = arith.constant -1 : i32
  %0 = nvvm.elect.sync -> i1
  %1 = nvvm.vote.sync ballot %m, %p -> i32
  %2 = nvvm.match.sync any %m, %v : i32 -> i32
  %3 = rocdl.update.dpp %v, %v with 273, 15, 15, false : i32
  %4 = rocdl.readfirstlane %v : i32
  %5 = llvm.call_intrinsic "llvm.amdgcn.mov.dpp.i32"(%v) : (i32) -> i32
  %6 = llvm.call_intrinsic "llvm.amdgcn.wave.reduce.umin"(%v) : (i32) -> i32
  return
}
