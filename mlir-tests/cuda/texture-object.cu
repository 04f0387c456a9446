// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/texture-object.cu -o %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/texture-object.cu -o %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/texture-object.cu -o %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/texture-object.cu -o %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx

// Texture and surface objects (examples/cuda/texture-object.cu): the
// fetches of NVIDIA's tex1Dfetch<T> and the surf2Dwrite become inline
// tex.1d / sust asm that spmd's pipeline keeps inside the divergent
// branches and the data-dependent loop. The objects are plain .u64
// parameters. All four routes, each assembled by ptxas for its target.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK-LABEL: .entry tex_gather(
// CHECK: .param .u64 tex_gather_param_0
// CHECK: @%p{{[0-9]+}} bra
// CHECK: tex.1d.v4.f32.s32 {{.*}}, [{{%rd[0-9]+}}, {{{%r[0-9]+}}}];
// CHECK-LABEL: .entry tex_chase(
// CHECK: [[LOOP:\$L__BB[0-9_]+]]:
// CHECK: tex.1d.v4.s32.s32
// CHECK: bra{{(.uni)?}} {{.*}}[[LOOP]];
// CHECK-LABEL: .entry surf_write(
// CHECK: .param .u64 surf_write_param_0
// CHECK: sust.b.2d.b32.trap [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], {{{%r[0-9]+}}};
// CHECK: sust.b.2d.b32.trap
// CHECK: ret;
