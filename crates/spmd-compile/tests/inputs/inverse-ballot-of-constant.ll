; Wave-level AMDGPU code on which LLVM 22's register coalescer crashes
; (reduced from spmd's own output for a random multi-exit kernel): the
; inverse ballot of a constant mask feeds a chain of selects. spmd-compile
; retries the backend with the lane's bit computed in vector registers.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @kernel(i1 %flag, i1 %exit) {
entry:
  switch i32 0, label %left [
    i32 0, label %join
    i32 1, label %right
  ]

left:
  br label %join

right:
  br label %join

join:
  %a = phi i32 [ poison, %entry ], [ 1, %left ], [ 0, %right ]
  %b = phi i32 [ poison, %entry ], [ 1, %left ], [ 0, %right ]
  %c = phi i32 [ poison, %entry ], [ 1, %left ], [ 0, %right ]
  %d = phi i32 [ poison, %entry ], [ 1, %left ], [ 0, %right ]
  %e = phi i32 [ poison, %entry ], [ 1, %left ], [ 0, %right ]
  %f = phi i32 [ poison, %entry ], [ 1, %left ], [ 0, %right ]
  %none = call i1 @llvm.amdgcn.inverse.ballot.i64(i64 0)
  %s1 = select i1 %none, i32 %c, i32 %a
  %s2 = select i1 %flag, i32 %s1, i32 %e
  %none2 = call i1 @llvm.amdgcn.inverse.ballot.i64(i64 0)
  %t1 = select i1 %none2, i32 %d, i32 %b
  %t2 = select i1 %flag, i32 %t1, i32 %f
  br i1 %exit, label %merge, label %more

more:
  %s3 = select i1 %flag, i32 %s1, i32 %s2
  %t3 = select i1 %flag, i32 %t1, i32 %t2
  br label %merge

merge:
  %s4 = phi i32 [ %s3, %more ], [ %s2, %join ]
  %t4 = phi i32 [ %t3, %more ], [ %t2, %join ]
  %s5 = select i1 %flag, i32 %s4, i32 %s1
  %t5 = select i1 %flag, i32 %t4, i32 %t1
  br i1 %flag, label %done, label %vote

vote:
  %p = icmp eq i32 %s5, 0
  %pm = call i64 @llvm.amdgcn.ballot.i64(i1 %p)
  %q = icmp eq i32 %t5, 0
  %qm = call i64 @llvm.amdgcn.ballot.i64(i1 %q)
  %both = and i64 %pm, %qm
  %bit = call i1 @llvm.amdgcn.inverse.ballot.i64(i64 %both)
  %r = select i1 %bit, i32 0, i32 1
  br label %done

done:
  %out = phi i32 [ %r, %vote ], [ 0, %merge ]
  store i32 %out, ptr addrspace(1) null, align 4
  ret void
}

declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i1 @llvm.amdgcn.inverse.ballot.i64(i64)
