// The plugin carries the verifiers too: stock mlir-opt with the plugin
// reports the same diagnostics as spmd-opt.
//
// RUN: %mlir_opt --load-dialect-plugin=%spmd_plugin %s -split-input-file -verify-diagnostics

func.func @head_before_return() {
  // expected-error @+1 {{'spmd.reconvergence.head' op must be in a block that ends with a branch with at least two successors}}
  spmd.reconvergence.head 1
  return
}

// -----

func.func @loop_flow_without_back_edge(%brk: i1) {
  cf.br ^latch
^latch:
  // expected-error @+1 {{'spmd.flow_br' op is a loop Flow block}}
  spmd.flow_br loop %brk, ^latch, ^exit
^exit:
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 cannot be both 'spmd.divergent' and 'spmd.uniform'}}
func.func @both_marks(%a: i32 {spmd.uniform, spmd.divergent}) {
  return
}

// -----

func.func @ballot_of_index(%i: index) {
  // expected-error @+1 {{'spmd.ballot' op operand #0 must be 1-bit signless integer, but got 'index'}}
  %m = "spmd.ballot"(%i) : (index) -> !spmd.mask
  return
}

// -----

func.func @uniform_on_a_branch(%c: i1) {
  // expected-error @+1 {{'spmd.uniform' marks the results of an operation; mark branches with 'spmd.uniformity' instead}}
  cf.cond_br %c, ^a, ^a {spmd.uniform}
^a:
  return
}
