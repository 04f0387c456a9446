//! TailMerge: identical block tails move into one shared block.
//!
//! ```text
//!  ^b1: x1; a = f(p); b = g(a, q1); store b; br ^t(b)         ^b1: x1; br ^tail(q1)
//!  ^b2: x2; a = f(p); b = g(a, q2); store b; br ^t(b)   ==>   ^b2: x2; br ^tail(q2)
//!                                                             ^tail(%q): a = f(p); b = g(a, %q);
//!                                                                        store b; br ^t(b)
//! ```
//!
//! Candidates are grouped by their terminator: returns of the same kind
//! (phase A), `cf.br` to the same block (phase B). Within a group, at most
//! `tail-merge-threshold` blocks are considered and bucketed by a hash of
//! their last non-terminator operation (name, operand and result counts:
//! coarse, so equal tails always share a bucket). Pairs in a bucket are
//! compared by `common_tail`:
//!
//! 1. the terminators must have the same name, attributes, successors and
//!    operand count;
//! 2. walking backwards, operations must have the same shape
//!    (`same_shape`); the walk stops at the first difference, at
//!    a convergent operation and at a special-register read (both gates of
//!    [`super::safety`]);
//! 3. the operands of corresponding operations must correspond: both
//!    results of the same earlier tail operation, or both defined outside
//!    the tail — equal (kept) or different values of one type (threaded
//!    through a new argument of the shared block). A mismatch, or a tail
//!    result used outside its block, shortens the tail to the operations
//!    after the offending one;
//! 4. an outside value defined by a special-register read refuses the
//!    whole merge: it would become live into the shared block (the branch-folding notes'
//!    reserved-register check).
//!
//! The first pair with a tail of at least `tail-merge-size` operations
//! whose planned graph passes the gate is merged; the driver then
//! re-reads the region. A third block with the same tail merges with the
//! shared block in a later round (its whole body is the tail).

use super::{
    edit, has_ops_before, prepare, safety, same_shape, Apply, BlockLabel, EditKey, Folder,
    PlanEdit, Refusal, Round, View,
};
use crate::ir::{key::ValueKey, names};
use crate::{analysis::cfg::BlockId, ir::region_graph::RegionGraphError};
use melior::{
    dialect::cf,
    ir::{
        block::BlockLike, operation::OperationLike, Block, BlockRef, Location, OperationRef,
        RegionLike, Type, Value, ValueLike,
    },
};
use std::{
    collections::{hash_map::DefaultHasher, HashMap},
    hash::{Hash, Hasher},
};

/// Merges every admissible pair of tails whose blocks no earlier merge of
/// the round touched; false if there is none.
pub(crate) fn merge_round<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
) -> Result<bool, RegionGraphError<'c>> {
    let mut round = Round::new(folder.view()?);
    for group in candidate_groups(&round.view, folder.options.tail_merge_threshold) {
        let mut buckets: Vec<(u64, Vec<BlockId>)> = Vec::new();
        for block in group {
            let hash = tail_hash(round.view.block(block));
            match buckets.iter_mut().find(|(h, _)| *h == hash) {
                Some((_, members)) => members.push(block),
                None => buckets.push((hash, vec![block])),
            }
        }
        for (_, members) in buckets {
            for i in 0..members.len() {
                for j in i + 1..members.len() {
                    if round.untouched(&[members[i], members[j]]) {
                        try_merge(folder, &mut round, members[i], members[j]);
                    }
                }
            }
        }
    }
    Ok(folder.commit(&mut round))
}

