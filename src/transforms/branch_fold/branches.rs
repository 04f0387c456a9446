//! OptimizeBranches: unreachable blocks, branch folding, jump threading
//! through jump-only blocks, merging a block into its only predecessor.
//!
//! ```text
//!  cond_br %c, ^a(x), ^a(x)   ==>  br ^a(x)                  (equal targets)
//!  flow_br %true, ^t, ^f      ==>  br ^t                     (known predicate)
//!  switch %c3 [..., 3: ^t]     ==>  br ^t                     (constant flag)
//!  cond_br %c, ^a(x), ^a(y)    ==>  s = select %c, x, y; br ^a(s)
//!  P: br ^B(v)   B(%b): br ^T(%b, w)   ==>  P: br ^T(v, w)   (jump-only block)
//!  P: br ^F(true)  F(%p): flow_br %p, ^t, ^f  ==>  P: br ^t  (Flow block taken one way)
//!  P: ...; br ^B(v)   B(%b): ops; term   ==>  P: ...; ops[%b := v]; term
//!                                              (B's only predecessor is P)
//! ```
//!
//! Each rule builds the planned graph of its edit and asks the gate first.

use super::{
    block_key, constant_bool, edit, gate::BlockLabel, has_ops_before, prepare, safety, Apply,
    EditKey, Folder, PlanEdit, Round, View,
};
use crate::ir::{
    collectives, facts,
    key::{BlockKey, OperationKey, TypeKey, ValueKey},
    names, query,
};
use crate::{
    analysis::cfg::{BlockId, Graph},
    ir::region_graph::{RegionGraph, RegionGraphError},
    transforms::constants,
};
use melior::{
    dialect::cf,
    ir::{
        block::BlockLike, operation::OperationLike, BlockRef, Location, OperationRef, RegionLike,
        Value, ValueLike,
    },
};
use std::collections::{HashMap, HashSet};

const TWO_WAY: &[&str] = &[names::CF_COND_BR, names::FLOW_BR];

/// One round: deletes unreachable blocks and hoists constants (both on the
/// whole region), then applies every branch fold, redirect and merge that
/// the snapshot allows and that does not look at a block an earlier edit
/// of the round changed (see [`super::Round`]). False if nothing changed.
pub(crate) fn optimize_round<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
) -> Result<bool, RegionGraphError<'c>> {
    // The value-level steps need the graph only; uniformity is computed
    // once, for the CFG rules, after them.
    let mut graph = RegionGraph::snapshot(folder.region)?;
    if delete_unreachable(folder, &graph) {
        graph = RegionGraph::snapshot(folder.region)?;
    }
    let view = &graph;
    let mut changed = fold_flow_predicates(folder, view);
    changed |= hoist_constants(folder, view);
    if folder.options.fold_operations {
        changed |= simplify_block_arguments(folder, view);
    }
    let mut round = Round::new(folder.view()?);
    let n = round.view.num_blocks();
    for index in 0..n {
        fold_branch(folder, &mut round, BlockId::new(index));
    }
    for index in 0..n {
        let block = BlockId::new(index);
        for slot in 0..round.view.terminator(block).successor_count() {
            redirect(folder, &mut round, block, slot);
        }
    }
    for index in 1..n {
        merge_into_predecessor(folder, &mut round, BlockId::new(index));
    }
    changed |= folder.commit(&mut round);
    Ok(changed)
}

