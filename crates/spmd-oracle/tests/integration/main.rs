//! Integration tests that run code: the reference SIMT executor
//! (`spmd_oracle`) itself, its second oracle (MLIR's JIT), and the
//! differential property tests of every transform of the spmd library on
//! random kernels (the transformed kernel must compute what the original
//! does). The tests of the library that need no executor are in the root
//! crate's tests/integration.
//!
//! All integration tests of a crate live in one binary (each test binary
//! links a full static MLIR, about 250 MB).

mod branch_fold;
mod common;
mod cuda_examples;
mod exec;
mod exec_cuda_ops;
mod exec_llvm;
mod jit;
mod libdevice_math;
mod nvvm_collectives;
mod nvvm_collectives_reduced;
mod nvvm_exec;
mod predicate;
mod reconverge;
mod rocdl_exec;
mod structurize;
mod structurize_no_return;
mod uniformity;
