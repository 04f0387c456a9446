; Reducible control flow on NVPTX: divergent and uniform if/else, a loop
; with a divergent exit (temporal divergence), a loop with a uniform exit
; inside divergent code, and a divergent switch.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @if_else(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %d = icmp ult i32 %tid, 16
  br i1 %d, label %then, label %else
then:
  %u = icmp sgt i32 %n, 3
  br i1 %u, label %inner, label %join
inner:
  br label %join
else:
  br label %join
join:
  %v = phi i32 [ 1, %then ], [ 2, %inner ], [ 3, %else ]
  %w = phi i32 [ %n, %then ], [ %n, %inner ], [ %n, %else ]
  %c = icmp eq i32 %n, 0
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %x = phi i32 [ 5, %join ], [ 6, %a ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %x, ptr addrspace(1) %p
  ret void
}

define ptx_kernel void @divergent_exit(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %latch ]
  %acc.next = add i32 %acc, %n
  %done = icmp uge i32 %i, %tid
  br i1 %done, label %exit, label %latch
latch:
  %next = add i32 %i, 1
  br label %loop
exit:
  %last = phi i32 [ %i, %loop ]
  %sum = phi i32 [ %acc.next, %loop ]
  %big = icmp sgt i32 %sum, 100
  br i1 %big, label %store, label %end
store:
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %last
  store i32 %sum, ptr addrspace(1) %p
  br label %end
end:
  ret void
}

define ptx_kernel void @uniform_loop_in_divergent_if(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %d = icmp ult i32 %tid, 7
  br i1 %d, label %loop, label %end
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  %count = phi i32 [ %next, %loop ]
  %q = icmp eq i32 %count, 4
  br i1 %q, label %store, label %end
store:
  store i32 %count, ptr addrspace(1) %out
  br label %end
end:
  %r = phi i32 [ 0, %entry ], [ 1, %exit ], [ 2, %store ]
  ret void
}

define ptx_kernel void @switches(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %k = and i32 %tid, 3
  switch i32 %k, label %d0 [ i32 1, label %d1
                             i32 2, label %d2 ]
d0:
  br label %mid
d1:
  br label %mid
d2:
  br label %mid
mid:
  %m = phi i32 [ 0, %d0 ], [ 1, %d1 ], [ 2, %d2 ]
  switch i32 %n, label %u0 [ i32 1, label %u1 ]
u0:
  br label %end
u1:
  br label %end
end:
  %e = phi i32 [ %n, %u0 ], [ 7, %u1 ]
  ret void
}
