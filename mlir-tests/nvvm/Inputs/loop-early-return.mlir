// A loop whose trip count depends on the thread id, with an early return
// from its body.
module attributes {gpu.container_module} {
gpu.module @k {
gpu.func @loop_early_return(%out: memref<?xi32>, %n: i32) kernel {
  %tid = gpu.thread_id x
  %t = arith.index_cast %tid : index to i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  cf.br ^header(%c0, %c0 : i32, i32)
^header(%i: i32, %acc: i32):
  %more = arith.cmpi slt, %i, %t : i32
  cf.cond_br %more, ^body, ^done(%acc : i32)
^body:
  %acc2 = arith.addi %acc, %i : i32
  %big = arith.cmpi sgt, %acc2, %n : i32
  cf.cond_br %big, ^early, ^latch
^latch:
  %i2 = arith.addi %i, %c1 : i32
  cf.br ^header(%i2, %acc2 : i32, i32)
^early:
  memref.store %c7, %out[%tid] : memref<?xi32>
  gpu.return
^done(%r: i32):
  memref.store %r, %out[%tid] : memref<?xi32>
  gpu.return
}
}
}
