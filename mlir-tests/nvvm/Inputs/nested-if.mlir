// Two nested divergent ifs whose join takes a value from each path.
module attributes {gpu.container_module} {
gpu.module @k {
gpu.func @nested_if(%out: memref<?xi32>) kernel {
  %tid = gpu.thread_id x
  %t = arith.index_cast %tid : index to i32
  %c8 = arith.constant 8 : i32
  %c4 = arith.constant 4 : i32
  %a = arith.cmpi ult, %t, %c8 : i32
  cf.cond_br %a, ^outer_then, ^join(%c4 : i32)
^outer_then:
  %b = arith.cmpi ult, %t, %c4 : i32
  cf.cond_br %b, ^inner_then, ^join(%c8 : i32)
^inner_then:
  %v = arith.addi %t, %c8 : i32
  cf.br ^join(%v : i32)
^join(%r: i32):
  memref.store %r, %out[%tid] : memref<?xi32>
  gpu.return
}
}
}
