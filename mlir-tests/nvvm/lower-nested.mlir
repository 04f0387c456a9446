// RUN: spmd-opt -split-input-file --pass-pipeline='builtin.module(gpu.module(gpu.func(spmd-lower-to-nvvm)))' %s | FileCheck %s
// RUN: spmd-opt -split-input-file --pass-pipeline='builtin.module(gpu.module(spmd-lower-to-nvvm))' %s | FileCheck %s

// spmd-lower-to-nvvm runs on any op, so it nests under gpu.module and
// gpu.func like the upstream conversions.

// CHECK-LABEL: gpu.func @wave(
// CHECK-NOT:     spmd.
// CHECK:         arith.andi %{{.*}} : i1
// CHECK:         gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wave(%out: memref<?xi32>) kernel attributes {spmd.wave_size = 32 : i64} {
      %tid = gpu.thread_id x
      %c16 = arith.constant 16 : index
      %c1 = arith.constant 1 : i32
      %low = arith.cmpi ult, %tid, %c16 : index
      %taken = spmd.ballot %low : !spmd.mask
      %exec = spmd.exec.read : !spmd.mask
      %rest = spmd.mask.andn %exec, %taken : !spmd.mask
      spmd.exec.write %rest : !spmd.mask
      spmd.exec.br_zero ^join(%taken : !spmd.mask), ^then(%taken : !spmd.mask)
    ^then(%m: !spmd.mask):
      memref.store %c1, %out[%tid] : memref<?xi32>
      cf.br ^join(%m : !spmd.mask)
    ^join(%parked: !spmd.mask):
      %now = spmd.exec.read : !spmd.mask
      %all = spmd.mask.or %now, %parked : !spmd.mask
      spmd.exec.write %all : !spmd.mask
      gpu.return
    }
  }
}

// -----

// A poison mask (an edge from an unreachable block) lowers to a poison
// bit like every other mask.
// CHECK-LABEL: gpu.func @poison_mask(
// CHECK:         ub.poison : i1
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @poison_mask(%out: memref<?xi32>) kernel {
      %p = ub.poison : !spmd.mask
      %e = spmd.mask.empty : !spmd.mask
      spmd.exec.br_zero ^a(%e : !spmd.mask), ^a(%e : !spmd.mask)
    ^dead:
      cf.br ^a(%p : !spmd.mask)
    ^a(%m: !spmd.mask):
      %now = spmd.exec.read : !spmd.mask
      %all = spmd.mask.or %now, %m : !spmd.mask
      spmd.exec.write %all : !spmd.mask
      gpu.return
    }
  }
}

