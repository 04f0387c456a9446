//! `--spmd-fix-irreducible` and `--spmd-unify-loop-exits`: see
//! [`crate::transforms::hubs`].

use super::{for_each_region, PassOptions, RegionFailure, Report, Scope};
use crate::transforms::{hubs::{fix_irreducible::irreducible_hubs, run_rounds, unify_loop_exits::loop_exit_hubs}, flow::plan::HubSpec};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs `--spmd-fix-irreducible` on `root`.
pub fn run_fix_irreducible(root: OperationRef<'_, '_>, _: &PassOptions, _: &mut Report) -> Result<(), ()> {
    run_hub_pass(root, "make the cycles of", irreducible_hubs)
}

/// Runs `--spmd-unify-loop-exits` on `root`.
pub fn run_unify_loop_exits(root: OperationRef<'_, '_>, _: &PassOptions, _: &mut Report) -> Result<(), ()> {
    run_hub_pass(root, "unify the loop exits of", loop_exit_hubs)
}

fn run_hub_pass(root: OperationRef<'_, '_>, verb: &str, planner: fn(&crate::analysis::cfg::CfgGraph) -> Vec<HubSpec>) -> Result<(), ()> {
    let context = crate::ir::query::context_of(root);
    for_each_region(root, Scope::FunctionBodies, |function| {
        let location = function.owner.location();
        run_rounds(context, function.region, location, planner)
            .map(|_| ())
            .map_err(|error| RegionFailure {
                location: error.location(location),
                message: format!("cannot {verb} {}: {error}", function.label),
            })
    })
}
