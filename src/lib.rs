//! # spmd: divergence-aware control flow on MLIR
//!
//! spmd analyses and transforms control-flow graphs of SPMD (GPU) programs
//! written in upstream MLIR dialects (`cf`, `llvm`, `func`, `gpu`, ...):
//!
//! * [`analysis::cfg`]: an IR-independent CFG core (RPO, dominators,
//!   post-dominators with a virtual exit, the cycle forest, irreducibility,
//!   per-block tags, DOT), and [`analysis::region_graph`], the adapter that
//!   snapshots an MLIR region into it;
//! * [`dialect`]: the `spmd` dialect (ODS, C++), registered into melior;
//! * [`passes`]: the passes, usable from `spmd-opt`, melior pipelines and C++.
//!
//! Test generators (random CFGs, programs and kernel texts) are compiled
//! only with the `testing` feature (module `testing`); the reference executor
//! and the benchmark drivers are the workspace crates `spmd-oracle` and
//! `spmd-bench`, which depend on this library and never the reverse.
//!
//! Everything runs on one static copy of MLIR (mlir-sys); see the README for
//! how the C++ dialect is linked in.


pub mod analysis;
pub mod dialect;
pub mod ir;
pub mod opt;
pub mod passes;
pub mod support;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod transforms;
