//! The boundary to MLIR.
//!
//! Everything that touches MLIR's raw C handles, or reads a fact out of an
//! operation or attribute, lives here; the analyses and transforms above
//! see typed answers only.
//!
//! * [`ffi`]: the raw bindings to `dialect/include/spmd-c/`.
//! * [`edit`]: IR edits melior does not offer (successor operands, moving
//!   and erasing operations and blocks, constants, branches).
//! * [`region_graph`]: the adapter that snapshots a region's CFG into the
//!   IR-independent [`crate::analysis::cfg`] graph.
//! * [`function_regions`]: the CFG regions under a root operation.
//! * [`value_names`]: the names MLIR's printer gives values and blocks.

pub mod edit;
pub mod ffi;
pub mod function_regions;
pub mod region_graph;
pub mod value_names;
