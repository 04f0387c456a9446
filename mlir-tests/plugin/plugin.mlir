// The dialect plugin makes Debian's stock mlir-opt understand spmd IR, with
// the same printed form as spmd-opt. Without the plugin, mlir-opt rejects it.
//
// RUN: %mlir_opt --load-dialect-plugin=%spmd_plugin %s -split-input-file | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%spmd_plugin %s -split-input-file \
// RUN:   | %mlir_opt --load-dialect-plugin=%spmd_plugin -split-input-file | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%spmd_plugin %s -split-input-file --mlir-print-op-generic \
// RUN:   | %mlir_opt --load-dialect-plugin=%spmd_plugin -split-input-file | FileCheck %s
//
// Plugin and spmd-opt print the same text.
// RUN: %mlir_opt --load-dialect-plugin=%spmd_plugin %s -split-input-file -o %t.plugin
// RUN: spmd-opt %s -split-input-file -o %t.spmd-opt
// RUN: diff %t.plugin %t.spmd-opt
//
// Stock mlir-opt, no plugin, no --allow-unregistered-dialect: rejected.
// RUN: not %mlir_opt %s -split-input-file 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPLUGIN \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// CHECK-LABEL: func.func @wave_level
// CHECK-SAME: (%[[C:.*]]: i1 {spmd.divergent})
// NOPLUGIN: plugin.mlir:[[@LINE+2]]:{{[0-9]+}}: error: Dialect `spmd' not found for custom op 'spmd.exec.read'
func.func @wave_level(%c: i1 {spmd.divergent}) {
  %exec = spmd.exec.read : !spmd.mask
  %taken = spmd.ballot %c : !spmd.mask
  %rest = spmd.mask.andn %exec, %taken : !spmd.mask
  %none = spmd.mask.empty : !spmd.mask
  %rejoin = spmd.mask.or %none, %taken : !spmd.mask
  spmd.exec.write %rest : !spmd.mask
  spmd.exec.br_zero ^join(%rejoin : !spmd.mask), ^then
^then:
  %both = spmd.mask.and %exec, %taken : !spmd.mask
  cf.br ^join(%both : !spmd.mask)
^join(%m: !spmd.mask):
  spmd.exec.write %exec : !spmd.mask
  return
}
// CHECK: %[[EXEC:.*]] = spmd.exec.read : !spmd.mask
// CHECK-NEXT: %[[TAKEN:.*]] = spmd.ballot %[[C]] : !spmd.mask
// CHECK-NEXT: %[[REST:.*]] = spmd.mask.andn %[[EXEC]], %[[TAKEN]] : !spmd.mask
// CHECK-NEXT: %[[NONE:.*]] = spmd.mask.empty : !spmd.mask
// CHECK-NEXT: %[[REJOIN:.*]] = spmd.mask.or %[[NONE]], %[[TAKEN]] : !spmd.mask
// CHECK-NEXT: spmd.exec.write %[[REST]] : !spmd.mask
// CHECK-NEXT: spmd.exec.br_zero ^[[JOIN:bb[0-9]+]](%[[REJOIN]] : !spmd.mask), ^[[THEN:bb[0-9]+]]
// CHECK: ^[[THEN]]:
// CHECK-NEXT: spmd.mask.and %[[EXEC]], %[[TAKEN]] : !spmd.mask
// CHECK: ^[[JOIN]](%{{.*}}: !spmd.mask):
// CHECK-NEXT: spmd.exec.write %[[EXEC]] : !spmd.mask

// -----

// CHECK-LABEL: func.func @thread_level
// NOPLUGIN: plugin.mlir:[[@LINE+2]]:{{[0-9]+}}: error: Dialect `spmd' not found for custom op 'spmd.convergence.entry'
func.func @thread_level(%c: i1, %brk: i1) {
  %entry = spmd.convergence.entry : !spmd.token
  spmd.reconvergence.head 0
  cf.cond_br %c, ^flow(%c : i1), ^header {spmd.uniformity = #spmd.uniformity<divergent>}
^header:
  %iter = spmd.convergence.loop %entry : !spmd.token
  cf.br ^latch
^latch:
  spmd.flow_br loop %brk, ^flow(%brk : i1), ^header
^flow(%p: i1):
  spmd.reconvergence.tail 0
  return
}
// CHECK: %[[ENTRY:.*]] = spmd.convergence.entry : !spmd.token
// CHECK-NEXT: spmd.reconvergence.head 0
// CHECK-NEXT: cf.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {spmd.uniformity = #divergent}
// CHECK: spmd.convergence.loop %[[ENTRY]] : !spmd.token
// CHECK: spmd.flow_br loop %{{.*}}, ^{{.*}}(%{{.*}} : i1), ^{{.*}}
// CHECK: spmd.reconvergence.tail 0

// -----

// Types and the attribute alone, without any spmd operation.
// CHECK-LABEL: func.func private @types_only
// CHECK-SAME: (!spmd.token, !spmd.mask) -> !spmd.mask
// CHECK-SAME: attributes {u = #uniform}
// NOPLUGIN: plugin.mlir:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}spmd{{.*}} type created with unregistered dialect
func.func private @types_only(!spmd.token, !spmd.mask) -> !spmd.mask attributes {u = #spmd.uniformity<uniform>}
