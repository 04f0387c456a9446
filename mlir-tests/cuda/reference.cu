// REQUIRES: clang, ptxas
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_70 %spmd_src_root/examples/cuda/bfs-frontier.cu -o %t.bfs-frontier.70.ptx
// RUN: %ptxas -arch=sm_70 %t.bfs-frontier.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 %spmd_src_root/examples/cuda/bfs-frontier.cu -o %t.bfs-frontier.90.ptx
// RUN: %ptxas -arch=sm_90 %t.bfs-frontier.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_70 %spmd_src_root/examples/cuda/coverage.cu -o %t.coverage.70.ptx
// RUN: %ptxas -arch=sm_70 %t.coverage.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 %spmd_src_root/examples/cuda/coverage.cu -o %t.coverage.90.ptx
// RUN: %ptxas -arch=sm_90 %t.coverage.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_70 %spmd_src_root/examples/cuda/divergent-while.cu -o %t.divergent-while.70.ptx
// RUN: %ptxas -arch=sm_70 %t.divergent-while.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 %spmd_src_root/examples/cuda/divergent-while.cu -o %t.divergent-while.90.ptx
// RUN: %ptxas -arch=sm_90 %t.divergent-while.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_70 %spmd_src_root/examples/cuda/printf.cu -o %t.printf.70.ptx
// RUN: %ptxas -arch=sm_70 %t.printf.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 %spmd_src_root/examples/cuda/printf.cu -o %t.printf.90.ptx
// RUN: %ptxas -arch=sm_90 %t.printf.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_70 %spmd_src_root/examples/cuda/reduce-shared.cu -o %t.reduce-shared.70.ptx
// RUN: %ptxas -arch=sm_70 %t.reduce-shared.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 %spmd_src_root/examples/cuda/reduce-shared.cu -o %t.reduce-shared.90.ptx
// RUN: %ptxas -arch=sm_90 %t.reduce-shared.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_70 %spmd_src_root/examples/cuda/reduce-warp.cu -o %t.reduce-warp.70.ptx
// RUN: %ptxas -arch=sm_70 %t.reduce-warp.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 %spmd_src_root/examples/cuda/reduce-warp.cu -o %t.reduce-warp.90.ptx
// RUN: %ptxas -arch=sm_90 %t.reduce-warp.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_70 %spmd_src_root/examples/cuda/trap-assert.cu -o %t.trap-assert.70.ptx
// RUN: %ptxas -arch=sm_70 %t.trap-assert.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --reference --mcpu sm_90 %spmd_src_root/examples/cuda/trap-assert.cu -o %t.trap-assert.90.ptx
// RUN: %ptxas -arch=sm_90 %t.trap-assert.90.ptx -o /dev/null
// RUN: FileCheck %s < %t.coverage.90.ptx

// clang's own PTX (scripts/cuda-to-ptx.sh --reference: no spmd passes) for
// every example, for sm_70 and sm_90, assembled by ptxas: the CUDA header
// compiles them all and the PTX version matches the target. This is the
// baseline docs/cuda.md compares spmd's PTX with.

// CHECK: .version 7.8
// CHECK: .target sm_90
// CHECK: .entry coverage(
// CHECK: activemask.b32
// CHECK: redux.sync.add.s32
