//! The boundary to MLIR.
//!
//! Everything that touches MLIR's raw C handles, or reads a fact out of an
//! operation or attribute, lives here; the analyses and transforms above
//! see typed answers only.
//!
//! * `ffi` (crate-private): the raw bindings to `dialect/include/spmd-c/`.
//! * [`collectives`]: the one table of warp collectives, barriers and
//!   other operations whose meaning depends on which threads meet there,
//!   and how wave-level code executes each.
//! * [`diagnostics`]: emitting MLIR diagnostics from Rust.
//! * [`key`]: typed identity keys for blocks, operations, values, types,
//!   attributes and names, for hashing and ordering handles by identity.
//! * [`edit`]: IR edits melior does not offer (successor operands, moving
//!   and erasing operations and blocks, constants, branches).
//! * [`region_graph`]: the adapter that snapshots a region's CFG into the
//!   IR-independent [`crate::analysis::cfg`] graph.
//! * [`function_regions`]: the CFG regions under a root operation.
//! * [`value_names`]: the names MLIR's printer gives values and blocks.
//! * [`query`]: read-only questions (interfaces, defining blocks, walks).
//! * [`facts`]: typed accessors for the facts passes read from ops and
//!   attributes (uniformity marks, constants, switch cases, markers).
//! * [`names`]: the operation and attribute names, as constants.
//! * [`pass_runner`]: the runner the C++ pass shells call (typed option
//!   values in, statistics out), and the C entry points that register the
//!   passes.
//! * [`ods`]: the passes of `SpmdPasses.td` (option keys, kinds and
//!   defaults; statistics), generated at build time: the one source of
//!   option defaults and statistic names on the Rust side.
//!
//! Outside this module (the oracle's JIT aside), `unsafe` only wraps calls
//! of the IR-freeing edits of [`edit`] (erasing operations, blocks and
//! block arguments, whose other handles would dangle), each with a
//! `// SAFETY:` comment, and no attribute is read by printing and parsing
//! it.

pub(crate) mod collectives;
pub(crate) mod diagnostics;
pub(crate) mod edit;
pub(crate) mod facts;
pub(crate) mod ffi;
pub(crate) mod function_regions;
pub(crate) mod key;
pub(crate) mod names;
pub(crate) mod ods;
pub(crate) mod pass_runner;
pub(crate) mod query;
pub(crate) mod region_graph;
pub(crate) mod value_names;
