//===- listing1-kernel.mlir - Listing 1 as a wave-level gpu.func kernel ---===//
//
// examples/listing1.mlir (the reconvergence paper's Listing 1 as wave-level IR) inside a
// gpu.module, as a kernel whose thread index is the global thread id. The
// per-lane parts are unchanged: the lane's element of %out, its %x, and the
// two compares; the masks, ballots and exec.br_zero branches are the
// wave-level schedule of the reconverging CFG
//
//   A -> B, A -> D   (divergent)
//   B -> C, B -> D   (divergent)
//   C -> D
//
// Try: scripts/kernel-to-ptx.sh --wave-level examples/listing1-kernel.mlir
//
//===----------------------------------------------------------------------===//

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @listing1(%out: memref<?xi32>, %xs: memref<?xi32>,
                       %limit_a: i32 {spmd.uniform}, %limit_b: i32 {spmd.uniform}) kernel {
      // A: the lane's index and data (per-lane values).
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %lane = arith.addi %base, %tid : index
      %x = memref.load %xs[%lane] : memref<?xi32>
      %code_a = arith.constant 1 : i32
      memref.store %code_a, %out[%lane] : memref<?xi32>
      // The lanes that leave A for D form the first re-join mask.
      %a_to_d = arith.cmpi sge, %x, %limit_a : i32
      %m_init = spmd.mask.empty : !spmd.mask
      %s01_a = spmd.ballot %a_to_d : !spmd.mask
      %m_a = spmd.mask.or %m_init, %s01_a : !spmd.mask
      %exec_a = spmd.exec.read : !spmd.mask
      %exec_ab = spmd.mask.andn %exec_a, %m_a : !spmd.mask
      spmd.exec.write %exec_ab : !spmd.mask
      spmd.exec.br_zero ^d(%m_a : !spmd.mask), ^b

    ^b:
      %code_b = arith.constant 2 : i32
      memref.store %code_b, %out[%lane] : memref<?xi32>
      %b_to_d = arith.cmpi sge, %x, %limit_b : i32
      %vcc = spmd.ballot %b_to_d : !spmd.mask
      %m_b = spmd.mask.or %m_a, %vcc : !spmd.mask
      %exec_b = spmd.exec.read : !spmd.mask
      %exec_bc = spmd.mask.andn %exec_b, %vcc : !spmd.mask
      spmd.exec.write %exec_bc : !spmd.mask
      spmd.exec.br_zero ^d(%m_b : !spmd.mask), ^c

    ^c:
      %code_c = arith.constant 3 : i32
      memref.store %code_c, %out[%lane] : memref<?xi32>
      cf.br ^d(%m_b : !spmd.mask)

    ^d(%m: !spmd.mask):
      // Every lane that entered A is active again.
      %exec_d = spmd.exec.read : !spmd.mask
      %exec_all = spmd.mask.or %exec_d, %m : !spmd.mask
      spmd.exec.write %exec_all : !spmd.mask
      %code_d = arith.constant 4 : i32
      memref.store %code_d, %out[%lane] : memref<?xi32>
      gpu.return
    }
  }
}
