//! Integration tests of the spmd library as an embedder sees it: melior
//! contexts with the dialect registered, typed op builders, pass pipelines
//! built by name, and the CFG analyses over parsed MLIR.
//!
//! All integration tests live in this one binary (each test binary links a
//! full static MLIR, about 250 MB).

mod branch_fold;
mod common;
mod cfg;
mod dialect;
mod exec;
mod exec_llvm;
mod jit;
mod nvvm_exec;
mod predicate;
mod reconverge;
mod structurize;
mod uniformity;
mod uniformity_llvm;
