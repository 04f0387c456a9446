// RUN: spmd-opt %s -split-input-file --spmd-fix-irreducible | FileCheck %s
// The output is reducible, so structurize accepts it without irreducible=fix:
// RUN: spmd-opt %s -split-input-file --spmd-fix-irreducible --spmd-structurize | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-fix-irreducible | spmd-opt -split-input-file --spmd-print-cfg-analysis -o /dev/null 2>&1 | FileCheck %s --check-prefix=CYCLES

// A goto into a loop: the cycle {^a, ^b} is entered at both blocks. Every
// edge into ^a or ^b (from the entry and from inside the cycle) enters one
// guard block that dispatches on an i1 predicate. The block arguments travel
// through it in shared typed slots: ^a's and ^b's i32 argument are the same
// slot (each thread passes the one of the block it is heading to), so the
// guard has one i32 argument, not one per destination.
// CHECK-LABEL: func.func @goto_into_loop
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: cf.cond_br %arg0, ^[[HUB:bb[0-9]+]](%[[T]], %arg2 : i1, i32), ^[[HUB]](%[[F]], %arg2 : i1, i32)
// CHECK: ^[[HUB]](%[[SEL:.*]]: i1, %[[V:.*]]: i32):
// CHECK-NEXT: cf.cond_br %[[SEL]], ^[[A:bb[0-9]+]], ^[[B:bb[0-9]+]]
// CHECK: ^[[A]]:
// CHECK: %[[NA:.*]] = arith.addi %[[V]]
// CHECK: cf.cond_br %arg1, ^[[HUB]](%[[F]], %[[NA]] : i1, i32), ^[[EXIT:bb[0-9]+]](%[[NA]] : i32)
// CHECK: ^[[B]]:
// CHECK: %[[NB:.*]] = arith.muli %[[V]]
// CHECK: cf.cond_br %arg1, ^[[HUB]](%[[T]], %[[NB]] : i1, i32), ^[[EXIT]](%[[NB]] : i32)
// CYCLES: irreducible: none
func.func @goto_into_loop(%c: i1, %d: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^a(%x : i32), ^b(%x : i32)
^a(%va: i32):
  %one = arith.constant 1 : i32
  %na = arith.addi %va, %one : i32
  cf.cond_br %d, ^b(%na : i32), ^exit(%na : i32)
^b(%vb: i32):
  %two = arith.constant 2 : i32
  %nb = arith.muli %vb, %two : i32
  cf.cond_br %d, ^a(%nb : i32), ^exit(%nb : i32)
^exit(%r: i32):
  return %r : i32
}

// -----

// A reducible loop is left alone.
// CHECK-LABEL: func.func @natural_loop
// CHECK-NEXT: cf.br ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CYCLES: irreducible: none
func.func @natural_loop(%c: i1) {
  cf.br ^loop
^loop:
  cf.cond_br %c, ^loop, ^exit
^exit:
  return
}
