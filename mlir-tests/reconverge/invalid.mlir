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

// -----

// A divergent branch in an infinite loop of a function that never returns
// needs a never-taken exit to a return block as its rejoin point; spmd
// creates that block only in func.func, gpu.func and llvm.func, whose
// return ops it knows (mlir-tests/reconverge/no-return.mlir).
// expected-error @+1 {{cannot reconverge @never_returns: it never returns, and the divergent branches in its infinite loops need a never-taken exit to a return block as their rejoin point, which spmd can create in func.func, gpu.func and llvm.func but not in 'emitc.func'; add a return that the loops can reach}}
emitc.func @never_returns(%t: i32 {spmd.divergent}) {
  %c0 = arith.constant 0 : i32
  cf.br ^loop
^loop:
  %d = arith.cmpi sgt, %t, %c0 : i32
  cf.cond_br %d, ^a, ^b
^a:
  cf.br ^join
^b:
  cf.br ^join
^join:
  cf.br ^loop
}
