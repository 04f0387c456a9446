//! `--spmd-branch-fold`: see [`crate::transforms::branch_fold`].

use super::{
    for_each_region, options::read, stat, uniformity_options, PassOptions, PassOutcome,
    RegionFailure, Report, Scope, Statistic,
};
use crate::transforms::{
    branch_fold::{fold_function, BranchFoldOptions},
    locations::{block_set, relocate_inserted_blocks, InsertedKind},
};
use melior::ir::OperationRef;

/// The statistics of the pass (see `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = &[
    stat(
        "blocks-removed",
        "Blocks removed (net, per function, never below 0)",
    ),
    stat(
        "ops-removed",
        "Operations removed (net, per function, never below 0)",
    ),
    stat(
        "branches-folded",
        "Conditional branches folded into unconditional ones",
    ),
    stat("blocks-merged", "Blocks merged into their only predecessor"),
    stat("tails-merged", "Common tails merged"),
    stat("ops-hoisted", "Operations hoisted above a branch"),
    stat(
        "regions-dissolved",
        "Divergent regions dissolved (head and tails erased)",
    ),
    stat(
        "refused-by-gate",
        "CFG edits refused by the reconvergence gate",
    ),
];

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    report: &mut Report,
) -> Result<PassOutcome, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let mut outcome = PassOutcome::new(STATISTICS);
    if read::flag(root, options, "disable", false)? {
        return Ok(outcome);
    }
    let fold_options = BranchFoldOptions {
        enable_tail_merge: read::flag(root, options, "enable-tail-merge", true)?,
        tail_merge_size: read::number(root, options, "tail-merge-size", 3)?,
        tail_merge_threshold: read::number(root, options, "tail-merge-threshold", 150)?,
        hoist_common_code: read::flag(root, options, "hoist-common-code", true)?,
        fold_operations: read::flag(root, options, "fold-operations", true)?,
        uniformity,
    };
    let stats = read::flag(root, options, "stats", false)?;
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
