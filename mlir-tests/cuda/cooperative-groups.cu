// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/cooperative-groups.cu -o %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/cooperative-groups.cu -o %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/cooperative-groups.cu -o %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/cooperative-groups.cu -o %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx

// Cooperative groups (examples/cuda/cooperative-groups.cu), NVIDIA's
// <cooperative_groups.h> and <cooperative_groups/reduce.h>: every group
// operation inlines into warp collectives that survive spmd's pipeline.
// All four routes (llc and gpu-module-to-binary, sm_90 and sm_70), each
// assembled by ptxas for its target. cg::reduce is redux.sync on sm_80+
// and a butterfly of shuffles below. Inside the divergent branch of
// cg_coalesced_count, coalesced_threads() is spmd's ballot of the exec
// bits over the entry's activemask, and its shfl uses that mask.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK-LABEL: .entry cg_tile_summary(
// CHECK: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
// CHECK: shfl.sync.down.b32 {{.*}}, 1, 31, -1;
// CHECK: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
// SM90: redux.sync.add.s32
// SM70: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: vote.sync.ballot.b32 {{.*}}, -1;
// SM90: redux.sync.max.s32
// SM70: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-LABEL: .entry cg_coalesced_count(
// CHECK: activemask.b32 [[ENTRY:%r[0-9]+]];
// CHECK: vote.sync.ballot.b32 [[GROUP:%r[0-9]+]], {{%p[0-9]+}}, [[ENTRY]];
// CHECK: atom.global.add.u32
// CHECK: shfl.sync.idx.b32 {{.*}}, 31, [[GROUP]];
// CHECK-LABEL: .entry cg_block_sum(
// SM90: redux.sync.add.s32
// SM70: shfl.sync.bfly.b32
// CHECK: barrier.sync 0;
// CHECK: vote.sync.any.pred
// SM90: redux.sync.add.s32
// SM70: shfl.sync.bfly.b32
// CHECK: ret;
