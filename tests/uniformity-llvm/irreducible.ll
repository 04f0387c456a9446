; Irreducible cycles: entered uniformly (both entries reached on a uniform
; branch), entered divergently, and with a divergent branch inside.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @entered_uniformly(ptr addrspace(1) %out, i32 %n) {
entry:
  %u = icmp sgt i32 %n, 0
  br i1 %u, label %a, label %b
a:
  %x = phi i32 [ 0, %entry ], [ %y.next, %b ]
  %x.next = add i32 %x, 1
  %ca = icmp slt i32 %x.next, %n
  br i1 %ca, label %b, label %exit
b:
  %y = phi i32 [ 1, %entry ], [ %x.next, %a ]
  %y.next = add i32 %y, 2
  %cb = icmp slt i32 %y.next, 100
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %x.next, %a ], [ %y.next, %b ]
  ret void
}

define amdgpu_kernel void @entered_divergently(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = icmp ult i32 %tid, 5
  br i1 %d, label %a, label %b
a:
  %x = phi i32 [ 0, %entry ], [ %y.next, %b ]
  %x.next = add i32 %x, 1
  %ca = icmp slt i32 %x.next, %n
  br i1 %ca, label %b, label %exit
b:
  %y = phi i32 [ 1, %entry ], [ %x.next, %a ]
  %y.next = add i32 %y, 2
  %cb = icmp slt i32 %y.next, 100
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %x.next, %a ], [ %y.next, %b ]
  ret void
}

define amdgpu_kernel void @divergent_inside(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = icmp sgt i32 %n, 0
  br i1 %u, label %a, label %b
a:
  %x = phi i32 [ 0, %entry ], [ %y, %b ]
  %x.next = add i32 %x, 1
  %ca = icmp slt i32 %x.next, %tid
  br i1 %ca, label %b, label %exit
b:
  %y = phi i32 [ 1, %entry ], [ %x.next, %a ]
  %cb = icmp slt i32 %y, %n
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %x.next, %a ], [ %y, %b ]
  ret void
}
