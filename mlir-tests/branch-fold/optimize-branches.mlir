// RUN: spmd-opt %s -split-input-file --spmd-branch-fold=stats 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: spmd-opt %s -split-input-file --spmd-branch-fold --spmd-verify-reconverging -o /dev/null

// OptimizeBranches rules, one function each.

// A conditional branch with equal targets and operands becomes cf.br,
// and the jump-only block behind it disappears.
// CHECK-LABEL: func.func @equal_targets
// CHECK-NEXT:    return %arg1 : i32
func.func @equal_targets(%c: i1 {spmd.divergent}, %x: i32 {spmd.uniform}) -> i32 {
  cf.cond_br %c, ^a(%x : i32), ^a(%x : i32)
^a(%p: i32):
  cf.br ^r(%p : i32)
^r(%z: i32):
  return %z : i32
}
// STATS-LABEL: spmd-branch-fold @equal_targets
// STATS:         blocks removed: 2 (3 -> 1)
// STATS:         branches folded: 1

// -----

// A Flow block whose predicate is a known constant is redundant.
// CHECK-LABEL: func.func @constant_flow_predicate
// CHECK-NEXT:    return %arg0
func.func @constant_flow_predicate(%x: i32 {spmd.uniform}, %y: i32 {spmd.uniform}) -> i32 {
  %false = arith.constant false
  spmd.flow_br %false, ^a, ^b
^a:
  return %y : i32
^b:
  return %x : i32
}

// -----

// The predicate is a block argument every predecessor sets to true.
// CHECK-LABEL: func.func @known_block_argument_predicate
// CHECK-NEXT:    return %arg0
func.func @known_block_argument_predicate(%x: i32 {spmd.uniform}, %y: i32 {spmd.uniform}) -> i32 {
  %true = arith.constant true
  cf.br ^flow(%true : i1)
^flow(%p: i1):
  spmd.flow_br %p, ^a, ^b
^a:
  return %x : i32
^b:
  return %y : i32
}

// -----

// An edge into a block that only jumps goes straight to its target, with
// the forwarded values substituted; the emptied block is deleted.
// The branch then has one target with different operands and becomes
// `arith.select`s and a `cf.br`; the join merges into the entry.
// CHECK-LABEL: func.func @redirect_jump
// CHECK-NEXT:    %[[A:.*]] = arith.select %arg0, %arg1, %arg2
// CHECK-NEXT:    %[[B:.*]] = arith.select %arg0, %arg2, %arg1
// CHECK-NEXT:    arith.subi %[[A]], %[[B]]
func.func @redirect_jump(%c: i1 {spmd.uniform}, %x: i32 {spmd.uniform}, %y: i32 {spmd.uniform}) -> i32 {
  cf.cond_br %c, ^j(%x : i32), ^k(%y : i32)
^j(%u: i32):
  cf.br ^r(%u, %y : i32, i32)
^k(%v: i32):
  cf.br ^r(%v, %x : i32, i32)
^r(%a: i32, %b: i32):
  %d = arith.subi %a, %b : i32
  return %d : i32
}

// STATS-LABEL: spmd-branch-fold @redirect_jump
// STATS:         branches turned into selects: 1
// STATS:         jumps redirected: 2

// -----

// A predecessor that passes a constant predicate to a Flow block jumps
// directly to the side it selects (the Flow block keeps its other
// predecessor).
// CHECK-LABEL: func.func @thread_flow_predicate
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    return %[[ONE]]
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    return %[[TWO]]
func.func @thread_flow_predicate(%c: i1 {spmd.uniform}, %x: i32 {spmd.uniform}) -> i32 {
  %true = arith.constant true
  %false = arith.constant false
  cf.cond_br %c, ^f1, ^f2
^f1:
  cf.br ^flow(%true : i1)
^f2:
  cf.br ^flow(%false : i1)
^flow(%p: i1):
  spmd.flow_br %p, ^a, ^b
^a:
  %one = arith.constant 1 : i32
  return %one : i32
^b:
  %two = arith.constant 2 : i32
  return %two : i32
}

// -----

// A block whose only predecessor ends in cf.br is merged into it.
// CHECK-LABEL: func.func @merge_into_predecessor
// CHECK-NEXT:    arith.addi %arg0, %arg0
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    return
func.func @merge_into_predecessor(%x: i32 {spmd.uniform}) -> i32 {
  %a = arith.addi %x, %x : i32
  cf.br ^b(%a : i32)
^b(%p: i32):
  %m = arith.muli %p, %p : i32
  return %m : i32
}
// STATS-LABEL: spmd-branch-fold @merge_into_predecessor
// STATS:         blocks merged into predecessor: 1

// -----

// Unreachable blocks are deleted, even when they use each other's values.
// CHECK-LABEL: func.func @unreachable
// CHECK-NOT:     ^bb
// CHECK:         return %arg0
func.func @unreachable(%x: i32 {spmd.uniform}) -> i32 {
  return %x : i32
^dead1(%a: i32):
  %b = arith.addi %a, %a : i32
  cf.br ^dead2(%b : i32)
^dead2(%c: i32):
  %d = arith.muli %c, %b : i32
  cf.br ^dead1(%d : i32)
}
// STATS-LABEL: spmd-branch-fold @unreachable
// STATS:         unreachable blocks deleted: 2

