// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-predicate=lane-branches=true | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-predicate | FileCheck %s --check-prefix=MASKS
// RUN: spmd-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(spmd-reconverge,spmd-predicate{lane-branches=true},spmd-lower-to-nvvm))" | FileCheck %s --check-prefix=NVVM

// A divergent loop exit over code that needs no converged lanes stays a
// per-lane branch (marked divergent): no ballot, no mask, no park.
// CHECK-LABEL: func.func @loop_exit
// CHECK-NOT:   spmd.{{exec|ballot|mask}}
// CHECK:       cf.cond_br %{{.*}}, ^[[EXIT:bb[0-9]+]], ^{{bb[0-9]+}} {spmd.uniformity = #divergent}
// CHECK:       ^[[EXIT]]:
// CHECK-NEXT:  memref.store
// CHECK-NEXT:  return
// Without the option the exit parks the leaving lanes, as on AMDGPU.
// MASKS-LABEL: func.func @loop_exit
// MASKS:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// MASKS:       spmd.exec.br_zero
// MASKS:       spmd.exec.write %{{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}
func.func @loop_exit(%t: i32 {spmd.divergent}, %n: i32, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  cf.br ^head(%c0 : i32)
^head(%i: i32):
  %done = arith.cmpi sge, %i, %t : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %next = arith.addi %i, %c1 : i32
  cf.br ^head(%next : i32)
^exit:
  memref.store %i, %buf[%i0] : memref<4xi32>
  return
}

// -----

// A region holding a shuffle parks (the shuffle must see exactly the lanes
// of its thread-level program), and so does every divergent branch inside
// it, where exec is partial. After the rejoin every live lane is active
// again (spmd.exec_full), and the next divergent if is a lane branch.
// CHECK-LABEL: func.func @shuffle_inside
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK:       gpu.shuffle
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK:       spmd.exec.write %{{.*}} {spmd.exec_full, spmd.rejoin = 0 : i64}
// CHECK-NOT:   spmd.ballot
// CHECK:       cf.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^{{bb[0-9]+}} {spmd.uniformity = #divergent}
func.func @shuffle_inside(%t: i32 {spmd.divergent}, %buf: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %small = arith.cmpi slt, %t, %c0 : i32
  cf.cond_br %small, ^a, ^b
^a:
  %s, %ok = gpu.shuffle xor %t, %c0, %c0 : i32
  memref.store %s, %buf[%i0] : memref<4xi32>
  cf.cond_br %small, ^a2, ^b
^a2:
  memref.store %t, %buf[%i1] : memref<4xi32>
  cf.br ^b
^b:
  %big = arith.cmpi sgt, %t, %c0 : i32
  cf.cond_br %big, ^c, ^d
^c:
  memref.store %t, %buf[%i1] : memref<4xi32>
  cf.br ^d
^d:
  return
}

// -----

// On NVIDIA: the shuffle runs under the lane's exec bit, and after the
// rejoin the loop is plain thread-level code: a branch on the lane's own
// condition, its store unguarded, no vote.
// NVVM-LABEL: gpu.func @shuffle_then_lane
// NVVM:       scf.if
// NVVM-NEXT:  gpu.shuffle
// NVVM:       ^[[HEAD:bb[0-9]+]](%[[I:.*]]: i32, %{{.*}}: i1):
// NVVM-NEXT:  %[[DONE:.*]] = arith.cmpi sge, %[[I]]
// NVVM-NEXT:  cf.cond_br %[[DONE]], ^{{bb[0-9]+}}(%true : i1), ^[[BODY:bb[0-9]+]](%true : i1)
// NVVM:       ^[[BODY]](%{{.*}}: i1):
// NVVM-NEXT:  memref.store %[[I]]
// NVVM-NOT:   nvvm.vote
// NVVM-NOT:   scf.if
// NVVM:       gpu.return
gpu.module @m {
  gpu.func @shuffle_then_lane(%buf: memref<4xi32>) kernel {
    %c0 = arith.constant 0 : i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %small = arith.cmpi slt, %t, %c0 : i32
    cf.cond_br %small, ^a, ^b
  ^a:
    %s, %ok = gpu.shuffle xor %t, %c0, %c0 : i32
    memref.store %s, %buf[%i0] : memref<4xi32>
    cf.br ^b
  ^b:
    cf.br ^head(%c0 : i32)
  ^head(%i: i32):
    %done = arith.cmpi sge, %i, %t : i32
    cf.cond_br %done, ^exit, ^body
  ^body:
    memref.store %i, %buf[%i1] : memref<4xi32>
    %next = arith.addi %i, %t : i32
    cf.br ^head(%next : i32)
  ^exit:
    gpu.return
  }
}

