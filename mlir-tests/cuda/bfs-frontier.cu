// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/bfs-frontier.cu -o %t.llc.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/bfs-frontier.cu -o %t.isa.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/bfs-frontier.cu -o %t.llc.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/bfs-frontier.cu -o %t.isa.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null

// One BFS level (examples/cuda/bfs-frontier.cu): a divergent early return,
// an edge loop with a per-thread trip count, a `continue`, and the claim by
// atomicCAS then atomicAdd, all under the thread's exec bit.
// Both routes (llc, gpu-module-to-binary), for sm_90 and sm_70, each
// assembled by ptxas for its target.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK: .entry bfs_frontier(
// CHECK-DAG: vote.sync.any.pred
// CHECK-DAG: atom.{{.*}}cas.b32 {{.*}}, -1,
// CHECK-DAG: atom.global.add.u32 {{.*}}, 1;
// CHECK-DAG: st.global.b32
// CHECK-DAG: ret;
