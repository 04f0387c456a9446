// RUN: spmd-opt --spmd-gpu-to-nvvm="lane-branches=false" %s | FileCheck %s

// __syncthreads() as clang emits it and mlir-translate --import-llvm keeps
// it: an llvm.call_intrinsic. Like nvvm.barrier0, it is warp-collective,
// so the lowering never puts it under the thread's exec bit: after the
// divergent if rejoins, the whole warp reaches the same barrier.

// CHECK-LABEL: llvm.func ptx_kernelcc @barrier_after_if(
// CHECK:         llvm.cond_br %[[MINE:.*]], ^{{.*}}, ^{{.*}}
// CHECK:         llvm.store
// CHECK:         %{{.*}} = llvm.or
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"
// CHECK:         llvm.return
llvm.func ptx_kernelcc @barrier_after_if(%out: !llvm.ptr<1>, %n: i32) {
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %low = llvm.icmp "slt" %t, %n : i32
  llvm.cond_br %low, ^then, ^join
^then:
  %p = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %t, %p : i32, !llvm.ptr<1>
  llvm.br ^join
^join:
  llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%c0) : (i32) -> ()
  llvm.return
}
