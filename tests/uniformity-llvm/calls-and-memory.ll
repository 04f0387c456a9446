; Device functions (arguments divergent), calls, inline assembly, atomics,
; private and generic memory.
target triple = "nvptx64-nvidia-cuda"

declare i32 @opaque(i32)

define i32 @device_function(i32 %a, i32 %b) {
entry:
  %c = icmp slt i32 %a, %b
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %r = phi i32 [ %a, %entry ], [ %b, %then ]
  ret i32 %r
}

define ptx_kernel void @calls(ptr addrspace(1) %out, i32 %n) {
entry:
  %v = call i32 @opaque(i32 %n)
  %c = icmp eq i32 %v, 0
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %p = phi i32 [ 0, %entry ], [ 1, %a ]
  %lane = call i32 asm "mov.u32 $0, %laneid;", "=r"()
  %odd = icmp ugt i32 %lane, 15
  br i1 %odd, label %c1, label %d
c1:
  br label %d
d:
  %q = phi i32 [ 0, %b ], [ 1, %c1 ]
  %old = atomicrmw add ptr addrspace(1) %out, i32 1 seq_cst
  %first = icmp eq i32 %old, 0
  br i1 %first, label %e, label %f
e:
  br label %f
f:
  %s = phi i32 [ 0, %d ], [ 1, %e ]
  ret void
}

define ptx_kernel void @memory(ptr addrspace(1) %out, ptr %generic, i32 %n) {
entry:
  %slot = alloca i32, align 4, addrspace(5)
  store i32 %n, ptr addrspace(5) %slot
  %private = load i32, ptr addrspace(5) %slot
  %c1 = icmp eq i32 %private, 0
  br i1 %c1, label %a, label %b
a:
  br label %b
b:
  %p = phi i32 [ 0, %entry ], [ 1, %a ]
  %g = load i32, ptr %generic
  %c2 = icmp eq i32 %g, 0
  br i1 %c2, label %c, label %d
c:
  br label %d
d:
  %q = phi i32 [ 0, %b ], [ 1, %c ]
  %global = load i32, ptr addrspace(1) %out
  %c3 = icmp eq i32 %global, 0
  br i1 %c3, label %e, label %f
e:
  br label %f
f:
  %s = phi i32 [ 0, %d ], [ 1, %e ]
  ret void
}
