// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/double-math.cu -o %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/double-math.cu -o %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/double-math.cu -o %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/double-math.cu -o %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx
// RUN: awk '/entry piecewise_math/,/^}/' %t.llc.90.ptx | FileCheck %s --check-prefix=PIECEWISE
// RUN: FileCheck %s --check-prefix=NOLIB < %t.llc.90.ptx
// RUN: FileCheck %s --check-prefix=NOLIB < %t.isa.70.ptx

// Double-precision libdevice math (examples/cuda/double-math.cu): clang
// links NVIDIA's libdevice and inlines __nv_exp, __nv_pow, __nv_atan,
// __nv_log, __nv_sin, __nv_sqrt... into the kernels, so spmd's passes run
// over their bodies (fma.rn.f64 polynomials, range-reduction branches);
// only libdevice's internal slow paths stay calls, and no __nv_ symbol is
// left. The value-range branches of piecewise_math diverge; what they
// guard calls only libdevice's own functions, whose bodies hold no warp
// collective, so they stay per-lane branches (no vote.sync decides whether
// a warp enters a case). All four routes, each assembled by ptxas for its
// target.

// SM90: .target sm_90
// SM70: .target sm_70
// CHECK: .func (.param .align 16 .b8 func_retval0[16]) __internal_trig_reduction_slowpathd
// CHECK: .func (.param .b64 func_retval0) __internal_accurate_pow
// CHECK-LABEL: .entry piecewise_math(
// CHECK-DAG: fma.rn.f64
// CHECK-DAG: (retval0), __internal_trig_reduction_slowpathd,
// CHECK-DAG: sqrt.rn.f64
// CHECK-DAG: (retval0), __internal_accurate_pow,
// CHECK-DAG: cvt.rmi.f64.f64
// PIECEWISE:     .entry piecewise_math(
// PIECEWISE-NOT: vote.sync
// PIECEWISE:     ret;
// CHECK-LABEL: .entry newton_cbrt(
// CHECK: [[LOOP:\$L__BB[0-9_]+]]:
// CHECK: div.rn.f64
// CHECK: abs.f64
// CHECK: bra{{(.uni)?}} {{.*}}[[LOOP]];
// CHECK-LABEL: .entry decaying_series(
// CHECK: call.uni (retval0), __internal_accurate_pow,
// CHECK: call.uni (retval0), __internal_trig_reduction_slowpathd,
// CHECK: min.f64
// CHECK: .func (.param .align 16 .b8 func_retval0[16]) __internal_trig_reduction_slowpathd(
// NOLIB-NOT: __nv_
