//! `--spmd-predicate`: see [`crate::transforms::predicate`].

use super::{
    for_each_region, lower_to_cf::erase_unused_token_ops, record_inserted_blocks,
    uniformity_options, PassOptions, PassOutcome, RegionFailure, Report, Scope, Statistic,
};
use crate::ir::names;
use crate::{
    ir::diagnostics,
    transforms::{
        locations::{block_set, InsertedKind},
        predicate::{predicate_function, valid_wave_size, PredicateOptions},
        prepare::op_name,
    },
};
use melior::ir::{
    operation::{OperationLike, WalkOrder, WalkResult},
    OperationRef,
};

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_predicate::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let skip_empty_blocks = options.flag("skip-empty-blocks");
    let lane_branches = options.flag("lane-branches");
    let wave_size = options.unsigned("wave-size");
    if !valid_wave_size(wave_size) {
        diagnostics::emit_error(
            root.location(),
            &format!(
                "invalid value '{wave_size}' for option 'wave-size': expected a power of two from 1 to 64 (an exec mask holds at most 64 lanes)"
            ),
        );
        return Err(());
    }
    let options = PredicateOptions {
        skip_empty_blocks,
        wave_size,
        uniformity,
        lane_branches,
    };
    let context = crate::ir::query::context_of(root);
    let mut outcome = PassOutcome::new(STATISTICS);
    for_each_region(root, Scope::FunctionBodies, |function| {
        let before = block_set(function.region);
        let stats = predicate_function(context, function.owner, function.region, &options)
            .map_err(|error| RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot predicate {}: {error}", function.label),
            })?;
        // Wave-level code needs no convergence token: the wave is converged
        // wherever it runs (see the pass description).
        outcome.add("tokens-removed", erase_unused_token_ops(function.owner));
        outcome.changed = true;
        record_inserted_blocks(
            context,
            function,
            &before,
            InsertedKind::Rejoin,
            &mut outcome,
        );
        outcome.add("divergent-branches", stats.divergent_branches);
        outcome.add("rejoin-points", stats.rejoin_points);
        outcome.add("lane-branches", stats.lane_branches);
        let (masks, ballots) = count_wave_ops(function.owner);
        outcome.add("mask-ops", masks);
        outcome.add("ballots", ballots);
        Ok(())
    })?;
    Ok(outcome)
}

/// The exec-mask operations and ballots at or below `function`.
fn count_wave_ops(function: OperationRef<'_, '_>) -> (usize, usize) {
    let (mut masks, mut ballots) = (0, 0);
    function.walk(WalkOrder::PreOrder, |op| {
        let name = op_name(op);
        if name == names::BALLOT {
            ballots += 1;
        } else if name.starts_with(names::EXEC_PREFIX) || name.starts_with("spmd.mask.") {
            masks += 1;
        }
        WalkResult::Advance
    });
    (masks, ballots)
}
