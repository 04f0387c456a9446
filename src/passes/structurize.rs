//! `--spmd-structurize`: see [`crate::transforms::structurize`].

use super::{
    for_each_region, options::read, record_inserted_blocks, uniformity_options, verify_structured,
    CfgRegion, PassOptions, PassOutcome, RegionFailure, Report, Scope, Statistic,
};
use crate::{
    ir::{edit, region_graph::RegionGraph},
    transforms::{
        locations::{block_set, InsertedKind},
        structurize::{structurize_function, IrreduciblePolicy, StructurizeOptions},
    },
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Parses the pass options.
fn parse_options(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
) -> Result<StructurizeOptions, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let irreducible = read::choice(
        root,
        options,
        "irreducible",
        IrreduciblePolicy::parse,
        "'reject' or 'fix'",
    )?;
    let ordering = read::ordering(root, options)?;
    let selector_chain_length = options.unsigned("selector-chain-length") as usize;
    Ok(StructurizeOptions {
        selector_chain_length,
        skip_uniform_regions: options.flag("skip-uniform-regions"),
        relaxed_uniform_regions: options.flag("relaxed-uniform-regions"),
        irreducible,
        ordering,
        uniformity,
    })
}

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_structurize::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let options = parse_options(root, options)?;
    let context = crate::ir::query::context_of(root);
    let mut outcome = PassOutcome::new(STATISTICS);
    for_each_region(root, Scope::FunctionBodies, |function| {
        let mut timer = crate::support::PhaseTimer::new("structurize pass");
        reject_malformed_markers(function)?;
        timer.lap("markers");
        let before = block_set(function.region);
        timer.lap("block set");
        let stats = structurize_function(context, function.owner, function.region, &options)
            .map_err(|error| RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot structurize {}: {error}", function.label),
            })?;
        timer.lap("structurize_function");
        outcome.changed_if(stats.changed);
        record_inserted_blocks(
            context,
            function,
            &before,
            InsertedKind::Rejoin,
            &mut outcome,
        );
        timer.lap("record");
        outcome.add("flow-blocks", stats.flows);
        outcome.add("divergent-branches", stats.regions);
        outcome.add("uniform-branches-kept", stats.kept_uniform);
        outcome.add("irreducible-cycles", stats.irreducible.hubs);
        outcome.add("guard-blocks", stats.irreducible.guards);
        outcome.add("switches-lowered", stats.switches_lowered);
        outcome.add("infinite-loops", stats.infinite_loops);
        Ok(())
    })?;
    Ok(outcome)
}

/// Markers already in the input are kept and extended: malformed ones would
/// make the output fail --spmd-verify-structured, so they are rejected up
/// front. The region is only snapshotted when it holds a marker (a scan in
/// C++ tells), so unmarked input pays one walk of its block list.
fn reject_malformed_markers<'c>(function: &CfgRegion<'c, '_>) -> Result<(), RegionFailure<'c>> {
    let num_blocks = edit::blocks(function.region).len();
    let (next_id, _) = crate::ir::facts::reconvergence_markers(function.region, num_blocks)
        .expect("the block count is current");
    if next_id == 0 {
        return Ok(());
    }
    let graph = RegionGraph::snapshot(function.region)
        .map_err(|e| RegionFailure::cannot(function, "structurize", e))?;
    match verify_structured::first_marker_error(&graph) {
        Some((location, message)) => Err(RegionFailure {
            location,
            message: format!(
                "cannot structurize {}: the input's reconvergence markers are malformed: {message}",
                function.label
            ),
        }),
        None => Ok(()),
    }
}