// -----

// Inside a parking region (the early return's, which holds a shuffle) exec
// may be partial. The loop still becomes a lane region: its entry edge
// gets a gate that sends threads that are not active to the loop's exit
// (the rejoin point), with ub.poison for what the loop would have
// defined; inside, every thread is active, so the NVVM form has no vote,
// no guard and no gate on the loop's own exit.
// CHECK-LABEL: gpu.func @gated_loop
// CHECK:       spmd.exec.write %{{.*}} {spmd.park = 0 : i64}
// CHECK:       ^[[GATE:bb[0-9]+]](%[[K0:.*]]: i32, %[[S0:.*]]: i32):
// CHECK-NEXT:  %[[EXEC:.*]] = spmd.exec.read
// CHECK-NEXT:  %[[ACTIVE:.*]] = spmd.mask.select %[[EXEC]], %true, %false : i1
// CHECK-NEXT:  cf.cond_br %[[ACTIVE]], ^[[HEAD:bb[0-9]+]](%[[K0]], %[[S0]] : i32, i32), ^[[DONE:bb[0-9]+]](%{{.*}} : i32) {spmd.uniformity = #divergent}
// CHECK:       ^[[HEAD]](%[[K:.*]]: i32, %[[S:.*]]: i32):
// CHECK-NEXT:  %[[MORE:.*]] = arith.cmpi slt, %[[K]], %arg1
// CHECK-NEXT:  cf.cond_br %[[MORE]], ^{{bb[0-9]+}}, ^[[DONE]](%[[S]] : i32) {spmd.uniformity = #divergent}
// CHECK:       ^[[DONE]](%[[SUM:.*]]: i32):
// CHECK-NEXT:  gpu.shuffle xor %[[SUM]]
// NVVM-LABEL: gpu.func @gated_loop
// NVVM:       %[[GATED:.*]] = arith.select %{{.*}}, %{{.*}}, %false : i1
// NVVM-NEXT:  cf.cond_br %[[GATED]]
// NVVM:       ^{{bb[0-9]+}}(%[[K:.*]]: i32, %{{.*}}: i32, %{{.*}}: i1):
// NVVM-NEXT:  %[[MORE:.*]] = arith.cmpi slt, %[[K]], %arg1
// NVVM-NEXT:  cf.cond_br %[[MORE]]
// NVVM-NOT:   nvvm.vote
// NVVM:       scf.if
// NVVM-NEXT:  gpu.shuffle
gpu.module @m {
  gpu.func @gated_loop(%buf: memref<64xi32>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %out = arith.cmpi sge, %t, %n : i32
    cf.cond_br %out, ^exit, ^work
  ^work:
    cf.br ^head(%t, %c0 : i32, i32)
  ^head(%k: i32, %s: i32):
    %more = arith.cmpi slt, %k, %n : i32
    cf.cond_br %more, ^body, ^done
  ^body:
    %s2 = arith.addi %s, %k : i32
    %k2 = arith.addi %k, %c32 : i32
    cf.br ^head(%k2, %s2 : i32, i32)
  ^done:
    %r, %ok = gpu.shuffle xor %s, %c1, %c32 : i32
    %i = arith.index_cast %t : i32 to index
    memref.store %r, %buf[%i] : memref<64xi32>
    cf.br ^exit
  ^exit:
    gpu.return
  }
}
