; More cycle shapes: a divergent continue, a uniform break inside a
; divergent if in a loop, a loop entered in divergent code with a
; uniform exit, two latches, and a divergent switch in a loop.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @divergent_continue(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %odd = and i32 %tid, 1
  %skip = icmp eq i32 %odd, 1
  br i1 %skip, label %latch, label %check
check:
  %half = icmp eq i32 %i, 5
  br i1 %half, label %exit, label %latch
latch:
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %head, label %exit
exit:
  %r = phi i32 [ %i, %check ], [ %i.next, %latch ]
  ret void
}

define amdgpu_kernel void @two_latches(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %a, %left ], [ %b, %right ]
  %d = icmp ult i32 %tid, %i
  br i1 %d, label %left, label %right
left:
  %a = add i32 %i, 1
  %ma = icmp slt i32 %a, %n
  br i1 %ma, label %head, label %exit
right:
  %b = add i32 %i, 2
  %mb = icmp slt i32 %b, %n
  br i1 %mb, label %head, label %exit
exit:
  %r = phi i32 [ %a, %left ], [ %b, %right ]
  ret void
}

define amdgpu_kernel void @switch_in_loop(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %k = and i32 %tid, 3
  switch i32 %k, label %c0 [ i32 1, label %c1
                             i32 2, label %c2 ]
c0:
  br label %latch
c1:
  br label %latch
c2:
  br label %latch
latch:
  %v = phi i32 [ 0, %c0 ], [ 1, %c1 ], [ 2, %c2 ]
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %head, label %exit
exit:
  %last = phi i32 [ %v, %latch ]
  %count = phi i32 [ %i.next, %latch ]
  ret void
}

define amdgpu_kernel void @uniform_break_in_divergent_if(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %d = icmp ult i32 %tid, 9
  br i1 %d, label %inside, label %latch
inside:
  %stop = icmp eq i32 %i, %n
  br i1 %stop, label %exit, label %latch
latch:
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, 64
  br i1 %more, label %head, label %exit
exit:
  %r = phi i32 [ %i, %inside ], [ %i.next, %latch ]
  ret void
}
