// RUN: spmd-opt %s -split-input-file --spmd-structurize | FileCheck %s
// Every output verifies and satisfies the contract, for every ordering:
// RUN: spmd-opt %s -split-input-file --spmd-structurize | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=ordering=dfpd | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=ordering=df | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=ordering=bf | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// Idempotent: structurizing the output again changes nothing.
// RUN: spmd-opt %s -split-input-file --spmd-structurize > %t.once
// RUN: spmd-opt %t.once -split-input-file --spmd-structurize > %t.twice
// RUN: diff %t.once %t.twice

// The StructurizeCFG notes' if-then-else: one Flow block serializes the two sides; it
// branches on an i1 block argument (the path predicate) and nothing else.
// The branch is marked as the head of region 0, the Flow block as its tail.
// CHECK-LABEL: func.func @if_then_else
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: spmd.reconvergence.head 0
// CHECK-NEXT: cf.cond_br %arg0, ^[[FLOW:bb[0-9]+]](%[[T]], %{{.*}} : i1, i32), ^[[ELSE:bb[0-9]+]]
// CHECK: ^[[FLOW]](%[[P:.*]]: i1, %{{.*}}: i32):
// CHECK-NEXT: spmd.reconvergence.tail 0
// CHECK-NEXT: spmd.flow_br %[[P]], ^[[THEN:bb[0-9]+]], ^[[JOIN:bb[0-9]+]](%{{.*}} : i32)
// CHECK: ^[[ELSE]]:
// CHECK: cf.br ^[[FLOW]](%[[F]], %{{.*}} : i1, i32)
// CHECK: ^[[JOIN]](%[[R:.*]]: i32):
// CHECK-NEXT: return %[[R]]
func.func @if_then_else(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^then, ^else
^then:
  %a = arith.addi %x, %x : i32
  cf.br ^join(%a : i32)
^else:
  %b = arith.muli %x, %x : i32
  cf.br ^join(%b : i32)
^join(%r: i32):
  return %r : i32
}

// -----

// while (u) { if (d) continue; if (e) break; work } -- the continue and
// the loop's end meet in a loop Flow block with "true = leave the loop,
// false = back edge" (the StructurizeCFG notes, pitfall 3).
// CHECK-LABEL: func.func @loop_with_continue_and_break
// CHECK: spmd.flow_br loop %{{.*}}, ^{{bb[0-9]+}}{{.*}}, ^[[HEADER:bb[0-9]+]]
// CHECK-NEXT: ^[[HEADER]]:
// CHECK-NEXT: spmd.reconvergence.head
// CHECK-NEXT: cf.cond_br %arg0
func.func @loop_with_continue_and_break(%u: i1, %d: i1, %e: i1, %m: memref<i32>, %x: i32) {
  cf.br ^header
^header:
  cf.cond_br %u, ^body, ^after
^body:
  cf.cond_br %d, ^header, ^check
^check:
  cf.cond_br %e, ^break, ^work
^work:
  memref.store %x, %m[] : memref<i32>
  cf.br ^header
^after:
  cf.br ^exit
^break:
  cf.br ^exit
^exit:
  return
}

// -----

// Already structured input is left byte-for-byte unchanged.
// CHECK-LABEL: func.func @already_structured
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: cf.br ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return
// CHECK-NOT: spmd.
func.func @already_structured(%c: i1) {
  cf.cond_br %c, ^then, ^join
^then:
  cf.br ^join
^join:
  return
}

// -----

// A three-way switch becomes a chain of two-way branches, each structured.
// CHECK-LABEL: func.func @switch
// CHECK-NOT: cf.switch
// CHECK: spmd.flow_br
// CHECK: return
func.func @switch(%x: i32, %a: i32, %b: i32, %c: i32) -> i32 {
  cf.switch %x : i32, [
    default: ^d,
    1: ^one,
    2: ^two
  ]
^d:
  cf.br ^join(%a : i32)
^one:
  cf.br ^join(%b : i32)
^two:
  cf.br ^join(%c : i32)
^join(%r: i32):
  return %r : i32
}

// -----

// Several returns are routed to one exit block first.
// CHECK-LABEL: func.func @early_return
// CHECK-COUNT-1: return
// CHECK-NOT: return
func.func @early_return(%c: i1, %d: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^early, ^work
^early:
  return %x : i32
^work:
  %y = arith.addi %x, %x : i32
  cf.cond_br %d, ^late, ^other
^late:
  return %y : i32
^other:
  %z = arith.muli %y, %y : i32
  return %z : i32
}

// -----

// An infinite loop gets a never-taken exit (a constant-true branch to the
// return block) from the block the post-dominator tree picks, so the
// divergent if inside it is structurized too.
// CHECK-LABEL: func.func @persistent_loop
// CHECK: spmd.flow_br
// CHECK: %[[TRUE:true_[0-9]+]] = arith.constant true
// CHECK: cf.cond_br %[[TRUE]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}
func.func @persistent_loop(%c: i1, %d: i1, %m: memref<i32>, %x: i32) {
  cf.cond_br %c, ^loop, ^exit
^loop:
  cf.cond_br %d, ^a, ^b
^a:
  memref.store %x, %m[] : memref<i32>
  cf.br ^join
^b:
  cf.br ^join
^join:
  cf.br ^loop
^exit:
  return
}

// -----

// Unreachable blocks are removed before anything else.
// CHECK-LABEL: func.func @unreachable_block
// CHECK-NOT: arith.muli
func.func @unreachable_block(%x: i32) -> i32 {
  return %x : i32
^dead:
  %y = arith.muli %x, %x : i32
  cf.br ^dead
}