/// Candidate groups: returns first (phase A), then `cf.br` targets (phase B).
fn candidate_groups(view: &View<'_, '_>, threshold: usize) -> Vec<Vec<BlockId>> {
    let mut returns: Vec<(String, Vec<BlockId>)> = Vec::new();
    let mut jumps: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
    for index in 0..view.num_blocks() {
        let block = BlockId::new(index);
        let terminator = view.terminator(block);
        if !has_ops_before(terminator) {
            continue;
        }
        let name = prepare::op_name(terminator);
        if prepare::RETURN_OPS.contains(&name.as_str()) && terminator.successor_count() == 0 {
            match returns.iter_mut().find(|(n, _)| *n == name) {
                Some((_, members)) if members.len() < threshold => members.push(block),
                Some(_) => {}
                None => returns.push((name, vec![block])),
            }
        } else if name == names::CF_BR {
            let Some(target) = terminator.successor(0).ok().and_then(|t| view.id(t)) else {
                continue;
            };
            if target == block {
                continue;
            }
            match jumps.iter_mut().find(|(t, _)| *t == target) {
                Some((_, members)) if members.len() < threshold => members.push(block),
                Some(_) => {}
                None => jumps.push((target, vec![block])),
            }
        }
    }
    returns
        .into_iter()
        .map(|(_, m)| m)
        .chain(jumps.into_iter().map(|(_, m)| m))
        .filter(|m| m.len() > 1)
        .collect()
}

/// Hash of the last non-terminator operation of `block`.
fn tail_hash(block: BlockRef<'_, '_>) -> u64 {
    let mut hasher = DefaultHasher::new();
    let operations = edit::operations(block);
    let last = operations[operations
        .len()
        .checked_sub(2)
        .expect("candidates have a body")];
    prepare::op_name(last).hash(&mut hasher);
    last.operand_count().hash(&mut hasher);
    last.result_count().hash(&mut hasher);
    hasher.finish()
}

/// A common tail of two blocks, ready to apply.
struct Tail<'c, 'a> {
    /// The tail operations of each block, terminator last.
    ops: [Vec<OperationRef<'c, 'a>>; 2],
    /// Outside values that differ: (value in block 1, value in block 2).
    threaded: Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
    /// (tail position, operand index, threaded pair) to rewire in the shared block.
    rewired: Vec<(usize, usize, usize)>,
}

impl Tail<'_, '_> {
    fn len(&self) -> usize {
        self.ops[0].len() - 1
    }
}

/// Why the backward walk stopped.
#[derive(PartialEq, Eq)]
enum Stop {
    Difference,
    Convergent,
    SpecialRegister,
}

fn try_merge<'c, 'a>(
    folder: &mut Folder<'c, 'a, '_>,
    round: &mut Round<'c, 'a>,
    b1: BlockId,
    b2: BlockId,
) -> bool {
    let view = &round.view;
    let (block1, block2) = (view.block(b1), view.block(b2));
    let key = EditKey::pair(block1, block2);
    let min_size = folder.options.tail_merge_size.max(1);
    let tail = match common_tail(block1, block2, min_size) {
        Ok((tail, stop)) => {
            match stop {
                Stop::Convergent => folder.refuse(key, Refusal::Convergent),
                Stop::SpecialRegister => folder.refuse(key, Refusal::SpecialRegister),
                Stop::Difference => {}
            }
            tail
        }
        Err(()) => {
            folder.refuse(key, Refusal::SpecialRegister);
            return false;
        }
    };
    if tail.len() < min_size {
        return false;
    }
    let terminator = view.terminator(b1);
    let exit = prepare::is_function_exit(terminator);
    let successors: Vec<BlockId> = terminator.successors().filter_map(|s| view.id(s)).collect();
    round.write(&[b1, b2]);
    round.change_predecessors(&successors);
    let edits = vec![PlanEdit::Shared(
        successors,
        BlockLabel {
            exit,
            ..Default::default()
        },
        [b1, b2],
    )];
    let apply: Apply<'c, 'a> = Box::new(move |folder| {
        apply(block2, block1, &tail);
        folder.stats.tails_merged += 1;
        folder.stats.tail_ops_merged += tail.len();
    });
    folder.propose(round, edits, key, apply);
    true
}