/// Deletes every block not reachable from the entry. Values they define
/// are only used in unreachable blocks (dominance); those uses are first
/// pointed at `ub.poison` placeholders in the entry block, which are
/// erased again at the end. If it returns true, `view` names erased
/// blocks: the caller must take a new snapshot.
fn delete_unreachable<'c, 'a>(folder: &mut Folder<'c, 'a, '_>, view: &RegionGraph<'c, 'a>) -> bool {
    let reachable = super::gate::reachable_from_entry(view.graph());
    let dead: Vec<BlockRef<'c, 'a>> = (0..view.num_blocks())
        .map(BlockId::new)
        .filter(|&b| !reachable[b.index()])
        .map(|b| view.block(b))
        .collect();
    if dead.is_empty() {
        return false;
    }
    // Divergent regions whose head is unreachable are gone: drop their tails.
    let dead_heads: Vec<i64> = dead
        .iter()
        .flat_map(|&b| edit::operations(b))
        .filter(|op| prepare::op_name(*op) == names::RECONVERGENCE_HEAD)
        .filter_map(marker_id)
        .collect();
    let entry = view.block(BlockId::new(0));
    let mut placeholders: HashMap<TypeKey, OperationRef<'c, 'a>> = HashMap::new();
    let mut values: Vec<Value<'c, 'a>> = Vec::new();
    for &block in &dead {
        values.extend((0..block.argument_count()).map(|i| Value::from(block.argument(i).unwrap())));
        for op in edit::operations(block) {
            values.extend(op.results().map(Value::from));
        }
    }
    for value in values {
        if !edit::is_used(value) {
            continue;
        }
        let key = TypeKey::of(&value.r#type());
        let placeholder = *placeholders.entry(key).or_insert_with(|| {
            edit::insert_at_start(
                entry,
                edit::poison(folder.context, value.r#type(), value.location()),
            )
        });
        edit::replace_all_uses(value, placeholder.result(0).unwrap().into());
    }
    for &block in &dead {
        for op in edit::operations(block).into_iter().rev() {
            // SAFETY: every use of a top-level result of the dead blocks now
            // reads a placeholder (a nested result is only used inside its
            // op), so `op`'s results are unused; each op of the fresh
            // snapshot is erased once, `values` (their results) is gone,
            // `dead_heads` holds ids, and the caller re-snapshots `view`.
            unsafe { edit::erase_operation(op) };
        }
    }
    for &block in &dead {
        // SAFETY: the block is in the region and now empty (its terminator
        // included), no reachable block branches to it, its arguments'
        // uses were moved to placeholders, and `dead` and `view` are not
        // used to reach it again (only `dead.len()` is read below).
        unsafe { edit::erase_block(block) };
    }
    for (_, placeholder) in placeholders {
        // Its uses were all in the dead blocks (a reachable use of their
        // values would break dominance), so it is unused in verified IR.
        if !edit::is_used(placeholder.result(0).unwrap().into()) {
            // SAFETY: an unused `ub.poison` (no regions) created above;
            // `placeholders` is consumed here and held the only handle.
            unsafe { edit::erase_operation(placeholder) };
        }
    }
    if !dead_heads.is_empty() {
        erase_tails(folder, &dead_heads);
        folder.stats.regions_dissolved += dead_heads.len();
    }
    folder.stats.unreachable_removed += dead.len();
    folder.edits += 1;
    true
}

/// Folds the `arith.cmpi` of constant integers in Flow blocks (which the
/// folding step leaves alone, so that no upstream pattern turns a selector
/// comparison into an operation a Flow block may not hold) into `i1`
/// constants.
fn fold_flow_predicates<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    view: &RegionGraph<'c, 'a>,
) -> bool {
    let mut folded = 0;
    for index in 0..view.num_blocks() {
        let block = view.block(BlockId::new(index));
        if !super::is_flow_block(block) {
            continue;
        }
        for op in edit::operations(block) {
            if prepare::op_name(op) != names::ARITH_CMPI {
                continue;
            }
            let (Ok(a), Ok(b)) = (op.operand(0), op.operand(1)) else {
                continue;
            };
            let (Some((x, width)), Some((y, _))) = (constant_int_width(a), constant_int_width(b))
            else {
                continue;
            };
            let Some(predicate) = facts::cmpi_predicate(op) else {
                continue;
            };
            let Some(value) = evaluate_cmpi(predicate, x, y, width) else {
                continue;
            };
            let constant = block.insert_operation_before(
                op,
                edit::bool_constant(folder.context, value, op.location()),
            );
            edit::replace_all_uses(
                op.result(0).unwrap().into(),
                constant.result(0).unwrap().into(),
            );
            // SAFETY: an `arith.cmpi` (one result, no regions) whose result
            // was just replaced; the current op of a snapshot visited once.
            // `view` keeps blocks and terminators, and it is no terminator.
            unsafe { edit::erase_operation(op) };
            folded += 1;
        }
    }
    if folded == 0 {
        return false;
    }
    folder.stats.ops_folded += folded;
    folder.edits += 1;
    true
}

/// `arith.cmpi` with predicate number `predicate` (eq, ne, slt, sle, sgt,
/// sge, ult, ule, ugt, uge) on two `width`-bit integers.
fn evaluate_cmpi(predicate: u8, x: i128, y: i128, width: u32) -> Option<bool> {
    if width == 0 || width > 64 {
        return None;
    }
    let mask: i128 = (1i128 << width) - 1;
    let (ux, uy) = (x & mask, y & mask);
    let sign = |u: i128| {
        if u >> (width - 1) & 1 == 1 {
            u - (1i128 << width)
        } else {
            u
        }
    };
    let (sx, sy) = (sign(ux), sign(uy));
    Some(match predicate {
        0 => ux == uy,
        1 => ux != uy,
        2 => sx < sy,
        3 => sx <= sy,
        4 => sx > sy,
        5 => sx >= sy,
        6 => ux < uy,
        7 => ux <= uy,
        8 => ux > uy,
        9 => ux >= uy,
        _ => return None,
    })
}

/// The value and bit width of an integer `arith.constant` (`N : iK`, or
/// `true`/`false`).
fn constant_int_width(value: Value<'_, '_>) -> Option<(i128, u32)> {
    if let Some(b) = constant_bool(value) {
        return Some((i128::from(b), 1));
    }
    let op = edit::defining_op(value)?;
    if !edit::is_op(op, names::ARITH_CONSTANT) {
        return None;
    }
    let constant = facts::constant_value(op)?;
    Some((i128::from(constant.value), constant.width))
}

/// Erases unused constants (`arith.constant`, `ub.poison`), merges equal
/// ones and moves every other one to the start of the entry block
/// ([`constants::hoist_constants`], merging, each moved constant first).
/// This leaves blocks that only materialized a predicate or a phi input
/// for a Flow block empty, which the other rules then remove.
fn hoist_constants<'c, 'a>(folder: &mut Folder<'c, 'a, '_>, view: &RegionGraph<'c, 'a>) -> bool {
    let entry = view.block(BlockId::new(0));
    if super::is_flow_block(entry) {
        // A Flow entry block must stay empty (the input had it; keep it).
        return false;
    }
    let later = (1..view.num_blocks()).map(|index| view.block(BlockId::new(index)));
    let moved = constants::hoist_constants(
        entry,
        later,
        constants::Hoisting {
            placement: constants::Placement::Front,
            merge: true,
        },
    );
    if moved == 0 {
        return false;
    }
    folder.stats.constants_hoisted += moved;
    folder.edits += 1;
    true
}

/// Replaces every block argument that all incoming edges set to the same
/// value (or to the argument itself) by that value, then erases dead
/// arguments and dead pure operations ([`eliminate_dead_values`]). The
/// value of such an argument is defined in a block that dominates every
/// predecessor, hence the block itself, so the replacement keeps SSA valid;
/// edges are unchanged, so the gate has nothing to check. Fewer arguments
/// make more blocks jump-only (what [`redirect`] needs) and more
/// same-target branches equal (what [`fold_branch`] needs).
fn simplify_block_arguments<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    view: &RegionGraph<'c, 'a>,
) -> bool {
    let mut changed = 0;
    for index in 1..view.num_blocks() {
        let id = BlockId::new(index);
        let block = view.block(id);
        if block.argument_count() == 0 {
            continue;
        }
        let mut predecessors = view.graph().predecessors(id).to_vec();
        predecessors.sort();
        predecessors.dedup();
        let mut incoming: Vec<(OperationRef<'c, 'a>, usize, Vec<Value<'c, 'a>>)> = Vec::new();
        let mut forwarded = true;
        for &predecessor in &predecessors {
            let terminator = view.terminator(predecessor);
            for slot in 0..terminator.successor_count() {
                if terminator.successor(slot).unwrap() != block {
                    continue;
                }
                match edit::successor_operands(terminator, slot) {
                    Some(values) if values.len() == block.argument_count() => {
                        incoming.push((terminator, slot, values))
                    }
                    _ => forwarded = false,
                }
            }
        }
        if !forwarded || incoming.is_empty() {
            continue;
        }
        let key = block_key(block);
        for i in 0..block.argument_count() {
            let argument: Value = block.argument(i).unwrap().into();
            let mut unique = None;
            let same = incoming.iter().all(|(_, _, values)| {
                let v = values[i];
                v == argument || *unique.get_or_insert(v) == v
            });
            let Some(value) = unique.filter(|_| same) else {
                continue;
            };
            if edit::defining_block_key(value) == key || !edit::is_used(argument) {
                continue;
            }
            edit::replace_all_uses(argument, value);
            changed += 1;
        }
    }
    changed += eliminate_dead_values(view);
    if changed == 0 {
        return false;
    }
    folder.stats.arguments_removed += changed;
    folder.edits += 1;
    true
}

