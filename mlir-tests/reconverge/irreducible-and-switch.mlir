// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-reconverge | FileCheck %s --check-prefix=FLOW
// RUN: spmd-opt %s -split-input-file --spmd-reconverge | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-reconverge=ordering=df | spmd-opt -split-input-file --spmd-verify-reconverging -o /dev/null

// An irreducible goto pattern (two entries, two exits, all divergent) is
// handled natively: Flow blocks only, no block is duplicated (the six
// original blocks keep one copy each: one store per original block).
// CHECK-LABEL: func.func @irreducible_two_exits
// CHECK-COUNT-4: memref.store
// CHECK-NOT: memref.store
// CHECK: return
// FLOW-LABEL: func.func @irreducible_two_exits
// FLOW: spmd.convergence.loop
// FLOW: spmd.flow_br
func.func @irreducible_two_exits(%t: i1 {spmd.divergent}, %u: i1 {spmd.divergent}, %v: i1 {spmd.divergent}, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  cf.cond_br %t, ^a, ^b
^a:
  memref.store %c1, %out[%c0] : memref<?xi32>
  cf.cond_br %u, ^b, ^x
^b:
  memref.store %c2, %out[%c0] : memref<?xi32>
  cf.cond_br %v, ^a, ^y
^x:
  memref.store %c3, %out[%c0] : memref<?xi32>
  cf.br ^done
^y:
  memref.store %c4, %out[%c0] : memref<?xi32>
  cf.br ^done
^done:
  return
}

// -----

// An irreducible cycle that already reconverges is left alone.
// CHECK-LABEL: func.func @irreducible_reconverging
// CHECK-NOT: spmd.{{flow_br|convergence}}
// CHECK: return
func.func @irreducible_reconverging(%t: i1 {spmd.divergent}, %u: i1 {spmd.divergent}) {
  cf.cond_br %t, ^a, ^b
^a:
  cf.cond_br %u, ^b, ^done
^b:
  cf.br ^a
^done:
  return
}

// -----

// A divergent switch becomes a chain of two-way branches on arith.cmpi eq.
// CHECK-LABEL: func.func @divergent_switch
// CHECK-NOT: cf.switch
// CHECK: arith.cmpi eq, %{{.*}}, %c1_i32 : i32
// CHECK: arith.cmpi eq, %{{.*}}, %c2_i32 : i32
// CHECK-NOT: cf.switch
func.func @divergent_switch(%out: memref<?xi32>) {
  %lane = gpu.lane_id
  %l = arith.index_cast %lane : index to i32
  cf.switch %l : i32, [
    default: ^a,
    1: ^b,
    2: ^c
  ]
^a:
  cf.br ^done
^b:
  memref.store %l, %out[%lane] : memref<?xi32>
  cf.br ^done
^c:
  cf.br ^done
^done:
  return
}

// -----

// A uniform switch stays a switch.
// CHECK-LABEL: func.func @uniform_switch
// CHECK: cf.switch
func.func @uniform_switch(%x: i32) {
  cf.switch %x : i32, [
    default: ^a,
    1: ^b
  ]
^a:
  return
^b:
  return
}
