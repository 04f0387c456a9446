//! The shell shared by the two hub passes (`--spmd-fix-irreducible`,
//! `--spmd-unify-loop-exits`): plan hubs with a planner of
//! [`crate::transforms::hubs`], apply them round after round with the Flow
//! engine, give the inserted guard blocks locations and count.

use super::{for_each_region, PassOutcome, RegionFailure, Scope};
use crate::transforms::{
    flow::plan::HubSpec,
    hubs::run_rounds,
    locations::{block_set, relocate_inserted_blocks, InsertedKind},
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the hub `planner` on every function body below `root`; `verb`
/// words the failure ("cannot {verb} @f: ..."), and `hubs_statistic` names
/// the statistic that counts the hubs.
pub(super) fn run_hub_pass(
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
        let stats = run_rounds(context, function.region, location, planner).map_err(|error| {
            RegionFailure {
                location: error.location(location),
                message: format!("cannot {verb} {}: {error}", function.label),
            }
        })?;
        outcome.changed_if(stats.hubs > 0 || stats.rounds > 0);
        relocate_inserted_blocks(
            context,
            function.owner,
            function.region,
            &before,
            InsertedKind::Guard,
        );
        outcome.add(hubs_statistic, stats.hubs);
        outcome.add("guard-blocks", stats.guards);
        outcome.add("edges-redirected", stats.redirected_slots);
        Ok(())
    })?;
    Ok(outcome)
}
