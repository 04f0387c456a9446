// spmd-opt reads its input from stdin, with or without an explicit `-`.
//
// RUN: spmd-opt < %s | FileCheck %s
// RUN: spmd-opt - < %s | FileCheck %s
// RUN: cat %s | spmd-opt | spmd-opt | FileCheck %s

// CHECK: module {
// CHECK-LABEL: func.func @from_stdin
// CHECK-SAME: (%[[C:.*]]: i1)
func.func @from_stdin(%c: i1) -> !spmd.mask {
  // CHECK-NEXT: %[[B:.*]] = spmd.ballot %[[C]] : !spmd.mask
  %b = spmd.ballot %c : !spmd.mask
  // CHECK-NEXT: return %[[B]] : !spmd.mask
  return %b : !spmd.mask
}
