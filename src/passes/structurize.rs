//! `--spmd-structurize`: see [`crate::transforms::structurize`].

use super::{
    for_each_region, options::read, uniformity_options, verify_structured, CfgRegion, PassOptions, RegionFailure,
    Report, Scope,
};
use crate::{
    ir::{edit, region_graph::RegionGraph},
    transforms::{
        structurize::{structurize_function, IrreduciblePolicy, StructurizeOptions},
    },
};
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
    let context = crate::ir::query::context_of(root);
    for_each_region(root, Scope::FunctionBodies, |function| {
        reject_malformed_markers(function)?;
        structurize_function(context, function.owner, function.region, &options).map(|_| ()).map_err(|error| {
            RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot structurize {}: {error}", function.label),
            }
        })
    })
}

/// Markers already in the input are kept and extended: malformed ones would
/// make the output fail --spmd-verify-structured, so they are rejected up
/// front. The region is only snapshotted when it holds a marker (a scan in
/// C++ tells), so unmarked input pays one walk of its block list.
fn reject_malformed_markers<'c>(function: &CfgRegion<'c, '_>) -> Result<(), RegionFailure<'c>> {
    let num_blocks = edit::blocks(function.region).len();
    let (next_id, _) = crate::ir::facts::reconvergence_markers(function.region, num_blocks).expect("the block count is current");
    if next_id == 0 {
        return Ok(());
    }
    let graph = RegionGraph::snapshot(function.region).map_err(|e| RegionFailure::cannot(function, "structurize", e))?;
    match verify_structured::first_marker_error(&graph) {
        Some((location, message)) => Err(RegionFailure {
            location,
            message: format!("cannot structurize {}: the input's reconvergence markers are malformed: {message}", function.label),
        }),
        None => Ok(()),
    }
}
