// RUN: spmd-opt %s -split-input-file --spmd-structurize | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-structurize | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-reconverge | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null

// A switch becomes one two-way branch per distinct destination,
// not one per case: cases that branch to the same block with the same
// operands share one test (a run of consecutive values is one unsigned
// range test), and a case that does what the default does needs none.
// Structurize lowers every switch; reconverge and predicate lower the
// divergent ones the same way (prepare::lower_switch).

// Three cases to one block, from 0: `flag <= 2`.
// CHECK-LABEL: func.func @range_from_zero(
// CHECK-SAME:      %[[FLAG:[^:]*]]: i32
// CHECK-NOT:     arith.cmpi eq
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:         %[[IN:.*]] = arith.cmpi ule, %[[FLAG]], %[[TWO]] : i32
// CHECK-NEXT:    spmd.reconvergence.head
// CHECK-NEXT:    cf.cond_br %[[IN]], ^[[B:bb[0-9]+]], ^[[A:bb[0-9]+]]
// CHECK-NOT:     arith.cmpi
// CHECK:         return
func.func @range_from_zero(%flag: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  cf.switch %flag : i32, [
    default: ^a,
    0: ^b,
    1: ^b,
    2: ^b
  ]
^a:
  memref.store %flag, %out[%c0] : memref<4xi32>
  cf.br ^b
^b:
  return
}

// -----

// A run that does not start at 0: `flag - 3 <= 2`, unsigned, so that
// values below 3 wrap around to large ones and fail it.
// CHECK-LABEL: func.func @range(
// CHECK-SAME:      %[[FLAG:[^:]*]]: i32
// CHECK:         %[[THREE:.*]] = arith.constant 3 : i32
// CHECK:         %[[OFFSET:.*]] = arith.subi %[[FLAG]], %[[THREE]] : i32
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:         %[[IN:.*]] = arith.cmpi ule, %[[OFFSET]], %[[TWO]] : i32
// CHECK-NEXT:    spmd.reconvergence.head
// CHECK-NEXT:    cf.cond_br %[[IN]]
// CHECK-NOT:     arith.cmpi
// CHECK:         return
func.func @range(%flag: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  cf.switch %flag : i32, [
    default: ^a,
    5: ^b,
    3: ^b,
    4: ^b
  ]
^a:
  memref.store %flag, %out[%c0] : memref<4xi32>
  cf.br ^b
^b:
  return
}

// -----

// Values apart are joined with `arith.ori`; a destination with other
// operands is a destination of its own; the case that passes what the
// default passes is dropped.
// CHECK-LABEL: func.func @groups(
// CHECK-SAME:      %[[FLAG:[^:]*]]: i32
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %[[FLAG]], %{{.*}} : i32
// CHECK:         %[[SEVEN:.*]] = arith.cmpi eq, %[[FLAG]], %{{.*}} : i32
// CHECK:         %[[EITHER:.*]] = arith.ori %[[ONE]], %[[SEVEN]] : i1
// CHECK-NEXT:    spmd.reconvergence.head
// CHECK-NEXT:    cf.cond_br %[[EITHER]]
// CHECK:         %[[TWO:.*]] = arith.cmpi eq, %[[FLAG]], %{{.*}} : i32
// CHECK-NEXT:    cf.cond_br %[[TWO]]
// CHECK-NOT:     arith.cmpi eq
// CHECK:         return
func.func @groups(%flag: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  cf.switch %flag : i32, [
    default: ^join(%flag : i32),
    1: ^join(%c10 : i32),
    2: ^join(%c20 : i32),
    5: ^join(%flag : i32),
    7: ^join(%c10 : i32)
  ]
^join(%v: i32):
  memref.store %v, %out[%c0] : memref<4xi32>
  return
}

// -----

// Every case does what the default does: no test at all.
// CHECK-LABEL: func.func @all_default(
// CHECK-NOT:     cf.switch
// CHECK-NOT:     arith.cmpi
// CHECK:         cf.br
func.func @all_default(%flag: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  cf.switch %flag : i32, [
    default: ^a,
    1: ^a,
    2: ^a
  ]
^a:
  memref.store %flag, %out[%c0] : memref<4xi32>
  return
}

// -----

// A run through negative values: `flag - (-1) <= 2`.
// CHECK-LABEL: func.func @negative_run(
// CHECK-SAME:      %[[FLAG:[^:]*]]: i32
// CHECK:         %[[MINUS_ONE:.*]] = arith.constant -1 : i32
// CHECK:         %[[OFFSET:.*]] = arith.subi %[[FLAG]], %[[MINUS_ONE]] : i32
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:         arith.cmpi ule, %[[OFFSET]], %[[TWO]] : i32
func.func @negative_run(%flag: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  cf.switch %flag : i32, [
    default: ^a,
    -1: ^b,
    0: ^b,
    1: ^b
  ]
^a:
  memref.store %flag, %out[%c0] : memref<4xi32>
  cf.br ^b
^b:
  return
}
