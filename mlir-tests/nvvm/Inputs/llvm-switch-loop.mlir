// An LLVM-dialect kernel (ptx_kernel calling convention, #tbaa aliases)
// with a divergent loop and a divergent llvm.switch on the thread id.
#tbaa_root = #llvm.tbaa_root<id = "Simple C++ TBAA">
#tbaa_type = #llvm.tbaa_type_desc<id = "int", members = {<#tbaa_root, 0>}>
#tbaa_tag = #llvm.tbaa_tag<base_type = #tbaa_type, access_type = #tbaa_type, offset = 0>
module attributes {llvm.target_triple = "nvptx64-nvidia-cuda"} {
  llvm.func ptx_kernelcc @k(%out: !llvm.ptr<1>, %n: i32) {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    llvm.br ^h(%c0, %t : i32, i32)
  ^h(%acc: i32, %i: i32):
    %d = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %d, ^b, ^x(%acc : i32)
  ^b:
    %a2 = llvm.add %acc, %i : i32
    %i2 = llvm.add %i, %c1 : i32
    llvm.switch %t : i32, ^h(%a2, %i2 : i32, i32) [
      3: ^x(%a2 : i32),
      5: ^h(%i2, %i2 : i32, i32)
    ]
  ^x(%r: i32):
    %p = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %r, %p {tbaa = [#tbaa_tag]} : i32, !llvm.ptr<1>
    llvm.return
  }
}
