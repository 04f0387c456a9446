// --split-input-file processes each chunk on its own and joins the outputs
// with the default separator; a chunk that fails does not stop the others.
//
// RUN: spmd-opt %s --split-input-file | FileCheck %s
// RUN: spmd-opt %s -split-input-file | spmd-opt -split-input-file | FileCheck %s
//
// Without splitting, the chunks are one module: the second @same clashes.
// RUN: not spmd-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// CHECK: module {
// CHECK-NEXT: func.func @same() -> !spmd.token {
// CHECK-NEXT: spmd.convergence.entry
func.func @same() -> !spmd.token {
  %t = spmd.convergence.entry : !spmd.token
  return %t : !spmd.token
}

// CHECK: {{^}}// {{-----$}}
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @same() -> !spmd.token {
// CHECK-NEXT: spmd.convergence.anchor

// WHOLE: split-input-file.mlir:[[@LINE+3]]:{{[0-9]+}}: error: redefinition of symbol named 'same'
// -----

func.func @same() -> !spmd.token {
  %t = spmd.convergence.anchor : !spmd.token
  return %t : !spmd.token
}

// CHECK: {{^}}// {{-----$}}
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @third
// CHECK-NOT: {{^}}// {{-----$}}

// -----

func.func @third(%m: !spmd.mask) -> !spmd.mask {
  %r = spmd.mask.or %m, %m : !spmd.mask
  return %r : !spmd.mask
}
