// RUN: spmd-opt %s -split-input-file --spmd-lower-to-nvvm | FileCheck %s

// Which ops run only in active lanes. After an exec.write, an op is
// wrapped in scf.if on my exec bit when MLIR's interfaces say running it
// in an inactive lane could be observed: memory reads and writes, calls
// (unknown effects), divisions (not speculatable), and the collectives whose
// members the program names (gpu.shuffle: the first `width` lanes). Pure
// arithmetic, allocas and block barriers run in every thread. A run of
// guarded ops, with the pure arithmetic between them, shares one scf.if:
// the barrier ends one; only the values read after a run are yielded.

// CHECK-LABEL: gpu.func @guards
// CHECK-NOT:   nvvm.read.ptx.sreg
// CHECK-NOT:   activemask
// CHECK:       %[[FALSE:.*]] = arith.constant false
// CHECK:       cf.br ^[[WORK:bb[0-9]+]](%[[FALSE]] : i1)
// CHECK:       ^[[WORK]](%[[ACTIVE:.*]]: i1):
// CHECK-NEXT:  memref.alloca
// CHECK-NEXT:  %[[Q:.*]] = scf.if %[[ACTIVE]] -> (i32) {
// CHECK-NEXT:    %[[V:.*]] = memref.load
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[V]], %[[V]] : i32
// CHECK-NEXT:    %[[DIV:.*]] = arith.divsi %[[SUM]], %arg1 : i32
// CHECK-NEXT:    scf.yield %[[DIV]] : i32
// CHECK-NEXT:  } else {
// CHECK-NEXT:    %[[P:.*]] = ub.poison : i32
// CHECK-NEXT:    scf.yield %[[P]] : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  gpu.barrier
// CHECK-NEXT:  scf.if %[[ACTIVE]] {
// CHECK-NEXT:    gpu.shuffle
// CHECK-NEXT:    func.call @sink(%[[Q]])
// CHECK-NEXT:    memref.store %[[Q]]
// CHECK-NEXT:  }
// CHECK-NEXT:  gpu.return
gpu.module @m {
  func.func private @sink(i32)
  gpu.func @guards(%buf: memref<4xi32>, %d: i32) kernel {
    %i = arith.constant 0 : index
    %w = arith.constant 1 : i32
    %n = arith.constant 32 : i32
    %none = spmd.mask.empty : !spmd.mask
    spmd.exec.write %none : !spmd.mask
    cf.br ^work
  ^work:
    %slot = memref.alloca() : memref<1xi32>
    %v = memref.load %buf[%i] : memref<4xi32>
    %sum = arith.addi %v, %v : i32
    %q = arith.divsi %sum, %d : i32
    gpu.barrier
    %s, %ok = gpu.shuffle xor %q, %w, %n : i32
    func.call @sink(%q) : (i32) -> ()
    memref.store %q, %buf[%i] : memref<4xi32>
    gpu.return
  }
}

// -----

// Warp collectives with a member mask (issue #28): after exec narrows, the
// shuffle, vote, reduction, match and warp sync run only in the lanes whose
// exec bit is set, so exactly the lanes that reach them at thread level
// meet at the .sync instruction; activemask (the intrinsic and clang's
// inline assembly) is the exec mask, a ballot of the exec bits; the block
// barrier stays unguarded, and so does a collective whose member mask is the
// constant 0xffffffff (a correct program reaches it with the whole warp).
// CHECK-LABEL: gpu.func @member_masks
// CHECK-NEXT:  %[[LIVE:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK:       ^bb1(%[[ACTIVE:.*]]: i1):
// CHECK:       scf.if %[[ACTIVE]] {
// CHECK-NEXT:    nvvm.shfl.sync up %arg1, %arg2
// CHECK-NEXT:    nvvm.vote.sync ballot %arg1
// CHECK-NEXT:    nvvm.redux.sync add %arg2, %arg1
// CHECK-NEXT:    nvvm.match.sync any %arg1, %arg2
// CHECK-NEXT:    nvvm.bar.warp.sync %arg1
// CHECK-NEXT:  }
// CHECK-NEXT:  gpu.barrier
// CHECK-NEXT:  arith.constant -1 : i32
// CHECK-NEXT:  nvvm.shfl.sync bfly %{{.*}}, %arg2
// CHECK-NOT:   activemask
// CHECK:       %[[A:.*]] = nvvm.vote.sync ballot %[[LIVE]], %[[ACTIVE]] -> i32
// CHECK-NEXT:  %[[B:.*]] = nvvm.vote.sync ballot %[[LIVE]], %[[ACTIVE]] -> i32
// CHECK-NEXT:  arith.addi %[[A]], %[[B]] : i32
gpu.module @m {
  gpu.func @member_masks(%c: i1, %mask: i32, %v: i32) kernel {
    %b = spmd.ballot %c : !spmd.mask
    spmd.exec.write %b : !spmd.mask
    cf.br ^narrow
  ^narrow:
    %one = arith.constant 1 : i32
    %c31 = arith.constant 31 : i32
    %s = nvvm.shfl.sync up %mask, %v, %one, %c31 : i32 -> i32
    %t = nvvm.vote.sync ballot %mask, %c -> i32
    %r = nvvm.redux.sync add %v, %mask : i32 -> i32
    %m = nvvm.match.sync any %mask, %v : i32 -> i32
    nvvm.bar.warp.sync %mask : i32
    gpu.barrier
    %full = arith.constant -1 : i32
    %x = nvvm.shfl.sync bfly %full, %v, %one, %c31 : i32 -> i32
    %a = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
    %i = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r" : () -> i32
    %sum = arith.addi %a, %i : i32
    gpu.return
  }
}

