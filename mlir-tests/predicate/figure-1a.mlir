// The reconvergence paper's Figure 1a lowered to wave-level code: the result is Listing 1
// (examples/listing1.mlir). One rejoin mask for D, accumulated in B.
//
// RUN: spmd-opt %s --spmd-predicate | FileCheck %s
// RUN: spmd-opt %s --spmd-predicate=skip-empty-blocks=false | FileCheck %s --check-prefix=FALL

// CHECK-LABEL: func.func @figure_1a
// CHECK: %[[CA:.*]] = arith.cmpi sge
// CHECK-NEXT: %[[MA:.*]] = spmd.ballot %[[CA]] : !spmd.mask
// CHECK-NEXT: %[[EA:.*]] = spmd.exec.read : !spmd.mask
// CHECK-NEXT: %[[RA:.*]] = spmd.mask.andn %[[EA]], %[[MA]] : !spmd.mask
// CHECK-NEXT: spmd.exec.write %[[RA]] {spmd.park = 0 : i64} : !spmd.mask
// CHECK-NEXT: spmd.exec.br_zero ^[[D:bb[0-9]+]](%[[MA]] : !spmd.mask), ^[[B:bb[0-9]+]]
// CHECK: ^[[B]]:
// CHECK: %[[CB:.*]] = arith.cmpi sge
// CHECK-NEXT: %[[VCC:.*]] = spmd.ballot %[[CB]] : !spmd.mask
// CHECK-NEXT: %[[MB:.*]] = spmd.mask.or %[[MA]], %[[VCC]] : !spmd.mask
// CHECK-NEXT: %[[EB:.*]] = spmd.exec.read : !spmd.mask
// CHECK-NEXT: %[[RB:.*]] = spmd.mask.andn %[[EB]], %[[VCC]] : !spmd.mask
// CHECK-NEXT: spmd.exec.write %[[RB]] {spmd.park = 0 : i64} : !spmd.mask
// CHECK-NEXT: spmd.exec.br_zero ^[[D]](%[[MB]] : !spmd.mask), ^[[C:bb[0-9]+]]
// CHECK: ^[[C]]:
// CHECK: cf.br ^[[D]](%[[MB]] : !spmd.mask)
// CHECK: ^[[D]](%[[M:.*]]: !spmd.mask):
// CHECK-NEXT: %[[ED:.*]] = spmd.exec.read : !spmd.mask
// CHECK-NEXT: %[[ALL:.*]] = spmd.mask.or %[[ED]], %[[M]] : !spmd.mask
// CHECK-NEXT: spmd.exec.write %[[ALL]] {spmd.exec_full, spmd.rejoin = 0 : i64} : !spmd.mask

// Without skipping, A and B fall through to B and C with a possibly empty exec.
// FALL-LABEL: func.func @figure_1a
// FALL-NOT: spmd.exec.br_zero
// FALL: spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// FALL-NEXT: cf.br ^bb1
// FALL: spmd.exec.write %{{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}

func.func @figure_1a(%out: memref<?xi32>, %x: i32 {spmd.divergent}, %la: i32, %lb: i32) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  memref.store %one, %out[%c0] : memref<?xi32>
  %a_to_d = arith.cmpi sge, %x, %la : i32
  cf.cond_br %a_to_d, ^d, ^b
^b:
  %two = arith.constant 2 : i32
  memref.store %two, %out[%c0] : memref<?xi32>
  %b_to_d = arith.cmpi sge, %x, %lb : i32
  cf.cond_br %b_to_d, ^d, ^c
^c:
  %three = arith.constant 3 : i32
  memref.store %three, %out[%c0] : memref<?xi32>
  cf.br ^d
^d:
  %four = arith.constant 4 : i32
  memref.store %four, %out[%c0] : memref<?xi32>
  return
}
