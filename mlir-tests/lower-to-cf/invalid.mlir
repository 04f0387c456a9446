// RUN: spmd-opt %s -split-input-file --spmd-lower-to-cf -verify-diagnostics
// RUN: not spmd-opt %s -split-input-file --spmd-lower-to-cf -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="Stack dump"

// Wave-level ops have no meaning for one thread: each gets a diagnostic
// with its location, and the pass fails without touching the IR.
// CHECK: invalid.mlir:[[@LINE+3]]:{{[0-9]+}}: error: wave-level op 'spmd.exec.read' has no thread-level lowering
func.func @masks(%c: i1) {
  // expected-error @+1 {{wave-level op 'spmd.exec.read' has no thread-level lowering}}
  %exec = spmd.exec.read : !spmd.mask
  // expected-error @+1 {{wave-level op 'spmd.ballot' has no thread-level lowering}}
  %taken = spmd.ballot %c : !spmd.mask
  // expected-error @+1 {{wave-level op 'spmd.mask.and' has no thread-level lowering}}
  %both = spmd.mask.and %exec, %taken : !spmd.mask
  // expected-error @+1 {{wave-level op 'spmd.exec.write' has no thread-level lowering}}
  spmd.exec.write %both : !spmd.mask
  return
}

// -----

func.func @branch_on_empty_mask(%m: !spmd.mask) {
  // expected-error @+1 {{wave-level op 'spmd.exec.br_zero' has no thread-level lowering}}
  spmd.exec.br_zero ^skip, ^work
^work:
  return
^skip:
  return
}

// -----

// A token that escapes into something other than a child token cannot be
// erased.
func.func private @consume(!spmd.token)

func.func @escaping_token() {
  %entry = spmd.convergence.entry : !spmd.token
  // expected-error @+1 {{cannot lower convergence token of 'spmd.convergence.entry': it is used by 'func.call'}}
  func.call @consume(%entry) : (!spmd.token) -> ()
  return
}
