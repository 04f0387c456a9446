// RUN: spmd-opt %s -split-input-file --spmd-structurize -verify-diagnostics

// A function that never returns needs a return block for its infinite
// loops' never-taken exits; spmd creates one only in func.func, gpu.func
// and llvm.func, whose return ops it knows. Any other function kind is
// rejected with a diagnostic instead of an internal error.
// expected-error @+1 {{cannot structurize @spin: it never returns, and structurizing the branches in its infinite loops needs a never-taken exit to a return block, which spmd can create in func.func, gpu.func and llvm.func but not in 'emitc.func'; add a return that the loops can reach}}
emitc.func @spin(%d: i1) {
  cf.br ^loop
^loop:
  cf.cond_br %d, ^a, ^b
^a:
  cf.br ^join
^b:
  cf.br ^join
^join:
  cf.br ^loop
}

// -----

// A loop without any branch to structurize needs no exit: the function
// is left as it is.
emitc.func @plain_spin() {
  cf.br ^loop
^loop:
  cf.br ^loop
}
