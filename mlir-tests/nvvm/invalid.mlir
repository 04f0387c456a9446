// RUN: spmd-opt %s -split-input-file --spmd-lower-to-nvvm -verify-diagnostics
// RUN: not spmd-opt %s -split-input-file --spmd-lower-to-nvvm -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="Stack dump"
// RUN: not spmd-opt %s -split-input-file --spmd-lower-to-nvvm=wave-size=48 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZE

// Every rejected construct gets a diagnostic at its location, and the pass
// fails without editing anything.

// SIZE: error: wave-size=48 is not supported: waves of 32 or 64 lanes

// Wave-level code must live in a gpu.func (the lowering needs the warp's
// special registers and its kernel attribute).
// CHECK: invalid.mlir:[[@LINE+3]]:{{[0-9]+}}: error: wave-level op 'spmd.exec.read' must be directly in the body of a gpu.func
func.func @not_on_gpu() {
  // expected-error @+1 {{wave-level op 'spmd.exec.read' must be directly in the body of a gpu.func}}
  %exec = spmd.exec.read : !spmd.mask
  return
}

// -----

// ... and directly in its body, not in a nested region.
gpu.module @m {
  gpu.func @nested(%c: i1) kernel {
    scf.if %c {
      // expected-error @+1 {{wave-level op 'spmd.ballot' must be directly in the body of a gpu.func}}
      %b = spmd.ballot %c : !spmd.mask
    }
    gpu.return
  }
}

// -----

// Flow branches are thread-level control flow: predicate first.
gpu.module @m {
  gpu.func @flow(%c: i1) kernel {
    // expected-error @+1 {{'spmd.flow_br' is thread-level control flow: run --spmd-predicate (or --spmd-lower-to-cf) first}}
    spmd.flow_br %c, ^a, ^b
  ^a:
    gpu.return
  ^b:
    gpu.return
  }
}

// -----

// In wave-level code every conditional branch must be uniform, or a lane
// branch that only active threads can take into its region: an unmarked
// one, or a lane branch after exec was narrowed whose condition is not
// gated by exec, would split the warp, and the masks would lie.
gpu.module @m {
  gpu.func @divergent(%c: i1, %d: i1) kernel {
    %e = spmd.exec.read : !spmd.mask
    %p = spmd.ballot %c : !spmd.mask
    spmd.exec.write %p : !spmd.mask
    // expected-error @+1 {{lane branch 'cf.cond_br' (marked #spmd.uniformity<divergent>) where exec may be partial, and a thread that is not active could enter its region}}
    cf.cond_br %c, ^a, ^b {spmd.uniformity = #spmd.uniformity<divergent>}
  ^a:
    // expected-error @+1 {{'cf.cond_br' in a wave-level function must be a uniform branch (marked #spmd.uniformity<uniform>) or a lane branch (marked #spmd.uniformity<divergent>)}}
    cf.cond_br %d, ^b, ^b
  ^b:
    gpu.return
  }
}

// -----

// A gated condition only keeps threads that are not active out of a lane
// region when the branch can send them to its rejoin point: here neither
// successor post-dominates the branch.
gpu.module @m {
  gpu.func @gated_without_rejoin(%c: i1, %d: i1) kernel {
    %p = spmd.ballot %c : !spmd.mask
    spmd.exec.write %p : !spmd.mask
    %e = spmd.exec.read : !spmd.mask
    %f = arith.constant false
    %g = spmd.mask.select %e, %d, %f : i1
    // expected-error @+1 {{lane branch 'cf.cond_br' (marked #spmd.uniformity<divergent>) where exec may be partial, and a thread that is not active could enter its region}}
    cf.cond_br %g, ^a, ^b {spmd.uniformity = #spmd.uniformity<divergent>}
  ^a:
    cf.br ^j
  ^b:
    cf.br ^j
  ^j:
    gpu.return
  }
}

// -----

// Masks may not cross function boundaries or feed other ops.
gpu.module @m {
  func.func private @take(!spmd.mask)
  // expected-error @+1 {{a wave-level function cannot take a '!spmd.mask' argument}}
  gpu.func @mask_argument(%m: !spmd.mask) kernel {
    spmd.exec.write %m : !spmd.mask
    // expected-error @+1 {{'func.call' uses a '!spmd.mask', which only spmd ops and branches may use}}
    func.call @take(%m) : (!spmd.mask) -> ()
    gpu.return
  }
}

// -----

gpu.module @m {
  func.func private @make() -> !spmd.mask
  gpu.func @mask_from_call() kernel {
    // expected-error @+1 {{'func.call' produces a '!spmd.mask' the NVVM lowering cannot follow}}
    %m = func.call @make() : () -> !spmd.mask
    spmd.exec.write %m : !spmd.mask
    gpu.return
  }
}

// -----

// A convergence token may only feed child tokens.
gpu.module @m {
  func.func private @use(!spmd.token)
  gpu.func @token_escape() kernel {
    %tok = spmd.convergence.entry : !spmd.token
    // expected-error @+1 {{cannot lower convergence token of 'spmd.convergence.entry': it is used by 'func.call'}}
    func.call @use(%tok) : (!spmd.token) -> ()
    gpu.return
  }
}

// -----

// sincos in a gpu.func has no NVPTX instruction and no math op to become a
// libdevice call (exp, sin, pow, ... become math ops; fabs/ceil/floor/sqrt/
// ... llvm.call_intrinsic).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @math(%x: f32, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = llvm.intr.fabs(%x) : (f32) -> f32
      // expected-error @+1 {{'llvm.intr.sincos' has no NVPTX instruction and no math op to become a libdevice call}}
      %e = llvm.intr.sincos(%a) : (f32) -> !llvm.struct<(f32, f32)>
      %s = llvm.extractvalue %e[0] : !llvm.struct<(f32, f32)>
      memref.store %s, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