/// The longest admissible common tail of `block1` and `block2`, with the
/// reason the backward walk stopped; `Err` if a tail of at least
/// `min_size` operations exists but a special-register value would become
/// live into the shared block.
fn common_tail<'c, 'a>(
    block1: BlockRef<'c, 'a>,
    block2: BlockRef<'c, 'a>,
    min_size: usize,
) -> Result<(Tail<'c, 'a>, Stop), ()> {
    let all1 = edit::operations(block1);
    let all2 = edit::operations(block2);
    let (t1, t2) = (*all1.last().unwrap(), *all2.last().unwrap());
    let empty = |stop| {
        Ok((
            Tail {
                ops: [vec![t1], vec![t2]],
                threaded: Vec::new(),
                rewired: Vec::new(),
            },
            stop,
        ))
    };
    if !same_terminator(t1, t2) {
        return empty(Stop::Difference);
    }
    let (body1, body2) = (&all1[..all1.len() - 1], &all2[..all2.len() - 1]);
    let (mut length, stop) = walk_back(body1, body2);
    // Shorten until every operand pair corresponds and no result escapes.
    loop {
        let ops1: Vec<_> = body1[body1.len() - length..]
            .iter()
            .copied()
            .chain([t1])
            .collect();
        let ops2: Vec<_> = body2[body2.len() - length..]
            .iter()
            .copied()
            .chain([t2])
            .collect();
        match check_tail(&ops1, &ops2, block1, block2) {
            TailCheck::Valid { threaded, rewired } => {
                return Ok((
                    Tail {
                        ops: [ops1, ops2],
                        threaded,
                        rewired,
                    },
                    stop,
                ));
            }
            TailCheck::Cut(k) => {
                if k == ops1.len() - 1 {
                    return empty(stop);
                }
                length -= k + 1;
            }
            // The branch-folding notes rejects the whole merge, if there is one to reject.
            TailCheck::Special => {
                return if length >= min_size {
                    Err(())
                } else {
                    empty(stop)
                };
            }
        }
    }
}

/// True if the terminators `t1` and `t2` have the same name, operand
/// count, successors and attributes.
fn same_terminator(t1: OperationRef<'_, '_>, t2: OperationRef<'_, '_>) -> bool {
    t1.name() == t2.name()
        && t1.operand_count() == t2.operand_count()
        && t1.successor_count() == t2.successor_count()
        && t1.successors().zip(t2.successors()).all(|(a, b)| a == b)
        && t1.attribute_count() == t2.attribute_count()
        && t1
            .attributes()
            .zip(t2.attributes())
            .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
}

/// The backward walk over the bodies (terminators excluded) of two blocks:
/// how many trailing operations have the same shape before the first
/// difference, convergent operation or special-register read, and which
/// of these stopped it.
fn walk_back(body1: &[OperationRef<'_, '_>], body2: &[OperationRef<'_, '_>]) -> (usize, Stop) {
    let mut length = 0;
    let mut stop = Stop::Difference;
    while length < body1.len().min(body2.len()) {
        let (o1, o2) = (
            body1[body1.len() - 1 - length],
            body2[body2.len() - 1 - length],
        );
        if !same_shape(o1, o2) {
            break;
        }
        let name = prepare::op_name(o1);
        if safety::is_convergent(&name) {
            stop = Stop::Convergent;
            break;
        }
        if safety::reads_special_register(&name) {
            stop = Stop::SpecialRegister;
            break;
        }
        length += 1;
    }
    (length, stop)
}

/// What [`check_tail`] found about a candidate tail.
enum TailCheck<'c, 'a> {
    /// Every operand pair corresponds and no result escapes: the outside
    /// values to thread and the operands to rewire (see [`Tail`]).
    Valid {
        threaded: Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
        rewired: Vec<(usize, usize, usize)>,
    },
    /// The operations at this tail position do not correspond, or a result
    /// escapes: only the operations after it may stay.
    Cut(usize),
    /// An outside operand is defined by a special-register read.
    Special,
}

