//! CFG preparations shared by the reconvergence and structurization
//! transforms: divergent switches become chains of two-way branches,
//! several returns become one exit block, and infinite loops get a
//! never-taken exit. [`prepare_region`] is the one sequence of these steps
//! both transforms run; [`Preparation`] holds what differs (which switches
//! are lowered, when infinite loops get an exit, whether to stop after the
//! first change and let the caller re-check).
//!
//! ```text
//!  cf.switch %x [default: ^d, 1: ^a, 2: ^b]      cond_br (%x == 1), ^a, ^s2
//!                                         ==>   ^s2: cond_br (%x == 2), ^b, ^d
//!
//!  ^r1: return %v    ^r2: return %w          ^r1: cf.br ^exit(%v)
//!                                     ==>    ^r2: cf.br ^exit(%w)
//!                                            ^exit(%e): return %e
//! ```
//!
//! # Functions that never return
//!
//! A never-taken exit needs a return block to go to. A function whose
//! every path ends in an infinite loop (a persistent kernel, or a loop nest
//! whose only `return` was unreachable and erased) has none, and then:
//!
//! * the preparation creates one ([`append_return_block`]) when the
//!   region has a branch at all: a block at the end of the region holding
//!   the function's own return (`func.return`, `gpu.return`,
//!   `llvm.return`) on `ub.poison` for each result. The exits to it are
//!   never taken, so it never runs. `--spmd-structurize`
//!   ([`InfiniteLoops::Always`]) does so for every such function,
//!   `--spmd-reconverge` ([`InfiniteLoops::ForStranded`]) only when a
//!   divergent branch cannot reach a return (a persistent kernel's
//!   divergent `if` inside its endless loop then reconverges like any
//!   other). Without it, the planner (which only rearranges blocks that
//!   reach the unique return) would leave the loops' branches as they are
//!   while the contracts still judge them, against the whole graph's
//!   post-dominator tree.
//! * For any other kind of function spmd does not guess a return
//!   operation: the preparation fails with [`PrepareError::NoReturn`].
//!
//! ```text
//!  ^spin: cond_br %d, ^spin, ^after         ^spin: cond_br %d, ^spin, ^after
//!  ^after: cond_br %u, ^after, ^spin  ==>   ^after: cond_br %u, ^x, ^spin
//!  (no return)                              ^x: cond_br true, ^after, ^ret
//!                                           ^ret: return (ub.poison ...)
//! ```

use crate::ir::edit;
use crate::ir::names;
use crate::ir::query;
use crate::ir::region_graph::last_operation;
use melior::ir::operation::OperationMutLike;
use melior::{
    dialect::{arith, cf},
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        Block, BlockRef, Location, OperationRef, RegionLike, RegionRef, Type, Value, ValueLike,
    },
    Context,
};

/// Names of the terminators that return from a function.
pub(crate) const RETURN_OPS: &[&str] = &["func.return", "gpu.return", "llvm.return"];

/// Terminators without successors that do not return: paths into them end
/// the thread (undefined behaviour or a trap), so they need no
/// reconvergence.
pub(crate) const DEAD_END_OPS: &[&str] = &["llvm.unreachable"];

/// True if `terminator` ends the function normally: it has no successors
/// and is not a known dead end.
pub fn is_function_exit(terminator: OperationRef<'_, '_>) -> bool {
    terminator.successor_count() == 0
        && !DEAD_END_OPS
            .iter()
            .any(|&name| edit::is_op(terminator, name))
}

/// Why a terminator without successors that is neither a return nor a
/// known dead end is rejected by the transforms that need to know where
/// threads leave the function.
pub(crate) const UNKNOWN_EXIT_REASON: &str = "it has no successors but is neither a return (func.return, gpu.return, llvm.return) nor a known dead end (llvm.unreachable), so the transform cannot tell whether threads leave the function there or stop; end the block in one of those";

/// The first block of `graph` that ends in a terminator without successors
/// that is neither a return nor a dead end (an unregistered `"test.exit"`,
/// say).
pub(crate) fn unknown_exit(
    graph: &crate::ir::region_graph::RegionGraph<'_, '_>,
) -> Option<crate::analysis::cfg::BlockId> {
    use crate::analysis::cfg::Graph;
    (0..graph.num_blocks())
        .map(crate::analysis::cfg::BlockId::new)
        .find(|&b| {
            let terminator = graph.terminator(b);
            graph.graph().successors(b).is_empty()
                && is_function_exit(terminator)
                && !is_return(terminator)
        })
}

