// RUN: spmd-opt %s -split-input-file --spmd-verify-structured -verify-diagnostics

// The diamond of the StructurizeCFG notes: neither side post-dominates the branch.
func.func @diamond(%c: i1) {
  // expected-error @+1 {{branch in ^bb0 does not reconverge at a successor: neither successor post-dominates it (its paths meet at ^bb3); run --spmd-structurize}}
  cf.cond_br %c, ^a, ^b
^a:
  cf.br ^join
^b:
  cf.br ^join
^join:
  return
}

// -----

// A branch marked uniform is exempt (unless use-uniformity is set).
func.func @marked_uniform(%c: i1) {
  cf.cond_br %c, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  cf.br ^join
^b:
  cf.br ^join
^join:
  return
}

// -----

func.func @irreducible(%c: i1, %d: i1) {
  cf.cond_br %c, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  // expected-error @+1 {{irreducible cycle: it is entered at ^bb1, ^bb2; a structured CFG needs single-entry loops (run --spmd-fix-irreducible)}}
  cf.cond_br %d, ^b, ^exit {spmd.uniformity = #spmd.uniformity<uniform>}
^b:
  cf.cond_br %d, ^a, ^exit {spmd.uniformity = #spmd.uniformity<uniform>}
^exit:
  return
}

// -----

func.func @flow_with_computation(%c: i1, %x: i32) -> i32 {
  %t = arith.constant true
  cf.cond_br %c, ^flow(%t : i1), ^flow(%c : i1)
^flow(%p: i1):
  %y = arith.addi %x, %x : i32
  // expected-error @+1 {{Flow block ^bb1 holds operations other than its branch; Flow blocks must only select the path}}
  spmd.flow_br %p, ^a, ^join(%y : i32)
^a:
  cf.br ^join(%x : i32)
^join(%r: i32):
  return %r : i32
}

// -----

// The op verifier already rejects a loop Flow whose false side cannot come
// back; the contract also wants its true side to leave the loop.
func.func @loop_flow_exit_stays_inside(%p: i1, %q: i1) {
  cf.br ^header
^header:
  cf.cond_br %q, ^latch, ^exit {spmd.uniformity = #spmd.uniformity<uniform>}
^latch:
  // expected-error @+1 {{loop Flow block ^bb2 does not leave its loop on true}}
  spmd.flow_br loop %p, ^more, ^header
^more:
  cf.br ^header
^exit:
  return
}

// -----

func.func @head_id_used_twice(%c: i1, %d: i1) {
  spmd.reconvergence.head 3
  cf.cond_br %c, ^a, ^join {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  // expected-error @+1 {{reconvergence region id 3 has two heads; ids must be unique}}
  spmd.reconvergence.head 3
  cf.cond_br %d, ^join, ^join
^join:
  spmd.reconvergence.tail 3
  return
}

// -----

func.func @tail_without_head() {
  // expected-error @+1 {{spmd.reconvergence.tail 4 has no matching spmd.reconvergence.head}}
  spmd.reconvergence.tail 4
  return
}

// -----

func.func @head_without_tail(%c: i1) {
  // expected-error @+1 {{spmd.reconvergence.head 5 has no matching spmd.reconvergence.tail}}
  spmd.reconvergence.head 5
  cf.cond_br %c, ^a, ^a
^a:
  return
}

// -----

func.func @tail_id_used_twice(%c: i1) {
  spmd.reconvergence.head 2
  cf.cond_br %c, ^a, ^join {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  cf.br ^join
^join:
  spmd.reconvergence.tail 2
  cf.br ^after
^after:
  // expected-error @+1 {{reconvergence region id 2 has two tails; ids must be unique}}
  spmd.reconvergence.tail 2
  return
}

// -----

func.func @tail_not_post_dominating(%c: i1) {
  spmd.reconvergence.head 6
  cf.cond_br %c, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  // expected-error @+1 {{spmd.reconvergence.tail 6 in ^bb1 does not post-dominate its head in ^bb0}}
  spmd.reconvergence.tail 6
  cf.br ^b
^b:
  return
}
