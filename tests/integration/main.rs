//! Integration tests of the spmd library as an embedder sees it: melior
//! contexts with the dialect registered, typed op builders, and the CFG and
//! uniformity analyses over parsed MLIR. The tests that run code (the
//! reference executor, the JIT differential, the random-kernel property
//! tests of every transform) need the oracle and live in
//! crates/spmd-oracle/tests/integration.
//!
//! All integration tests of a crate live in one binary (each test binary
//! links a full static MLIR, about 250 MB).

mod cfg;
mod collectives;
mod common;
mod dialect;
mod irreducible_gate;
mod irreducible_gen;
mod llvm_uniformity_diff;
mod uniformity_llvm;
mod uniformity_work;
