//! Analyses. [`cfg`](mod@cfg) is the IR-independent graph core; the other modules
//! connect it to MLIR and render its results.

/// The IR-independent CFG core: the `spmd-graph` crate (no MLIR, usable on
/// plain edge lists), re-exported here so every `analysis::cfg::...` path
/// keeps working. Its `random` and `bench` modules come with this crate's
/// `testing` feature.
pub(crate) use spmd_graph as cfg;
pub(crate) mod divergence_sources;
pub(crate) mod kernels;
pub(crate) mod reconverging;
pub(crate) mod region_uniformity;
pub(crate) mod report;
pub(crate) mod structured;
pub(crate) mod uniformity;
