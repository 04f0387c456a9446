// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s --check-prefix=RECONVERGE
// RUN: spmd-opt %s -split-input-file --spmd-reconverge | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-predicate | FileCheck %s --check-prefix=PREDICATE

// A divergent llvm.switch (clang emits one for a `switch` in device code)
// is lowered into a chain of two-way branches on its cases, like a
// cf.switch, and then made reconverging.

// RECONVERGE-LABEL: llvm.func ptx_kernelcc @divergent_switch(
// RECONVERGE-NOT:     llvm.switch
// RECONVERGE:         %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid
// RECONVERGE:         arith.cmpi eq, %[[LANE]], %{{.*}} : i32
// RECONVERGE:         spmd.flow_br
// RECONVERGE:         arith.cmpi eq, %[[LANE]], %{{.*}} : i32

// PREDICATE-LABEL: llvm.func ptx_kernelcc @divergent_switch(
// PREDICATE-NOT:     llvm.switch
// PREDICATE-NOT:     spmd.flow_br
// PREDICATE:         spmd.ballot
// PREDICATE:         spmd.exec.br_zero
llvm.func ptx_kernelcc @divergent_switch(%out: !llvm.ptr<1>) {
  %lane = nvvm.read.ptx.sreg.laneid : i32
  %c10 = llvm.mlir.constant(10 : i32) : i32
  %c20 = llvm.mlir.constant(20 : i32) : i32
  llvm.switch %lane : i32, ^default [
    1: ^one,
    2: ^join(%c20 : i32)
  ]
^default:
  llvm.br ^join(%lane : i32)
^one:
  llvm.br ^join(%c10 : i32)
^join(%v: i32):
  %p = llvm.getelementptr %out[%lane] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %v, %p : i32, !llvm.ptr<1>
  llvm.return
}

// -----

// A divergent switch with two successors is already reconverging; the
// predication lowers it into a two-way branch on its single case.

// PREDICATE-LABEL: llvm.func @one_case(
// PREDICATE-NOT:     llvm.switch
// PREDICATE:         %[[IS3:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// PREDICATE:         spmd.ballot
llvm.func @one_case(%out: !llvm.ptr<1>) {
  %lane = nvvm.read.ptx.sreg.laneid : i32
  llvm.switch %lane : i32, ^a [
    3: ^b
  ]
^a:
  llvm.br ^b
^b:
  llvm.return
}
