// Input the pass rejects, with a diagnostic at the offending operation.
//
// RUN: spmd-opt %s -split-input-file --spmd-predicate -verify-diagnostics -allow-unregistered-dialect
// RUN: not spmd-opt %s -split-input-file --spmd-predicate=skip-empty-blocks=maybe 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: for the --skip-empty-blocks option: 'maybe' is invalid value for boolean argument
// RUN: not spmd-opt %s -split-input-file --spmd-predicate=wave-size=48 2>&1 | FileCheck %s --check-prefix=WAVE
// WAVE: invalid value '48' for option 'wave-size': expected a power of two from 1 to 64 (an exec mask holds at most 64 lanes)

// Figure 2a: neither successor of the divergent branch post-dominates it.
func.func @not_reconverging(%t: i32 {spmd.divergent}) {
  %c0 = arith.constant 0 : i32
  %d = arith.cmpi sgt, %t, %c0 : i32
  // expected-error @+1 {{cannot predicate @not_reconverging: divergent branch in ^bb0 has no post-dominating successor: the CFG is not reconverging (Definition 1); run --spmd-reconverge or --spmd-structurize first}}
  cf.cond_br %d, ^b, ^c
^b:
  cf.br ^d
^c:
  cf.br ^d
^d:
  return
}

// -----

func.func @already_wave_level(%m: !spmd.mask) {
  // expected-error @+1 {{cannot predicate @already_wave_level: the function already manipulates exec masks (it is wave-level code)}}
  spmd.exec.write %m : !spmd.mask
  return
}

// -----

// A divergent branch that is not a BranchOpInterface op cannot be replaced
// by spmd.exec.br_zero.
func.func @opaque_divergent_branch(%t: i1 {spmd.divergent}) {
  // expected-error @+1 {{cannot predicate @opaque_divergent_branch: unsupported terminator 'test.weird_term': a divergent branch must implement BranchOpInterface to be lowered to exec-mask code}}
  "test.weird_term"(%t)[^a, ^b] : (i1) -> ()
^a:
  cf.br ^b
^b:
  return
}

// -----

// An exit the pass does not know: lanes parked elsewhere would be stranded
// if the wave left through it.
func.func @unknown_exit(%t: i1 {spmd.divergent}) {
  cf.cond_br %t, ^a, ^b
^a:
  // expected-error @+1 {{cannot predicate @unknown_exit: unsupported terminator 'test.exit': it has no successors but is neither a return}}
  "test.exit"() : () -> ()
^b:
  return
}
