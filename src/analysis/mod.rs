//! Analyses. [`cfg`](mod@cfg) is the IR-independent graph core; the other modules
//! connect it to MLIR and render its results.

pub mod cfg;
pub mod divergence_sources;
pub mod kernels;
pub mod reconverging;
pub mod region_uniformity;
pub mod report;
pub mod structured;
pub mod uniformity;
