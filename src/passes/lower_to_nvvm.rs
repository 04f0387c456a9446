//! `--spmd-lower-to-nvvm` and `--spmd-lower-to-rocdl`: wave-level spmd IR
//! in `gpu.func`s becomes code in which every thread of an NVIDIA warp, or
//! every lane of an AMD wave, runs the wave-level program; see
//! [`crate::transforms::lower_to_nvvm`] for the mapping and its reasons.
//!
//! The pass checks the whole module before it edits anything: the
//! `wave-size` option, misplaced wave-level ops, Flow branches,
//! non-uniform branches, masks escaping into other ops, and convergence
//! tokens used by something other than child tokens. On failure every
//! problem has a diagnostic and the IR is unchanged.
//!
//! After the wave-level functions are lowered, the remaining spmd
//! constructs (tokens and markers, including those of thread-level
//! `gpu.func`s) are erased and discardable `spmd.*` attributes are
//! stripped, as `--spmd-lower-to-cf` does; unlike there, `spmd.*`
//! argument attributes of `gpu.func`s go too, so that nothing of the
//! dialect is left for the upstream tools.

use super::{
    lower_to_cf::{check_token_users, erase_token_ops, strip_spmd_attributes},
    PassOptions, PassOutcome, Report,
};
use crate::{
    ir::{diagnostics, edit, ods},
    transforms::{
        lower_to_nvvm::{
            check, intrinsics, lower_function, strip_spmd_argument_attributes, SpmdOp, Target,
        },
        prepare::op_name,
    },
};
use melior::ir::{
    operation::{OperationLike, WalkOrder},
    OperationRef,
};

/// Runs the pass on `root` (see the module docs): `Err(())`, with every
/// problem reported as a diagnostic and the IR unchanged, if the check of
/// the module fails.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    wave_size(root, options)?;
    lower(root, Target::Nvvm)
}

/// `--spmd-lower-to-rocdl`: as [`run`], for AMD waves of `wave-size`
/// lanes (default 64).
pub(crate) fn run_rocdl(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let wave_size = wave_size(root, options)?;
    lower(root, Target::Rocdl { wave_size })
}

fn lower(root: OperationRef<'_, '_>, target: Target) -> Result<PassOutcome, ()> {
    let context = crate::ir::query::context_of(root);
    let mut checker = check::Checker::default();
    let functions = check::wave_functions(root, &mut checker);
    for function in &functions {
        check::check_function(function, &mut checker);
    }
    let (tokens, markers) = tokens_and_markers(root);
    // Every token is checked (no short cut): each bad one gets its error.
    let mut tokens_ok = true;
    for token in &tokens {
        tokens_ok &= check_token_users(*token);
    }
    // convert-gpu-to-nvvm and -rocdl declare LLVM math intrinsics illegal.
    let math = intrinsics::find(root, target == Target::Nvvm);
    checker.finish()?;
    let math = math?;
    if !tokens_ok {
        return Err(());
    }
    for (op, rewrite) in math {
        intrinsics::rewrite(context, op, rewrite);
    }
    let mut outcome = PassOutcome::new(match target {
        Target::Nvvm => ods::spmd_lower_to_nvvm::STATISTICS,
        Target::Rocdl { .. } => ods::spmd_lower_to_rocdl::STATISTICS,
    });
    outcome.changed = true;
    outcome.add("functions", functions.len());
    outcome.add("tokens-erased", tokens.len());
    outcome.add("markers-erased", markers.len());
    for function in &functions {
        lower_function(context, function, target);
    }
    for marker in markers {
        // SAFETY: the distinct markers of the walk in `tokens_and_markers`;
        // a marker has no results and no regions, and the lowering above
        // only moves markers (guards), never erases them; `markers` is
        // consumed here.
        unsafe { edit::erase_operation(marker) };
    }
    erase_token_ops(tokens);
    strip_spmd_attributes(root);
    gpu_functions(root)
        .into_iter()
        .for_each(strip_spmd_argument_attributes);
    Ok(outcome)
}

/// The `wave-size` option (`default` when absent): 32 or 64 (the
/// wave-level input's; NVVM keeps one bit per thread either way).
fn wave_size(root: OperationRef<'_, '_>, options: &PassOptions) -> Result<u32, ()> {
    match options.unsigned("wave-size") {
        32 => Ok(32),
        64 => Ok(64),
        other => {
            let message = format!("wave-size={other} is not supported: waves of 32 or 64 lanes");
            diagnostics::emit_error(root.location(), &message);
            Err(())
        }
    }
}

/// Every convergence token op and reconvergence marker below `root`.
fn tokens_and_markers<'c, 'a>(
    root: OperationRef<'c, 'a>,
) -> (Vec<OperationRef<'c, 'a>>, Vec<OperationRef<'c, 'a>>) {
    let (mut tokens, mut markers) = (Vec::new(), Vec::new());
    crate::ir::query::for_each_op(root, WalkOrder::PreOrder, |op| {
        match SpmdOp::of(&op_name(op)) {
            Some(SpmdOp::Token) => tokens.push(op),
            Some(SpmdOp::Marker) => markers.push(op),
            _ => {}
        }
    });
    (tokens, markers)
}

/// Every `gpu.func` and `llvm.func` below `root`.
fn gpu_functions<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    crate::ir::query::collect_ops(root, WalkOrder::PreOrder, |op| {
        check::WAVE_FUNCTION_OPS.contains(&op_name(op).as_str())
    })
}