/// True if `op` is one of the [`RETURN_OPS`].
pub(crate) fn is_return(op: OperationRef<'_, '_>) -> bool {
    RETURN_OPS.iter().any(|&name| edit::is_op(op, name))
}

/// The blocks of `graph` that end in a return, in region order. Only
/// blocks without successors are read (returns have none).
pub(crate) fn return_blocks<'g>(
    graph: &'g crate::ir::region_graph::RegionGraph<'_, '_>,
) -> impl Iterator<Item = crate::analysis::cfg::BlockId> + 'g {
    use crate::analysis::cfg::Graph;
    (0..graph.num_blocks())
        .map(crate::analysis::cfg::BlockId::new)
        .filter(move |&b| graph.graph().successors(b).is_empty() && is_return(graph.terminator(b)))
}

/// The only block of `graph` that ends in a return, if there is exactly one.
pub(crate) fn single_return_block_in(
    graph: &crate::ir::region_graph::RegionGraph<'_, '_>,
) -> Option<crate::analysis::cfg::BlockId> {
    let mut returns = return_blocks(graph);
    let first = returns.next()?;
    returns.next().is_none().then_some(first)
}

/// The name of an operation as a `String`.
pub fn op_name(op: OperationRef<'_, '_>) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Multi-way branches that [`lower_switch`] rewrites: `cf.switch` and
/// `llvm.switch` (what clang emits for a `switch` in device code). Both
/// have the flag as operand 0, the default as successor 0, and the case
/// values in a `case_values` dense integer attribute (absent when there is
/// no case).
pub(crate) const SWITCH_OPS: &[&str] = &[names::CF_SWITCH, names::LLVM_SWITCH];

/// True if `op` is one of the [`SWITCH_OPS`].
pub(crate) fn is_switch(op: OperationRef<'_, '_>) -> bool {
    SWITCH_OPS.iter().any(|&name| edit::is_op(op, name))
}

/// Rewrites the `cf.switch` or `llvm.switch` terminating `block` into a
/// chain of `cf.cond_br`, one per distinct destination of its cases, ending
/// in the default ([`case_groups`]: cases that branch to the same block with
/// the same operands share one test, and cases that do what the default
/// does need none). Returns false (and changes nothing) if the terminator
/// is not a switch whose cases can be read. The switch is erased: the
/// caller must use no handle to it afterwards (a
/// [`crate::ir::region_graph::RegionGraph`] reads terminators afresh,
/// except `snapshot_terminator`).
pub(crate) fn lower_switch<'c>(
    context: &'c Context,
    region: RegionRef<'c, '_>,
    block: BlockRef<'c, '_>,
) -> bool {
    lower_switch_into_blocks(context, region, block).is_some()
}

/// Like [`lower_switch`]; returns the blocks it created (the rest of the
/// chain after `block`), `None` if nothing changed.
pub(crate) fn lower_switch_into_blocks<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    block: BlockRef<'c, 'a>,
) -> Option<Vec<BlockRef<'c, 'a>>> {
    let switch = block.terminator()?;
    if !is_switch(switch) {
        return None;
    }
    let cases = case_values(switch)?;
    let location = switch.location();
    let flag = switch.operand(0).unwrap();
    let slots: Option<Vec<(BlockRef, Vec<Value>)>> = (0..switch.successor_count())
        .map(|slot| {
            Some((
                switch.successor(slot).ok()?,
                edit::successor_operands(switch, slot)?,
            ))
        })
        .collect();
    let slots = slots?;
    if slots.len() != cases.len() + 1 {
        return None;
    }
    let groups = case_groups(&cases, |a, b| slots[a] == slots[b]);
    let default = &slots[0];
    let mut created = Vec::new();
    let mut current = block;
    for (index, group) in groups.iter().enumerate() {
        let condition = case_test(context, current, flag, &group.values, location);
        let (target, operands) = &slots[group.slot];
        let (else_block, else_operands) = if index + 1 == groups.len() {
            (default.0, default.1.clone())
        } else {
            let next = region
                .insert_block_after(created.last().copied().unwrap_or(block), Block::new(&[]));
            created.push(next);
            (next, Vec::new())
        };
        current.append_operation(cf::cond_br(
            context,
            condition,
            target,
            &else_block,
            operands,
            &else_operands,
            location,
        ));
        current = else_block;
    }
    if groups.is_empty() {
        block.append_operation(cf::br(&default.0, &default.1, location));
    }
    // SAFETY: a switch has no results; its flag, operands and successors
    // now belong to the new branches, and the handles kept here (`flag`,
    // `slots`) are values and blocks, not the switch. The callers use no
    // handle to it afterwards (see `lower_switch`).
    unsafe { edit::erase_operation(switch) };
    Some(created)
}

