// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-verify-reconverging | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-structurize=irreducible=fix --spmd-verify-structured | FileCheck %s --check-prefix=STRUCT

// A divergent branch whose slots all target one block splits no threads:
// it needs no rejoin point, even in a function that never returns (found by
// the spmd-fuzz reconverge target, which used to be refused here).
// CHECK-LABEL: func.func @spin
// CHECK:       cf.cond_br %{{.*}}, ^[[LOOP:bb[0-9]+]], ^[[LOOP]]
// STRUCT-LABEL: func.func @spin
// STRUCT:       cf.cond_br %{{.*}}, ^[[LOOP:bb[0-9]+]], ^[[LOOP]]
func.func @spin(%c: i1 {spmd.divergent}) {
  cf.br ^loop
^loop:
  cf.cond_br %c, ^loop, ^loop
}

// -----

// The same with a divergent switch whose cases all go to one block.
// CHECK-LABEL: func.func @one_target_switch
// CHECK:       cf.switch
// STRUCT-LABEL: func.func @one_target_switch
func.func @one_target_switch(%t: i32 {spmd.divergent}) -> i32 {
  cf.br ^head
^head:
  cf.switch %t : i32, [
    default: ^head,
    0: ^head,
    1: ^head
  ]
}
