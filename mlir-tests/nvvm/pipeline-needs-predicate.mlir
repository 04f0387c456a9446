// UNSUPPORTED: spmd-predicate
// RUN: not spmd-opt --spmd-gpu-to-nvvm %spmd_src_root/examples/divergent-kernel.mlir -o /dev/null 2>&1 | FileCheck %s
// RUN: not %spmd_src_root/scripts/kernel-to-ptx.sh %spmd_src_root/examples/divergent-kernel.mlir 2>&1 | FileCheck %s

// Without --spmd-predicate in the build, the thread-level pipeline fails
// with a diagnostic instead of skipping the step. (Once the pass is
// registered, this test is unsupported and divergent-kernel-ptx.mlir runs.)
// CHECK: error: the spmd pipeline needs pass 'spmd-predicate', which this build does not register (use predicate=false for wave-level input)
// CHECK-NOT: see current operation
