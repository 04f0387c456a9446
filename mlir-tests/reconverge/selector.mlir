// RUN: spmd-opt %s --spmd-reconverge=selector-chain-length=0 | FileCheck %s
// RUN: spmd-opt %s --spmd-reconverge=selector-chain-length=0 | spmd-opt --spmd-verify-reconverging -o /dev/null
// RUN: not spmd-opt %s --spmd-reconverge=selector-chain-length=-3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not="Stack dump"

// BAD: error

// With selector-chain-length=0 every Flow chain carries one i32 selector
// (the destination's index) and each Flow block derives its i1 predicate
// with arith.cmpi, against the same constant the entering edges pass.
// CHECK-LABEL: func.func @two_returns_and_a_join
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: cf.cond_br %arg0, ^{{bb[0-9]+}}, ^[[FLOW:bb[0-9]+]](%[[ZERO]], %{{.*}} : i32, i32)
// CHECK: cf.br ^[[FLOW]](%[[ONE]], %{{.*}} : i32, i32)
// CHECK: ^[[FLOW]](%[[SEL:[0-9]+]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[P:.*]] = arith.cmpi eq, %[[SEL]], %[[ZERO]] : i32
// CHECK-NEXT: spmd.flow_br %[[P]]
func.func @two_returns_and_a_join(%t: i1 {spmd.divergent}, %x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  cf.cond_br %t, ^b, ^c
^b:
  %y = arith.addi %x, %c1 : i32
  cf.br ^d(%y : i32)
^c:
  cf.br ^d(%x : i32)
^d(%r: i32):
  return %r : i32
}
