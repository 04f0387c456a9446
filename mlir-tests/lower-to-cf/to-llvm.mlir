// The output of --spmd-reconverge, lowered by --spmd-lower-to-cf, is plain
// upstream IR: mlir-opt (without the spmd plugin) lowers it to the LLVM
// dialect, and that translates to LLVM IR.
//
// RUN: spmd-opt %s --spmd-reconverge --spmd-lower-to-cf | FileCheck %s --check-prefix=CF
// RUN: spmd-opt %s --spmd-reconverge --spmd-lower-to-cf | mlir-opt --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM --implicit-check-not=cf. --implicit-check-not=arith. --implicit-check-not=memref. --implicit-check-not=func. --implicit-check-not=unrealized_conversion_cast
// RUN: spmd-opt %s --spmd-reconverge=ordering=bf --spmd-lower-to-cf | mlir-opt --convert-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=TRANSLATED

// The reconverged kernel had Flow blocks and tokens; they became cf.
// CF-LABEL: func.func @kernel
// CF-NOT: spmd.flow_br
// CF-NOT: spmd.convergence
// CF: cf.cond_br
// CF: return

// LLVM-LABEL: llvm.func @kernel
// LLVM: llvm.cond_br
// LLVM: llvm.store
// LLVM: llvm.return

// TRANSLATED-LABEL: define i32 @kernel(
// TRANSLATED: br i1
// TRANSLATED: store i32
// TRANSLATED: ret i32

// A loop with a divergent break, an early return and a store.
func.func @kernel(%out: memref<?xi32>, %n: i32, %tid: i32 {spmd.divergent}) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0 : i32)
^header(%i: i32):
  %more = arith.cmpi slt, %i, %n : i32
  cf.cond_br %more, ^body, ^done
^body:
  %hit = arith.cmpi eq, %i, %tid : i32
  cf.cond_br %hit, ^found, ^latch
^latch:
  %next = arith.addi %i, %c1 : i32
  cf.br ^header(%next : i32)
^found:
  %idx = arith.index_cast %tid : i32 to index
  memref.store %i, %out[%idx] : memref<?xi32>
  return %i : i32
^done:
  return %n : i32
}
