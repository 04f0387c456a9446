// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-verify-reconverging --spmd-predicate | FileCheck %s --check-prefix=PRED

// A persistent kernel: a divergent if inside a loop that never ends, in a
// function without a return. The preparation gives the function a return
// block that only a never-taken exit reaches, so the divergent branch
// reconverges like any other (before the latch), and predication finds its
// rejoin point.
// CHECK-LABEL: func.func @persistent
// CHECK:       ^[[LOOP:bb[0-9]+]]:
// CHECK:       cf.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^[[FLOW:bb[0-9]+]](%true : i1)
// CHECK:       ^[[FLOW]](%{{.*}}: i1):
// CHECK-NEXT:  spmd.flow_br
// CHECK:       %[[ALWAYS:.*]] = arith.constant true
// CHECK-NEXT:  cf.cond_br %[[ALWAYS]], ^[[LOOP]], ^[[RET:bb[0-9]+]] {spmd.uniformity = #uniform}
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  return
// PRED-LABEL:  func.func @persistent
// PRED-NOT:    spmd.flow_br
// PRED:        spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// PRED:        spmd.exec.write %{{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}
// PRED:        cf.cond_br %true, ^bb1, ^[[RET:bb[0-9]+]]
// PRED:        ^[[RET]]:
// PRED-NEXT:   return
func.func @persistent(%t: i32 {spmd.divergent}, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  cf.br ^loop
^loop:
  %d = arith.cmpi sgt, %t, %c0 : i32
  cf.cond_br %d, ^a, ^b
^a:
  memref.store %t, %buf[%i0] : memref<4xi32>
  cf.br ^join
^b:
  memref.store %c0, %buf[%i1] : memref<4xi32>
  cf.br ^join
^join:
  cf.br ^loop
}

// -----

// The same in the LLVM dialect, returning a value: the created return
// yields poison of the function's result type.
// CHECK-LABEL: llvm.func @persistent_llvm
// CHECK:       %[[P:.*]] = ub.poison : i32
// CHECK-NEXT:  llvm.return %[[P]] : i32
llvm.func @persistent_llvm(%t: i32 {spmd.divergent}, %p: !llvm.ptr) -> i32 {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  llvm.br ^loop
^loop:
  %d = llvm.icmp "sgt" %t, %c0 : i32
  llvm.cond_br %d, ^a, ^b
^a:
  llvm.store %t, %p : i32, !llvm.ptr
  llvm.br ^join
^b:
  llvm.store %c0, %p : i32, !llvm.ptr
  llvm.br ^join
^join:
  llvm.br ^loop
}
