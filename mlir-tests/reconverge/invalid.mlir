// RUN: spmd-opt %s -split-input-file --spmd-reconverge -verify-diagnostics --allow-unregistered-dialect
// RUN: not spmd-opt %s --spmd-reconverge=ordering=sideways -o /dev/null 2>&1 --allow-unregistered-dialect | FileCheck %s --check-prefix=BADOPT --implicit-check-not="Stack dump"

// BADOPT: error: invalid value 'sideways' for option 'ordering': expected 'df', 'dfpd', 'bf' or 'rpot'

// A terminator with successors that does not implement BranchOpInterface
// cannot be rerouted.
func.func @opaque_terminator(%t: i1 {spmd.divergent}) {
  cf.cond_br %t, ^a, ^b
^a:
  // expected-error @+1 {{cannot reconverge @opaque_terminator: unsupported terminator 'test.jump': it has successors but does not implement BranchOpInterface}}
  "test.jump"()[^c] : () -> ()
^b:
  cf.br ^c
^c:
  return
}

// -----

// A divergent multi-way branch other than cf.switch cannot be lowered.
llvm.func @divergent_llvm_switch() {
  %lane = nvvm.read.ptx.sreg.laneid : i32
  // expected-error @+1 {{cannot reconverge @divergent_llvm_switch: unsupported terminator 'llvm.switch': a divergent multi-way branch must be a cf.switch to be lowered into two-way branches}}
  llvm.switch %lane : i32, ^a [
    1: ^b,
    2: ^c
  ]
^a:
  llvm.return
^b:
  llvm.return
^c:
  llvm.return
}
