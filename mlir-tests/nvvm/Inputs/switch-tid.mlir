// A cf.switch on the thread id.
module attributes {gpu.container_module} {
gpu.module @k {
gpu.func @switch_tid(%out: memref<?xi32>) kernel {
  %tid = gpu.thread_id x
  %t = arith.index_cast %tid : index to i32
  %c4 = arith.constant 4 : i32
  %sel = arith.remui %t, %c4 : i32
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  %c30 = arith.constant 30 : i32
  cf.switch %sel : i32, [
    default: ^join(%t : i32),
    0: ^a,
    1: ^join(%c20 : i32),
    2: ^join(%c30 : i32)
  ]
^a:
  %v = arith.addi %t, %c10 : i32
  cf.br ^join(%v : i32)
^join(%r: i32):
  memref.store %r, %out[%tid] : memref<?xi32>
  gpu.return
}
}
}
