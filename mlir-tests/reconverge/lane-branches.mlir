// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s --check-prefix=ALL
// RUN: spmd-opt %s -split-input-file --spmd-reconverge=lane-branches=true | FileCheck %s --check-prefix=LANES
// RUN: spmd-opt %s -split-input-file --spmd-reconverge=lane-branches=true --spmd-predicate=lane-branches=true | FileCheck %s --check-prefix=PRED

// An if / else-if chain: the first branch has no post-dominating successor
// (both sides join later), so it normally gets a Flow block. Nothing in it
// needs the lanes together, so with lane-branches=true it is left as it is
// (the GPU reconverges at the join by itself), and predication keeps it a
// lane branch without a rejoin point among its successors.
// ALL-LABEL:   func.func @else_if
// ALL:         spmd.flow_br
// LANES-LABEL: func.func @else_if
// LANES-NOT:   spmd.flow_br
// LANES:       return
// PRED-LABEL:  func.func @else_if
// PRED-NOT:    spmd.exec
// PRED:        cf.cond_br %{{.*}}, ^[[A:bb[0-9]+]], ^[[B:bb[0-9]+]] {spmd.uniformity = #divergent}
// PRED:        cf.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^{{bb[0-9]+}} {spmd.uniformity = #divergent}
// PRED-NOT:    spmd.exec
// PRED:        return
func.func @else_if(%x: i32 {spmd.divergent}, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %c9 = arith.constant 9 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %neg = arith.cmpi slt, %x, %c0 : i32
  cf.cond_br %neg, ^a, ^test
^test:
  %big = arith.cmpi sgt, %x, %c9 : i32
  cf.cond_br %big, ^b, ^join
^a:
  memref.store %x, %buf[%i0] : memref<4xi32>
  cf.br ^join
^b:
  memref.store %x, %buf[%i1] : memref<4xi32>
  cf.br ^join
^join:
  return
}

// -----

// The same chain with a shuffle in one arm: its lanes must meet, so the
// branch is made reconverging as always.
// LANES-LABEL: func.func @else_if_shuffle
// LANES:       spmd.flow_br
func.func @else_if_shuffle(%x: i32 {spmd.divergent}, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %c9 = arith.constant 9 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %neg = arith.cmpi slt, %x, %c0 : i32
  cf.cond_br %neg, ^a, ^test
^test:
  %big = arith.cmpi sgt, %x, %c9 : i32
  cf.cond_br %big, ^b, ^join
^a:
  %s, %ok = gpu.shuffle xor %x, %c0, %c9 : i32
  memref.store %s, %buf[%i0] : memref<4xi32>
  cf.br ^join
^b:
  memref.store %x, %buf[%i1] : memref<4xi32>
  cf.br ^join
^join:
  return
}

// -----

// Shared work: both sides of the first branch reach ^work before they
// meet at ^join. With lane branches it still gets a Flow block, so that
// ^work runs once for both groups; with `spmd.lane_shared_work` on the
// function (a target whose backend structurizes divergent regions itself,
// `spmd-compile --shared-work`) it stays a lane branch too.
// LANES-LABEL: func.func @shared_work
// LANES:       spmd.flow_br
// LANES-LABEL: func.func @shared_work_under_lanes
// LANES-NOT:   spmd.flow_br
// LANES:       return
// PRED-LABEL:  func.func @shared_work_under_lanes
// PRED-NOT:    spmd.exec
// PRED:        cf.cond_br %{{.*}} {spmd.uniformity = #divergent}
// PRED-NOT:    spmd.exec
// PRED:        return
func.func @shared_work(%x: i32 {spmd.divergent}, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %c9 = arith.constant 9 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %neg = arith.cmpi slt, %x, %c0 : i32
  cf.cond_br %neg, ^a, ^test
^test:
  %big = arith.cmpi sgt, %x, %c9 : i32
  cf.cond_br %big, ^work, ^join
^a:
  memref.store %x, %buf[%i0] : memref<4xi32>
  cf.br ^work
^work:
  memref.store %x, %buf[%i1] : memref<4xi32>
  cf.br ^join
^join:
  return
}
func.func @shared_work_under_lanes(%x: i32 {spmd.divergent}, %buf: memref<4xi32>) attributes {spmd.lane_shared_work} {
  %c0 = arith.constant 0 : i32
  %c9 = arith.constant 9 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %neg = arith.cmpi slt, %x, %c0 : i32
  cf.cond_br %neg, ^a, ^test
^test:
  %big = arith.cmpi sgt, %x, %c9 : i32
  cf.cond_br %big, ^work, ^join
^a:
  memref.store %x, %buf[%i0] : memref<4xi32>
  cf.br ^work
^work:
  memref.store %x, %buf[%i1] : memref<4xi32>
  cf.br ^join
^join:
  return
}
