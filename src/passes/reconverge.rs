//! `--spmd-reconverge`: see [`crate::transforms::reconverge`].

use super::{
    for_each_region, options::read, record_inserted_blocks, stat, uniformity_options, PassOptions,
    PassOutcome, RegionFailure, Report, Scope, Statistic,
};
use crate::transforms::{
    locations::{block_set, InsertedKind},
    reconverge::{reconverge_function, ReconvergeOptions},
};
use melior::ir::{operation::OperationLike, OperationRef};

/// The statistics of the pass (see `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = &[
    stat(
        "blocks-added",
        "Blocks added (Flow blocks, exit blocks, switch chains)",
    ),
    stat("flow-blocks", "Flow blocks inserted"),
    stat("divergent-branches", "Divergent branches made reconverging"),
    stat("uniform-branches-kept", "Uniform branches kept as they are"),
    stat(
        "switches-lowered",
        "Divergent switches lowered to two-way chains",
    ),
    stat("returns-unified", "Return blocks routed to one exit"),
    stat("infinite-loops", "Infinite loops given a never-taken exit"),
];

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let ordering = read::ordering(root, options, "dfpd")?;
    let selector_chain_length = read::number(root, options, "selector-chain-length", 4)?;
    let lane_branches = read::flag(root, options, "lane-branches", false)?;
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
