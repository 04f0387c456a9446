// llvm.intr.fabs and llvm.intr.ceil in a gpu.func (convert-gpu-to-nvvm
// declares them illegal; NVPTX selects them directly), and llvm.intr.exp and
// llvm.intr.pow, which NVPTX cannot select: they become math ops, then
// libdevice calls, which spmd-compile links.
module attributes {gpu.container_module} {
gpu.module @k {
gpu.func @f(%out: memref<?xf32>) kernel {
  %tid = gpu.thread_id x
  %t = arith.index_cast %tid : index to i32
  %f = arith.sitofp %t : i32 to f32
  %a = llvm.intr.fabs(%f) : (f32) -> f32
  %c = llvm.intr.ceil(%a) : (f32) -> f32
  %c8 = arith.constant 8 : i32
  %p = arith.cmpi ult, %t, %c8 : i32
  cf.cond_br %p, ^a, ^b(%c : f32)
^a:
  %e = llvm.intr.exp(%c) : (f32) -> f32
  %w = llvm.intr.pow(%e, %a) : (f32, f32) -> f32
  %d = arith.addf %w, %c : f32
  cf.br ^b(%d : f32)
^b(%r: f32):
  memref.store %r, %out[%tid] : memref<?xf32>
  gpu.return
}
}
}
