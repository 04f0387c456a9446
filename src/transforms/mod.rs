//! Transforms. Each plans its edits on the IR-independent graph
//! ([`crate::analysis::cfg`]) and then applies them to MLIR; the modules
//! below the transforms are their shared IR machinery.

pub mod branch_fold;
pub mod constants;
pub mod flow;
pub mod hubs;
pub mod locations;
pub mod lower_to_nvvm;
pub mod predicate;
pub mod prepare;
pub mod reconverge;
pub mod structurize;
