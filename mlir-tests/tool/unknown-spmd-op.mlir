// spmd does not allow unknown operations: a misspelled or invented spmd op
// is rejected, even with --allow-unregistered-dialect (the dialect is
// registered).
//
// RUN: not spmd-opt %s --split-input-file 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --split-input-file --allow-unregistered-dialect 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not %mlir_opt --load-dialect-plugin=%spmd_plugin %s --split-input-file 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

func.func @custom_form() {
  // CHECK: unknown-spmd-op.mlir:[[@LINE+1]]:3: error: custom op 'spmd.nope' is unknown
  spmd.nope
  return
}

// -----

func.func @generic_form() {
  // CHECK: unknown-spmd-op.mlir:[[@LINE+1]]:3: error: unregistered operation 'spmd.nope' found in dialect ('spmd') that does not allow unknown operations
  "spmd.nope"() : () -> ()
  return
}

// -----

// A near miss: the mask ops live under `spmd.mask.`, not `spmd.exec.`.
func.func @near_miss(%a: !spmd.mask) {
  // CHECK: unknown-spmd-op.mlir:[[@LINE+1]]:{{[0-9]+}}: error: custom op 'spmd.exec.and' is unknown
  %r = spmd.exec.and %a, %a : !spmd.mask
  return
}
