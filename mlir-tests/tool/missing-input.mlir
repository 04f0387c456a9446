// A missing input file is an error, not a crash; so is an unwritable output.
//
// RUN: not spmd-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=INPUT \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=OUTPUT \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// INPUT: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// OUTPUT: cannot open output file '{{.*}}no-such-dir/out.mlir': No such file or directory

func.func @present() {
  return
}