/// Checks the candidate tails `ops1` of `block1` and `ops2` of `block2`
/// (terminators last) position by position: operands must correspond
/// (step 3 of the module docs) and results must not escape their block.
fn check_tail<'c, 'a>(
    ops1: &[OperationRef<'c, 'a>],
    ops2: &[OperationRef<'c, 'a>],
    block1: BlockRef<'c, 'a>,
    block2: BlockRef<'c, 'a>,
) -> TailCheck<'c, 'a> {
    let (internal1, internal2) = (result_positions(ops1), result_positions(ops2));
    let mut threaded: Vec<(Value<'c, 'a>, Value<'c, 'a>)> = Vec::new();
    let mut rewired = Vec::new();
    for k in 0..ops1.len() {
        let (o1, o2) = (ops1[k], ops2[k]);
        let mut cut = escapes(o1, block1) || escapes(o2, block2);
        for i in 0..o1.operand_count() {
            if cut {
                break;
            }
            let (a, b) = (o1.operand(i).unwrap(), o2.operand(i).unwrap());
            let (ia, ib) = (
                internal1.get(&ValueKey::of(&a)),
                internal2.get(&ValueKey::of(&b)),
            );
            match (ia, ib) {
                (Some(x), Some(y)) if x == y => continue,
                (None, None) => {}
                _ => {
                    cut = true;
                    continue;
                }
            }
            if is_special_value(a) || is_special_value(b) {
                return TailCheck::Special;
            }
            if a == b {
                continue;
            }
            if a.r#type() != b.r#type() {
                cut = true;
                continue;
            }
            let pair = match threaded.iter().position(|&(x, y)| x == a && y == b) {
                Some(pair) => pair,
                None => {
                    threaded.push((a, b));
                    threaded.len() - 1
                }
            };
            rewired.push((k, i, pair));
        }
        if cut {
            return TailCheck::Cut(k);
        }
    }
    TailCheck::Valid { threaded, rewired }
}

/// The (tail position, result index) of every result of `ops`, by the
/// result's key.
fn result_positions(ops: &[OperationRef<'_, '_>]) -> HashMap<ValueKey, (usize, usize)> {
    let mut map = HashMap::new();
    for (k, op) in ops.iter().enumerate() {
        for r in 0..op.result_count() {
            map.insert(ValueKey::of(&op.result(r).unwrap()), (k, r));
        }
    }
    map
}

/// True if a result of `op` is used outside `block`.
fn escapes<'c, 'a>(op: OperationRef<'c, 'a>, block: BlockRef<'c, 'a>) -> bool {
    op.results().any(|r| {
        edit::users(r.into())
            .iter()
            .any(|user| user.block() != Some(block))
    })
}

/// True if `value` is defined by a special-register read.
fn is_special_value(value: Value<'_, '_>) -> bool {
    edit::defining_op(value).is_some_and(|op| safety::reads_special_register(&prepare::op_name(op)))
}

/// Moves `tail`'s operations of `block1` into a new block after `after`
/// and replaces both tails by branches to it.
fn apply<'c, 'a>(after: BlockRef<'c, 'a>, block1: BlockRef<'c, 'a>, tail: &Tail<'c, 'a>) {
    let region = block1.parent_region().expect("block in a region");
    let location: Location = tail.ops[0].last().unwrap().location();
    let types: Vec<(Type, Location)> = tail
        .threaded
        .iter()
        .map(|(a, _)| (a.r#type(), location))
        .collect();
    let shared = region.insert_block_after(after, Block::new(&types));
    for &op in &tail.ops[0] {
        edit::move_to_end(op, shared);
    }
    for &(k, operand, pair) in &tail.rewired {
        edit::set_operand(
            tail.ops[0][k],
            operand,
            shared.argument(pair).unwrap().into(),
        );
    }
    let firsts: Vec<Value> = tail.threaded.iter().map(|p| p.0).collect();
    let seconds: Vec<Value> = tail.threaded.iter().map(|p| p.1).collect();
    block1.append_operation(cf::br(&shared, &firsts, location));
    let block2 = tail.ops[1]
        .last()
        .unwrap()
        .block()
        .expect("terminator in a block");
    let location2 = tail.ops[1].last().unwrap().location();
    for &op in tail.ops[1].iter().rev() {
        // SAFETY: the tail of `block2` is a suffix of the block whose
        // results are used only inside the block (`common_tail` cuts any
        // that escapes), i.e. by later tail ops, erased first (reverse
        // order); each op is erased once. Afterwards `tail.ops` is only
        // counted (`Tail::len`), and this edit claimed both blocks.
        unsafe { edit::erase_operation(op) };
    }
    block2.append_operation(cf::br(&shared, &seconds, location2));
}
