// RUN: spmd-opt %s -split-input-file --spmd-print-cfg-analysis -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(spmd-print-cfg-analysis),gpu.module(gpu.func(spmd-print-cfg-analysis)))' -o /dev/null 2>&1 | FileCheck %s
// The IR is left unchanged.
// RUN: spmd-opt %s -split-input-file --spmd-print-cfg-analysis 2>/dev/null | FileCheck %s --check-prefix=IR

// A loop whose body exits twice (header and latch are both exiting).
// CHECK-LABEL: // cfg-analysis @loop: 4 blocks
// CHECK-NEXT: ^bb0: rpo=0 idom=none ipdom=^bb1 depth=0 cycle=none tags=[reachable]
// CHECK-NEXT: ^bb1: rpo=1 idom=^bb0 ipdom=^bb3 depth=1 cycle=0 tags=[reachable, header, in-loop, exiting]
// CHECK-NEXT: ^bb2: rpo=2 idom=^bb1 ipdom=^bb3 depth=1 cycle=0 tags=[reachable, in-loop, latch, exiting, back-edge-source]
// CHECK-NEXT: ^bb3: rpo=3 idom=^bb1 ipdom=exit depth=0 cycle=none tags=[reachable, loop-exit, function-exit]
// CHECK-NEXT: back-edges: ^bb2->^bb1
// CHECK-NEXT: cycle 0: header=^bb1 entries=[^bb1] latches=[^bb2] exiting=[^bb1, ^bb2] exits=[^bb3] depth=1 parent=none reducible
// CHECK-NEXT: irreducible: none
// CHECK-NEXT: unreachable: none
// IR-LABEL: func.func @loop
// IR: cf.cond_br %{{.*}}, ^bb1(%{{.*}} : i32), ^bb3
func.func @loop(%c: i1, %d: i1) -> i32 {
  %0 = arith.constant 0 : i32
  cf.br ^header(%0 : i32)
^header(%i: i32):
  cf.cond_br %c, ^body, ^exit
^body:
  cf.cond_br %d, ^header(%i : i32), ^exit
^exit:
  return %i : i32
}

// -----

// The StructurizeCFG notes' irreducible shape: two entries into the A/B cycle.
// CHECK-LABEL: // cfg-analysis @irreducible: 4 blocks
// CHECK: ^bb1: {{.*}} depth=1 cycle=0 tags=[{{.*}}irreducible-entry]
// CHECK: ^bb2: rpo=3 idom=^bb0 {{.*}}irreducible-entry, back-edge-source]
// CHECK: cycle 0: header=^bb1 entries=[^bb1, ^bb2] latches=[^bb2] exiting=[^bb1] exits=[^bb3] depth=1 parent=none irreducible
// CHECK-NEXT: irreducible: irreducible cycle headed by ^bb1: entries ^bb1, ^bb2; target of back edge ^bb2 -> ^bb1 does not dominate its source
func.func @irreducible(%c: i1, %d: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^b, ^done
^b:
  cf.br ^a
^done:
  return
}

// -----

// Several returns meet at the virtual exit; the infinite loop ^bb4 is
// connected to the virtual exit (LLVM's rule); ^bb5 is unreachable.
// CHECK-LABEL: // cfg-analysis @multi_exit_and_infinite: 6 blocks
// CHECK-NEXT: ^bb0: rpo=0 idom=none ipdom=exit
// CHECK-NEXT: ^bb1: rpo=2 idom=^bb0 ipdom=exit
// CHECK-NEXT: ^bb2: {{.*}} ipdom=exit {{.*}}function-exit]
// CHECK-NEXT: ^bb3: {{.*}} ipdom=exit {{.*}}function-exit]
// CHECK-NEXT: ^bb4: rpo=1 idom=^bb0 ipdom=exit depth=1 cycle=0 tags=[reachable, header, in-loop, latch, back-edge-source]
// CHECK-NEXT: ^bb5: rpo=none idom=none ipdom=none depth=0 cycle=none tags=[]
// CHECK-NEXT: back-edges: ^bb4->^bb4
// CHECK-NEXT: cycle 0: header=^bb4 entries=[^bb4] latches=[^bb4] exiting=[] exits=[] depth=1 parent=none reducible
// CHECK: unreachable: ^bb5
func.func @multi_exit_and_infinite(%c: i1, %d: i1) {
  cf.cond_br %c, ^ret1, ^spin
^ret1:
  cf.cond_br %d, ^ret2, ^ret3
^ret2:
  return
^ret3:
  return
^spin:
  cf.br ^spin
^dead:
  cf.br ^ret2
}

// -----

// Nested loops, a switch and llvm/spmd terminators are all edges.
// CHECK-LABEL: // cfg-analysis @nested: 5 blocks
// CHECK: ^bb2: {{.*}} depth=2 cycle=1 tags=[reachable, header, in-loop, latch, exiting, back-edge-source]
// CHECK: cycle 0: header=^bb1 entries=[^bb1] latches=[^bb3] exiting=[^bb1] exits=[^bb4] depth=1 parent=none reducible
// CHECK-NEXT: cycle 1: header=^bb2 entries=[^bb2] latches=[^bb2] exiting=[^bb2] exits=[^bb3] depth=2 parent=0 reducible
func.func @nested(%c: i1, %x: i32) {
  cf.br ^outer
^outer:
  cf.switch %x : i32, [
    default: ^inner,
    7: ^exit
  ]
^inner:
  spmd.flow_br loop %c, ^latch, ^inner
^latch:
  llvm.br ^outer
^exit:
  return
}

// -----

// Regions nested in operations are separate CFGs; gpu.func is analysed.
// CHECK-LABEL: // cfg-analysis @kernel: 1 blocks
// CHECK-LABEL: // cfg-analysis 'scf.execute_region' in @kernel: 2 blocks
// CHECK-NEXT: ^bb0: rpo=0 idom=none ipdom=^bb1
gpu.module @m {
  gpu.func @kernel() kernel {
    %r = scf.execute_region -> i32 {
      %a = arith.constant 1 : i32
      cf.br ^next
    ^next:
      scf.yield %a : i32
    }
    gpu.return
  }
}
