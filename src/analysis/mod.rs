//! Analyses. [`cfg`] is the IR-independent graph core; the other modules
//! connect it to MLIR and render its results.

pub mod cfg;
pub mod function_regions;
pub mod region_graph;
pub mod report;
