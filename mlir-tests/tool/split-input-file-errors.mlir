// With --split-input-file, an error in one chunk is reported with the line
// of the original file, the other chunks are still printed, and the exit
// code is non-zero.
//
// RUN: not spmd-opt %s --split-input-file > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// OUT: func.func @good_before
func.func @good_before() {
  return
}

// -----

func.func @bad() {
  // ERR: split-input-file-errors.mlir:[[@LINE+1]]:3: error: 'spmd.reconvergence.head' op must be in a block that ends with a branch with at least two successors
  spmd.reconvergence.head 0
  return
}

// -----

// OUT: func.func @good_after
func.func @good_after() {
  return
}
