//! `--spmd-fix-irreducible` and `--spmd-unify-loop-exits`: see
//! [`crate::transforms::hubs`].

use super::{for_each_region, stat, PassOptions, PassOutcome, RegionFailure, Report, Scope, Statistic};
use crate::transforms::{locations::{block_set, relocate_inserted_blocks, InsertedKind}, hubs::{fix_irreducible::irreducible_hubs, run_rounds, unify_loop_exits::loop_exit_hubs}, flow::plan::HubSpec};
use melior::ir::{operation::OperationLike, OperationRef};

/// The statistics of `--spmd-fix-irreducible` (see `SpmdPasses.td`).
pub const FIX_IRREDUCIBLE_STATISTICS: &[Statistic] = &[
    stat("irreducible-cycles", "Irreducible cycles made reducible (one hub each)"),
    stat("guard-blocks", "Guard blocks inserted"),
    stat("edges-redirected", "Edges routed through a hub"),
];

/// The statistics of `--spmd-unify-loop-exits` (see `SpmdPasses.td`).
pub const UNIFY_LOOP_EXITS_STATISTICS: &[Statistic] = &[
    stat("loops-unified", "Loops given a single exit block (one hub each)"),
    stat("guard-blocks", "Guard blocks inserted"),
    stat("edges-redirected", "Edges routed through a hub"),
];

/// Runs `--spmd-fix-irreducible` on `root`.
pub fn run_fix_irreducible(root: OperationRef<'_, '_>, _: &PassOptions, _: &mut Report) -> Result<PassOutcome, ()> {
    let outcome = PassOutcome::new(FIX_IRREDUCIBLE_STATISTICS);
    run_hub_pass(root, "make the cycles of", irreducible_hubs, outcome, "irreducible-cycles")
}

/// Runs `--spmd-unify-loop-exits` on `root`.
pub fn run_unify_loop_exits(root: OperationRef<'_, '_>, _: &PassOptions, _: &mut Report) -> Result<PassOutcome, ()> {
    let outcome = PassOutcome::new(UNIFY_LOOP_EXITS_STATISTICS);
    run_hub_pass(root, "unify the loop exits of", loop_exit_hubs, outcome, "loops-unified")
}

fn run_hub_pass(
    root: OperationRef<'_, '_>,
    verb: &str,
    planner: fn(&crate::analysis::cfg::CfgGraph) -> Vec<HubSpec>,
    mut outcome: PassOutcome,
    hubs_statistic: &str,
) -> Result<PassOutcome, ()> {
    let context = crate::ir::query::context_of(root);
    for_each_region(root, Scope::FunctionBodies, |function| {
        let location = function.owner.location();
        let before = block_set(function.region);
        let stats = run_rounds(context, function.region, location, planner).map_err(|error| RegionFailure {
            location: error.location(location),
            message: format!("cannot {verb} {}: {error}", function.label),
        })?;
        outcome.changed_if(stats.hubs > 0 || stats.rounds > 0);
        relocate_inserted_blocks(context, function.owner, function.region, &before, InsertedKind::Guard);
        outcome.add(hubs_statistic, stats.hubs);
        outcome.add("guard-blocks", stats.guards);
        outcome.add("edges-redirected", stats.redirected_slots);
        Ok(())
    })?;
    Ok(outcome)
}