/// True if `op` may be erased when its results are dead: an operation
/// without regions or successors that MLIR's dead-code elimination could
/// erase ([`query::would_be_trivially_dead`]: no effects but reads) and that
/// is not convergent ([`safety::is_convergent`]: erasing a collective
/// changes who meets at it), or inline assembly that computes per thread
/// from its operands only ([`collectives::is_pure_lane_local_asm`]; clang's
/// CUDA headers read special registers and convert addresses that way).
fn is_removable(op: OperationRef<'_, '_>) -> bool {
    let name = prepare::op_name(op);
    op.region_count() == 0
        && op.successor_count() == 0
        && ((!safety::is_convergent(&name) && query::would_be_trivially_dead(op))
            || collectives::is_pure_lane_local_asm(op))
}

/// Dead-value elimination over block arguments (region-wide liveness, as
/// MLIR's region DCE does): a block argument is dead when it only feeds
/// dead arguments through forwarded branch operands and dead pure
/// operations, e.g. a loop-carried value nothing reads. Dead arguments of
/// blocks whose every incoming edge forwards its operands are erased with
/// the operands feeding them, then the pure operations that become unused.
/// Returns the number of arguments and operations erased.
fn eliminate_dead_values<'c, 'a>(view: &RegionGraph<'c, 'a>) -> usize {
    let incoming = forwarding_edges(view);
    let (live, live_ops) = liveness(view, &incoming);
    // Drop dead arguments' operands, then dead operations, then the arguments.
    let dead_arguments = drop_dead_operands(view, &incoming, &live);
    let mut erased = erase_dead_operations(view, &live_ops);
    erased += erase_dead_arguments(dead_arguments);
    erased
}

/// Per block of a region: the incoming (terminator, slot) edges, or `None`
/// when some edge does not forward operands to its arguments (and for the
/// entry block).
type Incoming<'c, 'a> = Vec<Option<Vec<(OperationRef<'c, 'a>, usize)>>>;

/// The identity of `value`, the key of the liveness sets.
fn value_key(value: Value<'_, '_>) -> ValueKey {
    ValueKey::of(&value)
}

