//! Analyses. [`cfg`](mod@cfg) is the IR-independent graph core; the other modules
//! connect it to MLIR and render its results.

/// The IR-independent CFG core: the `spmd-graph` crate (no MLIR, usable on
/// plain edge lists), re-exported here so every `analysis::cfg::...` path
/// keeps working. Its `random` and `bench` modules come with this crate's
/// `testing` feature.
pub use spmd_graph as cfg;
pub mod divergence_sources;
pub mod kernels;
pub mod reconverging;
pub mod region_uniformity;
pub mod report;
pub mod structured;
pub mod uniformity;
