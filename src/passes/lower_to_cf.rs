//! `--spmd-lower-to-cf`: thread-level spmd control ops become plain `cf`.
//!
//! The output of `--spmd-reconverge` (or `--spmd-structurize`) is ordinary
//! thread-level code decorated with spmd ops that only matter to a wave-level
//! backend. Running one thread at a time (on a CPU, or in the JIT oracle of
//! `spmd_oracle::jit`) they mean:
//!
//! | op | thread-level meaning | lowering |
//! |---|---|---|
//! | `spmd.flow_br [loop] %c, ^t(..), ^f(..)` | a conditional branch | `cf.cond_br %c, ^t(..), ^f(..)` |
//! | `spmd.convergence.entry/anchor/loop` | a token nobody reads | erased, users (child tokens) first |
//! | `spmd.reconvergence.head/tail` | a marker | erased |
//! | any other `spmd.*` op (`exec.read/write`, `ballot`, `mask.*`, `exec.br_zero`) | needs the whole wave | error diagnostic, the pass fails |
//!
//! The pass checks everything before it edits anything: on failure (a
//! wave-level op, or a convergence token used by something other than a
//! child token) the IR is left untouched and every offending op gets a
//! diagnostic.
//!
//! Discardable `spmd.*` attributes on operations (`spmd.uniformity`,
//! `spmd.uniform`) are stripped: they describe the branches of a wave-level
//! schedule that no longer exists, and their values may be spmd dialect
//! attributes, which a tool without the spmd dialect (plain `mlir-opt`)
//! cannot parse. After the pass the output contains no spmd construct except
//! argument attributes such as `{spmd.divergent}`, which are unit attributes
//! any MLIR tool reads and which lowerings to LLVM carry along harmlessly.

use super::{PassOptions, PassOutcome, Report, Statistic};
use crate::ir::names;
use crate::{
    ir::{diagnostics, edit},
    transforms::prepare::op_name,
};
use melior::ir::{
    operation::{OperationLike, WalkOrder},
    OperationRef,
};

/// What the pass does with one spmd operation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lowering {
    /// `spmd.flow_br`: becomes `cf.cond_br`.
    FlowBranch,
    /// `spmd.convergence.*`: erased.
    Token,
    /// `spmd.reconvergence.head/tail`: erased.
    Marker,
    /// Any other spmd op: no thread-level meaning.
    WaveLevel,
}

impl Lowering {
    /// How `name` is lowered, or `None` for ops outside the spmd dialect.
    fn of(name: &str) -> Option<Self> {
        match name {
            names::FLOW_BR => Some(Self::FlowBranch),
            names::CONVERGENCE_ENTRY | names::CONVERGENCE_ANCHOR | names::CONVERGENCE_LOOP => {
                Some(Self::Token)
            }
            names::RECONVERGENCE_HEAD | names::RECONVERGENCE_TAIL => Some(Self::Marker),
            other if other.starts_with(names::SPMD_PREFIX) => Some(Self::WaveLevel),
            _ => None,
        }
    }
}

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_lower_to_cf::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    _: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let context = crate::ir::query::context_of(root);
    let ops = spmd_ops(root);
    check_lowerable(&ops)?;
    for &(lowering, op) in &ops {
        match lowering {
            Lowering::FlowBranch => {
                // SAFETY: a distinct op of the pre-order list, visited once,
                // with no regions (so no other listed op is inside it); the
                // walk is over, and from here on `ops` is only read for its
                // `Lowering` tags and its token ops, never flow branches.
                unsafe { edit::replace_flow_branch(context, op) };
            }
            // SAFETY: as for a flow branch; a marker has no results, and
            // `ops` is not read for its markers again.
            Lowering::Marker => unsafe { edit::erase_operation(op) },
            Lowering::Token | Lowering::WaveLevel => {}
        }
    }
    let mut outcome = PassOutcome::new(STATISTICS);
    let count = |kind: Lowering| ops.iter().filter(|(lowering, _)| *lowering == kind).count();
    outcome.add("flow-branches", count(Lowering::FlowBranch));
    outcome.add("tokens-erased", count(Lowering::Token));
    outcome.add("markers-erased", count(Lowering::Marker));
    erase_token_ops(
        ops.iter()
            .filter(|(lowering, _)| *lowering == Lowering::Token)
            .map(|(_, op)| *op)
            .collect(),
    );
    // Stripping attributes may change the IR even without spmd ops.
    outcome.changed = true;
    strip_spmd_attributes(root);
    Ok(outcome)
}

