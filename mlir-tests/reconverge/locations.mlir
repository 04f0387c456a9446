// Blocks that the transforms insert carry a location that points back:
// fused<"kind">[location of the branch or join they serve] (see
// src/transforms/locations.rs). --mlir-print-debuginfo shows it.

// RUN: spmd-opt %s -split-input-file --spmd-reconverge --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=RECONVERGE
// RUN: not spmd-opt %s -split-input-file --spmd-structurize --mlir-print-debuginfo --mlir-print-local-scope 2>/dev/null | FileCheck %s --check-prefix=STRUCTURIZE
// RUN: spmd-opt %s -split-input-file --spmd-fix-irreducible --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=HUB
// RUN: spmd-opt %s -split-input-file --spmd-unify-loop-exits --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=EXITS
// Without --mlir-print-debuginfo the printed IR shows no location.
// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: loc(

// The Flow block of the divergent branch on %c serves that branch: its
// argument, its operations and its terminator say so; user blocks keep
// their locations.
// RECONVERGE-LABEL: func.func @flow
// RECONVERGE: cf.cond_br %arg0, ^bb1, ^[[FLOW:bb[0-9]+]](%true : i1) loc([[BR:"[^"]*locations.mlir":]][[#@LINE+16]]:3)
// RECONVERGE: ^[[FLOW]](%{{.*}}: i1 loc(fused<"flow">{{\[}}[[BR]][[#@LINE+15]]:3])):
// RECONVERGE-NEXT: spmd.flow_br {{.*}} loc(fused<"flow">{{\[}}[[BR]][[#@LINE+14]]:3])
// RECONVERGE: memref.store {{.*}} loc([[BR]][[#@LINE+17]]:3)
// STRUCTURIZE-LABEL: func.func @flow
// STRUCTURIZE: ^bb{{[0-9]+}}(%{{.*}}: i1 loc(fused<"flow">["{{.*}}locations.mlir":[[#@LINE+11]]:3])):
// STRUCTURIZE-NEXT: spmd.reconvergence.tail 0 loc(fused<"flow">["{{.*}}locations.mlir":[[#@LINE+10]]:3])
// STRUCTURIZE-NEXT: spmd.flow_br {{.*}} loc(fused<"flow">["{{.*}}locations.mlir":[[#@LINE+9]]:3])
// The hub passes insert nothing here.
// HUB-LABEL: func.func @flow
// HUB-NOT: fused
// HUB-LABEL: func.func @irreducible
// EXITS-LABEL: func.func @flow
// EXITS-NOT: fused
// EXITS-LABEL: func.func @irreducible
func.func @flow(%c: i1 {spmd.divergent}, %d: i1 {spmd.divergent}, %out: memref<i1>) {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^x, ^b
^b:
  memref.store %c, %out[] : memref<i1>
  cf.br ^x
^x:
  return
}

// -----

// The guard of the hub that makes the cycle reducible serves the first
// edge routed into it. In a chain of Flow blocks, each serves the branch
// whose edge was redirected into it.
// HUB: cf.cond_br %arg0, ^[[GUARD:bb[0-9]+]](%true : i1), ^[[GUARD]](%false : i1) loc("{{.*}}locations.mlir":[[#@LINE+12]]:3)
// HUB: ^[[GUARD]](%{{.*}}: i1 loc(fused<"guard">["{{.*}}locations.mlir":[[#@LINE+11]]:3])):
// HUB-NEXT: cf.cond_br {{.*}} loc(fused<"guard">["{{.*}}locations.mlir":[[#@LINE+10]]:3])
// RECONVERGE-LABEL: func.func @irreducible
// RECONVERGE: spmd.flow_br {{.*}} loc(fused<"flow">["{{.*}}locations.mlir":[[#@LINE+8]]:3])
// RECONVERGE: spmd.flow_br {{.*}} loc(fused<"flow">["{{.*}}locations.mlir":[[#@LINE+11]]:3])
// The unify-loop-exits guard after the cycle serves the first exiting branch.
// EXITS: ^{{bb[0-9]+}}(%{{.*}}: i1 loc(fused<"guard">["{{.*}}locations.mlir":[[#@LINE+7]]:3])):
// EXITS-NEXT: cf.cond_br {{.*}} loc(fused<"guard">["{{.*}}locations.mlir":[[#@LINE+6]]:3])
// Structurize rejects the irreducible cycle (the error goes to stderr).
func.func @irreducible(%c: i1, %d: i1, %e: i1) {
  %i = arith.constant 0 : i32
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^b, ^done
^b:
  cf.cond_br %e, ^a, ^done2
^done:
  return
^done2:
  return
}
