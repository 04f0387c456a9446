// REQUIRES: spmd-predicate, llc
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh %spmd_src_root/examples/divergent-kernel.mlir | FileCheck %s

// README's main example: the thread-level kernel examples/divergent-kernel.mlir
// through spmd-reconverge, spmd-predicate, spmd-lower-to-nvvm, the upstream
// lowering and llc. The divergent if becomes ballots over the live lanes
// and exec-guarded stores; the barrier is reached by the whole warp.
// CHECK: .target sm_90
// CHECK: .entry divergent_if(
// CHECK: %laneid
// CHECK: vote.sync.ballot.b32
// CHECK: st.{{(global.)?}}b32
// CHECK: bar.sync 0;
// CHECK: ret;
