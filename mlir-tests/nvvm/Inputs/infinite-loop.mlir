// examples/divergent-kernel.mlir with ^join branching back to ^body: the
// divergent if sits in a loop with no exit.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @divergent_if(%out: memref<?xi32>, %n: i32 {spmd.uniform}) kernel {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : i32
      %c16 = arith.constant 16 : index
      %has_work = arith.cmpi sgt, %n, %c0 : i32
      cf.cond_br %has_work, ^body, ^exit

    ^body:
      %low = arith.cmpi ult, %tid, %c16 : index
      cf.cond_br %low, ^then, ^else

    ^then:
      // Threads 0..15: out[tid] = tid + n
      %t = arith.index_cast %tid : index to i32
      %sum = arith.addi %t, %n : i32
      memref.store %sum, %out[%tid] : memref<?xi32>
      cf.br ^join

    ^else:
      // The other threads: out[tid] = n
      memref.store %n, %out[%tid] : memref<?xi32>
      cf.br ^join

    ^join:
      // All threads again: the barrier needs every thread of the workgroup.
      gpu.barrier
      cf.br ^body

    ^exit:
      gpu.return
    }
  }
}