/// The cases of a switch that go to one destination: the successor slot
/// that stands for them (`1 + ` the index of the first such case) and their
/// values, ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseGroup {
    /// The switch's successor slot of the group's first case.
    pub slot: usize,
    /// The group's case values, ascending and distinct.
    pub values: Vec<i64>,
}

/// Groups the cases of a switch by destination, in the order of each
/// destination's first case. `same(a, b)` tells whether successor slots
/// `a` and `b` branch to the same block with the same operands (slot 0 is
/// the default, case `i` is slot `i + 1`). A case that does what the
/// default does is dropped; so is a value that an earlier case already
/// took (a verified switch has none).
pub fn case_groups(cases: &[i64], same: impl Fn(usize, usize) -> bool) -> Vec<CaseGroup> {
    let mut groups: Vec<CaseGroup> = Vec::new();
    let mut seen = crate::support::FastSet::default();
    for (index, &value) in cases.iter().enumerate() {
        let slot = index + 1;
        if !seen.insert(value) || same(slot, 0) {
            continue;
        }
        match groups.iter_mut().find(|group| same(group.slot, slot)) {
            Some(group) => group.values.push(value),
            None => groups.push(CaseGroup {
                slot,
                values: vec![value],
            }),
        }
    }
    for group in &mut groups {
        group.values.sort_unstable();
    }
    groups
}

/// The runs of consecutive values in ascending distinct `values`, as
/// `(first, last)` pairs.
fn runs(values: &[i64]) -> Vec<(i64, i64)> {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for &value in values {
        match runs.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(value) => *last = value,
            _ => runs.push((value, value)),
        }
    }
    runs
}