// -----

// Constants move to the entry block (equal ones merge), which empties
// blocks that only passed a constant on.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT:    %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    arith.select %arg0, %[[C]], %arg1
func.func @constants(%c: i1 {spmd.uniform}, %x: i32 {spmd.uniform}) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %five = arith.constant 5 : i32
  cf.br ^r(%five : i32)
^b:
  %five2 = arith.constant 5 : i32
  cf.br ^r(%x : i32)
^r(%v: i32):
  return %v : i32
}

// -----

// A constant branch of a reconvergence head dissolves the divergent
// region: head and tail go, the branch folds, the blocks merge.
// CHECK-LABEL: func.func @dissolve_region
// CHECK-NOT:     spmd.reconvergence
// CHECK:         return %arg1 : i32
func.func @dissolve_region(%x: i32 {spmd.uniform}, %y: i32 {spmd.uniform}) -> i32 {
  %false = arith.constant false
  spmd.reconvergence.head 0
  cf.cond_br %false, ^a, ^b
^a:
  cf.br ^j(%x : i32)
^b:
  cf.br ^j(%y : i32)
^j(%r: i32):
  spmd.reconvergence.tail 0
  return %r : i32
}
// STATS-LABEL: spmd-branch-fold @dissolve_region
// STATS:         reconvergence regions dissolved: 1

// -----

// A switch on a constant flag takes its case (or the default).
// CHECK-LABEL: func.func @constant_switch
// CHECK-NEXT:    return %arg1 : i32
func.func @constant_switch(%x: i32 {spmd.uniform}, %y: i32 {spmd.uniform}, %z: i32 {spmd.uniform}) -> i32 {
  %one = arith.constant 1 : i32
  cf.switch %one : i32, [
    default: ^d,
    0: ^a,
    1: ^b
  ]
^d:
  return %x : i32
^a:
  return %z : i32
^b:
  return %y : i32
}

// -----

// A loop-carried value nothing reads is erased with the operation that
// updates it (dead block arguments, as MLIR's region DCE finds them).
// CHECK-LABEL: func.func @dead_loop_value
// CHECK:       ^bb1(%{{.*}}: i32):
// CHECK-NOT:     arith.muli
func.func @dead_loop_value(%n: i32 {spmd.uniform}, %x: i32 {spmd.uniform}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%c0, %x : i32, i32)
^loop(%i: i32, %acc: i32):
  %next = arith.addi %i, %c1 : i32
  %acc2 = arith.muli %acc, %acc : i32
  %done = arith.cmpi sge, %next, %n : i32
  cf.cond_br %done, ^exit, ^loop(%next, %acc2 : i32, i32)
^exit:
  return
}

// -----

// The same in the LLVM dialect as an import gives it: anything MLIR's DCE
// would erase goes (the loop-carried llvm.udiv, an unused load, inline
// assembly without side effects whose PTX runs per thread); what other
// threads or memory may observe stays (a shuffle, assembly with side
// effects, assembly holding a collective).
// CHECK-LABEL: llvm.func @dead_llvm_values
// CHECK-NOT:     llvm.udiv
// CHECK-NOT:     llvm.load
// CHECK-NOT:     "mov.u32 $0, %laneid;"
// CHECK:         nvvm.shfl.sync
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"mov.u32 $0, %clock;"
// CHECK:         llvm.inline_asm {{.*}}"vote.sync.ballot.b32 $0, 1, 0xffffffff;"
llvm.func @dead_llvm_values(%n: i32 {spmd.uniform}, %x: i32 {spmd.uniform}, %p: !llvm.ptr<1>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %m = llvm.mlir.constant(-1 : i32) : i32
  %c31 = llvm.mlir.constant(31 : i32) : i32
  llvm.br ^loop(%c0, %x : i32, i32)
^loop(%i: i32, %acc: i32):
  %next = llvm.add %i, %c1 : i32
  %d = llvm.or %acc, %c1 : i32
  %acc2 = llvm.udiv %x, %d : i32
  %v = llvm.load %p : !llvm.ptr<1> -> i32
  %lane = llvm.inline_asm "mov.u32 $0, %laneid;", "=r" : () -> i32
  %s = nvvm.shfl.sync bfly %m, %x, %c1, %c31 : i32 -> i32
  %t = llvm.inline_asm has_side_effects "mov.u32 $0, %clock;", "=r" : () -> i32
  %b = llvm.inline_asm "vote.sync.ballot.b32 $0, 1, 0xffffffff;", "=r" : () -> i32
  %done = llvm.icmp "sge" %next, %n : i32
  llvm.cond_br %done, ^exit, ^loop(%next, %acc2 : i32, i32)
^exit:
  llvm.return
}
