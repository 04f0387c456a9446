//! `--spmd-branch-fold`: see [`crate::transforms::branch_fold`].

use super::{for_each_region, options::read, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::transforms::branch_fold::{fold_function, BranchFoldOptions};
use melior::ir::OperationRef;

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, report: &mut Report) -> Result<(), ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    if read::flag(root, options, "disable", false)? {
        return Ok(());
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
        let result = fold_function(context, function.owner, function.region, &fold_options)
            .map_err(|e| RegionFailure::cannot(function, "fold branches of", e))?;
        if stats {
            report.write(&result.render(&function.label));
        }
        Ok(())
    })
}

