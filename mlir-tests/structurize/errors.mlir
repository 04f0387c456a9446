// RUN: spmd-opt %s -split-input-file --spmd-structurize -verify-diagnostics -allow-unregistered-dialect
// Rejected input leaves the IR unchanged:
// RUN: not spmd-opt %s -split-input-file -allow-unregistered-dialect --spmd-structurize 2>&1 | FileCheck %s --implicit-check-not="Stack dump"
// CHECK: UnsupportedIrreducibleCFG

// Irreducible control flow is rejected by default, naming the cycle's
// entry blocks.
// expected-error @+1 {{cannot structurize @goto_into_loop: UnsupportedIrreducibleCFG: irreducible control flow is not supported; run --spmd-fix-irreducible first or use irreducible=fix (cycle entered at ^bb1, ^bb2)}}
func.func @goto_into_loop(%c: i1, %d: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^b, ^exit
^b:
  cf.cond_br %d, ^a, ^exit
^exit:
  return
}

// -----

// A terminator with successors that does not implement BranchOpInterface.
func.func @opaque_terminator(%c: i1) {
  // expected-error @+1 {{cannot structurize @opaque_terminator: unsupported terminator 'test.opaque_br': it has successors but does not implement BranchOpInterface}}
  "test.opaque_br"(%c)[^a, ^b] : (i1) -> ()
^a:
  return
^b:
  return
}

// -----

// Reconvergence markers already in the input are kept, so malformed ones
// are rejected up front instead of reaching the output.
func.func @unmatched_head(%t: i1 {spmd.divergent}) {
  // expected-error @+1 {{cannot structurize @unmatched_head: the input's reconvergence markers are malformed: spmd.reconvergence.head 7 has no matching spmd.reconvergence.tail}}
  spmd.reconvergence.head 7
  cf.cond_br %t, ^a, ^b
^a:
  cf.br ^b
^b:
  return
}

// -----

// An exit that is neither a return nor a known dead end (lift-cf-to-scf's
// tests use such unregistered terminators).
func.func @unknown_exit(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  // expected-error @+1 {{cannot structurize @unknown_exit: unsupported terminator 'test.exit': it has no successors but is neither a return}}
  "test.exit"() : () -> ()
^b:
  return
}
