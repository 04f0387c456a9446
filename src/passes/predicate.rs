//! `--spmd-predicate`: see [`crate::transforms::predicate`].

use super::{for_each_region, structurize::bool_option, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::transforms::predicate::{predicate_function, PredicateOptions};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let skip_empty_blocks = bool_option(root, options, "skip-empty-blocks", true)?;
    let options = PredicateOptions { skip_empty_blocks, uniformity };
    let context_ref = root.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context_ref.to_ref() };
    for_each_region(root, Scope::FunctionBodies, |function| {
        predicate_function(context, function.owner, function.region, &options).map(|_| ()).map_err(|error| {
            RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot predicate {}: {error}", function.label),
            }
        })
    })
}
