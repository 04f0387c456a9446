// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/warp-scan-partial.cu -o %t.scan.llc.ptx
// RUN: %ptxas -arch=sm_90 %t.scan.llc.ptx -o /dev/null
// RUN: FileCheck %s --check-prefix=SCAN < %t.scan.llc.ptx
// RUN: grep -B2 -E 'shfl.sync.up.b32.*%r[0-9]+;$' %t.scan.llc.ptx | FileCheck %s --check-prefix=GUARD
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/warp-scan-partial.cu -o %t.scan.isa.ptx
// RUN: %ptxas -arch=sm_90 %t.scan.isa.ptx -o /dev/null
// RUN: grep -B2 -E 'shfl.sync.up.b32.*%r[0-9]+;$' %t.scan.isa.ptx | FileCheck %s --check-prefix=GUARD
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/warp-scan-partial.cu -o %t.scan.70.ptx
// RUN: %ptxas -arch=sm_70 %t.scan.70.ptx -o /dev/null
// RUN: grep -B2 -E 'shfl.sync.up.b32.*%r[0-9]+;$' %t.scan.70.ptx | FileCheck %s --check-prefix=GUARD
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/warp-reduce-ballot.cu -o %t.reduce.llc.ptx
// RUN: %ptxas -arch=sm_90 %t.reduce.llc.ptx -o /dev/null
// RUN: grep -B6 -E 'redux.sync.add.s32' %t.reduce.llc.ptx | FileCheck %s --check-prefix=REDUX
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/warp-reduce-ballot.cu -o %t.reduce.isa.ptx
// RUN: %ptxas -arch=sm_90 %t.reduce.isa.ptx -o /dev/null
// RUN: grep -B6 -E 'redux.sync.add.s32' %t.reduce.isa.ptx | FileCheck %s --check-prefix=REDUX
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --lane-branches false --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/warp-reduce-ballot.cu -o %t.reduce.70.ptx
// RUN: %ptxas -arch=sm_70 %t.reduce.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefix=SHFL70 < %t.reduce.70.ptx

// Warp collectives with partial member masks inside divergent code
// (issue #28; docs/design.md, "Warp collectives with member masks"): the
// two kernels that failed on an H100, reduced to our own examples.
//
// warp-scan-partial.cu: the second scan step runs in warp 0's first
// blockDim.x / 32 lanes with a member mask of just those lanes. Its
// shfl.sync (the one whose mask is a register, not -1) must sit behind a
// branch on the thread's exec bit, in a block no other path enters:
// lanes outside the member mask never execute it.
// The first step, in converged code with the full mask, keeps its
// unguarded form.
// SCAN: .entry _Z10scan_blockPKiPi(
// SCAN-COUNT-5: shfl.sync.up.b32 {{.*}}, 0, -1;
// SCAN: bar.sync 0;
// GUARD: @%p{{[0-9]+}} bra
// GUARD-NOT: {{^\$L__BB}}
// GUARD: shfl.sync.up.b32 {{.*}}%r{{[0-9]+}};

// warp-reduce-ballot.cu (sm_90: __reduce_add_sync): the reduction whose
// member mask is the ballot of `tid < warps` sits behind a branch on the
// exec bit, in the same guarded block as the shared load before it (one
// guard per run of side effects), so only those lanes take part. (The first one, after the
// grid-stride loop, computes its operand under the same guard first; the
// out-of-line copy of warp_total, a function that never narrows exec, has
// none.)
// REDUX: @%p{{[0-9]+}} bra
// REDUX-NOT: {{^\$L__BB}}
// REDUX: redux.sync.add.s32

// sm_70 has no redux.sync: the shuffle reduction with the ballot's mask.
// SHFL70: .target sm_70
// SHFL70: vote.sync.ballot.b32
// SHFL70: shfl.sync.down.b32
// SHFL70: shfl.sync.idx.b32
