// RUN: spmd-opt %s --spmd-view-cfg -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-opt %s --spmd-view-cfg=output=%t.dot -o /dev/null && FileCheck %s < %t.dot
// RUN: not spmd-opt %s --spmd-view-cfg=output=/nonexistent-dir/x.dot -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFILE --implicit-check-not="Stack dump"

// BADFILE: error: cannot open '/nonexistent-dir/x.dot' for writing

// CHECK-LABEL: digraph "@flow"
// CHECK-NEXT: node [shape=box, fontname="Courier", fontsize=10];
// CHECK-NEXT: bb0 [label="^bb0\nrpo=0 idom=- ipdom=^bb1 depth=0"];
// Loop headers are light blue, Flow blocks green diamonds, back edges dashed.
// CHECK-NEXT: bb1 [label="^bb1\nrpo=1 idom=^bb0 ipdom=^bb2 depth=1\nheader", style=filled, fillcolor=lightblue];
// CHECK-NEXT: bb2 [label="^bb2\nrpo=2 idom=^bb1 ipdom=^bb3 depth=1\nlatch", shape=diamond, style=filled, fillcolor=palegreen];
// CHECK-NEXT: bb3 [label="^bb3\nrpo=3 idom=^bb2 ipdom=exit depth=0"];
// Unreachable blocks are grey.
// CHECK-NEXT: bb4 [label="^bb4\nunreachable", color=gray, fontcolor=gray, style=dashed];
// CHECK-NEXT: bb0 -> bb1;
// CHECK-NEXT: bb1 -> bb2;
// CHECK-NEXT: bb2 -> bb3;
// CHECK-NEXT: bb2 -> bb1 [style=dashed];
// CHECK: }
// CHECK-LABEL: digraph "@irreducible"
// CHECK: bb1 [label="^bb1{{.*}}irreducible-entry", style=filled, fillcolor=orange, penwidth=2];
// CHECK: bb2 [label="^bb2{{.*}}irreducible-entry", style=filled, fillcolor=orange, penwidth=2];
func.func @flow(%c: i1) {
  cf.br ^header
^header:
  cf.br ^latch
^latch:
  spmd.flow_br loop %c, ^exit, ^header
^exit:
  return
^dead:
  cf.br ^exit
}

func.func @irreducible(%c: i1, %d: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^b, ^done
^b:
  cf.br ^a
^done:
  return
}