/// Appends to `block` an `i1` that is true when `flag` is one of `values`
/// (ascending, distinct, not empty): per run of consecutive values one
/// `arith.cmpi eq`, or for a longer run `first..=last` the unsigned range
/// test `flag - first <= last - first` (`flag <= last` when `first` is 0),
/// the runs joined with `arith.ori`.
fn case_test<'c, 'a>(
    context: &'c Context,
    block: BlockRef<'c, 'a>,
    flag: Value<'c, 'a>,
    values: &[i64],
    location: Location<'c>,
) -> Value<'c, 'a> {
    let constant = |value: i64| -> Value<'c, 'a> {
        block
            .append_operation(arith::constant(
                context,
                IntegerAttribute::new(flag.r#type(), value).into(),
                location,
            ))
            .result(0)
            .unwrap()
            .into()
    };
    let compare = |predicate, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>| -> Value<'c, 'a> {
        block
            .append_operation(arith::cmpi(context, predicate, lhs, rhs, location))
            .result(0)
            .unwrap()
            .into()
    };
    let tests: Vec<Value<'c, 'a>> = runs(values)
        .into_iter()
        .map(|(first, last)| {
            if first == last {
                return compare(arith::CmpiPredicate::Eq, flag, constant(first));
            }
            let offset = if first == 0 {
                flag
            } else {
                let first = constant(first);
                block
                    .append_operation(arith::subi(flag, first, location))
                    .result(0)
                    .unwrap()
                    .into()
            };
            let width = constant(last.wrapping_sub(first));
            compare(arith::CmpiPredicate::Ule, offset, width)
        })
        .collect();
    tests
        .into_iter()
        .reduce(|any, test| {
            block
                .append_operation(arith::ori(any, test, location))
                .result(0)
                .unwrap()
                .into()
        })
        .expect("a case group has a value")
}

/// The case values of a switch, read from its `case_values` attribute.
fn case_values(switch: OperationRef<'_, '_>) -> Option<Vec<i64>> {
    crate::ir::facts::switch_case_values(switch)
}

/// If several blocks of `region` end in a return, routes them all to one
/// new exit block that returns its arguments. Returns the exit block (the
/// single existing one when there is only one), or `None` when the region
/// has no return. `graph` is a snapshot of `region`; blocks added since
/// must not return.
pub(crate) fn unify_returns_in<'c, 'a>(
    region: RegionRef<'c, 'a>,
    graph: &crate::ir::region_graph::RegionGraph<'c, 'a>,
) -> Option<BlockRef<'c, 'a>> {
    let returns: Vec<BlockRef<'c, 'a>> = return_blocks(graph).map(|b| graph.block(b)).collect();
    unify_return_blocks(region, &returns)
}

/// Replaces the returns ending `returns` (in region order) by branches to
/// one new exit block at the end of `region`.
fn unify_return_blocks<'c, 'a>(
    region: RegionRef<'c, 'a>,
    returns: &[BlockRef<'c, 'a>],
) -> Option<BlockRef<'c, 'a>> {
    match returns {
        [] => None,
        [block] => Some(*block),
        _ => Some(route_returns_to_new_exit(region, returns)),
    }
}

/// The return block `block` if a new edge into it from anywhere keeps the
/// IR valid (it holds only its return, on its own arguments or on values
/// of the entry block), else a new exit block at the end of `region` that
/// `block` now branches to: `^exit(args): return args`. A never-taken exit
/// forwards `ub.poison` for the arguments; a value `block` computed itself,
/// or read from a block that does not dominate the new edge, would not
/// dominate its use any more.
fn exit_reachable_from_anywhere<'c, 'a>(
    region: RegionRef<'c, 'a>,
    block: BlockRef<'c, 'a>,
) -> BlockRef<'c, 'a> {
    let terminator = last_operation(block).expect("a return block ends in its return");
    let entry = region.first_block();
    let available = |value: Value<'c, 'a>| match query::defining_block(value) {
        Some(owner) => owner == block || Some(owner) == entry,
        None => true,
    };
    let only_the_return = block.first_operation() == Some(terminator);
    if only_the_return && terminator.operands().all(available) {
        block
    } else {
        route_returns_to_new_exit(region, &[block])
    }
}

/// Replaces the returns ending `returns` by branches to one new exit block
/// at the end of `region`, which returns its arguments. The old returns
/// are erased: the caller must use no handle to them afterwards.
fn route_returns_to_new_exit<'c, 'a>(
    region: RegionRef<'c, 'a>,
    returns: &[BlockRef<'c, 'a>],
) -> BlockRef<'c, 'a> {
    let first = last_operation(returns[0]).expect("a return block ends in its return");
    let location = first.location();
    let name = op_name(first);
    let types: Vec<(Type, Location)> = first.operands().map(|v| (v.r#type(), location)).collect();
    let exit = region.append_block(Block::new(&types));
    let arguments: Vec<Value> = (0..exit.argument_count())
        .map(|i| exit.argument(i).unwrap().into())
        .collect();
    exit.append_operation(
        OperationBuilder::new(&name, location)
            .add_operands(&arguments)
            .build()
            .expect("valid return"),
    );
    for &block in returns {
        let terminator = last_operation(block).expect("a return block ends in its return");
        let operands: Vec<Value> = terminator.operands().collect();
        block.insert_operation_before(terminator, cf::br(&exit, &operands, terminator.location()));
        // SAFETY: a return (no results) just replaced by a `cf.br`; read
        // afresh from a block of `returns`, which are distinct blocks, and
        // not used after. The callers keep no handle to it (they hold
        // blocks, and `exit_reachable_from_anywhere` drops its `terminator`).
        unsafe { edit::erase_operation(terminator) };
    }
    exit
}

/// Gives an infinite loop a never-taken exit, the way the post-dominator
/// tree pretends it has one: slot `slot` of `block` (an edge of the loop)
/// is routed through a new block that branches on a constant `true` to the
/// old target (same operands) and on `false` to `exit`, passing
/// `ub.poison` for the exit's arguments. Returns the new block, `None` (and
/// changes nothing) if the slot's operands cannot be read.
pub(crate) fn add_never_taken_exit<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    block: BlockRef<'c, 'a>,
    slot: usize,
    exit: BlockRef<'c, 'a>,
) -> Option<BlockRef<'c, 'a>> {
    let terminator = block.terminator()?;
    let target = terminator.successor(slot).ok()?;
    let operands = edit::successor_operands(terminator, slot)?;
    let location = terminator.location();
    let types: Vec<(Type, Location)> = operands.iter().map(|v| (v.r#type(), location)).collect();
    let detour = region.insert_block_after(block, Block::new(&types));
    let forwarded: Vec<Value> = (0..detour.argument_count())
        .map(|i| detour.argument(i).unwrap().into())
        .collect();
    let always = detour.append_operation(edit::bool_constant(context, true, location));
    let poison: Vec<Value> = (0..exit.argument_count())
        .map(|i| {
            detour
                .append_operation(edit::poison(
                    context,
                    exit.argument(i).unwrap().r#type(),
                    location,
                ))
                .result(0)
                .unwrap()
                .into()
        })
        .collect();
    detour.append_operation(cf::cond_br(
        context,
        always.result(0).unwrap().into(),
        &target,
        &exit,
        &forwarded,
        &poison,
        location,
    ));
    let mut terminator_mut = block.terminator_mut().expect("checked above");
    terminator_mut.set_successor(slot, &detour);
    edit::set_successor_operands(terminator, slot, &operands);
    Some(detour)
}

/// Gives every infinite loop a never-taken exit from the block the
/// post-dominator tree connects to its virtual exit (one per terminal
/// SCC of the blocks that cannot return, where edges into dead ends such
/// as `llvm.unreachable` do not count: a loop that can only leave into a
/// trap never returns either), on its first slot that stays in the loop; `on_detour` sees each new detour block (its branch is on a
/// constant, hence uniform). The exits go to the function's single return
/// block. With several return blocks nothing is done (unify them first).
/// Without any, a function whose region has a branch (two different
/// successors) gets one ([`append_return_block`]), and nothing is done
/// otherwise; a function of a kind whose return spmd cannot create is
/// then an error ([`PrepareError::NoReturn`]). Returns the number of exits
/// added.
///
/// With the exit in place, the loop's blocks reach the return, so
/// post-dominance inside the loop is the ordinary one: a divergent branch
/// in the loop reconverges where its paths meet again before the latch
/// (the same place the whole graph's post-dominator tree, rooted at the
/// latch, points to).
pub(crate) fn add_infinite_loop_exits<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: &crate::ir::region_graph::RegionGraph<'c, 'a>,
    on_detour: &mut dyn FnMut(BlockRef<'c, 'a>),
) -> Result<usize, PrepareError<'c>> {
    use crate::analysis::cfg::{BlockId, CfgGraph, Graph, PostDominatorTree};
    let g = graph.graph();
    let exit = single_return_block_in(graph);
    if exit.is_none() && return_blocks(graph).next().is_some() {
        return Ok(0);
    }
    // A loop whose only ways out end in dead ends (`llvm.unreachable`)
    // never reaches a return either: its threads still need rejoin points.
    // Without the edges into dead ends it is a terminal SCC like any
    // infinite loop, with a representative in the post-dominator tree.
    let dead_end =
        |b: BlockId| g.successors(b).is_empty() && !is_function_exit(graph.terminator(b));
    let live_edges: Vec<(u32, u32)> = g
        .edges()
        .filter(|&(_, target)| !dead_end(target))
        .map(|(source, target)| (source.as_u32(), target.as_u32()))
        .collect();
    let pruned = CfgGraph::from_edges(g.num_blocks(), g.entry(), &live_edges);
    let pdom = PostDominatorTree::build(&pruned);
    // Each representative with the first slot that stays in its loop (any
    // slot not into a dead end: the loop is terminal without them).
    let roots: Vec<(BlockId, usize)> = pdom
        .extra_roots()
        .iter()
        .filter_map(|&root| {
            let slot = g.successors(root).iter().position(|&s| !dead_end(s))?;
            // `add_never_taken_exit` needs the slot's operands: a loop whose
            // branch does not expose them is left out before anything is
            // edited, so that no exit is routed (its return erased) while no
            // exit is added, which would leave the region changed under a
            // stale `graph` holding the erased return.
            edit::successor_operands(graph.terminator(root), slot)?;
            Some((root, slot))
        })
        .collect();
    if roots.is_empty() {
        return Ok(0);
    }
    let mut created = None;
    let exit = match exit {
        Some(exit) => exit_reachable_from_anywhere(region, graph.block(exit)),
        None => {
            // Nothing returns: every path ends in an infinite loop or a
            // dead end. Without a branch there is nothing to structurize,
            // and the function is left as it is.
            let branches = (0..g.num_blocks()).map(BlockId::new).any(|b| {
                let successors = g.successors(b);
                successors.iter().any(|&s| s != successors[0])
            });
            if !branches {
                return Ok(0);
            }
            *created.insert(append_return_block(context, region)?)
        }
    };
    let mut added = 0;
    for (root, slot) in roots {
        if let Some(detour) = add_never_taken_exit(context, region, graph.block(root), slot, exit) {
            on_detour(detour);
            added += 1;
        }
    }
    if let (0, Some(block)) = (added, created) {
        // No exit goes to it: the region is left as it was.
        // SAFETY: the block `append_return_block` just added to the region:
        // no edge goes to it (no detour was added), its values (`ub.poison`
        // operands of its return) are used only inside it, and `exit`, the
        // other handle to it, is not used after the loop above.
        unsafe { edit::erase_block(block) };
    }
    Ok(added)
}

/// Appends to `region`, the body of a function that never returns, a block
/// that returns from it: the function's own return operation
/// ([`query::function_return`]: `func.return`, `gpu.return`,
/// `llvm.return`) on one `ub.poison` per result (as
/// [`add_never_taken_exit`] passes for the exit's arguments), at the
/// function's location. It is the target of never-taken exits only, so it
/// never runs and the function's behaviour is unchanged. Fails with
/// [`PrepareError::NoReturn`] for any other kind of function (or a region
/// that is not the function's body), whose return spmd does not know.
pub(crate) fn append_return_block<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
) -> Result<BlockRef<'c, 'a>, PrepareError<'c>> {
    let function = region
        .first_block()
        .and_then(|entry| entry.parent_operation())
        .expect("a region with blocks lies in an operation");
    let location = function.location();
    let is_body = function.region(0).is_ok_and(|body| body == region);
    let Some((name, results)) = query::function_return(function).filter(|_| is_body) else {
        return Err(PrepareError::NoReturn {
            location,
            kind: op_name(function),
        });
    };
    let block = region.append_block(Block::new(&[]));
    let poison: Vec<Value> = results
        .iter()
        .map(|&r#type| {
            block
                .append_operation(edit::poison(context, r#type, location))
                .result(0)
                .unwrap()
                .into()
        })
        .collect();
    block.append_operation(
        OperationBuilder::new(name, location)
            .add_operands(&poison)
            .build()
            .expect("valid return"),
    );
    Ok(block)
}

/// What [`prepare_region`] does differently for the transform calling it.
pub(crate) struct Preparation<'p> {
    /// Which blocks with a multi-way branch (more than two successors) to
    /// lower into two-way branches: the divergent ones for
    /// `--spmd-reconverge`, all for `--spmd-structurize`.
    pub(crate) lower_switch: &'p dyn Fn(crate::analysis::cfg::BlockId) -> bool,
    /// Why a multi-way branch to lower that is not a switch is rejected.
    pub(crate) switch_reason: &'static str,
    /// When infinite loops get a never-taken exit.
    pub(crate) infinite_loops: InfiniteLoops<'p>,
    /// Return as soon as a step (switches and returns together, then
    /// infinite loops) changed the region, without re-reading it: the
    /// caller re-reads it and checks whether it needs more
    /// (`--spmd-reconverge`). Otherwise every step runs, and the region is
    /// re-read after each step that changed it.
    pub(crate) stop_after_change: bool,
}

