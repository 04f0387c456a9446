// while (x != 1) { if (x > limit) break; x = collatz(x); } with a
// data-dependent, divergent exit and a divergent break.
module attributes {gpu.container_module} {
gpu.module @k {
gpu.func @while_break(%out: memref<?xi32>, %limit: i32) kernel {
  %tid = gpu.thread_id x
  %t = arith.index_cast %tid : index to i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %x0 = arith.addi %t, %c1 : i32
  cf.br ^while(%x0 : i32)
^while(%x: i32):
  %one = arith.cmpi eq, %x, %c1 : i32
  cf.cond_br %one, ^exit(%x : i32), ^body
^body:
  %over = arith.cmpi sgt, %x, %limit : i32
  cf.cond_br %over, ^exit(%limit : i32), ^step
^step:
  %rem = arith.remui %x, %c2 : i32
  %half = arith.divui %x, %c2 : i32
  %triple = arith.muli %x, %c3 : i32
  %up = arith.addi %triple, %c1 : i32
  %even = arith.cmpi eq, %rem, %c1 : i32
  %next = arith.select %even, %up, %half : i32
  cf.br ^while(%next : i32)
^exit(%r: i32):
  memref.store %r, %out[%tid] : memref<?xi32>
  gpu.return
}
}
}
