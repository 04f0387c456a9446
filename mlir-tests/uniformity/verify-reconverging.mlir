// RUN: spmd-opt %s -split-input-file --spmd-verify-reconverging -verify-diagnostics

// Figure 2a of the reconvergence paper: neither successor of the divergent
// A post-dominates it.
func.func @figure_2a(%t: i1 {spmd.divergent}) {
  // expected-error @+1 {{divergent branch in ^bb0 is not reconverging: neither successor post-dominates it (its threads meet at ^bb3); run --spmd-reconverge}}
  cf.cond_br %t, ^b, ^c
^b:
  cf.br ^d
^c:
  cf.br ^d
^d:
  return
}

// -----

// Figure 2b: the Flow block post-dominates A, and the Flow block's own
// branch has D as post-dominating successor.
func.func @figure_2b(%t: i1 {spmd.divergent}) {
  %true = arith.constant true
  %false = arith.constant false
  cf.cond_br %t, ^c, ^flow(%true : i1)
^c:
  cf.br ^flow(%false : i1)
^flow(%p: i1):
  spmd.flow_br %p, ^b, ^d
^b:
  cf.br ^d
^d:
  return
}

// -----

// Uniform branches need not reconverge.
func.func @uniform_diamond(%u: i1 {spmd.uniform}) {
  cf.cond_br %u, ^b, ^c
^b:
  cf.br ^d
^c:
  cf.br ^d
^d:
  return
}

// -----

// A divergent switch must first become a chain of two-way branches.
func.func @divergent_switch() {
  %lane = gpu.lane_id
  %l = arith.index_cast %lane : index to i32
  // expected-error @+1 {{divergent branch in ^bb0 has 3 successors; a reconverging CFG needs exactly two (run --spmd-reconverge)}}
  cf.switch %l : i32, [
    default: ^a,
    1: ^b,
    2: ^c
  ]
^a:
  return
^b:
  return
^c:
  return
}

// -----

// Two returns: the threads only meet at the function's end.
func.func @two_returns(%t: i1 {spmd.divergent}) {
  // expected-error @+1 {{neither successor post-dominates it (its threads meet only at the function's end)}}
  cf.cond_br %t, ^a, ^b
^a:
  return
^b:
  return
}

// -----

// An explicit uniform mark is trusted.
func.func @trusted_mark(%t: i1 {spmd.divergent}) {
  cf.cond_br %t, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  return
^b:
  return
}

// -----

// A loop whose divergent exit leads to the single exit block reconverges.
func.func @loop_with_divergent_exit(%t: i32 {spmd.divergent}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %next = arith.addi %i, %c1 : i32
  %stay = arith.cmpi slt, %next, %t : i32
  cf.cond_br %stay, ^header(%next : i32), ^exit
^exit:
  return
}

// -----

// Dead ends impose nothing: the branch into llvm.unreachable is fine.
func.func @divergent_trap(%t: i1 {spmd.divergent}) {
  cf.cond_br %t, ^trap, ^rest
^trap:
  llvm.unreachable
^rest:
  return
}
