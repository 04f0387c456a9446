// scripts/cfg-diff.sh draws the CFGs before and after a pipeline in one
// picture: one digraph, a "before" and an "after" cluster, each holding
// one cluster per function, and the legend once.
// REQUIRES: graphviz
// UNSUPPORTED: stock-mlir-opt
// RUN: rm -f %t.svg %t.dot
// RUN: env SPMD_OPT=%spmd_bin_dir/spmd-opt SPMD_CFG_DIFF_DOT=%t.dot %spmd_src_root/scripts/cfg-diff.sh %s spmd-structurize -o %t.svg | FileCheck %s --check-prefix=SCRIPT
// RUN: FileCheck %s < %t.dot
// RUN: FileCheck %s --check-prefix=SVG < %t.svg
// The pipeline may be given with its builtin.module.
// RUN: env SPMD_OPT=%spmd_bin_dir/spmd-opt %spmd_src_root/scripts/cfg-diff.sh %s "builtin.module(spmd-reconverge)" -o %t.2.svg
// RUN: not %spmd_src_root/scripts/cfg-diff.sh 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: not %spmd_src_root/scripts/cfg-diff.sh %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// SCRIPT: cfg-diff: wrote {{.*}}.svg
// USAGE: usage: cfg-diff.sh KERNEL.mlir [PIPELINE] [-o OUT.svg]
// MISSING: cfg-diff: no such file:

// CHECK: digraph "cfg-diff" {
// CHECK-NOT: digraph
// CHECK: subgraph "cluster_before" {
// CHECK-NEXT: label="before: cfg-diff.mlir";
// CHECK: subgraph "cluster_before_0" {
// CHECK-NEXT: label="@diamond";
// CHECK: before_c0_bb0 [label="^bb0\n{{.*}}\ndivergent", color=red, penwidth=2.5];
// CHECK: before_c0_bb0 -> before_c0_bb1 [label="T"];
// CHECK: subgraph "cluster_after" {
// CHECK-NEXT: label="after: builtin.module(spmd-structurize)";
// CHECK: subgraph "cluster_after_0" {
// CHECK: after_c0_bb0 [label="^bb0\n{{.*}}\ndivergent\nhead 0", color=red, penwidth=2.5];
// CHECK: shape=diamond
// CHECK: after_c0_bb0 -> after_c0_bb{{[0-9]+}} [style=dotted, color=purple, fontcolor=purple, constraint=false, label="rejoin 0"];
// CHECK: subgraph "cluster_legend" {
// CHECK-NOT: cluster_legend

// SVG: <svg
// SVG: before: cfg&#45;diff.mlir
// SVG: after: builtin.module(spmd&#45;structurize)
// SVG: legend

func.func @diamond(%c: i1, %d: i1, %out: memref<i1>) {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^x, ^b
^b:
  memref.store %c, %out[] : memref<i1>
  cf.br ^x
^x:
  return
}
