//! Restores SSA dominance after a CFG edit: every value whose definition no
//! longer dominates one of its uses is routed to that use through block
//! arguments (with `ub.poison` on paths where it was never defined).
//!
//! Uses nested in operations of a block count as uses in that block.
//! Values in blocks unreachable from the entry are left alone.

use super::ssa_apply::{self, Def, IrVariable};
use super::{ir_edit, ssa_repair::Variable};
use crate::analysis::{
    cfg::{BlockId, DominatorTree},
    region_graph::{RegionGraph, RegionGraphError},
};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, BlockRef, Location, OperationRef, RegionRef, Value, ValueLike},
    Context,
};
use std::collections::BTreeMap;

/// Repairs `region`; returns the number of values that needed it.
pub fn repair_dominance<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    location: Location<'c>,
) -> Result<usize, RegionGraphError<'c>> {
    let graph = RegionGraph::snapshot(region)?;
    let dominators = DominatorTree::build(graph.graph());
    let mut defs = Vec::new();
    let mut variables = Vec::new();
    let mut repaired: Vec<(BlockId, Value<'c, 'a>)> = Vec::new();
    for index in 0..graph.num_blocks() {
        let block_id = BlockId::new(index);
        if !dominators.is_reachable(block_id) {
            continue;
        }
        for value in values_defined_in(graph.block(block_id)) {
            let mut uses = Vec::new();
            for (user, operand) in ir_edit::uses(value) {
                let Some(use_block) = enclosing_block_in(&graph, user) else { continue };
                if dominators.is_reachable(use_block) && !dominators.dominates(block_id, use_block) {
                    uses.push((user, operand, use_block));
                }
            }
            if uses.is_empty() {
                continue;
            }
            let reads: Vec<BlockId> = uses.iter().map(|u| u.2).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            variables.push(IrVariable {
                r#type: value.r#type(),
                variable: Variable { block_defs: vec![(block_id, defs.len())], edge_defs: vec![], reads, live_region: None },
            });
            defs.push(Def::Value(value));
            repaired.push((block_id, value));
        }
    }
    if variables.is_empty() {
        return Ok(0);
    }
    let reads = ssa_apply::apply(context, &graph, &defs, &variables, location);
    // Operand positions moved where successor operands were appended, so the
    // uses are looked up again; the new ones (edges out of the defining
    // block) are dominated and stay.
    for (&(def_block, value), reads) in repaired.iter().zip(&reads) {
        let by_block: BTreeMap<BlockId, Value> = reads.iter().copied().collect();
        for (user, operand) in ir_edit::uses(value) {
            let Some(use_block) = enclosing_block_in(&graph, user) else { continue };
            if dominators.is_reachable(use_block) && !dominators.dominates(def_block, use_block) {
                ir_edit::set_operand(user, operand, by_block[&use_block]);
            }
        }
    }
    Ok(variables.len())
}

/// The block arguments and top-level op results of `block`.
fn values_defined_in<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    let mut values: Vec<Value> = (0..block.argument_count()).map(|i| block.argument(i).unwrap().into()).collect();
    let mut next = block.first_operation();
    while let Some(op) = next {
        values.extend(op.results().map(Value::from));
        next = op.next_in_block();
    }
    values
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
