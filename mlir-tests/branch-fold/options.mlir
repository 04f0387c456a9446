// RUN: not spmd-opt %s --spmd-branch-fold=tail-merge-size=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADSIZE
// RUN: spmd-opt %s --spmd-branch-fold=disable | FileCheck %s --check-prefix=DISABLED
// RUN: spmd-opt %s --spmd-reconverge --spmd-branch-fold --spmd-verify-reconverging | FileCheck %s

// MLIR rejects malformed option values before the pass runs.
// BADSIZE: error

// `disable` leaves the IR unchanged.
// DISABLED: cf.cond_br %arg0, ^bb1(%arg1 : i32), ^bb1(%arg1 : i32)

// After reconverge, folding keeps the output reconverging.
// CHECK-LABEL: func.func @fold_after_reconverge
// CHECK-NOT:     cf.cond_br
func.func @fold_after_reconverge(%c: i1 {spmd.divergent}, %x: i32) -> i32 {
  cf.cond_br %c, ^a(%x : i32), ^a(%x : i32)
^a(%p: i32):
  return %p : i32
}
