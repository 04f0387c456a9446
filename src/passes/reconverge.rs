//! `--spmd-reconverge`: see [`crate::transforms::reconverge`].

use super::{
    for_each_region, options::read, record_inserted_blocks, uniformity_options, PassOptions,
    PassOutcome, RegionFailure, Report, Scope, Statistic,
};
use crate::transforms::{
    locations::{block_set, InsertedKind},
    reconverge::{reconverge_function, ReconvergeOptions},
};
use melior::ir::{operation::OperationLike, OperationRef};

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_reconverge::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let ordering = read::ordering(root, options)?;
    let selector_chain_length = options.unsigned("selector-chain-length") as usize;
    let lane_branches = options.flag("lane-branches");
    let options = ReconvergeOptions {
        ordering,
        uniformity,
        selector_chain_length,
        lane_branches,
    };
    let context = crate::ir::query::context_of(root);
    let mut outcome = PassOutcome::new(STATISTICS);
    for_each_region(root, Scope::FunctionBodies, |function| {
        let before = block_set(function.region);
        let stats = reconverge_function(context, function.owner, function.region, &options)
            .map_err(|error| RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot reconverge {}: {error}", function.label),
            })?;
        outcome.changed_if(stats.changed);
        record_inserted_blocks(
            context,
            function,
            &before,
            InsertedKind::Rejoin,
            &mut outcome,
        );
        outcome.add("flow-blocks", stats.flows);
        outcome.add("divergent-branches", stats.divergent_branches);
        outcome.add("uniform-branches-kept", stats.kept_uniform);
        outcome.add("switches-lowered", stats.switches_lowered);
        outcome.add("returns-unified", stats.returns_unified);
        outcome.add("infinite-loops", stats.infinite_loops);
        Ok(())
    })?;
    Ok(outcome)
}
