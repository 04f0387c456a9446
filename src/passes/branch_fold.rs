//! `--spmd-branch-fold`: see [`crate::transforms::branch_fold`].

use super::{
    for_each_region, uniformity_options, PassOptions, PassOutcome, RegionFailure, Report, Scope,
    Statistic,
};
use crate::transforms::{
    branch_fold::{fold_function, BranchFoldOptions},
    locations::{block_set, relocate_inserted_blocks, InsertedKind},
};
use melior::ir::OperationRef;

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_branch_fold::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    report: &mut Report,
) -> Result<PassOutcome, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let mut outcome = PassOutcome::new(STATISTICS);
    if options.flag("disable") {
        return Ok(outcome);
    }
    let fold_options = BranchFoldOptions {
        enable_tail_merge: options.flag("enable-tail-merge"),
        tail_merge_size: options.unsigned("tail-merge-size") as usize,
        tail_merge_threshold: options.unsigned("tail-merge-threshold") as usize,
        hoist_common_code: options.flag("hoist-common-code"),
        fold_operations: options.flag("fold-operations"),
        uniformity,
    };
    let stats = options.flag("stats");
    let context = crate::ir::query::context_of(root);
    for_each_region(root, Scope::FunctionBodies, |function| {
        let before = block_set(function.region);
        let result = fold_function(context, function.owner, function.region, &fold_options)
            .map_err(|e| RegionFailure::cannot(function, "fold branches of", e))?;
        if stats {
            report.write(&result.render(&function.label));
        }
        // Conservative: any rule that fired, or a net change, means the IR
        // changed (FoldOperations may rewrite without changing counts).
        outcome.changed_if(true);
        relocate_inserted_blocks(
            context,
            function.owner,
            function.region,
            &before,
            InsertedKind::Tail,
        );
        outcome.add("blocks-removed", result.blocks_removed().max(0) as usize);
        outcome.add("ops-removed", result.ops_removed().max(0) as usize);
        outcome.add("branches-folded", result.branches_folded);
        outcome.add("blocks-merged", result.blocks_merged);
        outcome.add("tails-merged", result.tails_merged);
        outcome.add("ops-hoisted", result.ops_hoisted);
        outcome.add("regions-dissolved", result.regions_dissolved);
        outcome.add("refused-by-gate", result.refused_property);
        Ok(())
    })?;
    Ok(outcome)
}
