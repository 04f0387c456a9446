// REQUIRES: spmd-predicate, llc
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh %spmd_src_root/examples/divergent-kernel.mlir | FileCheck %s

// README's main example: the thread-level kernel examples/divergent-kernel.mlir
// through spmd-reconverge, spmd-predicate, spmd-lower-to-nvvm, the upstream
// lowering and llc. Each thread keeps its own exec bit: the divergent if
// becomes two stores guarded by it (both sides are short, so no vote decides
// whether to skip them), and the barrier is reached by the whole warp.
// CHECK: .target sm_90
// CHECK: .entry divergent_if(
// CHECK-NOT: vote.sync
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.{{(global.)?}}b32
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.{{(global.)?}}b32
// CHECK: bar.sync 0;
// CHECK: ret;
