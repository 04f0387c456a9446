// REQUIRES: llc
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level --via isa %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s --check-prefix=ISA
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level --emit llvm %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s --check-prefix=IR
// RUN: %spmd_src_root/scripts/kernel-to-ptx.sh --wave-level --mcpu sm_80 %spmd_src_root/examples/listing1-kernel.mlir | FileCheck %s --check-prefix=SM80
// RUN: not %spmd_src_root/scripts/kernel-to-ptx.sh --via nope %s 2>&1 | FileCheck %s --check-prefix=USAGE

// The wave-level Listing 1 kernel all the way to PTX, through llc and
// through gpu-module-to-binary format=isa (the same NVPTX backend).

// CHECK:      .target sm_90
// CHECK:      .entry listing1(
// Every thread keeps its own exec bit (a predicate): no lane id, no live
// mask and no vote are needed, because the regions of Listing 1 are short
// enough to run without a skip.
// CHECK-NOT:  %laneid
// CHECK-NOT:  vote.sync
// Block A: unguarded store of 1.
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 1;
// Block B: the store of 2 is skipped by inactive threads.
// CHECK:      @%p{{[0-9]+}} bra
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 2;
// Block C: the store of 3 under the new exec bit.
// CHECK:      @%p{{[0-9]+}} bra
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 3;
// Block D: every lane again.
// CHECK:      st.{{(global.)?}}b32 [%rd{{[0-9]+}}], 4;
// CHECK-NOT:  vote.sync
// CHECK:      ret;

// gpu-module-to-binary optimises the LLVM IR first: the stores of 1, 2 and 3
// go to the address that every thread then stores 4 to, so they are dead
// (nothing convergent is left between them to keep them).
// ISA:      .entry listing1(
// ISA-NOT:  vote.sync
// ISA:      st.global.b32 [%rd{{[0-9]+}}], 4;
// ISA-NEXT: ret;

// IR: define ptx_kernel void @listing1(
// IR-NOT: @llvm.nvvm.vote
// IR: store i32 4

// SM80: .target sm_80

// USAGE: spmd-compile: error: --via must be llc or isa
