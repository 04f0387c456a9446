//! Constant hoisting, shared by `--spmd-predicate` and
//! `--spmd-branch-fold`.
//!
//! `arith.constant`, `ub.poison` and the LLVM dialect's constants
//! (`llvm.mlir.constant`, `zero`, `poison`, `undef`), without operands or
//! regions, are pure and position-independent, and the entry block dominates every block, so
//! moving them to the start of the entry block is always valid:
//!
//! ```text
//!   ^entry: a; b; br ^x          ^entry: %c = const 1; a; b; br ^x
//!   ^x: %c = const 1; use %c ==> ^x: use %c
//! ```
//!
//! The two transforms want it for different reasons, which decide the
//! parameters ([`Hoisting`]):
//!
//! * `--spmd-predicate`: a value defined in the entry block is never
//!   recomputed while lanes are parked, so it never needs to be kept for
//!   them. Constants move as they are, in region order, before the entry
//!   block's first operation ([`Placement::InRegionOrder`], no merging).
//! * `--spmd-branch-fold`: hoisting leaves blocks that only materialized a
//!   predicate or a phi input for a Flow block empty, which its other
//!   rules then remove. It also erases unused constants and merges equal
//!   ones ([`facts::constant_key`]), in the entry block into the first
//!   one and elsewhere into the one already in the entry block; each
//!   constant it moves becomes the entry block's first operation
//!   ([`Placement::Front`], so moved constants end up in reverse order).
//!   It never hoists into a Flow entry block, which must stay empty (its
//!   own check, before calling [`hoist_constants`]).

use crate::ir::{edit, facts, names};
use crate::transforms::prepare::op_name;
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef};
use std::collections::HashMap;

/// Where a hoisted constant goes in the entry block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Before the operation that was first in the entry block when the
    /// moves began: moved constants keep their region order. Nothing moves
    /// if the entry block is empty.
    InRegionOrder,
    /// Before the entry block's current first operation (at its end if it
    /// is empty): each moved constant becomes the first operation.
    Front,
}

/// How [`hoist_constants`] hoists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hoisting {
    /// Where moved constants go.
    pub(crate) placement: Placement,
    /// Erase unused constants and merge equal ones (see the module docs)
    /// instead of only moving them.
    pub(crate) merge: bool,
}

/// The constants [`hoist_constants`] moves: pure, without operands, and
/// the same value wherever they are computed. The LLVM dialect's are what
/// `mlir-translate --import-llvm` gives (a kernel imported from clang
/// materializes `llvm.mlir.constant` next to each use).
const CONSTANT_OPS: [&str; 6] = [
    names::ARITH_CONSTANT,
    names::UB_POISON,
    names::LLVM_CONSTANT,
    "llvm.mlir.zero",
    "llvm.mlir.poison",
    "llvm.mlir.undef",
];

/// True if `op` is a constant that [`hoist_constants`] moves: one of
/// [`CONSTANT_OPS`] without operands or regions.
pub(crate) fn is_constant(op: OperationRef<'_, '_>) -> bool {
    CONSTANT_OPS.contains(&op_name(op).as_str())
        && op.region_count() == 0
        && op.operand_count() == 0
}

/// Hoists the constants of the top level of `later` (the blocks after the
/// entry, in region order; `entry` must not be among them) into `entry`,
/// as `how` says (see the module docs). Returns the number of constants
/// moved, merged or erased. With `how.merge`, the caller must use no
/// handle to a constant of these blocks (or its result) afterwards: it may
/// have been erased.
pub(crate) fn hoist_constants<'c, 'a>(
    entry: BlockRef<'c, 'a>,
    later: impl IntoIterator<Item = BlockRef<'c, 'a>>,
    how: Hoisting,
) -> usize {
    let mut count = 0;
    let mut pool: Option<HashMap<facts::ConstantKey, OperationRef<'c, 'a>>> = None;
    if how.merge {
        // Unused constants of the entry block go; equal ones (the folding
        // step materializes its own) merge into the first one.
        let mut unique = HashMap::new();
        for op in edit::operations(entry)
            .into_iter()
            .filter(|op| is_constant(*op))
        {
            if !edit::is_used(op.result(0).unwrap().into()) {
                // SAFETY: an unused constant (one result, no regions) of
                // this snapshot, visited once and never put in `unique`;
                // the caller holds no handle to it (see the docs).
                unsafe { edit::erase_operation(op) };
                count += 1;
                continue;
            }
            match unique.get(&facts::constant_key(op)) {
                Some(known) => {
                    replace_by(op, *known);
                    count += 1;
                }
                None => {
                    unique.insert(facts::constant_key(op), op);
                }
            }
        }
        pool = Some(unique);
    }
    let anchor = entry.first_operation();
    if how.placement == Placement::InRegionOrder && anchor.is_none() {
        return count;
    }
    for block in later {
        assert!(block != entry, "`later` holds the blocks after the entry");
        for op in edit::operations(block) {
            if !is_constant(op) {
                continue;
            }
            count += 1;
            if let Some(pool) = &pool {
                if !edit::is_used(op.result(0).unwrap().into()) {
                    // SAFETY: an unused constant (one result, no regions) of
                    // a later block's snapshot, visited once and never put
                    // in the pool; it is not `anchor`, which is in `entry`;
                    // the caller holds no handle to it (see the docs).
                    unsafe { edit::erase_operation(op) };
                    continue;
                }
                if let Some(known) = pool.get(&facts::constant_key(op)) {
                    replace_by(op, *known);
                    continue;
                }
            }
            match (how.placement, anchor, entry.first_operation()) {
                (Placement::InRegionOrder, Some(anchor), _)
                | (Placement::Front, _, Some(anchor)) => edit::move_before(op, anchor),
                _ => edit::move_to_end(op, entry),
            }
            if let Some(pool) = &mut pool {
                pool.insert(facts::constant_key(op), op);
            }
        }
    }
    count
}

/// Replaces the uses of the constant `op` by those of the equal `known`
/// (another op) and erases `op`; the caller must use no handle to `op`
/// afterwards.
fn replace_by(op: OperationRef<'_, '_>, known: OperationRef<'_, '_>) {
    assert!(op != known, "a constant is not merged into itself");
    edit::replace_all_uses(
        op.result(0).unwrap().into(),
        known.result(0).unwrap().into(),
    );
    // SAFETY: a constant (one result, no regions) whose result was just
    // replaced by that of `known`, a different op, so it is unused. Both
    // callers pass the op their snapshot loop is visiting, which is never
    // in `unique` or the pool (the only places keeping constants), and
    // move on to the next op.
    unsafe { edit::erase_operation(op) };
}
