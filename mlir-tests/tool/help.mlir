// --help lists the spmd passes next to the upstream ones, and the dialect.
//
// RUN: spmd-opt --help | FileCheck %s
// RUN: spmd-opt --help | FileCheck %s --check-prefix=OPTIONS

// CHECK: OVERVIEW: spmd optimizer
// CHECK: Available Dialects: {{.*}}cf, {{.*}}func, {{.*}}gpu, {{.*}}llvm, {{.*}}spmd
// CHECK: USAGE: spmd-opt [options] <input file>
// CHECK-DAG: --canonicalize {{.*}}Canonicalize operations
// CHECK-DAG: --cse {{.*}}Eliminate common sub-expressions
// CHECK-DAG: --spmd-print-cfg-analysis {{.*}}Print the CFG analyses of every function (for FileCheck)
// CHECK-DAG: --spmd-view-cfg {{.*}}Print the module's CFGs as one Graphviz DOT graph
// CHECK-DAG: --split-input-file
// CHECK-DAG: --mlir-print-ir-after-all
// CHECK-DAG: --mlir-timing

// The options of --spmd-view-cfg come right after it.
// OPTIONS: --spmd-view-cfg
// OPTIONS-NEXT: --default-arguments=<string>
// OPTIONS-NEXT: --divergent-ops=<string>
// OPTIONS-NEXT: --legend {{.*}}Add a legend cluster that shows every look
// OPTIONS-NEXT: --output=<string> {{.*}}File to write the DOT text to ('-' = stderr)
