// `dump_kernel reducible 8 --gpu | mlir-opt --canonicalize --cse`: a random kernel
// whose divergent branches share work before their joins, and whose
// AMDGPU code is smaller with that work left under lane branches.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0: memref<?xi32>, %arg1: i32, %arg2: memref<?xi32>) kernel {
      %c529_i32 = arith.constant 529 : i32
      %c528_i32 = arith.constant 528 : i32
      %c23_i32 = arith.constant 23 : i32
      %c11_i32 = arith.constant 11 : i32
      %c10_i32 = arith.constant 10 : i32
      %c9_i32 = arith.constant 9 : i32
      %c8_i32 = arith.constant 8 : i32
      %c6_i32 = arith.constant 6 : i32
      %c5_i32 = arith.constant 5 : i32
      %true = arith.constant true
      %c49_i32 = arith.constant 49 : i32
      %c3_i32 = arith.constant 3 : i32
      %c2_i32 = arith.constant 2 : i32
      %c7_i32 = arith.constant 7 : i32
      %c4_i32 = arith.constant 4 : i32
      %c31_i32 = arith.constant 31 : i32
      %c1_i32 = arith.constant 1 : i32
      %c0_i32 = arith.constant 0 : i32
      %thread_id_x = gpu.thread_id  x
      %0 = arith.index_cast %thread_id_x : index to i32
      %1 = arith.muli %0, %c4_i32 : i32
      %2 = arith.remui %arg1, %c529_i32 : i32
      %3 = arith.andi %0, %c7_i32 : i32
      %4 = arith.cmpi sgt, %3, %c23_i32 : i32
      cf.cond_br %4, ^bb1(%c23_i32, %c528_i32 : i32, i32), ^bb2(%c23_i32, %c528_i32 : i32, i32)
    ^bb1(%5: i32, %6: i32):  // pred: ^bb0
      %7 = arith.subi %5, %c1_i32 : i32
      %8 = arith.muli %6, %c31_i32 : i32
      %9 = arith.addi %8, %c2_i32 : i32
      cf.br ^bb4(%7, %9 : i32, i32)
    ^bb2(%10: i32, %11: i32):  // pred: ^bb0
      %12 = arith.subi %10, %c1_i32 : i32
      %13 = arith.cmpi sgt, %12, %c0_i32 : i32
      %14 = arith.muli %11, %c31_i32 : i32
      %15 = arith.addi %14, %c3_i32 : i32
      %16 = arith.index_cast %1 : i32 to index
      memref.store %c1_i32, %arg0[%16] : memref<?xi32>
      %17 = arith.cmpi ugt, %1, %c49_i32 : i32
      %18 = arith.select %13, %17, %true : i1
      cf.cond_br %18, ^bb5(%12, %15 : i32, i32), ^bb3(%12, %15 : i32, i32)
    ^bb3(%19: i32, %20: i32):  // pred: ^bb2
      %21 = arith.subi %19, %c1_i32 : i32
      %22 = arith.muli %20, %c31_i32 : i32
      %23 = arith.addi %22, %c4_i32 : i32
      %24 = arith.addi %1, %c2_i32 : i32
      %25 = arith.index_cast %24 : i32 to index
      memref.store %23, %arg0[%25] : memref<?xi32>
      memref.store %23, %arg0[%25] : memref<?xi32>
      cf.br ^bb4(%21, %23 : i32, i32)
    ^bb4(%26: i32, %27: i32):  // 2 preds: ^bb1, ^bb3
      %28 = arith.subi %26, %c1_i32 : i32
      %29 = arith.cmpi sgt, %28, %c0_i32 : i32
      %30 = arith.muli %27, %c31_i32 : i32
      %31 = arith.addi %30, %c5_i32 : i32
      %32 = arith.cmpi slt, %28, %c7_i32 : i32
      %33 = arith.select %29, %32, %true : i1
      cf.cond_br %33, ^bb7(%28, %31 : i32, i32), ^bb6(%28, %31 : i32, i32)
    ^bb5(%34: i32, %35: i32):  // pred: ^bb2
      %36 = arith.subi %34, %c1_i32 : i32
      %37 = arith.cmpi sgt, %36, %c0_i32 : i32
      %38 = arith.muli %35, %c31_i32 : i32
      %39 = arith.addi %38, %c6_i32 : i32
      %40 = arith.addi %1, %c3_i32 : i32
      %41 = arith.index_cast %40 : i32 to index
      memref.store %39, %arg0[%41] : memref<?xi32>
      %42 = arith.addi %1, %c1_i32 : i32
      %43 = arith.index_cast %42 : i32 to index
      memref.store %1, %arg0[%43] : memref<?xi32>
      %44 = arith.select %37, %c1_i32, %c2_i32 : i32
      cf.switch %44 : i32, [
        default: ^bb6(%36, %39 : i32, i32),
        2: ^bb8(%39 : i32)
      ]
    ^bb6(%45: i32, %46: i32):  // 2 preds: ^bb4, ^bb5
      %47 = arith.subi %45, %c1_i32 : i32
      %48 = arith.cmpi sgt, %47, %c0_i32 : i32
      %49 = arith.muli %46, %c31_i32 : i32
      %50 = arith.addi %49, %c7_i32 : i32
      %51 = arith.andi %0, %c8_i32 : i32
      %52 = arith.cmpi eq, %51, %c0_i32 : i32
      %53 = arith.select %48, %52, %true : i1
      cf.cond_br %53, ^bb8(%50 : i32), ^bb9(%50, %c31_i32 : i32, i32)
    ^bb7(%54: i32, %55: i32):  // pred: ^bb4
      %56 = arith.subi %54, %c1_i32 : i32
      %57 = arith.cmpi sgt, %56, %c0_i32 : i32
      %58 = arith.muli %55, %c31_i32 : i32
      %59 = arith.addi %58, %c8_i32 : i32
      %60 = arith.remui %arg1, %c3_i32 : i32
      %61 = arith.select %57, %60, %c2_i32 : i32
      cf.switch %61 : i32, [
        default: ^bb8(%59 : i32),
        1: ^bb9(%59, %2 : i32, i32)
      ]
    ^bb8(%62: i32):  // 3 preds: ^bb5, ^bb6, ^bb7
      %63 = arith.muli %62, %c31_i32 : i32
      %64 = arith.addi %63, %c9_i32 : i32
      %65 = arith.addi %1, %c1_i32 : i32
      %66 = arith.index_cast %65 : i32 to index
      memref.store %c1_i32, %arg0[%66] : memref<?xi32>
      memref.store %64, %arg0[%66] : memref<?xi32>
      cf.br ^bb10(%64, %c31_i32 : i32, i32)
    ^bb9(%67: i32, %68: i32):  // 2 preds: ^bb6, ^bb7
      %69 = arith.muli %67, %c31_i32 : i32
      %70 = arith.addi %69, %c10_i32 : i32
      %71 = arith.addi %1, %c2_i32 : i32
      %72 = arith.index_cast %71 : i32 to index
      memref.store %70, %arg0[%72] : memref<?xi32>
      cf.br ^bb10(%70, %68 : i32, i32)
    ^bb10(%73: i32, %74: i32):  // 2 preds: ^bb8, ^bb9
      %75 = arith.muli %73, %c31_i32 : i32
      %76 = arith.addi %75, %c11_i32 : i32
      %77 = arith.addi %1, %c1_i32 : i32
      %78 = arith.index_cast %77 : i32 to index
      memref.store %76, %arg0[%78] : memref<?xi32>
      %79 = arith.xori %76, %74 : i32
      memref.store %79, %arg2[%thread_id_x] : memref<?xi32>
      gpu.return
    }
  }
}

