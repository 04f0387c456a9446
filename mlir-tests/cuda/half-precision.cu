// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/half-precision.cu -o %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/half-precision.cu -o %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/half-precision.cu -o %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/half-precision.cu -o %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx

// fp16 and bf16 (examples/cuda/half-precision.cu), NVIDIA's cuda_fp16.h and
// cuda_bf16.h: their operations are inline asm that spmd's pipeline keeps,
// on both sides of data-dependent branches. fp16 is native on both
// targets; bf16 arithmetic is native on sm_90 (setp/fma .bf16) and done in
// float on sm_70 (the header's emulation, no .bf16 instruction).
// All four routes, each assembled by ptxas for its target.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK-LABEL: .entry half_clamp_square(
// CHECK: cvt.rn.f16.f32
// CHECK: mul.f16
// CHECK: setp.gt.f16
// CHECK: @%p{{[0-9]+}} bra
// CHECK: setp.lt.f16
// CHECK: @%p{{[0-9]+}} bra
// CHECK: fma.rn.f16
// CHECK: cvt.f32.f16
// CHECK-LABEL: .entry half2_sum_product(
// CHECK: add.f16x2
// CHECK: mul.f16x2
// CHECK: sub.f16x2
// CHECK: cvt.f32.f16
// CHECK-LABEL: .entry bf16_relu_axpy(
// SM90: cvt.rn.bf16.f32
// SM90: setp.gt.bf16
// SM90: @%p{{[0-9]+}} bra
// SM90: fma.rn.bf16
// SM90: cvt.f32.bf16
// SM70-NOT: {{(cvt|setp|fma)[.a-z0-9]*bf16}}
// SM70: fma.rn.f32
// SM70-NOT: {{(cvt|setp|fma)[.a-z0-9]*bf16}}
// CHECK: ret;
