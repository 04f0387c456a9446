// RUN: spmd-opt %s -split-input-file --spmd-lower-to-nvvm | FileCheck %s

// A scalar branch of wave-level code is uniform over the active lanes
// only. Every thread of the warp runs it at NVVM level, and a thread whose
// exec bit is clear may hold anything in the condition (here: poison from
// the lane guard of the load), so the branch is decided by the active
// lanes: "does some active lane say true".
// CHECK-LABEL: gpu.func @guarded_condition
// CHECK:       ^[[WORK:bb[0-9]+]](%[[ACTIVE:.*]]: i1):
// CHECK:       %[[V:.*]] = scf.if %[[ACTIVE]] -> (i32) {
// CHECK:       %[[C:.*]] = arith.cmpi sgt, %[[V]]
// CHECK-NEXT:  %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:  %[[MINE:.*]] = arith.select %[[ACTIVE]], %[[C]], %[[FALSE]] : i1
// CHECK-NEXT:  %[[ANY:.*]] = nvvm.vote.sync any %{{.*}}, %[[MINE]] -> i1
// CHECK-NEXT:  cf.cond_br %[[ANY]], ^{{.*}}(%[[ACTIVE]] : i1), ^{{.*}}(%[[ACTIVE]] : i1)
gpu.module @m {
  gpu.func @guarded_condition(%buf: memref<4xi32>) kernel {
    %i = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %c8 = arith.constant 8 : i32
    %low = arith.cmpi ult, %t, %c8 : i32
    %m = spmd.ballot %low : !spmd.mask
    spmd.exec.write %m : !spmd.mask
    cf.br ^work
  ^work:
    %v = memref.load %buf[%i] : memref<4xi32>
    %c = arith.cmpi sgt, %v, %zero : i32
    cf.cond_br %c, ^yes, ^no {spmd.uniformity = #spmd.uniformity<uniform>}
  ^yes:
    memref.store %zero, %buf[%i] : memref<4xi32>
    gpu.return
  ^no:
    gpu.return
  }
}

// -----

// A scalar switch takes the flag of the lowest active lane, shuffled from
// lane cttz(exec) & 31 in 32-bit pieces (two for an i64 flag); the exec
// mask is the ballot of the exec bits.
// CHECK-LABEL: gpu.func @guarded_flag
// CHECK:       ^[[WORK:bb[0-9]+]](%[[ACTIVE:.*]]: i1):
// CHECK:       %[[V:.*]] = scf.if %[[ACTIVE]] -> (i64) {
// CHECK:       %[[MINE:.*]] = arith.select %[[ACTIVE]], %[[V]], %{{.*}} : i64
// CHECK-NEXT:  %[[EXEC:.*]] = nvvm.vote.sync ballot %{{.*}}, %[[ACTIVE]] -> i32
// CHECK-NEXT:  %[[LOWEST:.*]] = "llvm.intr.cttz"(%[[EXEC]]) <{is_zero_poison = false}> : (i32) -> i32
// CHECK-NEXT:  %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:  %[[SOURCE:.*]] = arith.andi %[[LOWEST]], %[[C31]] : i32
// CHECK:       nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %[[SOURCE]], %{{.*}} : i32 -> i32
// CHECK:       nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %[[SOURCE]], %{{.*}} : i32 -> i32
// CHECK:       %[[FLAG:.*]] = arith.ori
// CHECK-NEXT:  cf.switch %[[FLAG]] : i64
gpu.module @m {
  gpu.func @guarded_flag(%buf: memref<4xi64>) kernel {
    %i = arith.constant 0 : index
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %c8 = arith.constant 8 : i32
    %low = arith.cmpi ult, %t, %c8 : i32
    %m = spmd.ballot %low : !spmd.mask
    spmd.exec.write %m : !spmd.mask
    cf.br ^work
  ^work:
    %v = memref.load %buf[%i] : memref<4xi64>
    cf.switch %v : i64, [default: ^out, 7: ^seven] {spmd.uniformity = #spmd.uniformity<uniform>}
  ^seven:
    memref.store %v, %buf[%i] : memref<4xi64>
    gpu.return
  ^out:
    gpu.return
  }
}

// -----

// No vote where the condition is the same in every thread of the warp:
// before the first exec.write (every live lane is active), and for
// warp-invariant values (kernel arguments, constants, pure unguarded
// arithmetic of them, and block arguments every edge fills with such
// values: the loop counter below).
// CHECK-LABEL: gpu.func @invariant_conditions
// CHECK-NOT:   nvvm.vote.sync any
// CHECK:       ^[[HEAD:bb[0-9]+]](%[[I:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT:  %[[MORE:.*]] = arith.cmpi slt, %[[I]], %arg1 : i32
// CHECK-NEXT:  cf.cond_br %[[MORE]]
// CHECK-NOT:   nvvm.vote.sync any
// CHECK:       gpu.return
gpu.module @m {
  gpu.func @invariant_conditions(%buf: memref<4xi32>, %n: i32) kernel {
    %i = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %c8 = arith.constant 8 : i32
    %low = arith.cmpi ult, %t, %c8 : i32
    %m = spmd.ballot %low : !spmd.mask
    spmd.exec.write %m : !spmd.mask
    cf.br ^head(%zero : i32)
  ^head(%k: i32):
    %more = arith.cmpi slt, %k, %n : i32
    cf.cond_br %more, ^body, ^done {spmd.uniformity = #spmd.uniformity<uniform>}
  ^body:
    %next = arith.addi %k, %one : i32
    cf.br ^head(%next : i32)
  ^done:
    memref.store %zero, %buf[%i] : memref<4xi32>
    gpu.return
  }
}
