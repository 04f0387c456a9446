; Values (not only phis and branches) in and after irreducible cycles. When
; threads enter an irreducible cycle at different entries, or split inside
; it to two different blocks of it, LLVM assumes the whole cycle divergent:
; every value defined in it is divergent, even uniform arithmetic on
; kernel arguments (`add i32 %b, 1`). Entered uniformly, or left
; divergently only, the values in the cycle stay uniform.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

; Two entries chosen by a divergent branch before the cycle; uniform
; arithmetic and uniform exit conditions in every block; the values are
; used after the cycle through a phi.
define amdgpu_kernel void @two_entries_divergent(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = icmp ult i32 %tid, 5
  br i1 %d, label %left, label %right
left:
  %l = add i32 %b, 1
  %cl = icmp slt i32 %a, 10
  br i1 %cl, label %right, label %exit
right:
  %r = add i32 %b, 2
  %r2 = mul i32 %r, %a
  %cr = icmp sgt i32 %a, 3
  br i1 %cr, label %left, label %exit
exit:
  %v = phi i32 [ %l, %left ], [ %r2, %right ]
  %w = add i32 %v, 1
  store i32 %w, ptr addrspace(1) %out
  ret void
}

; Entered at one block only, uniformly, but a divergent branch inside
; sends threads to two different blocks of the cycle, each an entry.
define amdgpu_kernel void @split_inside(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = icmp sgt i32 %a, 0
  br i1 %u, label %head, label %other
head:
  %h = add i32 %b, 1
  %d = icmp ult i32 %tid, 7
  br i1 %d, label %other, label %third
other:
  %o = add i32 %b, 2
  %co = icmp slt i32 %a, 5
  br i1 %co, label %third, label %exit
third:
  %t = add i32 %b, 3
  %ct = icmp eq i32 %a, 4
  br i1 %ct, label %head, label %exit
exit:
  %v = phi i32 [ %o, %other ], [ %t, %third ]
  store i32 %v, ptr addrspace(1) %out
  ret void
}

; A reducible loop whose body holds an irreducible cycle, entered by a
; divergent branch in the loop header.
define amdgpu_kernel void @irreducible_in_loop(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %hb = add i32 %b, 1
  %d = icmp ult i32 %tid, %i
  br i1 %d, label %x, label %y
x:
  %xv = add i32 %b, 2
  %cx = icmp slt i32 %a, 7
  br i1 %cx, label %y, label %latch
y:
  %yv = add i32 %hb, 3
  %cy = icmp sgt i32 %a, 1
  br i1 %cy, label %x, label %latch
latch:
  %m = phi i32 [ %xv, %x ], [ %yv, %y ]
  %i.next = add i32 %i, 1
  %again = icmp slt i32 %i.next, %a
  br i1 %again, label %header, label %exit
exit:
  %after = add i32 %m, %hb
  store i32 %after, ptr addrspace(1) %out
  ret void
}

; Entered uniformly, left uniformly: everything stays uniform (a precision
; check).
define amdgpu_kernel void @entered_uniformly(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = icmp sgt i32 %a, 0
  br i1 %u, label %p, label %q
p:
  %pp = phi i32 [ 0, %entry ], [ %qv, %q ]
  %pv = add i32 %pp, %b
  %cp = icmp slt i32 %pv, 100
  br i1 %cp, label %q, label %exit
q:
  %qq = phi i32 [ 1, %entry ], [ %pv, %p ]
  %qv = add i32 %qq, 1
  %cq = icmp slt i32 %qv, %a
  br i1 %cq, label %p, label %exit
exit:
  %v = phi i32 [ %pv, %p ], [ %qv, %q ]
  %w = add i32 %v, %b
  %slot = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %w, ptr addrspace(1) %slot
  ret void
}

