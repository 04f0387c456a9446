// RUN: spmd-opt %s -split-input-file --spmd-branch-fold="stats fold-operations=false" 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: spmd-opt %s -split-input-file --spmd-reconverge --spmd-branch-fold --spmd-verify-reconverging -o /dev/null

// FoldOperations is off: the dead filler operations that keep the
// candidate blocks apart would otherwise be erased (fold-operations.mlir
// covers that step).

// Each safety gate refuses a merge or hoist that would otherwise happen.

// Convergent operations are never merged: the tails below are identical,
// but merging the barriers would make the two thread sets of the
// divergent branch wait at one barrier.
// CHECK-LABEL: func.func @convergent_tail
// CHECK-COUNT-2: gpu.barrier
func.func @convergent_tail(%c: i1 {spmd.divergent}, %x: i32, %m: memref<?xi32>) {
  %i = arith.constant 0 : index
  cf.cond_br %c, ^a, ^b
^a:
  %s = arith.subi %x, %x : i32
  gpu.barrier
  gpu.barrier
  gpu.barrier
  cf.br ^join
^b:
  %d = arith.divsi %x, %x : i32
  gpu.barrier
  gpu.barrier
  gpu.barrier
  cf.br ^join
^join:
  return
}
// STATS-LABEL: spmd-branch-fold @convergent_tail
// STATS:         tails merged: 0
// STATS:         refused (convergent): 1

// -----

// Convergent operations are never hoisted either.
// CHECK-LABEL: func.func @convergent_hoist
// CHECK:         cf.cond_br
// CHECK-COUNT-2: gpu.shuffle
func.func @convergent_hoist(%c: i1 {spmd.divergent}, %x: i32, %o: i32, %w: i32) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %a, %va = gpu.shuffle xor %x, %o, %w : i32
  return %a : i32
^b:
  %b, %vb = gpu.shuffle xor %x, %o, %w : i32
  %b2 = arith.addi %b, %b : i32
  return %b2 : i32
}
// STATS-LABEL: spmd-branch-fold @convergent_hoist
// STATS:         ops hoisted: 0
// STATS:         refused (convergent): 1

// -----

// Thread-identity reads are never merged into a shared tail.
// CHECK-LABEL: func.func @special_register_in_tail
// CHECK-COUNT-2: gpu.thread_id
func.func @special_register_in_tail(%c: i1 {spmd.divergent}, %x: index, %m: memref<?xindex>) {
  cf.cond_br %c, ^a, ^b
^a:
  %s = arith.subi %x, %x : index
  %t1 = gpu.thread_id x
  %u1 = arith.addi %t1, %x : index
  memref.store %u1, %m[%t1] : memref<?xindex>
  cf.br ^join
^b:
  %d = arith.divsi %x, %x : index
  %t2 = gpu.thread_id x
  %u2 = arith.addi %t2, %x : index
  memref.store %u2, %m[%t2] : memref<?xindex>
  cf.br ^join
^join:
  return
}
// STATS-LABEL: spmd-branch-fold @special_register_in_tail
// STATS:         tails merged: 0
// STATS:         refused (special register): 1

// -----

// ... nor made live into one (the branch-folding notes' reserved-register check): the
// three common operations use the thread id read before them.
// CHECK-LABEL: func.func @special_register_live_in
// CHECK-COUNT-2: arith.muli
func.func @special_register_live_in(%c: i1 {spmd.divergent}, %x: index, %m: memref<?xindex>) {
  %t = gpu.thread_id x
  cf.cond_br %c, ^a, ^b
^a:
  %s = arith.subi %x, %x : index
  %u1 = arith.addi %t, %x : index
  %v1 = arith.muli %u1, %x : index
  memref.store %v1, %m[%t] : memref<?xindex>
  cf.br ^join
^b:
  %d = arith.divsi %x, %x : index
  %u2 = arith.addi %t, %x : index
  %v2 = arith.muli %u2, %x : index
  memref.store %v2, %m[%t] : memref<?xindex>
  cf.br ^join
^join:
  return
}
// STATS-LABEL: spmd-branch-fold @special_register_live_in
// STATS:         tails merged: 0
// STATS:         refused (special register): 1

// -----

// The Flow block of figure 2b is what makes the divergent branch of ^bb0
// reconverge. Its predecessor ^bb0 passes a constant predicate, so
// threading that edge past it would be a valid jump-threading step, but
// it would break Definition 1; the gate refuses it.
// CHECK-LABEL: func.func @flow_block_kept
// CHECK:         spmd.flow_br
func.func @flow_block_kept(%c: i1 {spmd.divergent}, %x: i32, %m: memref<?xi32>) {
  %true = arith.constant true
  %false = arith.constant false
  %i = arith.constant 0 : index
  %j = arith.constant 1 : index
  cf.cond_br %c, ^c, ^flow(%true : i1)
^c:
  memref.store %x, %m[%i] : memref<?xi32>
  cf.br ^flow(%false : i1)
^flow(%p: i1):
  spmd.flow_br %p, ^b, ^d
^b:
  memref.store %x, %m[%j] : memref<?xi32>
  cf.br ^d
^d:
  return
}
// STATS-LABEL: spmd-branch-fold @flow_block_kept
// STATS:         jumps redirected: 0
// STATS:         refused (property): {{[1-9][0-9]*}}

// -----

// A loop convergence token must stay in a cycle header: the loop Flow
// block's predicate is always true (the loop runs once), but folding it
// would leave spmd.convergence.loop outside any cycle, so it is refused.
// CHECK-LABEL: func.func @loop_token_kept
// CHECK:         spmd.convergence.loop
// CHECK:         spmd.flow_br loop
func.func @loop_token_kept(%x: i32, %m: memref<?xi32>) {
  %true = arith.constant true
  %i = arith.constant 0 : index
  %e = spmd.convergence.entry : !spmd.token
  cf.br ^header
^header:
  %l = spmd.convergence.loop %e : !spmd.token
  memref.store %x, %m[%i] : memref<?xi32>
  cf.br ^latch(%true : i1)
^latch(%p: i1):
  spmd.flow_br loop %p, ^exit, ^header
^exit:
  return
}
// STATS-LABEL: spmd-branch-fold @loop_token_kept
// STATS:         branches folded: 0
// STATS:         refused (property): {{[1-9][0-9]*}}