/// When [`prepare_region`] gives infinite loops a never-taken exit
/// ([`add_infinite_loop_exits`]).
pub(crate) enum InfiniteLoops<'p> {
    /// Always (`--spmd-structurize`: branches inside them are structurized
    /// too), creating a return block to exit to in a function that has
    /// none (see the module docs).
    Always,
    /// Only when a block flagged here (a divergent branch) cannot reach a
    /// return: it needs a rejoin point. If no exit can be added (several
    /// returns), that block's terminator is rejected for `reason`.
    ForStranded {
        /// Per block index: the block ends in a divergent branch, which
        /// needs a rejoin point.
        divergent: &'p [bool],
        /// Why such a block's terminator is rejected when no exit can be
        /// added (the end of the diagnostic).
        reason: &'static str,
    },
}

/// Sees the blocks [`prepare_region`] creates, to keep per-block facts
/// (divergence) up to date.
pub(crate) trait PrepareObserver<'c, 'a> {
    /// The multi-way branch of `block` became a chain of two-way branches;
    /// `created` are the chain's new blocks.
    fn switch_lowered(&mut self, _block: BlockRef<'c, 'a>, _created: &[BlockRef<'c, 'a>]) {}
    /// `detour` gives an infinite loop its never-taken exit (its branch is
    /// on a constant, hence uniform).
    fn detour_added(&mut self, _detour: BlockRef<'c, 'a>) {}
}