/// The incoming edges of every block of `view`, if all of them forward
/// operands to its arguments (see [`Incoming`]).
fn forwarding_edges<'c, 'a>(view: &RegionGraph<'c, 'a>) -> Incoming<'c, 'a> {
    let n = view.num_blocks();
    // Per block: the incoming (terminator, slot) edges, if all forward.
    let mut incoming: Incoming<'c, 'a> = vec![Some(Vec::new()); n];
    incoming[0] = None;
    for index in 0..n {
        let terminator = view.terminator(BlockId::new(index));
        for slot in 0..terminator.successor_count() {
            let Some(target) = terminator.successor(slot).ok().and_then(|t| view.id(t)) else {
                continue;
            };
            let forwards = edit::successor_operands(terminator, slot)
                .is_some_and(|v| v.len() == view.block(target).argument_count());
            match (&mut incoming[target.index()], forwards) {
                (Some(edges), true) => edges.push((terminator, slot)),
                (entry, _) => *entry = None,
            }
        }
    }
    incoming
}

/// The live values and live operations of `view` (by key): every
/// operation that is not removable is live, and so is what a live value
/// or operation reads; a forwarded branch operand is live only through the
/// block argument it feeds.
fn liveness<'c, 'a>(
    view: &RegionGraph<'c, 'a>,
    incoming: &Incoming<'c, 'a>,
) -> (HashSet<ValueKey>, HashSet<OperationKey>) {
    let n = view.num_blocks();
    let owners: HashMap<BlockKey, BlockId> = (0..n)
        .map(|b| (block_key(view.block(BlockId::new(b))), BlockId::new(b)))
        .collect();
    let mut live: HashSet<ValueKey> = HashSet::new();
    let mut live_ops: HashSet<OperationKey> = HashSet::new();
    let mut work: Vec<Value<'c, 'a>> = Vec::new();
    for (index, edges) in incoming.iter().enumerate().take(n) {
        let block = view.block(BlockId::new(index));
        if edges.is_none() {
            for i in 0..block.argument_count() {
                work.push(block.argument(i).unwrap().into());
            }
        }
        for op in edit::operations(block) {
            if !is_removable(op) {
                mark_live_op(view, incoming, op, &mut work, &mut live_ops);
            }
        }
    }
    while let Some(value) = work.pop() {
        if !live.insert(value_key(value)) {
            continue;
        }
        if let Some(op) = edit::defining_op(value) {
            mark_live_op(view, incoming, op, &mut work, &mut live_ops);
            continue;
        }
        // A block argument of this region: its incoming operands are live.
        let Some(&owner) = owners.get(&edit::defining_block_key(value)) else {
            continue;
        };
        let position = edit::value_position(value);
        if let Some(edges) = &incoming[owner.index()] {
            for &(terminator, slot) in edges {
                if let Some(values) = edit::successor_operands(terminator, slot) {
                    work.push(values[position]);
                }
            }
        }
    }
    (live, live_ops)
}

/// Marks `op` live (once) and queues its operands in `work`, except the
/// forwarded operands of its edges into blocks that [`Incoming`] tracks.
fn mark_live_op<'c, 'a>(
    view: &RegionGraph<'c, 'a>,
    incoming: &Incoming<'c, 'a>,
    op: OperationRef<'c, 'a>,
    work: &mut Vec<Value<'c, 'a>>,
    live_ops: &mut HashSet<OperationKey>,
) {
    if !live_ops.insert(OperationKey::of(&op)) {
        return;
    }
    // Forwarded operands of a terminator live only through their argument.
    let mut forwarded: Vec<usize> = Vec::new();
    for slot in 0..op.successor_count() {
        let Some(target) = op.successor(slot).ok().and_then(|t| view.id(t)) else {
            continue;
        };
        if incoming[target.index()].is_none() {
            continue;
        }
        if let Some((begin, count)) = crate::ir::query::successor_operand_range(op, slot) {
            forwarded.extend(begin..begin + count);
        }
    }
    for i in 0..op.operand_count() {
        if !forwarded.contains(&i) {
            work.push(op.operand(i).unwrap());
        }
    }
}

/// Removes the operands that feed dead block arguments from every incoming
/// edge; returns the dead arguments, each block's in decreasing index
/// order.
fn drop_dead_operands<'c, 'a>(
    view: &RegionGraph<'c, 'a>,
    incoming: &Incoming<'c, 'a>,
    live: &HashSet<ValueKey>,
) -> Vec<(BlockRef<'c, 'a>, usize)> {
    let n = view.num_blocks();
    let mut dead_arguments: Vec<(BlockRef<'c, 'a>, usize)> = Vec::new();
    for (index, edges) in incoming.iter().enumerate().take(n).skip(1) {
        let Some(edges) = edges else {
            continue;
        };
        let block = view.block(BlockId::new(index));
        let dead: Vec<usize> = (0..block.argument_count())
            .filter(|&i| !live.contains(&value_key(block.argument(i).unwrap().into())))
            .collect();
        if dead.is_empty() {
            continue;
        }
        for &(terminator, slot) in edges {
            let Some(mut values) = edit::successor_operands(terminator, slot) else {
                continue;
            };
            for &i in dead.iter().rev() {
                values.remove(i);
            }
            // Cannot fail: successor_operands accepted the same slot.
            let updated = edit::set_successor_operands(terminator, slot, &values);
            debug_assert!(updated);
        }
        dead_arguments.extend(dead.into_iter().rev().map(|i| (block, i)));
    }
    dead_arguments
}

