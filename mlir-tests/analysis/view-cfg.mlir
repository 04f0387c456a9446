// RUN: spmd-opt %s --spmd-view-cfg -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-opt %s --spmd-view-cfg=output=%t.dot -o /dev/null && FileCheck %s < %t.dot
// RUN: spmd-opt %s --spmd-view-cfg=legend=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLEGEND
// The same options draw the output of a pass: Flow blocks, guards,
// head/tail pairs.
// RUN: spmd-opt %s --spmd-structurize=irreducible=fix --spmd-view-cfg=legend=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not spmd-opt %s --spmd-view-cfg=output=/nonexistent-dir/x.dot -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFILE --implicit-check-not="Stack dump"

// RUN: not spmd-opt %s --spmd-view-cfg=legend=maybe -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADLEGEND --implicit-check-not="Stack dump"

// BADFILE: error: cannot open '/nonexistent-dir/x.dot' for writing
// BADLEGEND: for the --legend option: 'maybe' is invalid value for boolean argument

// One graph for the module, one cluster per function.
// CHECK: digraph "spmd" {
// CHECK-NOT: digraph
// CHECK: subgraph "cluster_0" {
// CHECK-NEXT: label="@flow";
// CHECK-NEXT: c0_bb0 [label="^bb0\nrpo=0 idom=- ipdom=^bb1 depth=0"];
// Loop headers are light blue, loop Flow blocks green double diamonds
// (divergent: red border), back edges dashed, unreachable blocks grey.
// CHECK-NEXT: c0_bb1 [label="^bb1\nrpo=1 idom=^bb0 ipdom=^bb2 depth=1\nheader", fillcolor=lightblue, style="filled"];
// CHECK-NEXT: c0_bb2 [label="^bb2\nrpo=2 idom=^bb1 ipdom=^bb3 depth=1\nlatch\ndivergent", shape=diamond, peripheries=2, color=red, penwidth=2.5, fillcolor=palegreen, style="filled"];
// CHECK-NEXT: c0_bb3 [label="^bb3\nrpo=3 idom=^bb2 ipdom=exit depth=0"];
// CHECK-NEXT: c0_bb4 [label="^bb4\nunreachable", color=gray, fontcolor=gray, style="dashed"];
// CHECK-NEXT: }
// Edges of two-way branches are labelled T and F.
// CHECK-NEXT: c0_bb0 -> c0_bb1;
// CHECK-NEXT: c0_bb1 -> c0_bb2;
// CHECK-NEXT: c0_bb2 -> c0_bb3 [label="T"];
// CHECK-NEXT: c0_bb2 -> c0_bb1 [label="F", style=dashed];
// CHECK-NEXT: c0_bb4 -> c0_bb3 [color=gray];

// CHECK: subgraph "cluster_1" {
// CHECK-NEXT: label="@irreducible";
// Branches on function arguments are divergent (red) unless marked or
// proven uniform (blue).
// CHECK-NEXT: c1_bb0 [label="^bb0{{.*}}\nuniform", color=blue, penwidth=1.5];
// CHECK-NEXT: c1_bb1 [label="^bb1{{.*}}irreducible-entry\ndivergent", color=red, penwidth=2.5, fillcolor=orange, style="filled"];
// CHECK-NEXT: c1_bb2 [label="^bb2{{.*}}irreducible-entry", penwidth=2, fillcolor=orange, style="filled"];

// Switch edges are labelled with their cases.
// CHECK: subgraph "cluster_2" {
// CHECK-NEXT: label="@switch";
// CHECK: c2_bb0 -> c2_bb1 [label="default"];
// CHECK-NEXT: c2_bb0 -> c2_bb2 [label="case 0"];
// CHECK-NEXT: c2_bb0 -> c2_bb3 [label="case 7"];

// The legend shows every look once.
// CHECK: subgraph "cluster_legend" {
// CHECK: legend_divergent [label="divergent branch", color=red, penwidth=2.5];
// CHECK: legend_uniform [label="uniform branch", color=blue, penwidth=1.5];
// CHECK: legend_flow [label="Flow block", shape=diamond
// CHECK: legend_loop_flow [label="loop Flow block", shape=diamond, peripheries=2
// CHECK: legend_guard [label="guard block", shape=hexagon
// CHECK: legend_inserted [label="inserted block\n(rejoin, exit, tail)"
// CHECK: legend_head -> legend_tail [style=dotted, color=purple
// CHECK: }
// CHECK-NEXT: }
// NOLEGEND-NOT: legend

// After structurize: the hub's guard is a yellow hexagon, the Flow blocks
// green diamonds, and each head is joined to its tail.
// AFTER-LABEL: label="@irreducible";
// AFTER: c1_bb1 [label="^bb1 [guard]\n{{.*}}\nuniform\nhead 0", shape=hexagon, color=blue, penwidth=1.5, fillcolor=lightyellow, style="filled"];
// AFTER-NEXT: c1_bb2 [label="^bb2\n{{.*}}\ndivergent\nhead 1\ntail 0", color=red, penwidth=2.5];
// AFTER: c1_bb1 -> c1_bb2 [style=dotted, color=purple, fontcolor=purple, constraint=false, label="rejoin 0"];
// AFTER-NEXT: c1_bb2 -> c1_bb4 [style=dotted, color=purple, fontcolor=purple, constraint=false, label="rejoin 1"];
// AFTER-LABEL: label="@switch";
// AFTER: shape=diamond, color=red, penwidth=2.5, fillcolor=palegreen, style="filled"];
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

func.func @irreducible(%c: i1 {spmd.uniform}, %d: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^b, ^done
^b:
  cf.br ^a
^done:
  return
}

func.func @switch(%v: i32) {
  cf.switch %v : i32, [default: ^x, 0: ^y, 7: ^z]
^x:
  return
^y:
  return
^z:
  return
}
