// Syntax errors: non-zero exit code and a `file:line:col: error:` diagnostic
// pointing into this file, never a crash.
//
// RUN: not spmd-opt %s 2>&1 | FileCheck %s --check-prefix=FIRST \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --split-input-file 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// Without splitting, parsing stops at the first error.
// FIRST: {{.*}}malformed.mlir:[[@LINE+6]]:{{[0-9]+}}: error: expected non-function type
// FIRST-NOT: error:
// STDIN: <stdin>:[[@LINE+4]]:{{[0-9]+}}: error: expected non-function type

func.func @missing_type() {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected non-function type
  %0 = arith.constant 1 :
  return
}

// -----

func.func @undefined_value() -> !spmd.mask {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: use of undeclared SSA value name
  return %nothing : !spmd.mask
}

// -----

func.func @missing_operand_of_spmd_op() {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected SSA operand
  spmd.exec.write : !spmd.mask
  return
}

// -----

func.func @undefined_block(%p: i1) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: reference to an undefined block
  spmd.flow_br %p, ^nowhere, ^nowhere
}

// -----

func.func @missing_comma(%p: i1) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected ','
  spmd.flow_br %p ^a, ^a
^a:
  return
}

// -----

// The last chunk is cut off in the middle of the function body.
func.func @unterminated_body() {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected operation name in quotes
  %m = spmd.mask.empty : !spmd.mask
