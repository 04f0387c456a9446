// examples/listing1.mlir (the reconvergence paper, Listing 1 as wave-level IR) parses,
// verifies, round-trips, and keeps the exec-mask protocol of the listing in
// order: build and subtract the re-join mask in A and B, skip on an empty
// exec, add the re-join mask back in D.
//
// RUN: spmd-opt %spmd_src_root/examples/listing1.mlir | FileCheck %s
// RUN: spmd-opt %spmd_src_root/examples/listing1.mlir | spmd-opt | FileCheck %s
// RUN: spmd-opt %spmd_src_root/examples/listing1.mlir --mlir-print-op-generic | spmd-opt | FileCheck %s

// CHECK-LABEL: func.func @listing1(
// CHECK-SAME: %{{.*}}: i32 {spmd.divergent}

// A: v_cmp s[0:1]; s_andn2_b64 exec, exec, s[0:1]; s_cbranch_execz D
// CHECK: %[[NONE:.*]] = spmd.mask.empty : !spmd.mask
// CHECK-NEXT: %[[S01:.*]] = spmd.ballot %{{.*}} : !spmd.mask
// CHECK-NEXT: %[[MA:.*]] = spmd.mask.or %[[NONE]], %[[S01]] : !spmd.mask
// CHECK-NEXT: %[[EXECA:.*]] = spmd.exec.read : !spmd.mask
// CHECK-NEXT: %[[RESTA:.*]] = spmd.mask.andn %[[EXECA]], %[[MA]] : !spmd.mask
// CHECK-NEXT: spmd.exec.write %[[RESTA]] : !spmd.mask
// CHECK-NEXT: spmd.exec.br_zero ^[[D:bb[0-9]+]](%[[MA]] : !spmd.mask), ^[[B:bb[0-9]+]]

// B: v_cmp vcc; s_or_b64 s[0:1], s[0:1], vcc; s_andn2_b64 exec, exec, vcc; s_cbranch_execz D
// CHECK: ^[[B]]:
// CHECK: %[[VCC:.*]] = spmd.ballot %{{.*}} : !spmd.mask
// CHECK-NEXT: %[[MB:.*]] = spmd.mask.or %[[MA]], %[[VCC]] : !spmd.mask
// CHECK-NEXT: %[[EXECB:.*]] = spmd.exec.read : !spmd.mask
// CHECK-NEXT: %[[RESTB:.*]] = spmd.mask.andn %[[EXECB]], %[[VCC]] : !spmd.mask
// CHECK-NEXT: spmd.exec.write %[[RESTB]] : !spmd.mask
// CHECK-NEXT: spmd.exec.br_zero ^[[D]](%[[MB]] : !spmd.mask), ^[[C:bb[0-9]+]]

// C: code for C, then on to D with the accumulated mask.
// CHECK: ^[[C]]:
// CHECK-NOT: spmd.exec
// CHECK: cf.br ^[[D]](%[[MB]] : !spmd.mask)

// D: s_or_b64 exec, exec, s[0:1]
// CHECK: ^[[D]](%[[M:.*]]: !spmd.mask):
// CHECK-NEXT: %[[EXECD:.*]] = spmd.exec.read : !spmd.mask
// CHECK-NEXT: %[[ALL:.*]] = spmd.mask.or %[[EXECD]], %[[M]] : !spmd.mask
// CHECK-NEXT: spmd.exec.write %[[ALL]] : !spmd.mask
// CHECK-NOT: spmd.exec
// CHECK: return
