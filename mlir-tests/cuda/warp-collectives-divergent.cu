// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/warp-collectives-divergent.cu -o %t.90.ptx
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/warp-collectives-divergent.cu -o %t.isa.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/warp-collectives-divergent.cu -o %t.70.ptx
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefix=CHECK < %t.70.ptx

// Warp collectives with partial member masks inside divergent code
// (examples/cuda/warp-collectives-divergent.cu; issue #28): tiles of 16
// lanes, __activemask() in a branch, a loop whose members shrink each round,
// match.any with __syncwarp on the group, and (sm_80+) nested ballot-masked
// reductions. Every kernel reaches PTX that ptxas accepts for sm_90 and
// sm_70 (the scripts give sm_70 PTX 6.2, enough for __activemask). In spmd's
// PTX, __activemask() in a branch is a ballot of the exec bits.
// CHECK: .entry _Z12tile_leadersPKiPi(
// CHECK: shfl.sync.idx.b32
// CHECK: .entry _Z15active_segmentsPKiPi(
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 6175,
// CHECK: .entry _Z16shrinking_roundsPKiPi(
// CHECK: vote.sync.all.pred
// CHECK: vote.sync.any.pred
// CHECK: .entry _Z12match_groupsPKiPi(
// CHECK: match.any.sync.b32
// CHECK: bar.warp.sync
// SM90: .entry _Z13nested_reducePKiPi(
// SM90: redux.sync.min.s32
