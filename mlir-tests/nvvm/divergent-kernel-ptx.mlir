// REQUIRES: spmd-predicate, llc
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh %spmd_src_root/examples/divergent-kernel.mlir | FileCheck %s
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --lane-branches false %spmd_src_root/examples/divergent-kernel.mlir | FileCheck %s --check-prefix=MASKS

// README's main example: the thread-level kernel examples/divergent-kernel.mlir
// through spmd-reconverge, spmd-predicate, spmd-lower-to-nvvm, the upstream
// lowering and llc. Nothing in the divergent if needs the lanes together,
// so it stays a branch on each thread's own condition (the GPU reconverges
// before the barrier, which the whole warp reaches), as in clang's output:
// no vote, no exec bit.
// CHECK: .target sm_90
// CHECK: .entry divergent_if(
// CHECK-NOT: vote.sync
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.{{(global.)?}}b32
// CHECK: bra.uni
// CHECK: st.{{(global.)?}}b32
// CHECK: bar.sync 0;
// CHECK: ret;
// With --lane-branches false every divergent branch is exec-mask code: each
// thread keeps its own exec bit, the if becomes two stores guarded by it
// (both sides are short, so no vote decides whether to skip them).
// MASKS: .entry divergent_if(
// MASKS-NOT: vote.sync
// MASKS: @%p{{[0-9]+}} bra
// MASKS: st.{{(global.)?}}b32
// MASKS: @%p{{[0-9]+}} bra
// MASKS: st.{{(global.)?}}b32
// MASKS: bar.sync 0;
// MASKS: ret;
