// RUN: spmd-opt %s -split-input-file --spmd-structurize=skip-uniform-regions=true | FileCheck %s --check-prefix=RELAXED
// RUN: spmd-opt %s -split-input-file '--spmd-structurize=skip-uniform-regions=true relaxed-uniform-regions=false' | FileCheck %s --check-prefix=STRICT
// RUN: spmd-opt %s -split-input-file --spmd-structurize | FileCheck %s --check-prefix=ALL
// RUN: spmd-opt %s -split-input-file --spmd-structurize=skip-uniform-regions=true | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file '--spmd-structurize=skip-uniform-regions=true relaxed-uniform-regions=false' | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null

// A uniform if/else (on a kernel argument) with nothing divergent inside:
// kept with skip-uniform-regions (and marked uniform), structurized
// without it.
// RELAXED-LABEL: func.func @uniform_if_else
// RELAXED-NOT: spmd.flow_br
// RELAXED: cf.cond_br %{{.*}} {spmd.uniformity = #uniform}
// STRICT-LABEL: func.func @uniform_if_else
// STRICT-NOT: spmd.flow_br
// ALL-LABEL: func.func @uniform_if_else
// ALL: spmd.flow_br
func.func @uniform_if_else(%n: i32 {spmd.uniform}, %x: i32 {spmd.uniform}) -> i32 {
  %z = arith.constant 0 : i32
  %u = arith.cmpi sgt, %n, %z : i32
  cf.cond_br %u, ^then, ^else
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

// A uniform if/else whose then-side holds a divergent if/else that is a
// single-entry single-exit region of its own. Relaxed: the uniform branch
// is kept and only the inner divergent region gets a Flow block. Strict:
// the divergence spoils the outer region, which is structurized too. The
// inner divergent branch is structurized in both modes (the StructurizeCFG notes,
// pitfall 5).
// RELAXED-LABEL: func.func @divergence_nested_in_uniform
// RELAXED: cf.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {spmd.uniformity = #uniform}
// RELAXED-COUNT-1: spmd.flow_br
// RELAXED-NOT: spmd.flow_br
// STRICT-LABEL: func.func @divergence_nested_in_uniform
// STRICT-NOT: spmd.uniformity
// STRICT-COUNT-2: spmd.flow_br
func.func @divergence_nested_in_uniform(%n: i32 {spmd.uniform}, %x: i32 {spmd.uniform}, %tid: i32 {spmd.divergent}) -> i32 {
  %z = arith.constant 0 : i32
  %u = arith.cmpi sgt, %n, %z : i32
  cf.cond_br %u, ^outer_then, ^outer_else
^outer_then:
  %d = arith.cmpi sgt, %tid, %z : i32
  cf.cond_br %d, ^inner_then, ^inner_else
^inner_then:
  %a = arith.addi %x, %x : i32
  cf.br ^inner_join(%a : i32)
^inner_else:
  %b = arith.muli %x, %x : i32
  cf.br ^inner_join(%b : i32)
^inner_join(%i: i32):
  cf.br ^join(%i : i32)
^outer_else:
  %c = arith.subi %x, %n : i32
  cf.br ^join(%c : i32)
^join(%r: i32):
  return %r : i32
}
