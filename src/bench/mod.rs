//! Inputs for benchmarks and quality measurements: large random CFGs as
//! MLIR text. (The CFG-analysis and uniformity benchmarks live next to
//! their modules; the drivers are in `examples/`.)

pub mod mlir_cfg;