/// Erases the removable operations of `view` that are not in `live_ops`
/// (users before what they use); returns how many it erased.
fn erase_dead_operations(view: &RegionGraph<'_, '_>, live_ops: &HashSet<OperationKey>) -> usize {
    let mut erased = 0;
    let mut dead_ops: Vec<OperationRef> = Vec::new();
    for index in 0..view.num_blocks() {
        for op in edit::operations(view.block(BlockId::new(index))) {
            if is_removable(op) && !live_ops.contains(&OperationKey::of(&op)) {
                dead_ops.push(op);
            }
        }
    }
    // Dead operations only feed each other and the dropped operands: erase
    // users before what they use.
    let mut remaining = dead_ops;
    while !remaining.is_empty() {
        let before = remaining.len();
        remaining.retain(|&op| {
            let unused = op.results().all(|r| !edit::is_used(r.into()));
            if unused {
                // SAFETY: a removable op (no regions or successors) whose
                // results are unused; `retain` drops it from `remaining`,
                // the only list holding it (`live_ops` keeps keys of
                // live ops, `incoming` terminators), so it is erased once.
                unsafe { edit::erase_operation(op) };
                erased += 1;
            }
            !unused
        });
        if remaining.len() == before {
            break;
        }
    }
    erased
}

/// Erases the arguments of `dead_arguments` that are now unused; returns
/// how many it erased.
fn erase_dead_arguments(dead_arguments: Vec<(BlockRef<'_, '_>, usize)>) -> usize {
    let mut erased = 0;
    for (block, i) in dead_arguments {
        if !edit::is_used(block.argument(i).unwrap().into()) {
            // SAFETY: the argument is unused (just checked). A block's dead
            // indices come in decreasing order, so `i` still names the
            // argument found dead; `work` is drained and `live` keeps
            // keys only, so no handle to it is used afterwards.
            unsafe { edit::erase_argument(block, i) };
            erased += 1;
        }
    }
    erased
}

/// Folds the two-way branch of `block` into `cf.br` when both sides are
/// the same or the predicate is known.
fn fold_branch<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    round: &mut Round<'c, 'a>,
    block: BlockId,
) -> bool {
    let view = &round.view;
    let terminator = view.terminator(block);
    let name = prepare::op_name(terminator);
    let switch = name == names::CF_SWITCH;
    if !(TWO_WAY.contains(&name.as_str()) && terminator.successor_count() == 2
        || switch && terminator.successor_count() >= 1)
    {
        return false;
    }
    let ir_block = view.block(block);
    let Some((heads, head_ids)) = reconvergence_heads(ir_block) else {
        return false;
    };
    let Some(slots) = branch_slots(view, terminator) else {
        return false;
    };
    if !round.untouched(&[block]) {
        return false;
    }
    let Some((taken, select)) = fold_choice(round, block, terminator, &name, &slots) else {
        return false;
    };
    let (target, target_id, _) = slots[taken].clone();
    round.write(&[block]);
    let ids: Vec<BlockId> = slots.iter().map(|s| s.1).collect();
    round.change_predecessors(&ids);
    let edits = vec![PlanEdit::SetTerminator(
        block,
        vec![target_id],
        BlockLabel::default(),
    )];
    let folded = FoldedBranch {
        ir_block,
        terminator,
        heads,
        head_ids,
        slots,
        taken,
        select,
        target,
    };
    let apply: Apply<'c, 'a> = Box::new(move |folder| folded.apply(folder));
    folder.propose(round, edits, EditKey::block(ir_block), apply);
    true
}

/// One successor slot of a branch: its target, the target's id and the
/// operands the slot forwards.
type Slot<'c, 'a> = (BlockRef<'c, 'a>, BlockId, Vec<Value<'c, 'a>>);

/// The `spmd.reconvergence.head` markers of `block` and their ids; `None`
/// if a marker has no valid id.
fn reconvergence_heads<'c, 'a>(
    block: BlockRef<'c, 'a>,
) -> Option<(Vec<OperationRef<'c, 'a>>, Vec<i64>)> {
    let heads: Vec<OperationRef<'c, 'a>> = edit::operations(block)
        .into_iter()
        .filter(|op| prepare::op_name(*op) == names::RECONVERGENCE_HEAD)
        .collect();
    let head_ids = heads
        .iter()
        .map(|op| marker_id(*op))
        .collect::<Option<Vec<i64>>>()?;
    Some((heads, head_ids))
}

/// Every successor slot of `terminator` (see [`Slot`]); `None` if a slot's
/// operands or target cannot be read.
fn branch_slots<'c, 'a>(
    view: &View<'c, 'a>,
    terminator: OperationRef<'c, 'a>,
) -> Option<Vec<Slot<'c, 'a>>> {
    let count = terminator.successor_count();
    let mut slots = Vec::with_capacity(count);
    for slot in 0..count {
        let operands = edit::successor_operands(terminator, slot)?;
        let target = terminator.successor(slot).unwrap();
        let id = view.id(target)?;
        slots.push((target, id, operands));
    }
    Some(slots)
}