/// What [`prepare_region`] did.
pub(crate) struct Prepared<'c, 'a> {
    /// Multi-way branches lowered.
    pub(crate) switches_lowered: usize,
    /// Return blocks routed to one exit (0 if there was at most one).
    pub(crate) returns_unified: usize,
    /// Infinite loops given a never-taken exit.
    pub(crate) infinite_loops: usize,
    /// An exact snapshot of the region as prepared; `None` when
    /// [`Preparation::stop_after_change`] stopped after a change, before
    /// re-reading the region.
    pub(crate) graph: Option<crate::ir::region_graph::RegionGraph<'c, 'a>>,
}

impl Prepared<'_, '_> {
    /// True if the region changed.
    pub(crate) fn changed(&self) -> bool {
        self.switches_lowered > 0 || self.returns_unified > 0 || self.infinite_loops > 0
    }
}

/// Why [`prepare_region`] failed.
#[derive(Debug)]
pub(crate) enum PrepareError<'c> {
    /// The prepared region cannot be snapshotted.
    Region(crate::ir::region_graph::RegionGraphError<'c>),
    /// A terminator the preparation cannot handle.
    UnsupportedTerminator {
        /// The terminator.
        location: Location<'c>,
        /// Its operation name.
        name: String,
        /// Why it is rejected (the end of the diagnostic).
        reason: &'static str,
    },
    /// The function never returns, its infinite loops hold branches that
    /// need a never-taken exit to a return block, and it is of a kind whose
    /// return operation spmd cannot create ([`append_return_block`]).
    NoReturn {
        /// The function.
        location: Location<'c>,
        /// Its operation name.
        kind: String,
    },
}

