// A divergent self loop; an unreachable block also enters the loop, so the
// rejoin mask has no definition on that edge.
module attributes {gpu.container_module} {
gpu.module @k {
gpu.func @self_loop(%out: memref<?xi32>) kernel {
  %tid = gpu.thread_id x
  %t = arith.index_cast %tid : index to i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^s(%t : i32)
^s(%i: i32):
  %j = arith.subi %i, %c1 : i32
  %d = arith.cmpi sgt, %j, %c0 : i32
  cf.cond_br %d, ^s(%j : i32), ^x(%j : i32)
^dead:
  cf.br ^s(%c1 : i32)
^x(%r: i32):
  memref.store %r, %out[%tid] : memref<?xi32>
  gpu.return
}
}
}
