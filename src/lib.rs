//! # spmd: divergence-aware control flow on MLIR
//!
//! spmd analyses and transforms control-flow graphs of SPMD (GPU) programs
//! written in upstream MLIR dialects (`cf`, `llvm`, `func`, `gpu`, ...).
//! The layers, bottom up (each uses only the ones below it):
//!
//! * [`analysis::cfg`]: the IR-independent CFG core (RPO, dominators,
//!   post-dominators with a virtual exit, the cycle forest, irreducibility,
//!   per-block tags, DOT), on dense arrays and newtype ids. It is the
//!   `spmd-graph` crate (no MLIR, usable on plain edge lists), re-exported
//!   under this path;
//! * [`ir`]: the one boundary to MLIR: raw bindings, IR edits, typed
//!   accessors for every IR fact, operation and attribute names, and
//!   [`ir::region_graph`], the adapter that snapshots a region into the CFG
//!   core. Outside it, `unsafe` only wraps calls of the IR-freeing edits of
//!   [`ir::edit`], each with a `// SAFETY:` comment;
//! * [`analysis`]: the analyses on top (uniformity, Definition 1, the
//!   structured contract);
//! * [`transforms`]: the Flow engine ([`transforms::flow`]) and its four
//!   drivers (reconverge, structurize, the hubs of fix-irreducible and
//!   unify-loop-exits), predication, the NVVM lowering and branch folding;
//! * [`passes`]: the MLIR pass shells, usable from `spmd-opt`, melior
//!   pipelines, C++ and stock `mlir-opt`; [`dialect`] registers the `spmd`
//!   dialect (ODS, C++) into melior.
//!
//! The crate root re-exports what an embedder needs most: the dialect and
//! pass registration ([`context_with_all_dialects`],
//! [`register_all_passes`]), each transform's entry point with its options,
//! statistics and located error ([`reconverge_function`],
//! [`structurize_function`], [`predicate_function`], [`fold_function`]),
//! the uniformity analysis ([`RegionUniformity`]), the Definition 1 check
//! ([`check_reconverging`]) and the CFG core ([`graph`], the `spmd-graph`
//! crate).
//!
//! Test generators (random CFGs, programs and kernel texts) are compiled
//! only with the `testing` feature (module `testing`); the reference executor
//! and the benchmark drivers are the workspace crates `spmd-oracle` and
//! `spmd-bench`, which depend on this library and never the reverse.
//!
//! Everything runs on one static copy of MLIR (mlir-sys); see the README for
//! how the C++ dialect is linked in.
//!
//! The algorithms come from published work, cited by short names in the
//! documentation (`docs/references.md` lists them): *the reconvergence
//! paper* (reconverging CFGs, Definition 1, the OpenTree algorithm, its
//! block orderings and the exec-mask lowering of its Listing 1), LLVM's
//! StructurizeCFG pass and *the StructurizeCFG notes* that describe it as a
//! GPU compiler uses it, and notes on a GPU compiler's CFG infrastructure
//! and branch folding.

#![warn(missing_docs)]
// Passes and IR helpers return `Result<_, ()>` as MLIR's `LogicalResult`:
// the failure has already been reported as a located MLIR diagnostic, so
// the error carries nothing more.
#![allow(clippy::result_unit_err)]

// The public API: everything an embedder uses is re-exported here, from
// crate-private modules (their layout is an implementation detail). The
// `testing` module (feature `testing`) re-exports more for the workspace's
// own tests, benchmarks and oracle.

// Dialect and pass registration.
pub mod dialect;
pub use dialect::context_with_all_dialects;
pub use opt::opt_main;
pub use passes::{pass_names, register_all_passes, statistics_of, Statistic};

// The regions to run on.
pub use ir::function_regions::{cfg_regions, CfgRegion};
pub use ir::region_graph::{RegionGraph, RegionGraphError};

// Analyses.
pub use analysis::reconverging::{check as check_reconverging, Violation};
pub use analysis::region_uniformity::{is_marked_uniform, RegionUniformity, UniformityOptions};
pub use spmd_graph as graph;

// Transforms.
pub use transforms::branch_fold::{
    fold_function, BranchFoldError, BranchFoldOptions, BranchFoldStats,
};
pub use transforms::flow::plan::Ordering;
pub use transforms::predicate::{
    predicate_function, PredicateError, PredicateOptions, PredicateStats, WAVE_SIZE_ATTR,
};
pub use transforms::reconverge::{
    reconverge_function, ReconvergeError, ReconvergeOptions, ReconvergeStats,
};
pub use transforms::structurize::{
    structurize_function, IrreduciblePolicy, StructurizeError, StructurizeOptions, StructurizeStats,
};

mod analysis;
mod ir;
mod opt;
mod passes;
mod support;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod transforms;