impl std::fmt::Display for PrepareError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Region(error) => write!(f, "{error}"),
            Self::UnsupportedTerminator { name, reason, .. } => {
                write!(f, "unsupported terminator '{name}': {reason}")
            }
            Self::NoReturn { kind, .. } => write!(
                f,
                "it never returns, and spmd cannot create a return block in '{kind}'"
            ),
        }
    }
}

impl std::error::Error for PrepareError<'_> {}

/// The CFG preparation of `--spmd-reconverge` and `--spmd-structurize`
/// (see the module docs), on `region` whose exact snapshot is `graph`:
///
/// 1. multi-way branches chosen by [`Preparation::lower_switch`] become
///    chains of two-way branches ([`lower_switch_into_blocks`]);
/// 2. several returns go to one exit block ([`unify_returns_in`]);
/// 3. infinite loops get a never-taken exit, as
///    [`Preparation::infinite_loops`] says ([`add_infinite_loop_exits`];
///    with [`InfiniteLoops::Always`], to a return block created for the
///    purpose when the function has none).
///
/// `observer` sees the blocks created on the way.
pub(crate) fn prepare_region<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: crate::ir::region_graph::RegionGraph<'c, 'a>,
    preparation: &Preparation<'_>,
    observer: &mut dyn PrepareObserver<'c, 'a>,
    mut timer: Option<&mut crate::support::PhaseTimer>,
) -> Result<Prepared<'c, 'a>, PrepareError<'c>> {
    use crate::ir::region_graph::RegionGraph;
    let snapshot = || RegionGraph::snapshot(region).map_err(PrepareError::Region);
    let mut prepared = Prepared {
        switches_lowered: 0,
        returns_unified: 0,
        infinite_loops: 0,
        graph: None,
    };
    let mut graph = graph;
    prepared.switches_lowered = lower_switches(context, region, &graph, preparation, observer)?;
    let returns = return_blocks(&graph).count();
    if returns > 1 {
        unify_returns_in(region, &graph);
        prepared.returns_unified = returns;
    }
    if prepared.changed() {
        if preparation.stop_after_change {
            return Ok(prepared);
        }
        graph = snapshot()?;
    }
    if let Some(timer) = timer.as_deref_mut() {
        timer.lap("switches, returns");
    }
    let stranded = match preparation.infinite_loops {
        InfiniteLoops::Always => None,
        InfiniteLoops::ForStranded { divergent, reason } => {
            match first_stranded(&graph, divergent) {
                Some(b) => Some((b, reason)),
                None => {
                    prepared.graph = Some(graph);
                    return Ok(prepared);
                }
            }
        }
    };
    // A function that has no return gets one for its never-taken exits
    // (see the module docs, "Functions that never return").
    prepared.infinite_loops = add_infinite_loop_exits(context, region, &graph, &mut |detour| {
        observer.detour_added(detour)
    })?;
    if let (0, Some((b, reason))) = (prepared.infinite_loops, stranded) {
        let terminator = graph.terminator(b);
        return Err(PrepareError::UnsupportedTerminator {
            location: terminator.location(),
            name: op_name(terminator),
            reason,
        });
    }
    if prepared.infinite_loops > 0 {
        if preparation.stop_after_change {
            return Ok(prepared);
        }
        graph = snapshot()?;
    }
    if let Some(timer) = timer {
        timer.lap("infinite loops");
    }
    prepared.graph = Some(graph);
    Ok(prepared)
}