/// Every spmd operation at or below `root`, in pre-order, with its lowering.
fn spmd_ops<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<(Lowering, OperationRef<'c, 'a>)> {
    let mut found = Vec::new();
    crate::ir::query::for_each_op(root, WalkOrder::PreOrder, |op| {
        if let Some(lowering) = Lowering::of(&op_name(op)) {
            found.push((lowering, op));
        }
    });
    found
}

/// Reports every op the pass cannot lower; fails if there is one.
fn check_lowerable(ops: &[(Lowering, OperationRef<'_, '_>)]) -> Result<(), ()> {
    let mut lowerable = true;
    for (lowering, op) in ops {
        match lowering {
            Lowering::WaveLevel => {
                let message = format!(
                    "wave-level op '{}' has no thread-level lowering",
                    op_name(*op)
                );
                diagnostics::emit_error(op.location(), &message);
                lowerable = false;
            }
            Lowering::Token => lowerable &= check_token_users(*op),
            Lowering::FlowBranch | Lowering::Marker => {}
        }
    }
    if lowerable {
        Ok(())
    } else {
        Err(())
    }
}

/// A token may only feed child tokens (`spmd.convergence.loop`), which are
/// erased with it. Reports any other user; true if there is none.
pub(crate) fn check_token_users(token_op: OperationRef<'_, '_>) -> bool {
    let mut only_tokens = true;
    for result in token_op.results() {
        for user in edit::users(result.into()) {
            if Lowering::of(&op_name(user)) != Some(Lowering::Token) {
                let message = format!(
                    "cannot lower convergence token of '{}': it is used by '{}'",
                    op_name(token_op),
                    op_name(user)
                );
                diagnostics::emit_error(user.location(), &message);
                only_tokens = false;
            }
        }
    }
    only_tokens
}

/// Erases the token ops, each after the child tokens that use it. The
/// ops must be distinct, and the caller must use no handle to them
/// afterwards (they are erased as by [`edit::erase_operation`]).
pub(crate) fn erase_token_ops(mut pending: Vec<OperationRef<'_, '_>>) {
    while !pending.is_empty() {
        let (unused, used): (Vec<_>, Vec<_>) = pending.into_iter().partition(|op| !has_uses(*op));
        assert!(
            !unused.is_empty(),
            "convergence tokens form a forest, so some token is unused"
        );
        for op in unused {
            // SAFETY: its results are unused (just checked), tokens have no
            // regions, and each handle leaves `pending` here, so it is
            // erased once; the callers pass the distinct token ops of one
            // walk and use none of them afterwards.
            unsafe { edit::erase_operation(op) };
        }
        pending = used;
    }
}

/// Erases the convergence token ops at or below `root` that have no users,
/// children before the parents they leave unused; tokens that something
/// else uses stay. Returns how many were erased. The caller must use no
/// handle to an erased token op afterwards.
pub(crate) fn erase_unused_token_ops(root: OperationRef<'_, '_>) -> usize {
    let mut pending: Vec<OperationRef<'_, '_>> = spmd_ops(root)
        .into_iter()
        .filter(|(lowering, _)| *lowering == Lowering::Token)
        .map(|(_, op)| op)
        .collect();
    let mut erased = 0;
    loop {
        let (unused, used): (Vec<_>, Vec<_>) = pending.into_iter().partition(|op| !has_uses(*op));
        if unused.is_empty() {
            return erased;
        }
        erased += unused.len();
        for op in unused {
            // SAFETY: its results are unused (just checked), tokens have no
            // regions, and each handle leaves `pending` here, so it is
            // erased once; the handles come from the walk above and never
            // leave this function.
            unsafe { edit::erase_operation(op) };
        }
        pending = used;
    }
}

fn has_uses(op: OperationRef<'_, '_>) -> bool {
    op.results().any(|result| edit::is_used(result.into()))
}

/// Removes every discardable `spmd.*` attribute at or below `root`.
pub(crate) fn strip_spmd_attributes(root: OperationRef<'_, '_>) {
    crate::ir::query::for_each_op(root, WalkOrder::PreOrder, |op| {
        edit::remove_attributes_with_prefix(op, crate::ir::names::SPMD_PREFIX)
    });
}
