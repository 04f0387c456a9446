// RUN: spmd-opt %s -split-input-file --spmd-structurize --spmd-verify-structured | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-verify-reconverging | FileCheck %s --check-prefix=RECONV

// A loop whose only ways out end in dead ends (llvm.unreachable, a trap)
// never reaches a return, like an infinite loop: its branches still need
// rejoin points. It gets a never-taken exit from its latch, to the
// function's return (here created, the function has none), and the
// branches inside are structurized.
// CHECK-LABEL: llvm.func @loop_exits_only_to_traps
// CHECK:       spmd.flow_br
// CHECK:       %[[ALWAYS:.*]] = arith.constant true
// CHECK-NEXT:  cf.cond_br %[[ALWAYS]], ^[[LOOP:bb[0-9]+]], ^[[RET:bb[0-9]+]]
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  llvm.return
// RECONV-LABEL: llvm.func @loop_exits_only_to_traps
// RECONV:       spmd.flow_br
// RECONV:       llvm.return
llvm.func @loop_exits_only_to_traps(%c: i1 {spmd.divergent}, %d: i1 {spmd.divergent}) {
  llvm.br ^loop
^loop:
  llvm.cond_br %d, ^a, ^b
^a:
  llvm.cond_br %c, ^join, ^trap1
^b:
  llvm.cond_br %c, ^join, ^trap2
^join:
  llvm.br ^loop
^trap1:
  llvm.unreachable
^trap2:
  llvm.unreachable
}

// -----

// The same loop in a function that can also return: the exit goes to the
// existing return.
// CHECK-LABEL: llvm.func @loop_exits_only_to_traps_beside_a_return
// CHECK:       ^[[RET:bb[0-9]+]]:
// CHECK-NEXT:  llvm.return
// CHECK:       spmd.flow_br
// CHECK:       %[[ALWAYS:.*]] = arith.constant true
// CHECK-NEXT:  cf.cond_br %[[ALWAYS]], ^{{bb[0-9]+}}, ^[[RET]]
// CHECK-COUNT-2: llvm.unreachable
// RECONV-LABEL: llvm.func @loop_exits_only_to_traps_beside_a_return
// RECONV:       spmd.flow_br
llvm.func @loop_exits_only_to_traps_beside_a_return(%c: i1 {spmd.divergent}, %d: i1 {spmd.divergent}, %e: i1) {
  llvm.cond_br %e, ^loop, ^ret
^ret:
  llvm.return
^loop:
  llvm.cond_br %d, ^a, ^b
^a:
  llvm.cond_br %c, ^join, ^trap1
^b:
  llvm.cond_br %c, ^join, ^trap2
^join:
  llvm.br ^loop
^trap1:
  llvm.unreachable
^trap2:
  llvm.unreachable
}
