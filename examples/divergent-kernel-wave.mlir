//===- divergent-kernel-wave.mlir - divergent-kernel.mlir at wave level ---===//
//
// examples/divergent-kernel.mlir after predication, written by hand: the
// wave-level form --spmd-predicate produces (until it lands, this file
// stands in for its output in README's "From a divergent kernel to PTX").
// The uniform branch on %n stays a branch, marked uniform; the divergent
// if on tid < 16 becomes two exec-masked halves that the whole wave walks
// through, each skipped with exec.br_zero when no lane wants it; ^join
// restores the exec mask of ^body before the barrier.
//
// Try: scripts/kernel-to-ptx.sh --wave-level examples/divergent-kernel-wave.mlir
//
//===----------------------------------------------------------------------===//

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @divergent_if(%out: memref<?xi32>, %n: i32 {spmd.uniform}) kernel {
      %tok = spmd.convergence.entry : !spmd.token
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : i32
      %c16 = arith.constant 16 : index
      %has_work = arith.cmpi sgt, %n, %c0 : i32
      cf.cond_br %has_work, ^body, ^exit {spmd.uniformity = #spmd.uniformity<uniform>}

    ^body:
      // The divergent if: lanes with tid < 16 run ^then, the others ^else.
      %low = arith.cmpi ult, %tid, %c16 : index
      %then_lanes = spmd.ballot %low : !spmd.mask
      %entry_exec = spmd.exec.read : !spmd.mask
      %else_lanes = spmd.mask.andn %entry_exec, %then_lanes : !spmd.mask
      spmd.exec.write %then_lanes : !spmd.mask
      spmd.exec.br_zero ^else_guard, ^then

    ^then:
      %t = arith.index_cast %tid : index to i32
      %sum = arith.addi %t, %n : i32
      memref.store %sum, %out[%tid] : memref<?xi32>
      cf.br ^else_guard

    ^else_guard:
      spmd.exec.write %else_lanes : !spmd.mask
      spmd.exec.br_zero ^join, ^else

    ^else:
      memref.store %n, %out[%tid] : memref<?xi32>
      cf.br ^join

    ^join:
      // All lanes of ^body again: the barrier needs every thread.
      spmd.exec.write %entry_exec : !spmd.mask
      gpu.barrier
      cf.br ^exit

    ^exit:
      gpu.return
    }
  }
}
