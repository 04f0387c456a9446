// RUN: spmd-opt %s -split-input-file --spmd-fix-irreducible -verify-diagnostics
// RUN: not spmd-opt %s -split-input-file --spmd-structurize=irreducible=fix 2>&1 | FileCheck %s --check-prefix=STRUCT

// An entry of an irreducible cycle holding a loop token: the hub that makes
// the cycle reducible would become its header and leave the token behind,
// so the edit is refused with a located diagnostic instead of producing
// invalid IR (found by the spmd-fuzz front-door target).
func.func @token_in_entry(%t: i1 {spmd.divergent}, %u: i1 {spmd.divergent}) {
  %entry = spmd.convergence.entry : !spmd.token
  cf.cond_br %t, ^a, ^b
^a:
  // expected-error @+1 {{'spmd.convergence.loop' in a block that a hub would enter}}
  %iter = spmd.convergence.loop %entry : !spmd.token
  cf.cond_br %u, ^b, ^exit
^b:
  cf.cond_br %t, ^a, ^exit
^exit:
  return
}
// STRUCT: error: cannot structurize @token_in_entry: irreducible=fix cannot route this cycle's entries through one hub: an entry holds 'spmd.convergence.loop'
