//! # spmd: divergence-aware control flow on MLIR
//!
//! spmd analyses and transforms the control-flow graphs of SPMD (GPU)
//! programs written in upstream MLIR dialects (`cf`, `llvm`, `func`, `gpu`,
//! ...), so that the threads of a wave that split at a divergent branch
//! meet again where the program needs them together. This page is the
//! whole Rust API: the modules that implement it are private to the crate.
//!
//! ## Running the passes
//!
//! Most embedders run spmd as MLIR passes, in three steps:
//!
//! 1. [`context_with_all_dialects`] gives a melior `Context` with every
//!    upstream dialect and the `spmd` dialect loaded (or add the dialect to
//!    a registry of your own with [`dialect::insert_into`]);
//! 2. [`register_all_passes`] makes the `spmd-*` passes known to textual
//!    pipelines ([`pass_names`] lists them, [`statistics_of`] the
//!    [`Statistic`]s each reports to `--mlir-pass-statistics`);
//! 3. a melior `PassManager` runs a pipeline such as
//!    `builtin.module(spmd-reconverge)` on your module:
//!
//! ```text
//! let context = spmd::context_with_all_dialects();
//! spmd::register_all_passes();
//! let mut module = Module::parse(&context, KERNEL).ok_or("does not parse")?;
//! let pass_manager = PassManager::new(&context);
//! parse_pass_pipeline(pass_manager.as_operation_pass_manager(),
//!                     "builtin.module(spmd-reconverge)")?;
//! pass_manager.run(&mut module)?;
//! ```
//!
//! (`examples/embed.rs` is this program in full.) The passes, their
//! options and statistics are documented in `docs/dialect/SpmdPasses.md`.
//! The same passes run in `spmd-opt` ([`opt_main`] is its body:
//! `mlir-opt` with spmd added), from C and C++ after
//! `spmdRegisterAllPasses()`, and in stock `mlir-opt` with the plugin
//! (`docs/embedding.md`).
//!
//! ## Calling the transforms directly
//!
//! Without a pass manager, [`cfg_regions`] finds the [`CfgRegion`]s of a
//! module (each function body, and other regions with a CFG), and each
//! transform runs on one function and its region, with its options, and
//! returns its statistics or a located error:
//!
//! * [`reconverge_function`] ([`ReconvergeOptions`], [`ReconvergeStats`],
//!   [`ReconvergeError`]): every divergent branch reconverges at one of its
//!   successors (`--spmd-reconverge`);
//! * [`structurize_function`] ([`StructurizeOptions`] with its
//!   [`IrreduciblePolicy`], [`StructurizeStats`], [`StructurizeError`]):
//!   every branch does, as LLVM's StructurizeCFG (`--spmd-structurize`);
//! * [`predicate_function`] ([`PredicateOptions`], [`PredicateStats`],
//!   [`PredicateError`]): divergent control flow to exec-mask code of one
//!   wave, its width recorded as [`WAVE_SIZE_ATTR`] (`--spmd-predicate`);
//! * [`fold_function`] ([`BranchFoldOptions`], [`BranchFoldStats`],
//!   [`BranchFoldError`]): branch folding and tail merging that keep
//!   reconvergence (`--spmd-branch-fold`).
//!
//! The Flow-block planners of the first two walk the blocks in one of the
//! [`Ordering`]s of the reconvergence paper.
//!
//! ## Analyses
//!
//! * [`RegionUniformity`] ([`UniformityOptions`], [`UniformityStats`]):
//!   which values and branches are divergent (differ between the threads of
//!   a wave), on a [`RegionGraph`], the snapshot of a region's CFG;
//!   [`is_marked_uniform`] reads the mark `--spmd-annotate-uniformity`
//!   leaves on a branch;
//! * [`check_reconverging`]: Definition 1 of the reconvergence paper (every
//!   divergent branch reconverges at one of its successors), as a list of
//!   [`Violation`]s;
//! * [`graph`]: the IR-independent CFG core (RPO, dominators,
//!   post-dominators with a virtual exit, the cycle forest, irreducibility,
//!   DOT) on dense arrays and newtype ids. It is the `spmd-graph` crate, no
//!   MLIR, usable on plain edge lists; a [`RegionGraph`] is one of its
//!   graphs.
//!
//! ## The dialect
//!
//! [`dialect`] registers the `spmd` dialect (ODS and C++, linked in by the
//! build) into melior and holds its typed operation wrappers
//! ([`dialect::ops`]).
//!
//! ## Test support
//!
//! With the `testing` feature, `spmd::testing` adds random function texts
//! and seed counts for property tests, and re-exports the internals the
//! workspace's own oracle, fuzzers, tests and benchmarks read. It is not a
//! stable API and is off in what ships. The reference executor and the
//! benchmark drivers are the workspace crates `spmd-oracle` and
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
// Every type the API hands out is re-exported below, so a user can name it
// and its page is linked.
#![warn(unnameable_types)]
// Passes and IR helpers return `Result<_, ()>` as MLIR's `LogicalResult`:
// the failure has already been reported as a located MLIR diagnostic, so
// the error carries nothing more.
#![allow(clippy::result_unit_err)]

// The public API: everything an embedder uses is re-exported here, from
// crate-private modules (their layout is an implementation detail; the
// crate's layers are described in docs/architecture.md). The `testing`
// module (feature `testing`) re-exports more for the workspace's own tests,
// benchmarks and oracle.

// Dialect and pass registration.
pub mod dialect;
#[doc(inline)]
pub use dialect::context_with_all_dialects;
pub use ir::names::LANE_SHARED_WORK_ATTR;
pub use ir::pass_runner::Statistic;
pub use opt::opt_main;
pub use passes::{pass_names, register_all_passes, statistics_of};

// The regions to run on.
pub use ir::function_regions::{cfg_regions, CfgRegion};
pub use ir::region_graph::{RegionGraph, RegionGraphError};

// Analyses.
pub use analysis::divergence_sources::ExtraSources;
pub use analysis::reconverging::{check as check_reconverging, Violation};
pub use analysis::region_uniformity::{is_marked_uniform, RegionUniformity, UniformityOptions};
pub use analysis::structured::StructuredViolation;
pub use analysis::uniformity::{analysis::UniformityStats, program::ArgumentKind};
pub use spmd_graph as graph;

// Transforms.
pub use transforms::branch_fold::{
    fold_function, BranchFoldError, BranchFoldOptions, BranchFoldStats,
};
pub use transforms::flow::plan::{Ordering, PlanError};
pub use transforms::hubs::HubStats;
pub use transforms::predicate::{
    predicate_function, NotReconvergingReason, PredicateError, PredicateOptions, PredicateStats,
    WAVE_SIZE_ATTR,
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
