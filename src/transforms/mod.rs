//! Transforms. Each plans its edits on the IR-independent graph
//! ([`crate::analysis::cfg`]) and then applies them to MLIR; the modules
//! below the transforms are their shared IR machinery.

pub(crate) mod branch_fold;
pub(crate) mod constants;
pub(crate) mod flow;
pub(crate) mod hubs;
pub(crate) mod locations;
pub(crate) mod lower_to_nvvm;
pub(crate) mod predicate;
pub(crate) mod prepare;
pub(crate) mod reconverge;
pub(crate) mod structurize;
