//! Restores SSA dominance after a CFG edit: every value whose definition no
//! longer dominates one of its uses is routed to that use through block
//! arguments (with `ub.poison` on paths where it was never defined).
//!
//! Uses nested in operations of a block count as uses in that block.
//! Values in blocks unreachable from the entry are left alone.

use super::ssa_apply::{self, Def, IrVariable};
use super::{ir_edit, ssa_repair::Variable};
use crate::analysis::{
    cfg::{BlockId, DominatorTree, Graph},
    region_graph::RegionGraph,
};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, BlockRef, Location, OperationRef, Value, ValueLike},
    Context,
};
use crate::support::FastMap;
use std::collections::BTreeMap;

/// Repairs the uses in `blocks` (and in operations nested in them) of
/// `graph`, a snapshot of the region as it is, whose dominator tree is
/// `dominators`; returns the number of values that needed it. Callers
/// that know which blocks may have lost dominators pass only those.
pub fn repair_uses_in<'c, 'a>(
    context: &'c Context,
    graph: &RegionGraph<'c, 'a>,
    dominators: &DominatorTree,
    blocks: &[BlockId],
    location: Location<'c>,
) -> usize {
    // Per value whose definition does not dominate a use: its block and the
    // blocks of those uses.
    let mut broken: FastMap<usize, (Value<'c, 'a>, BlockId, Vec<BlockId>)> = FastMap::default();
    let mut order: Vec<usize> = Vec::new();
    let mut buffer = Vec::with_capacity(64);
    for &use_block in blocks {
        if !dominators.is_reachable(use_block) {
            continue;
        }
        for_each_operand_in(graph.block(use_block), &mut buffer, |value| {
            // Values of nested regions (no block of `graph`) are only used there.
            let Some(def_block) = ssa_apply::defining_block(graph, value) else { return };
            if def_block == use_block || !dominators.is_reachable(def_block) || dominators.dominates(def_block, use_block) {
                return;
            }
            let key = value.to_raw().ptr as usize;
            let entry = broken.entry(key).or_insert_with(|| {
                order.push(key);
                (value, def_block, Vec::new())
            });
            entry.2.push(use_block);
        });
    }
    if order.is_empty() {
        return 0;
    }
    let mut defs = Vec::new();
    let mut variables = Vec::new();
    for key in &order {
        let (value, def_block, reads) = &broken[key];
        let mut reads = reads.clone();
        reads.sort();
        reads.dedup();
        variables.push(IrVariable {
            r#type: value.r#type(),
            variable: Variable { block_defs: vec![(*def_block, defs.len())], edge_defs: vec![], reads, live_region: None },
        });
        defs.push(Def::Value(*value));
    }
    let mut materializer = ssa_apply::Materializer::new(context, graph.block(graph.graph().entry()), location);
    let reads = ssa_apply::apply_with(&mut materializer, graph, dominators, &defs, &variables);
    // Operand positions moved where successor operands were appended, so the
    // uses are looked up again; the new ones (edges out of the defining
    // block) are dominated and stay.
    for (key, reads) in order.iter().zip(&reads) {
        let (value, def_block, _) = broken[key];
        let by_block: BTreeMap<BlockId, Value> = reads.iter().copied().collect();
        for (user, operand) in ir_edit::uses(value) {
            let Some(use_block) = enclosing_block_in(graph, user) else { continue };
            if dominators.is_reachable(use_block) && !dominators.dominates(def_block, use_block) {
                ir_edit::set_operand(user, operand, by_block[&use_block]);
            }
        }
    }
    order.len()
}

/// The blocks of `new` (a snapshot of the region after a CFG edit that only
/// added blocks and redirected edges) whose uses may no longer be
/// dominated by their definitions: the old blocks whose chain of old
/// dominators changed, and nothing else.
///
/// A use in an old block `u` of a value defined in old block `d` was
/// dominated before the edit, so `d` is on `u`'s old dominator chain; if
/// the old blocks on `u`'s new chain are exactly the old chain, `d` still
/// dominates `u`. Walking the new tree from the root, `u`'s old chain is
/// unchanged iff the nearest old proper dominator of `u` in the new tree is
/// `u`'s old immediate dominator and that block's chain is unchanged.
/// Blocks the edit created hold only values and uses it placed correctly.
pub fn blocks_that_lost_dominators(
    old: &RegionGraph<'_, '_>,
    old_dominators: &DominatorTree,
    new: &RegionGraph<'_, '_>,
    new_dominators: &DominatorTree,
) -> Vec<BlockId> {
    let old_id: Vec<Option<BlockId>> = (0..new.num_blocks()).map(|b| old.id(new.block(BlockId::new(b)))).collect();
    let mut changed = vec![false; old.num_blocks()];
    let mut lost = Vec::new();
    // (block, nearest old proper dominator) in a pre-order of the new tree.
    let root = new_dominators.root();
    let mut stack = vec![(root, None::<BlockId>)];
    while let Some((b, nearest_old)) = stack.pop() {
        let below = match old_id[b.index()] {
            Some(o) => {
                let expected = old_dominators.idom(o);
                changed[o.index()] = nearest_old != expected || expected.is_some_and(|p| changed[p.index()]);
                if changed[o.index()] {
                    lost.push(b);
                }
                Some(o)
            }
            None => nearest_old,
        };
        stack.extend(new_dominators.children(b).iter().map(|&child| (child, below)));
    }
    lost
}

/// Calls `visit` on every operand of the operations of `block` (including
/// those nested in their regions) that is defined in another block of the
/// region than `block` and the entry block: the only operands whose
/// dominance an edit can break (the entry dominates every reachable block).
fn for_each_operand_in<'c, 'a>(block: BlockRef<'c, 'a>, buffer: &mut Vec<mlir_sys::MlirValue>, mut visit: impl FnMut(Value<'c, 'a>)) {
    buffer.clear();
    loop {
        // SAFETY: a live block; the helper writes at most `capacity` values.
        let count = unsafe { crate::ffi::spmdCrossBlockOperands(block.to_raw(), buffer.as_mut_ptr(), buffer.capacity() as isize) } as usize;
        if count <= buffer.capacity() {
            // SAFETY: the helper initialised the first `count` entries.
            unsafe { buffer.set_len(count) };
            break;
        }
        buffer.reserve(count);
    }
    for &raw in buffer.iter() {
        // SAFETY: operands of live operations of the block.
        visit(unsafe { Value::from_raw(raw) });
    }
}

/// The block of `graph`'s region that contains `op`, possibly through
/// nested regions.
pub(crate) fn enclosing_block_in(graph: &RegionGraph<'_, '_>, op: OperationRef<'_, '_>) -> Option<BlockId> {
    let mut current = op;
    loop {
        let block = current.block()?;
        // SAFETY: re-borrowing the same block handle with the graph's lifetimes.
        if let Some(id) = graph.id(unsafe { BlockRef::from_raw(block.to_raw()) }) {
            return Some(id);
        }
        current = current.parent_operation()?;
    }
}
