//! # spmd-fuzz: fuzz targets of spmd
//!
//! Three targets in the style of regalloc2's: each takes the raw bytes a
//! fuzzer hands it, builds a bounded input from them with
//! [`arbitrary::Unstructured`], checks a property and **panics on a
//! violation** (a fuzzer reports the panic as a crash, with the input).
//!
//! * [`graph_core`]: an arbitrary CFG (up to [`MAX_GRAPH_BLOCKS`] blocks,
//!   up to three successors each, entry 0) as a plain edge list through
//!   `spmd-graph`; every fast analysis against its reference twin
//!   ([`spmd_graph::reference_dominators`] for dominators and
//!   post-dominators) and against brute-force definitions written here
//!   (reachability, DFS orders, dominance by deletion, the cycle forest by
//!   nested SCCs, irreducibility by T1/T2 reduction, SCCs, block tags), on
//!   the same graph; recomputing on a reused analysis object must give
//!   what a fresh one gives.
//! * [`reconverge_definition1`]: an arbitrary CFG (up to
//!   [`MAX_MLIR_BLOCKS`] blocks) rendered as a `func.func` whose branches
//!   read a divergent (`spmd.divergent`) or a uniform (`spmd.uniform`)
//!   argument, with values defined in dominating blocks and passed as
//!   block arguments; `--spmd-reconverge` must succeed, verify, satisfy
//!   Definition 1 ([`spmd::check_reconverging`]) and be idempotent;
//!   `--spmd-structurize{irreducible=fix}` must succeed, verify and
//!   satisfy the structured contract ([`spmd::testing::checks::check_structured`]) and
//!   be idempotent.
//! * [`textual_front_door`]: bytes, or (more usefully) a few mutations of
//!   a valid spmd/cf snippet chosen by the input, parsed and run through a
//!   pipeline of `spmd-opt`'s passes in-process. Property: no panic, no
//!   abort, no "internal error" (the pass runner's caught panic) — the
//!   parse fails, or each pass succeeds with verified IR, or fails with an
//!   error diagnostic.
//!
//! `tests/smoke.rs` runs each target on pseudo-random inputs on stable
//! (`cargo test -p spmd-fuzz`; `SPMD_FUZZ_SMOKE=<n>` sets how many);
//! `fuzz/` holds the `cargo fuzz` (nightly, libFuzzer) harnesses that call
//! the same functions. See the crate's README.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod cfg_input;
mod front_door;
mod graph_core;
mod mlir;
mod reconverge;

pub use cfg_input::{FuzzCfg, MAX_GRAPH_BLOCKS, MAX_MLIR_BLOCKS};
pub use front_door::{textual_front_door, FrontDoorInput, SNIPPETS};
pub use graph_core::graph_core;
pub use reconverge::{reconverge_definition1, BlockBody, Function, ReconvergeCase, RenderedCfg};
