// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 - -o %t.llc.90.ptx < %spmd_src_root/examples/cuda/printf.cu
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/printf.cu -o %t.isa.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/printf.cu -o %t.llc.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/printf.cu -o %t.isa.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null

// Device-side printf in a divergent branch (examples/cuda/printf.cu): the
// arguments go to a local buffer, vprintf is called by the threads whose
// exec bit is set (the region is short: no vote decides whether to skip
// it). Also: the kernel read from stdin.
// Both routes (llc, gpu-module-to-binary), for sm_90 and sm_70, each
// assembled by ptxas for its target.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK: .extern .func (.param .b32 func_retval0) vprintf
// CHECK: .entry report_negative(
// CHECK-NOT: vote.sync
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.local.b64
// CHECK: call.uni (retval0), vprintf, (param0, param1);
// CHECK: ret;
