// A diagnostic about an operation of an inserted block points at the
// user's branch that the block serves, not at the function: here
// lower-to-nvvm rejects the Flow branch that reconverge inserted for the
// divergent branch on %d.

// RUN: spmd-opt %s --spmd-reconverge --spmd-lower-to-nvvm -o /dev/null --verify-diagnostics

gpu.module @m {
  gpu.func @k(%out: memref<?xi32>) kernel {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %c0 = arith.constant 0 : i32
    %d = arith.cmpi eq, %t, %c0 : i32
    %e = arith.cmpi sgt, %t, %c0 : i32
    // expected-error@+1 {{'spmd.flow_br' is thread-level control flow: run --spmd-predicate (or --spmd-lower-to-cf) first}}
    cf.cond_br %d, ^a, ^b
  ^a:
    cf.cond_br %e, ^x, ^b
  ^b:
    memref.store %t, %out[%tid] : memref<?xi32>
    cf.br ^x
  ^x:
    gpu.return
  }
}
