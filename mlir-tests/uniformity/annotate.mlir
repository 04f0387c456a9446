// RUN: spmd-opt %s --spmd-annotate-uniformity | FileCheck %s
// RUN: not spmd-opt %s --spmd-annotate-uniformity=default-arguments=sometimes 2>&1 | FileCheck %s --check-prefix=BADOPT --implicit-check-not="Stack dump"

// BADOPT: error: invalid value 'sometimes' for option 'default-arguments': expected 'uniform' or 'divergent'

// CHECK-LABEL: func.func @annotate
// CHECK: cf.cond_br %{{.*}}, ^bb1, ^bb2 {spmd.uniformity = #divergent}
// CHECK: cf.cond_br %arg0, ^bb2, ^bb3 {spmd.uniformity = #uniform}
// An existing mark is kept, even when the analysis disagrees.
// CHECK: cf.cond_br %{{.*}}, ^bb3, ^bb4 {spmd.uniformity = #uniform}
// Unconditional branches get no mark.
// CHECK: cf.br ^bb4
// CHECK-NOT: cf.br {{.*}}spmd.uniformity
func.func @annotate(%u: i1 {spmd.uniform}) {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %d = arith.cmpi eq, %tid, %c0 : index
  cf.cond_br %d, ^a, ^b
^a:
  cf.cond_br %u, ^b, ^c
^b:
  cf.cond_br %d, ^c, ^e {spmd.uniformity = #spmd.uniformity<uniform>}
^c:
  cf.br ^e
^e:
  return
}