/// Step 1 of [`prepare_region`]: lowers the multi-way branches that
/// [`Preparation::lower_switch`] chooses into chains of two-way branches,
/// telling `observer`; returns how many it lowered.
fn lower_switches<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: &crate::ir::region_graph::RegionGraph<'c, 'a>,
    preparation: &Preparation<'_>,
    observer: &mut dyn PrepareObserver<'c, 'a>,
) -> Result<usize, PrepareError<'c>> {
    use crate::analysis::cfg::{BlockId, Graph};
    let mut lowered = 0;
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        if graph.graph().successors(b).len() <= 2 || !(preparation.lower_switch)(b) {
            continue;
        }
        let terminator = graph.terminator(b);
        let Some(created) = lower_switch_into_blocks(context, region, graph.block(b)) else {
            return Err(PrepareError::UnsupportedTerminator {
                location: terminator.location(),
                name: op_name(terminator),
                reason: preparation.switch_reason,
            });
        };
        observer.switch_lowered(graph.block(b), &created);
        lowered += 1;
    }
    Ok(lowered)
}

/// The first block flagged in `divergent` (a divergent branch) that cannot
/// reach a return of `graph`, if any.
fn first_stranded(
    graph: &crate::ir::region_graph::RegionGraph<'_, '_>,
    divergent: &[bool],
) -> Option<crate::analysis::cfg::BlockId> {
    use crate::analysis::cfg::{BlockId, Graph};
    let g = graph.graph();
    let reaches =
        crate::analysis::reconverging::reaches_exit(g, &|b| is_function_exit(graph.terminator(b)));
    // A branch whose slots all target one block splits nothing: it needs
    // no rejoin point.
    let splits = |b: usize| {
        let successors = g.successors(BlockId::new(b));
        successors.iter().any(|&s| s != successors[0])
    };
    (0..g.num_blocks())
        .find(|&b| divergent[b] && !reaches[b] && splits(b))
        .map(BlockId::new)
}

#[cfg(test)]
mod tests {
    use super::{case_groups, runs, CaseGroup};

    #[test]
    fn cases_group_by_destination_in_first_case_order() {
        // Slots: 0 default -> X; cases 7 -> A, 1 -> B, 3 -> A, 9 -> X, 2 -> A.
        let destination = ['X', 'A', 'B', 'A', 'X', 'A'];
        let groups = case_groups(&[7, 1, 3, 9, 2], |a, b| destination[a] == destination[b]);
        assert_eq!(
            groups,
            vec![
                CaseGroup {
                    slot: 1,
                    values: vec![2, 3, 7]
                },
                CaseGroup {
                    slot: 2,
                    values: vec![1]
                },
            ]
        );
        // Every case like the default: nothing to test.
        assert!(case_groups(&[4, 5], |_, _| true).is_empty());
        // A repeated value keeps its first destination.
        let destination = ['X', 'A', 'B'];
        let groups = case_groups(&[4, 4], |a, b| destination[a] == destination[b]);
        assert_eq!(
            groups,
            vec![CaseGroup {
                slot: 1,
                values: vec![4]
            }]
        );
    }

    #[test]
    fn runs_split_at_gaps_and_never_overflow() {
        assert_eq!(runs(&[-1, 0, 1, 5, 7, 8]), vec![(-1, 1), (5, 5), (7, 8)]);
        assert_eq!(
            runs(&[i64::MAX - 1, i64::MAX]),
            vec![(i64::MAX - 1, i64::MAX)]
        );
        assert_eq!(runs(&[]), Vec::<(i64, i64)>::new());
    }
}