; Entered uniformly, left divergently only: the values in the cycle stay
; uniform; their uses after the cycle are divergent (temporal divergence).
define amdgpu_kernel void @divergent_exit_only(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = icmp sgt i32 %a, 0
  br i1 %u, label %p, label %q
p:
  %pp = phi i32 [ 0, %entry ], [ %qv, %q ]
  %pv = add i32 %pp, %b
  %cp = icmp ult i32 %pv, %tid
  br i1 %cp, label %q, label %out.p
q:
  %qq = phi i32 [ 1, %entry ], [ %pv, %p ]
  %qv = add i32 %qq, 1
  %cq = icmp slt i32 %qv, %a
  br i1 %cq, label %p, label %exit
out.p:
  %late = add i32 %pv, 1
  br label %exit
exit:
  %v = phi i32 [ %late, %out.p ], [ %qv, %q ]
  store i32 %v, ptr addrspace(1) %out
  ret void
}

; An irreducible cycle entered divergently whose first entry holds a
; reducible counting loop with uniform bounds.
define amdgpu_kernel void @loop_in_irreducible(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = icmp eq i32 %tid, 0
  br i1 %d, label %first, label %second
first:
  %f = add i32 %b, 1
  br label %inner
inner:
  %k = phi i32 [ 0, %first ], [ %k.next, %inner ]
  %k.next = add i32 %k, 1
  %more = icmp slt i32 %k.next, %a
  br i1 %more, label %inner, label %after.inner
after.inner:
  %s = add i32 %k.next, %f
  br label %second
second:
  %g = phi i32 [ 0, %entry ], [ %s, %after.inner ]
  %g2 = add i32 %g, %b
  %back = icmp slt i32 %g2, 50
  br i1 %back, label %first, label %exit
exit:
  %use = mul i32 %g2, 3
  store i32 %use, ptr addrspace(1) %out
  ret void
}

; Three entries chosen by a switch on the thread id; the single exit is
; dominated by the exiting block, so its values are used directly.
define amdgpu_kernel void @switch_entries(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %sel = and i32 %tid, 3
  switch i32 %sel, label %e0 [
    i32 1, label %e1
    i32 2, label %e2
  ]
e0:
  %v0 = add i32 %b, 1
  br label %e1
e1:
  %v1 = xor i32 %b, 5
  br label %e2
e2:
  %v2 = add i32 %b, 7
  %c = icmp slt i32 %a, 9
  br i1 %c, label %e0, label %exit
exit:
  %use = add i32 %v2, %a
  store i32 %use, ptr addrspace(1) %out
  ret void
}

; An irreducible cycle nested in another one that is entered uniformly.
; The divergent branch enters the inner cycle at two entries, and so also
; splits the threads inside the outer cycle to two different blocks of it:
; both are assumed divergent.
define amdgpu_kernel void @inner_entered_divergently(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = icmp sgt i32 %a, 2
  br i1 %u, label %outer1, label %outer2
outer1:
  %o1 = add i32 %b, 1
  %d = icmp ult i32 %tid, 3
  br i1 %d, label %in1, label %in2
in1:
  %i1 = add i32 %b, 2
  %c1 = icmp slt i32 %a, 4
  br i1 %c1, label %in2, label %outer2
in2:
  %i2 = add i32 %b, 3
  %c2 = icmp sgt i32 %a, 8
  br i1 %c2, label %in1, label %outer2
outer2:
  %o2 = add i32 %b, 4
  %c3 = icmp eq i32 %a, 6
  br i1 %c3, label %outer1, label %exit
exit:
  store i32 %o2, ptr addrspace(1) %out
  ret void
}

; Entered uniformly; a divergent branch inside rejoins at a block that is
; no entry of the cycle, before the threads can reach an entry apart: LLVM
; keeps the values in the cycle uniform (a precision check).
define amdgpu_kernel void @rejoins_inside(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = icmp sgt i32 %a, 0
  br i1 %u, label %p, label %q
p:
  %x = add i32 %b, 1
  %d = icmp ult i32 %tid, 3
  br i1 %d, label %l, label %r
l:
  br label %j
r:
  br label %j
j:
  %y = add i32 %x, 2
  %e = icmp ult i32 %a, 7
  br i1 %e, label %q, label %exit
q:
  %z = add i32 %b, 3
  %f = icmp slt i32 %a, 5
  br i1 %f, label %p, label %exit
exit:
  %v = phi i32 [ %y, %j ], [ %z, %q ]
  store i32 %v, ptr addrspace(1) %out
  ret void
}
