// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh %spmd_src_root/examples/cuda/trap-assert.cu -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/trap-assert.cu -o %t.70.ptx
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o /dev/null

// __trap() and assert() in divergent branches (examples/cuda/trap-assert.cu):
// each branch ends in an `unreachable` block. A dead end imposes nothing on
// reconvergence (Definition 1 counts only paths that end the thread
// normally), so the other successor is the rejoin point: the lanes that
// trap run first, and the rest rejoin after the branch.

// CHECK: .entry
// CHECK: vote.sync.any.pred
// CHECK: trap;
