// RUN: spmd-opt %s -split-input-file -allow-unregistered-dialect --spmd-fix-irreducible -verify-diagnostics
// RUN: spmd-opt %s -split-input-file -allow-unregistered-dialect --spmd-unify-loop-exits -verify-diagnostics

// Both passes must reroute the opaque terminator's edges (an entry edge of
// the irreducible cycle {^a, ^b}, and an exiting edge of that cycle), which
// they cannot do without BranchOpInterface: a diagnostic, IR unchanged.
func.func @opaque_edge(%c: i1, %d: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  // expected-error @+1 {{unsupported terminator 'test.opaque_br': it has successors but does not implement BranchOpInterface, so its successor operands cannot be rerouted}}
  "test.opaque_br"(%d)[^b, ^x] : (i1) -> ()
^b:
  cf.cond_br %d, ^a, ^y
^x:
  return
^y:
  return
}