/// How the branch `terminator` (named `name`) of `block` with `slots`
/// folds: the slot it keeps, and whether it becomes a `cf.br` with selects;
/// `None` if it does not fold in this round.
fn fold_choice<'c, 'a>(
    round: &Round<'c, 'a>,
    block: BlockId,
    terminator: OperationRef<'c, 'a>,
    name: &str,
    slots: &[Slot<'c, 'a>],
) -> Option<(usize, bool)> {
    let view = &round.view;
    let all_equal = slots
        .iter()
        .all(|(t, _, o)| *t == slots[0].0 && *o == slots[0].2);
    // Same target, different operands (cf.cond_br only): `cf.br` with
    // selects. Only when this block is the target's only predecessor: the
    // target then merges into it, which pays for the selects; otherwise the
    // selects would only add operations.
    let select = !all_equal
        && name == names::CF_COND_BR
        && slots[0].0 == slots[1].0
        && round.same_predecessors(slots[0].1)
        && view.predecessors(slots[0].1).iter().all(|&p| p == block);
    let taken = if all_equal || select {
        0
    } else if name == names::CF_SWITCH {
        known_switch_slot(terminator)?
    } else {
        if !round.same_predecessors(block) || !round.untouched(view.predecessors(block)) {
            return None;
        }
        match known_predicate(view, block, terminator.operand(0).unwrap()) {
            Some(true) => 0,
            Some(false) => 1,
            None => return None,
        }
    };
    Some((taken, select))
}

/// A branch that [`fold_branch`] folds, ready to apply.
struct FoldedBranch<'c, 'a> {
    ir_block: BlockRef<'c, 'a>,
    terminator: OperationRef<'c, 'a>,
    /// The block's reconvergence heads and their ids.
    heads: Vec<OperationRef<'c, 'a>>,
    head_ids: Vec<i64>,
    slots: Vec<Slot<'c, 'a>>,
    /// The slot kept.
    taken: usize,
    /// Same target, different operands: a `cf.br` with selects.
    select: bool,
    target: BlockRef<'c, 'a>,
}

impl<'c, 'a> FoldedBranch<'c, 'a> {
    /// Replaces the branch by a `cf.br` to `target` and erases the markers
    /// of a dissolved region and a condition left unused.
    fn apply(self, folder: &mut Folder<'c, 'a, '_>) {
        let Self {
            ir_block,
            terminator,
            heads,
            head_ids,
            slots,
            taken,
            select,
            target,
        } = self;
        // A divergent region whose branch folds is gone: its markers go too.
        if !head_ids.is_empty() {
            for op in heads {
                // SAFETY: a reconvergence head (no results, no regions) of
                // `ir_block`, which this edit claimed (`round.write`), so no
                // other edit of the round erases or holds it; `heads` is
                // consumed here, and the closure runs once.
                unsafe { edit::erase_operation(op) };
            }
            erase_tails(folder, &head_ids);
            folder.stats.regions_dissolved += head_ids.len();
        }
        let condition = terminator.operand(0).unwrap();
        let location = terminator.location();
        let operands: Vec<Value> = if select {
            select_operands(
                ir_block,
                terminator,
                condition,
                &slots[0].2,
                &slots[1].2,
                location,
            )
        } else {
            slots[taken].2.clone()
        };
        ir_block.insert_operation_before(terminator, cf::br(&target, &operands, location));
        // SAFETY: the branch has no results, and its operands and target
        // now live in the new `cf.br`. It ends `ir_block`, which this edit
        // claimed, so no other edit of the round holds it; it is not used
        // below, and the round's view is not read after the commit.
        unsafe { edit::erase_operation(terminator) };
        erase_if_dead(condition);
        if select {
            folder.stats.branches_selected += 1;
        } else {
            folder.stats.branches_folded += 1;
        }
    }
}

/// The operands of the `cf.br` that replaces `terminator`: where
/// `on_true` and `on_false` differ, an `arith.select` on `condition`
/// inserted before `terminator` in `block`.
fn select_operands<'c, 'a>(
    block: BlockRef<'c, 'a>,
    terminator: OperationRef<'c, 'a>,
    condition: Value<'c, 'a>,
    on_true: &[Value<'c, 'a>],
    on_false: &[Value<'c, 'a>],
    location: Location<'c>,
) -> Vec<Value<'c, 'a>> {
    on_true
        .iter()
        .zip(on_false)
        .map(|(&a, &b)| {
            if a == b {
                return a;
            }
            let op = melior::dialect::arith::select(condition, a, b, location);
            block
                .insert_operation_before(terminator, op)
                .result(0)
                .unwrap()
                .into()
        })
        .collect()
}

/// The `id` of a reconvergence marker.
fn marker_id(op: OperationRef<'_, '_>) -> Option<i64> {
    facts::marker_id(op).and_then(|id| i64::try_from(id).ok())
}

/// Erases the `spmd.reconvergence.tail` markers of the region whose id is
/// in `ids`.
fn erase_tails(folder: &Folder<'_, '_, '_>, ids: &[i64]) {
    let mut next = folder.region.first_block();
    while let Some(block) = next {
        for op in edit::operations(block) {
            if prepare::op_name(op) == names::RECONVERGENCE_TAIL
                && marker_id(op).is_some_and(|id| ids.contains(&id))
            {
                // SAFETY: a reconvergence tail (no results, no regions) of a
                // fresh snapshot, visited once; no edit keeps a handle to a
                // tail (they keep heads, terminators and values).
                unsafe { edit::erase_operation(op) };
            }
        }
        next = block.next_in_region();
    }
}

