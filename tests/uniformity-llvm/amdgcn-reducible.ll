; The same shapes on AMDGPU, with the intrinsics MLIR keeps as
; llvm.call_intrinsic: workitem ids, mbcnt, readfirstlane, workgroup ids.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define amdgpu_kernel void @lane_branches(ptr addrspace(1) %out, i32 %n) {
entry:
  %lane = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %first = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %lane)
  %group = call i32 @llvm.amdgcn.workgroup.id.x()
  %odd = and i32 %lane, 1
  %d = icmp eq i32 %odd, 0
  br i1 %d, label %even, label %join
even:
  %u = icmp eq i32 %first, %group
  br i1 %u, label %same, label %join
same:
  br label %join
join:
  %v = phi i32 [ 0, %entry ], [ 1, %even ], [ 2, %same ]
  %g = icmp sgt i32 %group, %n
  br i1 %g, label %big, label %end
big:
  br label %end
end:
  %w = phi i32 [ 3, %join ], [ 4, %big ]
  ret void
}

define amdgpu_kernel void @nested_loops(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %j.next = add i32 %j, 1
  %inner.more = icmp slt i32 %j.next, %tid
  br i1 %inner.more, label %inner, label %outer.latch
outer.latch:
  %jj = phi i32 [ %j.next, %inner ]
  %i.next = add i32 %i, 1
  %outer.more = icmp slt i32 %i.next, %n
  br i1 %outer.more, label %outer, label %exit
exit:
  %ii = phi i32 [ %i.next, %outer.latch ]
  %last = phi i32 [ %jj, %outer.latch ]
  ret void
}

define amdgpu_kernel void @uniform_loop(ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %body, label %exit
body:
  %next = add i32 %i, 1
  %early = icmp eq i32 %next, 17
  br i1 %early, label %exit, label %loop
exit:
  %r = phi i32 [ %i, %loop ], [ 17, %body ]
  ret void
}
