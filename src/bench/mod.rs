//! Inputs for benchmarks and quality measurements: large random CFGs as
//! MLIR text, and their LLVM IR form for comparing with LLVM's
//! `structurizecfg`. (The CFG-analysis and uniformity benchmarks live next
//! to their modules; the drivers are in `examples/`.)

pub mod llvm_ir;
pub mod long_range;
pub mod mlir_cfg;
