//! `--spmd-branch-fold`: see [`crate::transforms::branch_fold`].

use super::{for_each_region, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::{
    diagnostics,
    transforms::branch_fold::{fold_function, BranchFoldOptions},
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, report: &mut Report) -> Result<(), ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    if flag(root, options, "disable", false)? {
        return Ok(());
    }
    let fold_options = BranchFoldOptions {
        enable_tail_merge: flag(root, options, "enable-tail-merge", true)?,
        tail_merge_size: number(root, options, "tail-merge-size", 3)?,
        tail_merge_threshold: number(root, options, "tail-merge-threshold", 150)?,
        hoist_common_code: flag(root, options, "hoist-common-code", true)?,
        fold_operations: flag(root, options, "fold-operations", true)?,
        uniformity,
    };
    let stats = flag(root, options, "stats", false)?;
    let context_ref = root.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context_ref.to_ref() };
    for_each_region(root, Scope::FunctionBodies, |function| {
        let result = fold_function(context, function.owner, function.region, &fold_options)
            .map_err(|e| RegionFailure::cannot(function, "fold branches of", e))?;
        if stats {
            report.write(&result.render(&function.label));
        }
        Ok(())
    })
}

fn flag(root: OperationRef<'_, '_>, options: &PassOptions, key: &str, default: bool) -> Result<bool, ()> {
    match options.get(key) {
        None => Ok(default),
        Some("true" | "1") => Ok(true),
        Some("false" | "0") => Ok(false),
        Some(other) => {
            diagnostics::emit_error(root.location(), &format!("invalid value '{other}' for option '{key}': expected 'true' or 'false'"));
            Err(())
        }
    }
}

fn number(root: OperationRef<'_, '_>, options: &PassOptions, key: &str, default: usize) -> Result<usize, ()> {
    let Some(text) = options.get(key) else { return Ok(default) };
    text.parse().map_err(|_| {
        diagnostics::emit_error(
            root.location(),
            &format!("invalid value '{text}' for option '{key}': expected a non-negative integer"),
        );
    })
}
