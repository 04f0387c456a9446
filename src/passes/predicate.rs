//! `--spmd-predicate`: see [`crate::transforms::predicate`].

use super::{for_each_region, options::read, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::{ir::diagnostics, transforms::predicate::{predicate_function, valid_wave_size, PredicateOptions}};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let skip_empty_blocks = read::flag(root, options, "skip-empty-blocks", true)?;
    let wave_size_text = options.get_or("wave-size", "32");
    let Some(wave_size) = wave_size_text.parse::<u32>().ok().filter(|&size| valid_wave_size(size)) else {
        diagnostics::emit_error(
            root.location(),
            &format!(
                "invalid value '{wave_size_text}' for option 'wave-size': expected a power of two from 1 to 64 (an exec mask holds at most 64 lanes)"
            ),
        );
        return Err(());
    };
    let options = PredicateOptions { skip_empty_blocks, wave_size, uniformity };
    let context = crate::ir::query::context_of(root);
    for_each_region(root, Scope::FunctionBodies, |function| {
        predicate_function(context, function.owner, function.region, &options).map(|_| ()).map_err(|error| {
            RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot predicate {}: {error}", function.label),
            }
        })
    })
}
