// RUN: spmd-compile --target amdgcn --mcpu gfx90a --emit wave %S/Inputs/shared-work.mlir | FileCheck %s --check-prefix=AUTO
// RUN: spmd-compile --target amdgcn --mcpu gfx90a --shared-work lanes --emit wave %S/Inputs/shared-work.mlir | FileCheck %s --check-prefix=LANES
// RUN: spmd-compile --target amdgcn --mcpu gfx90a --shared-work reconverge --emit wave %S/Inputs/shared-work.mlir | FileCheck %s --check-prefix=RECONVERGE
// RUN: spmd-compile --target amdgcn --mcpu gfx1100 --emit obj %S/Inputs/shared-work.mlir -o %t.o
// RUN: llvm-readelf -h %t.o | FileCheck %s --check-prefix=ELF
// RUN: not spmd-compile --shared-work auto %S/Inputs/shared-work.mlir 2>&1 | FileCheck %s --check-prefix=NVPTX

// `spmd-compile --target amdgcn` decides per kernel whether divergent
// branches whose sides share work are reconverged by spmd (Flow blocks)
// or stay lane branches for the backend's structurizer
// (`spmd.lane_shared_work`): `--shared-work auto`, the default, compiles
// both and keeps the smaller. On this kernel the backend's structurizer
// alone gives fewer instructions (99 against 108 on gfx90a when this test
// was written), so auto marks the kernel.

// AUTO:       gpu.func @kernel
// AUTO-SAME:  spmd.lane_shared_work
// LANES:      gpu.func @kernel
// LANES-SAME: spmd.lane_shared_work
// RECONVERGE:     gpu.func @kernel
// RECONVERGE-NOT: spmd.lane_shared_work
// RECONVERGE:     gpu.return

// ELF: Machine: {{ *}}EM_AMDGPU

// NVPTX: --shared-work lanes and auto are for --target amdgcn
