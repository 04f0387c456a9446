//! `--spmd-reconverge`: see [`crate::transforms::reconverge`].

use super::{for_each_region, options::read, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::transforms::reconverge::{reconverge_function, ReconvergeOptions};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let ordering = read::ordering(root, options, "dfpd")?;
    let selector_chain_length = read::number(root, options, "selector-chain-length", 4)?;
    let options = ReconvergeOptions { ordering, uniformity, selector_chain_length };
    let context = crate::ir::query::context_of(root);
    for_each_region(root, Scope::FunctionBodies, |function| {
        reconverge_function(context, function.owner, function.region, &options).map(|_| ()).map_err(|error| {
            RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot reconverge {}: {error}", function.label),
            }
        })
    })
}