// -----

// A function that never writes exec runs with exec = live in every thread
// and in every block: no guards at all, and a ballot is the bare
// predicate, here in a non-kernel gpu.func, whose live mask is
// llvm.nvvm.activemask.
// CHECK-LABEL: gpu.func @never_narrows
// CHECK-NOT:   nvvm.read.ptx.sreg.tid
// CHECK-NOT:   scf.if
// CHECK:       ^bb1(%{{.*}}: i1):
// CHECK-NEXT:  memref.store
// CHECK-NEXT:  gpu.return
// CHECK-NOT:   nvvm.vote.sync
gpu.module @m {
  gpu.func @never_narrows(%buf: memref<4xi32>, %c: i1) {
    %i = arith.constant 0 : index
    %v = arith.constant 7 : i32
    cf.br ^next
  ^next:
    memref.store %v, %buf[%i] : memref<4xi32>
    %b = spmd.ballot %c : !spmd.mask
    gpu.return
  }
}

// -----

// wave-size=64: the output is the same, one bit per thread; a br_zero whose
// two successors are the same block needs no vote.
// RUN: spmd-opt %s -split-input-file --spmd-lower-to-nvvm=wave-size=64 | FileCheck %s --check-prefix=W64
// W64-LABEL: gpu.func @wide
// W64:       %[[TRUE:.*]] = arith.constant true
// W64:       %[[FLIP:.*]] = arith.xori %arg0, %{{.*}} : i1
// W64-NEXT:  %[[REST:.*]] = arith.andi %[[TRUE]], %[[FLIP]] : i1
// W64-NOT:   nvvm.vote.sync
// W64:       cf.br ^bb1(%[[REST]] : i1)
// W64:       ^bb1(%{{.*}}: i1):
gpu.module @m {
  gpu.func @wide(%c: i1) kernel {
    %b = spmd.ballot %c : !spmd.mask
    %e = spmd.exec.read : !spmd.mask
    %r = spmd.mask.andn %e, %b : !spmd.mask
    spmd.exec.write %r : !spmd.mask
    spmd.exec.br_zero ^done, ^done
  ^done:
    gpu.return
  }
}

// -----

// A gpu.func without wave-level ops is thread-level code: only its tokens,
// markers and spmd attributes go; its divergent branch stays.
// CHECK-LABEL: gpu.func @thread_level(%arg0: i1, %arg1: memref<4xi32>) kernel
// CHECK-NOT:   spmd
// CHECK-NOT:   nvvm
// CHECK:       cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NOT:   spmd
// CHECK:       gpu.return
gpu.module @m {
  gpu.func @thread_level(%c: i1 {spmd.divergent}, %buf: memref<4xi32>) kernel {
    %tok = spmd.convergence.entry : !spmd.token
    spmd.reconvergence.head 0
    cf.cond_br %c, ^then, ^join {spmd.uniformity = #spmd.uniformity<divergent>}
  ^then:
    %i = arith.constant 0 : index
    %v = arith.constant 1 : i32
    memref.store %v, %buf[%i] : memref<4xi32>
    cf.br ^join
  ^join:
    spmd.reconvergence.tail 0
    gpu.return
  }
}

// -----

// Uniform branches of wave-level code get the exec operand; tokens in
// wave-level code are erased.
// CHECK-LABEL: gpu.func @uniform_switch
// CHECK-NOT:   spmd
// CHECK:       cf.switch %arg0 : i32, [
// CHECK-NEXT:    default: ^bb1(%[[E:.*]] : i1),
// CHECK-NEXT:    1: ^bb2(%[[E]] : i1)
// CHECK-NEXT:  ]
gpu.module @m {
  gpu.func @uniform_switch(%k: i32 {spmd.uniform}) kernel {
    %tok = spmd.convergence.entry : !spmd.token
    %e = spmd.exec.read : !spmd.mask
    spmd.exec.write %e : !spmd.mask
    cf.switch %k : i32, [default: ^a, 1: ^b] {spmd.uniformity = #spmd.uniformity<uniform>}
  ^a:
    gpu.return
  ^b:
    gpu.return
  }
}
