// RUN: spmd-opt %s -split-input-file --spmd-structurize | FileCheck %s
// Every output satisfies the contract, for every ordering, and with
// irreducible=fix (a no-op on these reducible shapes):
// RUN: spmd-opt %s -split-input-file --spmd-structurize | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=ordering=dfpd | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=ordering=df | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=ordering=bf | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=irreducible=fix | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=skip-uniform-regions=true | spmd-opt -split-input-file --spmd-verify-structured=use-uniformity=true -o /dev/null
// Idempotent: the created return block is reached by the never-taken
// exits, so a second run finds a function that returns and nothing to do.
// RUN: spmd-opt %s -split-input-file --spmd-structurize > %t.once
// RUN: spmd-opt %t.once -split-input-file --spmd-structurize > %t.twice
// RUN: diff %t.once %t.twice

// Functions that never return (issue #30): every path ends in an infinite
// loop, so there is no return block for the loops' never-taken exits. The
// transform appends one that returns with the function's own return op
// (ub.poison for each result); only the never-taken exits reach it.

// A loop nest in the LLVM dialect, as imported from a kernel whose only
// `ret` was unreachable: the unreachable return block is erased first,
// then a new one is created at the end of the region. The divergent spin
// loop exits to ^after, whose self loop and back edge to ^outer are left
// with no exit at all.
// CHECK-LABEL: llvm.func @spin_nest
// CHECK:       nvvm.read.ptx.sreg.tid.x
// CHECK:       ^[[OUTER:bb[0-9]+]]:
// CHECK:       ^[[SPIN:bb[0-9]+]](%{{.*}}: i32):
// CHECK:       llvm.cond_br %{{[0-9]+}}, ^[[AFTER:bb[0-9]+]](%{{.*}} : i32), ^[[SPIN]](%{{.*}} : i32)
// CHECK:       ^[[AFTER]](%{{.*}}: i32):
// CHECK:       llvm.mul
// CHECK:       llvm.cond_br %{{[0-9]+}}, ^[[DETOUR:bb[0-9]+]](%{{.*}} : i32), ^[[OUTER]]
// CHECK:       ^[[DETOUR]](%[[ARG:.*]]: i32):
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  %[[TRUE:true[_0-9]*]] = arith.constant true
// CHECK-NEXT:  spmd.reconvergence.head
// CHECK-NEXT:  cf.cond_br %[[TRUE]], ^[[AFTER]](%[[ARG]] : i32), ^[[RET:bb[0-9]+]]
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  llvm.return{{$}}
// CHECK-NEXT:  }
// CHECK-NOT:   llvm.return
// CHECK-LABEL: llvm.func @other
llvm.func @spin_nest(%limit: i32) {
  %zero = llvm.mlir.constant(0 : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %five = llvm.mlir.constant(5 : i32) : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %again = llvm.icmp "sgt" %limit, %five : i32
  llvm.br ^outer
^outer:
  llvm.br ^spin(%zero : i32)
^spin(%n: i32):
  %n1 = llvm.add %n, %one : i32
  %past = llvm.icmp "ugt" %n1, %tid : i32
  llvm.cond_br %past, ^after(%n1 : i32), ^spin(%n1 : i32)
^after(%m: i32):
  %m3 = llvm.mul %m, %five : i32
  llvm.cond_br %again, ^after(%m3 : i32), ^outer
^gone:
  llvm.return
}
llvm.func @other() {
  llvm.return
}

// -----

// func.func with results: one ub.poison per result feeds the new return.
// CHECK-LABEL: func.func @persistent_with_results
// CHECK:       cf.cond_br %true{{(_[0-9]+)?}}, ^{{bb[0-9]+}}, ^[[RET:bb[0-9]+]]{{$}}
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  %[[P0:.*]] = ub.poison : i32
// CHECK-NEXT:  %[[P1:.*]] = ub.poison : f32
// CHECK-NEXT:  return %[[P0]], %[[P1]] : i32, f32
// CHECK-NEXT:  }
func.func @persistent_with_results(%d: i1, %m: memref<i32>, %x: i32) -> (i32, f32) {
  cf.br ^loop
^loop:
  cf.cond_br %d, ^then, ^else
^then:
  memref.store %x, %m[] : memref<i32>
  cf.br ^join
^else:
  cf.br ^join
^join:
  cf.br ^loop
}

// -----

// llvm.func with a non-void result.
// CHECK-LABEL: llvm.func @forever_ptr
// CHECK:       cf.cond_br %true{{(_[0-9]+)?}}, ^{{bb[0-9]+}}, ^[[RET:bb[0-9]+]]{{$}}
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  %[[P:.*]] = ub.poison : !llvm.ptr
// CHECK-NEXT:  llvm.return %[[P]] : !llvm.ptr
// CHECK-NEXT:  }
llvm.func @forever_ptr(%d: i1, %p: !llvm.ptr) -> !llvm.ptr {
  llvm.br ^loop
^loop:
  llvm.cond_br %d, ^a, ^b
^a:
  llvm.br ^loop
^b:
  llvm.br ^loop
}

// -----

// gpu.func kernels return with gpu.return.
// CHECK-LABEL: gpu.func @persistent_kernel
// CHECK:       cf.cond_br %true{{(_[0-9]+)?}}, ^{{bb[0-9]+}}, ^[[RET:bb[0-9]+]]{{$}}
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  gpu.return{{$}}
gpu.module @kernels {
  gpu.func @persistent_kernel(%m: memref<64xi32>, %x: i32) kernel {
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %low = arith.cmpi ult, %tid, %c8 : index
    cf.br ^loop
  ^loop:
    cf.cond_br %low, ^then, ^join
  ^then:
    memref.store %x, %m[%tid] : memref<64xi32>
    cf.br ^join
  ^join:
    cf.br ^loop
  }
}

// -----

// A dead end beside the infinite loop: the loop still gets the new
// return, the llvm.unreachable stays.
// CHECK-LABEL: llvm.func @trap_or_spin
// CHECK:       llvm.unreachable
// CHECK:       cf.cond_br %true{{(_[0-9]+)?}}, ^{{bb[0-9]+}}, ^[[RET:bb[0-9]+]]{{$}}
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  llvm.return{{$}}
llvm.func @trap_or_spin(%c: i1, %d: i1) {
  llvm.cond_br %c, ^trap, ^loop
^trap:
  llvm.unreachable
^loop:
  llvm.cond_br %d, ^a, ^b
^a:
  llvm.br ^loop
^b:
  llvm.br ^loop
}

// -----

// An infinite loop without any branch needs nothing: the function stays
// as it is, without a return.
// CHECK-LABEL: func.func @plain_spin
// CHECK-NEXT:  cf.br ^[[LOOP:bb[0-9]+]]
// CHECK-NEXT:  ^[[LOOP]]:
// CHECK-NEXT:  cf.br ^[[LOOP]]
// CHECK-NEXT:  }
func.func @plain_spin() {
  cf.br ^loop
^loop:
  cf.br ^loop
}
