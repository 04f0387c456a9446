// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-predicate | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-predicate | spmd-opt -split-input-file --spmd-lower-to-nvvm | FileCheck %s --check-prefix=NVVM

// The smallest LLVM-dialect loop with a divergent exit (the condition
// comes from an unknown call): the loop's rejoin mask crosses llvm.br, so
// it travels as an i32 carrier.

// CHECK-LABEL: llvm.func @divergent_loop()
// CHECK:         %[[EMPTY:.*]] = spmd.mask.empty : !spmd.mask
// CHECK:         %[[BITS:.*]] = spmd.mask.to_bits %[[EMPTY]] : i32
// CHECK:         llvm.br ^[[HEADER:.*]](%[[BITS]] : i32)
// CHECK:       ^[[HEADER]](%[[CARRIED:.*]]: i32):
// CHECK-NEXT:    %[[PENDING:.*]] = spmd.mask.from_bits %[[CARRIED]] : i32
// CHECK:         %[[LEAVING:.*]] = spmd.ballot
// CHECK:         %[[ACC:.*]] = spmd.mask.or %[[PENDING]], %[[LEAVING]] : !spmd.mask
// CHECK:         spmd.exec.br_zero ^[[EXIT:.*]], ^[[LATCH:.*]]
// CHECK:       ^[[LATCH]]:
// CHECK-NEXT:    %[[BACK:.*]] = spmd.mask.to_bits %[[ACC]] : i32
// CHECK-NEXT:    llvm.br ^[[HEADER]](%[[BACK]] : i32)
// CHECK:       ^[[EXIT]]:
// CHECK:         spmd.exec.write {{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}
// CHECK-NEXT:    llvm.return

// In the NVVM lowering a mask is the thread's own bit, an LLVM type: the
// carrier of the loop's pending mask becomes an i1 argument itself, and the
// loop's exit is one vote of the exec bits.
// NVVM-LABEL: llvm.func @divergent_loop()
// NVVM-NOT:     spmd.
// NVVM:         llvm.br ^bb1(%{{.*}}, %{{.*}} : i1, i1)
// NVVM:       ^bb1(%{{.*}}: i1, %{{.*}}: i1):
// NVVM-NOT:     arith.trunci
// NVVM:         nvvm.vote.sync any
// NVVM:         llvm.return
llvm.func @cond() -> i1
llvm.func @divergent_loop() {
  llvm.br ^bb1
^bb1:
  %c = llvm.call @cond() : () -> i1
  llvm.cond_br %c, ^bb2, ^bb3
^bb2:
  llvm.br ^bb1
^bb3:
  llvm.return
}

// -----

// A function mixing cf and llvm branches: only the argument an llvm
// branch forwards into becomes a carrier; the cf edge passes the bits too.

// CHECK-LABEL: llvm.func @mixed(
// CHECK:         cf.cond_br {{.*}}, ^[[A:.*]], ^[[B:.*]] {spmd.uniformity
// CHECK:       ^[[A]]:
// CHECK-NEXT:    %[[BA:.*]] = spmd.mask.to_bits %{{.*}} : i32
// CHECK-NEXT:    cf.br ^[[LOOP:.*]](%{{.*}}, %[[BA]] : i32, i32)
// CHECK:       ^[[B]]:
// CHECK-NEXT:    %[[BB:.*]] = spmd.mask.to_bits %{{.*}} : i32
// CHECK-NEXT:    llvm.br ^[[LOOP]](%{{.*}}, %[[BB]] : i32, i32)
// CHECK:       ^[[LOOP]](%{{.*}}: i32, %[[CARRIED:.*]]: i32):
// CHECK-NEXT:    spmd.mask.from_bits %[[CARRIED]] : i32
// CHECK:         %[[BACK:.*]] = spmd.mask.to_bits
// CHECK-NEXT:    spmd.exec.br_zero ^{{.*}}, ^[[LOOP]](%{{.*}}, %[[BACK]] : i32, i32)
llvm.func @mixed(%u: i1, %n: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %t = nvvm.read.ptx.sreg.tid.x : i32
  cf.cond_br %u, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  cf.br ^loop(%c0 : i32)
^b:
  llvm.br ^loop(%c1 : i32)
^loop(%i: i32):
  %more = llvm.icmp "slt" %i, %t : i32
  %next = llvm.add %i, %c1 : i32
  llvm.cond_br %more, ^loop(%next : i32), ^exit
^exit:
  llvm.return
}
