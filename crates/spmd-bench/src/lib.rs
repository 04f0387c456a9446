//! # spmd-bench: benchmark and quality drivers of spmd
//!
//! The drivers are this crate's examples (`cargo run --release --example
//! cfg_bench`, `structurize_bench`, `reconverge_quality`, ...). They take
//! their inputs from the `testing` generators of the `spmd` library
//! (`spmd::testing`) and, for the kernels that run, from `spmd-oracle`;
//! [`llvm_ir`] lowers the inputs to LLVM IR for the comparisons with
//! LLVM's `structurizecfg`. Nothing here is a dependency of `spmd`.

pub mod llvm_ir;