/// The successor slot a `cf.switch` on a constant flag takes: the first
/// case whose value equals the flag, else the default (slot 0).
fn known_switch_slot(switch: OperationRef<'_, '_>) -> Option<usize> {
    let flag = constant_int(switch.operand(0).ok()?)?;
    switch.attribute(names::CASE_VALUES_ATTR).ok()?;
    let values = facts::switch_case_values(switch)?;
    if values.len() != switch.successor_count() - 1 {
        return None;
    }
    Some(
        values
            .iter()
            .position(|&v| i128::from(v) == flag)
            .map_or(0, |k| k + 1),
    )
}

/// The value of a wider-than-`i1` integer `arith.constant`.
fn constant_int(value: Value<'_, '_>) -> Option<i128> {
    let op = edit::defining_op(value)?;
    if !edit::is_op(op, names::ARITH_CONSTANT) {
        return None;
    }
    facts::constant_value(op)
        .filter(|constant| constant.width > 1)
        .map(|constant| i128::from(constant.value))
}

/// Erases the pure operation defining `value` if nothing uses it any more.
/// The caller must use no handle to that operation (or `value`) afterwards.
fn erase_if_dead(value: Value<'_, '_>) {
    let Some(op) = edit::defining_op(value) else {
        return;
    };
    let name = prepare::op_name(op);
    if super::safety::is_hoistable(&name)
        && !name.starts_with(names::MEMREF_PREFIX)
        && !name.starts_with(names::LLVM_PREFIX)
        && op.results().all(|r| !edit::is_used(r.into()))
    {
        // SAFETY: a pure `arith`/`math`/`index` op or `ub.poison` (no
        // regions) with unused results. The other edits of the round keep
        // values that are operands of terminators no other edit removes
        // (hence used until they run), and the caller drops `value`.
        unsafe { edit::erase_operation(op) };
    }
}

/// The value of the predicate `condition` of `block`'s branch if it is a
/// constant, or a block argument that every incoming edge sets to the same
/// constant.
fn known_predicate<'c, 'a>(
    view: &View<'c, 'a>,
    block: BlockId,
    condition: Value<'c, 'a>,
) -> Option<bool> {
    if let Some(value) = constant_bool(condition) {
        return Some(value);
    }
    let ir_block = view.block(block);
    if !condition.is_block_argument() || edit::defining_block_key(condition) != block_key(ir_block)
    {
        return None;
    }
    let position = edit::value_position(condition);
    let mut known = None;
    let mut predecessors = view.predecessors(block).to_vec();
    predecessors.sort();
    predecessors.dedup();
    for predecessor in predecessors {
        let terminator = view.terminator(predecessor);
        for slot in 0..terminator.successor_count() {
            if terminator.successor(slot).unwrap() != ir_block {
                continue;
            }
            let value = constant_bool(*edit::successor_operands(terminator, slot)?.get(position)?)?;
            if known.is_some_and(|k| k != value) {
                return None;
            }
            known = Some(value);
        }
    }
    known
}

/// If `block` holds only a terminator, the slot it takes for an edge that
/// forwards `incoming`: 0 for `cf.br`, the known side of a two-way branch
/// on one of its arguments.
fn jump_slot(
    block: BlockRef<'_, '_>,
    terminator: OperationRef<'_, '_>,
    incoming: &[Value<'_, '_>],
) -> Option<usize> {
    if has_ops_before(terminator) {
        return None;
    }
    let name = prepare::op_name(terminator);
    if name == names::CF_BR {
        return Some(0);
    }
    if !TWO_WAY.contains(&name.as_str()) {
        return None;
    }
    let condition = terminator.operand(0).ok()?;
    if !condition.is_block_argument() || edit::defining_block_key(condition) != block_key(block) {
        return None;
    }
    constant_bool(*incoming.get(edit::value_position(condition))?).map(|v| if v { 0 } else { 1 })
}

/// Redirects slot `slot` of `block`'s terminator past a jump-only target.
fn redirect<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    round: &mut Round<'c, 'a>,
    block: BlockId,
    slot: usize,
) -> bool {
    let view = &round.view;
    let terminator = view.terminator(block);
    let Ok(middle) = terminator.successor(slot) else {
        return false;
    };
    let Some(middle_id) = view.id(middle) else {
        return false;
    };
    if middle_id == block || middle_id == BlockId::new(0) {
        return false;
    }
    if !round.untouched(&[block, middle_id]) {
        return false;
    }
    let Some(incoming) = edit::successor_operands(terminator, slot) else {
        return false;
    };
    let middle_terminator = view.terminator(middle_id);
    let Some(taken) = jump_slot(middle, middle_terminator, &incoming) else {
        return false;
    };
    let Ok(target) = middle_terminator.successor(taken) else {
        return false;
    };
    let Some(target_id) = view.id(target) else {
        return false;
    };
    if target_id == middle_id
        || !round.untouched(&[target_id])
        || leads_back(round, target_id, middle_id)
    {
        return false;
    }
    // The middle block's arguments must only feed its terminator.
    if !arguments_only_feed(middle, middle_terminator) {
        return false;
    }
    let Some(forwarded) = edit::successor_operands(middle_terminator, taken) else {
        return false;
    };
    let operands = substitute_arguments(&forwarded, block_key(middle), &incoming);
    let key = EditKey::through(view.block(block), middle, slot);
    round.write(&[block]);
    round.change_predecessors(&[middle_id, target_id]);
    let apply: Apply<'c, 'a> = Box::new(move |folder| {
        // Cannot fail: successor_operands accepted the same slot.
        let updated = edit::set_successor_operands(terminator, slot, &operands);
        debug_assert!(updated);
        edit::set_successor(terminator, slot, target);
        folder.stats.jumps_redirected += 1;
    });
    folder.propose(
        round,
        vec![PlanEdit::Redirect(block, slot, target_id)],
        key,
        apply,
    );
    true
}

