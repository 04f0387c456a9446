// REQUIRES: llc
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level --via isa %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level --emit llvm %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s --check-prefix=IR
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level --mcpu sm_80 %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s --check-prefix=SM80
// RUN: not %spmd_src_root/scripts/kernel-to-ptx.sh --via nope %s 2>&1 | FileCheck %s --check-prefix=USAGE

// The wave-level Listing 1 kernel all the way to PTX, through llc and
// through gpu-module-to-binary format=isa (the same NVPTX backend).

// CHECK:      .target sm_90
// CHECK:      .entry listing1(
// The lane id and the thread/block ids of the live mask.
// CHECK:      %laneid
// CHECK:      %tid.x
// CHECK:      %ntid.x
// Block A: unguarded store of 1, then the first ballot over the live lanes.
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 1;
// CHECK:      vote.sync.ballot.b32 %r{{[0-9]+}}, %p{{[0-9]+}}, %r[[LIVE:[0-9]+]];
// exec.br_zero to D.
// CHECK:      @%p{{[0-9]+}} bra
// Block B: the store of 2 is skipped by inactive threads; the second
// ballot has the same member mask.
// CHECK:      @%p{{[0-9]+}} bra
// CHECK-NOT:  vote
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 2;
// CHECK:      vote.sync.ballot.b32 %r{{[0-9]+}}, %p{{[0-9]+}}, %r[[LIVE]];
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 3;
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 4;
// CHECK:      ret;

// IR: define ptx_kernel void @listing1(
// IR: call i32 @llvm.nvvm.read.ptx.sreg.laneid()
// IR: call i32 @llvm.nvvm.vote.ballot.sync(i32

// SM80: .target sm_80

// USAGE: kernel-to-ptx: --via must be llc or isa
