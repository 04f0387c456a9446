//! HoistCommonCode: identical leading operations of both successors of a
//! conditional branch move in front of the branch.
//!
//! ```text
//!  ^p: ...; cond_br %c, ^s1, ^s2             ^p: ...; a = f(x); store a, m[i]; cond_br %c, ^s1, ^s2
//!  ^s1: a = f(x); store a, m[i]; u    ==>    ^s1: u
//!  ^s2: b = f(x); store b, m[i]; v           ^s2: v[b := a]
//! ```
//!
//! Applies when the branch is a `cf.cond_br` (never a Flow block's
//! `spmd.flow_br`: Flow blocks must hold nothing but their terminator)
//! with two different successors that have no other predecessor. The
//! prefix extends while both operations have the same shape, are
//! hoistable ([`super::safety::is_hoistable`]: no convergent operation,
//! no special-register read, no atomics or calls) and their operands
//! correspond: results of the same earlier prefix operation, or the very
//! same value defined outside both successors (which then dominates the
//! branch). Because each successor has the branch as its only
//! predecessor, every thread that reaches the branch runs exactly this
//! prefix right after it, so running it right before is the same
//! per-thread computation (see [`super::safety`] for stores). The CFG does
//! not change, so the property gate has nothing to check.

use super::{block_key, edit, prepare, safety, same_shape, EditKey, Folder, Refusal, Round};
use crate::ir::{key::BlockKey, names};
use crate::{analysis::cfg::BlockId, ir::region_graph::RegionGraphError};
use melior::ir::{operation::OperationLike, BlockRef, OperationRef, Value};

/// Hoists the common prefix of every eligible branch whose blocks no
/// earlier hoist of the round touched; false if none.
pub(crate) fn hoist_round<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
) -> Result<bool, RegionGraphError<'c>> {
    let mut round = Round::new(folder.view()?);
    let mut changed = false;
    for index in 0..round.view.num_blocks() {
        changed |= hoist_at(folder, &mut round, BlockId::new(index));
    }
    Ok(changed)
}

/// Hoists the common prefix of the two successors of `block`'s
/// `cf.cond_br` in front of the branch; false if nothing moved.
fn hoist_at<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    round: &mut Round<'c, 'a>,
    block: BlockId,
) -> bool {
    let view = &round.view;
    let branch = view.terminator(block);
    if prepare::op_name(branch) != names::CF_COND_BR {
        return false;
    }
    let (Ok(s1), Ok(s2)) = (branch.successor(0), branch.successor(1)) else {
        return false;
    };
    let (Some(id1), Some(id2)) = (view.id(s1), view.id(s2)) else {
        return false;
    };
    if id1 == id2
        || id1 == block
        || id2 == block
        || view.predecessors(id1).len() != 1
        || view.predecessors(id2).len() != 1
    {
        return false;
    }
    if !round.untouched(&[block, id1, id2]) {
        return false;
    }
    let ops1 = edit::operations(s1);
    let ops2 = edit::operations(s2);
    let (body1, body2) = (&ops1[..ops1.len() - 1], &ops2[..ops2.len() - 1]);
    let count = common_prefix(folder, view.block(block), [s1, s2], body1, body2);
    if count == 0 {
        return false;
    }
    round.write(&[block, id1, id2]);
    for k in 0..count {
        edit::move_before(body1[k], branch);
        for r in 0..body1[k].result_count() {
            edit::replace_all_uses(
                body2[k].result(r).unwrap().into(),
                body1[k].result(r).unwrap().into(),
            );
        }
        // SAFETY: its results were just replaced by those of its twin
        // `body1[k]` (a different op, in the other successor); it is
        // visited once, later iterations only read `body1`/`body2` at other
        // indices, and the slices are not used after the loop. This edit
        // claimed `s2` (`round.write`), and `view` keeps no ops but
        // terminators.
        unsafe { edit::erase_operation(body2[k]) };
    }
    folder.stats.ops_hoisted += count;
    folder.edits += 1;
    true
}

/// The length of the common hoistable prefix of `body1` and `body2`, the
/// bodies of `s1` and `s2`, the successors of `branch_block`'s branch;
/// refuses (for the report) when a convergent operation or a
/// special-register read stops it.
fn common_prefix<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    branch_block: BlockRef<'c, 'a>,
    [s1, s2]: [BlockRef<'c, 'a>; 2],
    body1: &[OperationRef<'c, 'a>],
    body2: &[OperationRef<'c, 'a>],
) -> usize {
    let (key1, key2) = (block_key(s1), block_key(s2));
    let mut count = 0;
    while count < body1.len().min(body2.len()) {
        let (o1, o2) = (body1[count], body2[count]);
        if !same_shape(o1, o2) {
            break;
        }
        let name = prepare::op_name(o1);
        if safety::is_convergent(&name) {
            folder.refuse(EditKey::pair(branch_block, s1), Refusal::Convergent);
            break;
        }
        if safety::reads_special_register(&name) {
            folder.refuse(EditKey::pair(branch_block, s1), Refusal::SpecialRegister);
            break;
        }
        if !safety::is_hoistable(&name)
            || !operands_correspond(o1, o2, &body1[..count], &body2[..count], key1, key2)
        {
            break;
        }
        count += 1;
    }
    count
}

/// Operands of `o1` and `o2` are results of the same earlier prefix
/// operation, or the same value defined outside both successors.
fn operands_correspond(
    o1: OperationRef<'_, '_>,
    o2: OperationRef<'_, '_>,
    prefix1: &[OperationRef<'_, '_>],
    prefix2: &[OperationRef<'_, '_>],
    block1: BlockKey,
    block2: BlockKey,
) -> bool {
    let position = |value: Value, prefix: &[OperationRef]| {
        prefix.iter().enumerate().find_map(|(k, op)| {
            (0..op.result_count())
                .find(|&r| Value::from(op.result(r).unwrap()) == value)
                .map(|r| (k, r))
        })
    };
    (0..o1.operand_count()).all(|i| {
        let (a, b) = (o1.operand(i).unwrap(), o2.operand(i).unwrap());
        match (position(a, prefix1), position(b, prefix2)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => {
                a == b && {
                    let defined = edit::defining_block_key(a);
                    defined != block1 && defined != block2
                }
            }
            _ => false,
        }
    })
}
