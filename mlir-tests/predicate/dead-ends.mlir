// RUN: spmd-opt %s -split-input-file --spmd-predicate | FileCheck %s

// A divergent branch into a dead end (llvm.unreachable: a trap, a failed
// assert): only paths that end the thread normally count for Definition 1,
// so the other successor is the rejoin point. The wave runs the dead end
// first with the lanes that go there; the others wait at ^ok.

// CHECK-LABEL: llvm.func ptx_kernelcc @trap_on_zero(
// CHECK:         %[[TO_OK:.*]] = spmd.ballot
// CHECK:         spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK:         spmd.exec.br_zero ^[[OK:.*]], ^[[TRAP:.*]]
// CHECK:       ^[[TRAP]]:
// CHECK-NEXT:    llvm.unreachable
// CHECK:       ^[[OK]]:
// CHECK:         spmd.exec.write %{{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}
// CHECK:         llvm.store
llvm.func ptx_kernelcc @trap_on_zero(%p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %c = llvm.icmp "eq" %t, %c0 : i32
  llvm.cond_br %c, ^trap, ^ok
^trap:
  llvm.unreachable
^ok:
  llvm.store %t, %p : i32, !llvm.ptr
  llvm.return
}
