// An llvm.func kernel as the LLVM IR import leaves HIP's output: the
// amdgpu_kernel calling convention, the work-item id as an
// llvm.call_intrinsic of llvm.amdgcn.workitem.id.x, global pointers in
// address space 1. A loop whose trip count differs per lane, then a
// divergent store.
module {
  llvm.func amdgpu_kernelcc @product(%out: !llvm.ptr<1>, %n: i32) attributes {rocdl.kernel} {
    %t = llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"() : () -> i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %three = llvm.mlir.constant(3 : i32) : i32
    llvm.br ^loop(%t, %one : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %c = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %c, ^body, ^exit
  ^body:
    %a2 = llvm.mul %acc, %i : i32
    %i2 = llvm.add %i, %one : i32
    llvm.br ^loop(%i2, %a2 : i32, i32)
  ^exit:
    %odd = llvm.and %t, %one : i32
    %is_odd = llvm.icmp "eq" %odd, %one : i32
    llvm.cond_br %is_odd, ^store, ^done
  ^store:
    %p = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %r = llvm.add %acc, %three : i32
    llvm.store %r, %p : i32, !llvm.ptr<1>
    llvm.br ^done
  ^done:
    llvm.return
  }
}
