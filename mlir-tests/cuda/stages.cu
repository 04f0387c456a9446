// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --emit clang %s | FileCheck %s --check-prefix=CLANG
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --emit import %s | FileCheck %s --check-prefix=IMPORT
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --emit nvvm %s | FileCheck %s --check-prefix=NVVM
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --emit llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh -O3 -DSCALE=3 %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --mcpu sm_70 -O1 -DSCALE=3 %s -o %t.70.ptx
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o /dev/null
// RUN: not %spmd_src_root/scripts/cuda-to-ptx.sh %S/Inputs/no-kernel.cu 2>&1 | FileCheck %s --check-prefix=NO-KERNEL
// RUN: not %spmd_src_root/scripts/cuda-to-ptx.sh --emit llvm --via isa %s 2>&1 | FileCheck %s --check-prefix=BAD-EMIT

// The stages of scripts/cuda-to-ptx.sh on this file, which is itself the
// kernel: clang's LLVM IR, the LLVM-dialect module kernel-to-ptx.sh takes,
// the NVVM-dialect module after spmd's pipeline, LLVM IR, PTX; clang options
// (-O, -D); and the errors for a file without kernels and a bad --emit.

// What CUDA sources usually include: NVIDIA's runtime header.
#include <cuda_runtime.h>
#include <device_launch_parameters.h>

#ifndef SCALE
#define SCALE 2
#endif

__device__ int helper(int v) { return v * SCALE; }

extern "C" __global__ void stage_kernel(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = helper(data[i]);
}

// Two kernels in one file: both come out.
__global__ void second_kernel(float *data) { data[threadIdx.x] = sqrtf(data[threadIdx.x]); }

// CLANG: target triple = "nvptx64-nvidia-cuda"
// CLANG: define {{.*}}ptx_kernel void @stage_kernel(
// CLANG: "target-cpu"="sm_90" "target-features"="+ptx78,+sm_90"

// IMPORT: llvm.func {{.*}}ptx_kernelcc @stage_kernel(
// IMPORT: nvvm.read.ptx.sreg.tid.x
// IMPORT: llvm.cond_br
// IMPORT: llvm.func {{.*}}ptx_kernelcc @_Z13second_kernelPf(

// NVVM: llvm.func {{.*}}@stage_kernel(
// NVVM-NOT: nvvm.vote.sync
// NVVM: llvm.cond_br
// NVVM: llvm.store

// LLVM: define {{.*}}ptx_kernel void @stage_kernel(
// LLVM-NOT: @llvm.nvvm.vote
// LLVM: store i32

// PTX: .entry stage_kernel(
// PTX: @%p{{[0-9]+}} bra
// PTX: mul.lo.s32 {{.*}}, 3;
// sqrtf is libdevice's __nv_sqrtf, whose __nvvm_reflect("__CUDA_PREC_SQRT")
// is 0 unless the module asks otherwise: clang's own route gives the same
// sqrt.approx (nvcc's -prec-sqrt=true default would give sqrt.rn).
// PTX: .entry _Z13second_kernelPf(
// PTX: sqrt.approx.f32

// NO-KERNEL: error: no __global__ function in the file
// NO-KERNEL: spmd-compile: error: {{.*}}no-kernel.cu: clang failed
// BAD-EMIT: spmd-compile: error: --emit llvm needs --via llc
