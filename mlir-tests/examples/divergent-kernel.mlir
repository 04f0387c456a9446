// examples/divergent-kernel.mlir, the running thread-level example, parses,
// verifies and round-trips; its CFG is the one its header comment draws.
//
// RUN: spmd-opt %spmd_src_root/examples/divergent-kernel.mlir | FileCheck %s
// RUN: spmd-opt %spmd_src_root/examples/divergent-kernel.mlir | spmd-opt | FileCheck %s
// RUN: spmd-opt %spmd_src_root/examples/divergent-kernel.mlir --mlir-print-op-generic | spmd-opt | FileCheck %s
// RUN: spmd-opt %spmd_src_root/examples/divergent-kernel.mlir --verify-roundtrip -o /dev/null

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @kernels
// CHECK: gpu.func @divergent_if(%[[OUT:.*]]: memref<?xi32>, %[[N:.*]]: i32 {spmd.uniform}) kernel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: cf.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK-NEXT: %[[LOW:.*]] = arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK-NEXT: cf.cond_br %[[LOW]], ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK: ^[[THEN]]:
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[TID]]] : memref<?xi32>
// CHECK-NEXT: cf.br ^[[JOIN:bb[0-9]+]]
// CHECK: ^[[ELSE]]:
// CHECK-NEXT: memref.store %[[N]], %[[OUT]][%[[TID]]] : memref<?xi32>
// CHECK-NEXT: cf.br ^[[JOIN]]
// CHECK: ^[[JOIN]]:
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: cf.br ^[[EXIT]]
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: gpu.return
