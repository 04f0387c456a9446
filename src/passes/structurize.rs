//! `--spmd-structurize`: see [`crate::transforms::structurize`].

use super::{for_each_region, options::read, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::transforms::structurize::{structurize_function, IrreduciblePolicy, StructurizeOptions};
use melior::ir::{operation::OperationLike, OperationRef};

/// Parses the pass options.
fn parse_options(root: OperationRef<'_, '_>, options: &PassOptions) -> Result<StructurizeOptions, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let irreducible =
        read::choice(root, options, "irreducible", "reject", IrreduciblePolicy::parse, "'reject' or 'fix'")?;
    let ordering = read::ordering(root, options, "rpot")?;
    let selector_chain_length = read::number(root, options, "selector-chain-length", 4)?;
    Ok(StructurizeOptions {
        selector_chain_length,
        skip_uniform_regions: read::flag(root, options, "skip-uniform-regions", false)?,
        relaxed_uniform_regions: read::flag(root, options, "relaxed-uniform-regions", true)?,
        irreducible,
        ordering,
        uniformity,
    })
}

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let options = parse_options(root, options)?;
    let context_ref = root.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context_ref.to_ref() };
    for_each_region(root, Scope::FunctionBodies, |function| {
        structurize_function(context, function.owner, function.region, &options).map(|_| ()).map_err(|error| {
            RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot structurize {}: {error}", function.label),
            }
        })
    })
}
