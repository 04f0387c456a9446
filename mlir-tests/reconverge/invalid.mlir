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

func.func @unknown_exit(%t: i1 {spmd.divergent}) {
  cf.cond_br %t, ^a, ^b
^a:
  // expected-error @+1 {{cannot reconverge @unknown_exit: unsupported terminator 'test.exit': it has no successors but is neither a return}}
  "test.exit"() : () -> ()
^b:
  return
}
