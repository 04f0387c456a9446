// --mlir-timing prints MLIR's execution time report on stderr.
//
// RUN: spmd-opt %s -canonicalize --mlir-timing -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-opt %s -canonicalize --mlir-timing --mlir-timing-display=tree -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TREE

// CHECK: Execution time report
// CHECK: Total Execution Time:
// CHECK: Wall Time
// CHECK-DAG: Parser
// CHECK-DAG: Canonicalizer
// CHECK-DAG: Output
// CHECK: Total

// TREE: Execution time report
// TREE: Canonicalizer

func.func @timed(%c: i1) -> !spmd.mask {
  %b = spmd.ballot %c : !spmd.mask
  return %b : !spmd.mask
}
