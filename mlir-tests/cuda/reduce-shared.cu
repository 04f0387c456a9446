// REQUIRES: clang, ptxas, spmd-predicate, llc
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_90 %spmd_src_root/examples/cuda/reduce-shared.cu -o %t.llc.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.llc.90.ptx
// RUN: not grep -q vote.sync %t.llc.90.ptx
// RUN: %ptxas -arch=sm_90 %t.llc.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_90 %spmd_src_root/examples/cuda/reduce-shared.cu -o %t.isa.90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.isa.90.ptx
// RUN: %ptxas -arch=sm_90 %t.isa.90.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via llc --mcpu sm_70 %spmd_src_root/examples/cuda/reduce-shared.cu -o %t.llc.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.llc.70.ptx
// RUN: %ptxas -arch=sm_70 %t.llc.70.ptx -o /dev/null
// RUN: %spmd_src_root/scripts/cuda-to-ptx.sh --via isa --mcpu sm_70 %spmd_src_root/examples/cuda/reduce-shared.cu -o %t.isa.70.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM70 < %t.isa.70.ptx
// RUN: %ptxas -arch=sm_70 %t.isa.70.ptx -o /dev/null

// The shared-memory tree reduction (examples/cuda/reduce-shared.cu): the
// `if (tid < s)` in the loop becomes an exec bit and exec-guarded shared-memory
// accesses; the loop is uniform, and both barriers stay (llc places the
// loop after the tail: the checks do not depend on the block order). (The
// array's .shared declaration is a module-level one with llc, a demoted one
// inside the kernel with gpu-module-to-binary: not checked.)
// Both routes (llc, gpu-module-to-binary), for sm_90 and sm_70, each
// assembled by ptxas for its target.

// Every divergent region of the tree is short: no vote at all (the
// grep above), only the exec bit of each thread.
// SM90: .target sm_90
// SM70: .target sm_70
// CHECK: .entry reduce_shared(
// CHECK-DAG: st.shared.b32
// CHECK-DAG: ld.shared.b32 {{.*}}[%rd
// CHECK-DAG: bar.sync 0;
// CHECK-DAG: bar.sync 0;
// CHECK-DAG: ld.shared.b32 {{.*}}[_ZZ13reduce_sharedE7partial];
// CHECK-DAG: st.global.b32
// CHECK-DAG: ret;
