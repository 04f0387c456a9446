// --mlir-print-ir-after-all prints a dump header and the IR after each pass
// on stderr, and the final IR on stdout, as in mlir-opt.
//
// RUN: spmd-opt %s -canonicalize --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DUMP
// RUN: spmd-opt %s -canonicalize -cse --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWO
// RUN: spmd-opt %s -canonicalize --mlir-print-ir-after-all 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=FINAL

// DUMP: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// DUMP-NEXT: module {
// DUMP-NEXT: func.func @fold_me
// DUMP-NEXT: %[[M:.*]] = spmd.exec.read : !spmd.mask
// DUMP-NEXT: return %[[M]] : !spmd.mask

// TWO: IR Dump After Canonicalizer (canonicalize)
// TWO: IR Dump After CSE (cse)

// FINAL-NOT: IR Dump
// FINAL: func.func @fold_me
// FINAL-NOT: arith.addi

func.func @fold_me() -> !spmd.mask {
  %a = arith.constant 1 : i32
  %b = arith.addi %a, %a : i32
  %m = spmd.exec.read : !spmd.mask
  return %m : !spmd.mask
}
