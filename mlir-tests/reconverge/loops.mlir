// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-reconverge | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-reconverge=ordering=bf | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null

// A loop with a divergent break: both exits are routed through one Flow
// block after the loop, which dispatches to the break target or the exit.
// The header gets its convergence token.
// CHECK-LABEL: func.func @loop_divergent_break
// CHECK: %[[ENTRY:.*]] = spmd.convergence.entry
// CHECK: ^[[H:bb[0-9]+]](%{{.*}}: i32):
// CHECK-NEXT: spmd.convergence.loop %[[ENTRY]]
// CHECK: cf.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^[[FLOW:bb[0-9]+]](%false : i1)
// CHECK: cf.cond_br %{{.*}}, ^[[FLOW]](%true : i1), ^{{bb[0-9]+}}
// CHECK: ^[[FLOW]](%[[P:.*]]: i1):
// CHECK-NEXT: spmd.flow_br %[[P]], ^[[BROKE:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK: ^[[BROKE]]:
// CHECK: memref.store
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: return
func.func @loop_divergent_break(%n: i32, %t: i32 {spmd.divergent}, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %more = arith.cmpi slt, %i, %n : i32
  cf.cond_br %more, ^body, ^exit
^body:
  %brk = arith.cmpi eq, %i, %t : i32
  cf.cond_br %brk, ^broke, ^latch
^latch:
  %next = arith.addi %i, %c1 : i32
  cf.br ^header(%next : i32)
^broke:
  %idx = arith.index_cast %i : i32 to index
  memref.store %i, %out[%idx] : memref<?xi32>
  cf.br ^exit
^exit:
  return
}

// -----

// An early return inside a loop: the two returns are unified into one exit
// block, whose argument merges the two returned values.
// CHECK-LABEL: func.func @early_return_in_loop
// CHECK-COUNT-1: return
// CHECK-NOT: return
func.func @early_return_in_loop(%n: i32, %t: i32 {spmd.divergent}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %found = arith.cmpi eq, %i, %t : i32
  cf.cond_br %found, ^ret_found, ^latch
^latch:
  %next = arith.addi %i, %c1 : i32
  %more = arith.cmpi slt, %next, %n : i32
  cf.cond_br %more, ^header(%next : i32), ^ret_none
^ret_found:
  return %i : i32
^ret_none:
  return %c0 : i32
}

// -----

// A loop with a divergent exit and a single exit block already reconverges.
// CHECK-LABEL: func.func @single_exit_divergent_loop
// CHECK-NOT: spmd.{{flow_br|convergence}}
// CHECK: return
func.func @single_exit_divergent_loop(%t: i32 {spmd.divergent}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %next = arith.addi %i, %c1 : i32
  %stay = arith.cmpi slt, %next, %t : i32
  cf.cond_br %stay, ^header(%next : i32), ^exit
^exit:
  return
}

// -----

// A divergent branch into a dead end (llvm.unreachable) needs no
// reconvergence: threads that go there never come back.
// CHECK-LABEL: func.func @divergent_trap
// CHECK-NOT: spmd.flow_br
// CHECK: llvm.unreachable
func.func @divergent_trap(%t: i1 {spmd.divergent}) {
  cf.cond_br %t, ^trap, ^rest
^trap:
  llvm.unreachable
^rest:
  return
}
