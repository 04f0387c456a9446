// `-o <file>` writes the IR to the file and nothing to stdout.
//
// RUN: rm -f %t
// RUN: spmd-opt %s -o %t > %t.stdout
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=STDOUT --allow-empty < %t.stdout
//
// The file is valid input again.
// RUN: spmd-opt %t -o %t.again
// RUN: diff %t %t.again
//
// `-o -` is stdout.
// RUN: spmd-opt %s -o - | FileCheck %s

// STDOUT-NOT: {{.}}

// CHECK-LABEL: func.func @written_to_a_file
func.func @written_to_a_file() {
  // CHECK-NEXT: %[[E:.*]] = spmd.mask.empty : !spmd.mask
  %e = spmd.mask.empty : !spmd.mask
  // CHECK-NEXT: spmd.exec.write %[[E]] : !spmd.mask
  spmd.exec.write %e : !spmd.mask
  return
}