/// True if every argument of `block` is used only by `terminator`.
fn arguments_only_feed(block: BlockRef<'_, '_>, terminator: OperationRef<'_, '_>) -> bool {
    for i in 0..block.argument_count() {
        let argument: Value = block.argument(i).unwrap().into();
        if edit::users(argument).iter().any(|user| *user != terminator) {
            return false;
        }
    }
    true
}

/// `forwarded` with each argument of the block `block` replaced by the
/// value `incoming` passes for it.
fn substitute_arguments<'c, 'a>(
    forwarded: &[Value<'c, 'a>],
    block: BlockKey,
    incoming: &[Value<'c, 'a>],
) -> Vec<Value<'c, 'a>> {
    forwarded
        .iter()
        .map(|&v| {
            if v.is_block_argument() && edit::defining_block_key(v) == block {
                incoming[edit::value_position(v)]
            } else {
                v
            }
        })
        .collect()
}

/// True if following plain `cf.br`-only blocks from `from` reaches `to`
/// (redirecting into such a chain would spin forever).
fn leads_back(round: &Round<'_, '_>, from: BlockId, to: BlockId) -> bool {
    let view = &round.view;
    let mut current = from;
    for _ in 0..view.num_blocks() {
        if current == to || !round.untouched(&[current]) {
            // A block this round changed may jump anywhere now: assume the worst.
            return true;
        }
        let terminator = view.terminator(current);
        if has_ops_before(terminator) || prepare::op_name(terminator) != names::CF_BR {
            return false;
        }
        let Some(next) = terminator.successor(0).ok().and_then(|s| view.id(s)) else {
            return false;
        };
        current = next;
    }
    true
}

/// Merges `block` into its only predecessor when that ends in `cf.br`.
fn merge_into_predecessor<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    round: &mut Round<'c, 'a>,
    block: BlockId,
) -> bool {
    let view = &round.view;
    let &[predecessor] = view.predecessors(block) else {
        return false;
    };
    if predecessor == block
        || !round.same_predecessors(block)
        || !round.untouched(&[block, predecessor])
    {
        return false;
    }
    let branch = view.terminator(predecessor);
    if prepare::op_name(branch) != names::CF_BR {
        return false;
    }
    let (ir_block, ir_predecessor) = (view.block(block), view.block(predecessor));
    // The entry block is where constants live (this pass and the folding
    // step put them there): it must never become a Flow block, which may
    // hold nothing but its branch.
    if predecessor == BlockId::new(0) && round.planned.labels[block.index()].flow {
        return false;
    }
    // A reconvergence tail must start its block.
    if edit::operations(ir_block)
        .iter()
        .any(|op| prepare::op_name(*op) == names::RECONVERGENCE_TAIL)
    {
        return false;
    }
    let Some(operands) = edit::successor_operands(branch, 0) else {
        return false;
    };
    let mut label = round.planned.labels[block.index()];
    label.flow_impure =
        label.flow && (super::has_non_flow_ops(ir_predecessor) || label.flow_impure);
    label.loop_token |= round.planned.labels[predecessor.index()].loop_token;
    let successors = round.planned.successors[block.index()].clone();
    round.write(&[block, predecessor]);
    round.change_predecessors(&successors);
    let edits = vec![
        PlanEdit::SetTerminator(predecessor, successors, label),
        PlanEdit::Remove(block),
    ];
    let apply: Apply<'c, 'a> = Box::new(move |folder| {
        for (i, value) in operands.into_iter().enumerate() {
            edit::replace_all_uses(ir_block.argument(i).unwrap().into(), value);
        }
        // SAFETY: a `cf.br` (no results) ending `ir_predecessor`, which this
        // edit claimed (`round.write`), so no other edit holds it; not used
        // below, and the round's view is not read after the commit.
        unsafe { edit::erase_operation(branch) };
        for op in edit::operations(ir_block) {
            edit::move_to_end(op, ir_predecessor);
        }
        // SAFETY: the block is in the region and now empty; its arguments
        // are unused (replaced above) and its only predecessor's branch is
        // gone: no edit of the round added an edge into it (it kept its
        // predecessors, `same_predecessors`). This edit claimed it, and
        // neither `ir_block` nor the view is used after.
        unsafe { edit::erase_block(ir_block) };
        folder.stats.blocks_merged += 1;
    });
    folder.propose(round, edits, EditKey::pair(ir_predecessor, ir_block), apply);
    true
}
