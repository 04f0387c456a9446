// --pass-pipeline takes a textual pipeline with nested pass managers.
//
// RUN: spmd-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s
// RUN: spmd-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=2}, cse))' | FileCheck %s
// RUN: spmd-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' \
// RUN:   --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED

// The dump of a pass nested on func.func shows the function, not the module.
// NESTED: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// NESTED-NEXT: func.func @simplify

// CHECK-LABEL: func.func @simplify
// CHECK-SAME: (%[[C:.*]]: i1)
func.func @simplify(%c: i1) -> !spmd.mask {
  // CHECK-NOT: arith.constant
  // CHECK-NOT: arith.addi
  %zero = arith.constant 0 : i32
  %x = arith.addi %zero, %zero : i32
  // CHECK: %[[B:.*]] = spmd.ballot %[[C]] : !spmd.mask
  %b = spmd.ballot %c : !spmd.mask
  // CHECK-NEXT: return %[[B]]
  return %b : !spmd.mask
}
