//! Restores SSA dominance after a CFG edit: every value whose definition no
//! longer dominates one of its uses is routed to that use through block
//! arguments (with `ub.poison` on paths where it was never defined).
//!
//! Uses nested in operations of a block count as uses in that block.
//! Values in blocks unreachable from the entry are left alone.
//!
//! Which uses to look at comes from comparing the dominator trees before
//! and after the edit ([`lost_dominance`]): only the values of blocks that
//! stopped dominating some block they dominated, plus the values the edit
//! itself wired to new places. Checking every use of a large function
//! after each edit would cost a walk of all its operations.

use crate::ir::edit;
use crate::ir::key::ValueKey;
use crate::support::FastMap;
use crate::transforms::flow::ssa;
use crate::transforms::flow::ssa::rewrite::{Def, IrVariable};
use crate::transforms::flow::ssa::solve::Variable;
use crate::{
    analysis::cfg::{BlockId, DominatorTree, Graph},
    ir::region_graph::RegionGraph,
};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Location, OperationRef, Value, ValueLike},
    Context,
};
use std::collections::BTreeMap;

/// Where an edit may have broken dominance, as [`lost_dominance`] finds it:
/// only uses of values defined in `definers`, and uses in `use_blocks`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LostDominance {
    /// Blocks whose values may have uses they no longer dominate.
    pub(crate) definers: Vec<BlockId>,
    /// Blocks whose uses may no longer be dominated.
    pub(crate) use_blocks: Vec<BlockId>,
}

impl LostDominance {
    /// Also checks the uses of the values defined in `blocks`: an edit that
    /// wires existing values to new places (forwarded operands routed
    /// through Flow blocks) adds their blocks here, since those uses were
    /// never dominated in the old graph.
    pub(crate) fn add_definers(&mut self, blocks: impl IntoIterator<Item = BlockId>) {
        self.definers.extend(blocks);
        self.definers.sort_unstable();
        self.definers.dedup();
    }
}

impl std::fmt::Display for LostDominance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} definers, {} use blocks",
            self.definers.len(),
            self.use_blocks.len()
        )
    }
}

/// Repairs the uses of `graph` (a snapshot of the region as it is, whose
/// dominator tree is `dominators`) that `lost` names: the uses of the values
/// defined in its definers, and the uses (including those nested in
/// operations) in its use blocks. Returns the number of values that
/// needed it.
pub(crate) fn repair<'c, 'a>(
    context: &'c Context,
    graph: &RegionGraph<'c, 'a>,
    dominators: &DominatorTree,
    lost: &LostDominance,
    location: Location<'c>,
) -> usize {
    let mut broken = BrokenValues::default();
    broken.find_from_definers(graph, dominators, &lost.definers);
    broken.find_in_use_blocks(graph, dominators, &lost.use_blocks);
    broken.repair(context, graph, dominators, location)
}

/// Per value whose definition does not dominate a use: the value, its block
/// and the blocks of those uses, in discovery order.
#[derive(Default)]
struct BrokenValues<'c, 'a> {
    by_value: FastMap<ValueKey, (Value<'c, 'a>, BlockId, Vec<BlockId>)>,
    order: Vec<ValueKey>,
}

impl<'c, 'a> BrokenValues<'c, 'a> {
    /// Records the use of `value` (defined in `def_block`) in `use_block`
    /// if the definition does not dominate it.
    fn check(
        &mut self,
        dominators: &DominatorTree,
        value: Value<'c, 'a>,
        def_block: BlockId,
        use_block: BlockId,
    ) {
        if def_block == use_block
            || !dominators.is_reachable(use_block)
            || !dominators.is_reachable(def_block)
            || dominators.dominates(def_block, use_block)
        {
            return;
        }
        let key = ValueKey::of(&value);
        let order = &mut self.order;
        let entry = self.by_value.entry(key).or_insert_with(|| {
            order.push(key);
            (value, def_block, Vec::new())
        });
        entry.2.push(use_block);
    }

    fn find_in_use_blocks(
        &mut self,
        graph: &RegionGraph<'c, 'a>,
        dominators: &DominatorTree,
        blocks: &[BlockId],
    ) {
        let mut buffer = Vec::with_capacity(64);
        for &use_block in blocks {
            if !dominators.is_reachable(use_block) {
                continue;
            }
            crate::ir::query::for_each_cross_block_operand(
                graph.block(use_block),
                &mut buffer,
                |value| {
                    // Values of nested regions (no block of `graph`) are only used there.
                    if let Some(def_block) = ssa::rewrite::defining_block(graph, value) {
                        self.check(dominators, value, def_block, use_block);
                    }
                },
            );
        }
    }

    /// Walks the use lists of the arguments and top-level results of
    /// `definers` (values nested deeper are only used inside their op).
    fn find_from_definers(
        &mut self,
        graph: &RegionGraph<'c, 'a>,
        dominators: &DominatorTree,
        definers: &[BlockId],
    ) {
        let entry = graph.graph().entry();
        for &def_block in definers {
            // The entry dominates every reachable block (the function's
            // constants live there and have many uses).
            if def_block == entry {
                continue;
            }
            let block = graph.block(def_block);
            let arguments =
                (0..block.argument_count()).map(|i| Value::from(block.argument(i).unwrap()));
            let mut results = Vec::new();
            let mut next = block.first_operation();
            while let Some(op) = next {
                results.extend(op.results().map(Value::from));
                next = op.next_in_block();
            }
            for value in arguments.chain(results) {
                for user in edit::users(value) {
                    if let Some(use_block) = enclosing_block_in(graph, user) {
                        self.check(dominators, value, def_block, use_block);
                    }
                }
            }
        }
    }

    /// Routes every broken value to its uses through block arguments.
    fn repair(
        self,
        context: &'c Context,
        graph: &RegionGraph<'c, 'a>,
        dominators: &DominatorTree,
        location: Location<'c>,
    ) -> usize {
        let BrokenValues {
            by_value: broken,
            order,
        } = self;
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
                variable: Variable {
                    block_defs: vec![(*def_block, defs.len())],
                    edge_defs: vec![],
                    reads,
                    live_region: None,
                },
            });
            defs.push(Def::Value(*value));
        }
        let mut materializer =
            ssa::rewrite::Materializer::new(context, graph.block(graph.graph().entry()), location);
        let reads =
            ssa::rewrite::apply_with(&mut materializer, graph, dominators, &defs, &variables);
        // Operand positions moved where successor operands were appended, so the
        // uses are looked up again; the new ones (edges out of the defining
        // block) are dominated and stay.
        for (key, reads) in order.iter().zip(&reads) {
            let (value, def_block, _) = broken[key];
            let by_block: BTreeMap<BlockId, Value> = reads.iter().copied().collect();
            for (user, operand) in edit::uses(value) {
                let Some(use_block) = enclosing_block_in(graph, user) else {
                    continue;
                };
                if dominators.is_reachable(use_block) && !dominators.dominates(def_block, use_block)
                {
                    edit::set_operand(user, operand, by_block[&use_block]);
                }
            }
        }
        order.len()
    }
}

/// Where the edit from `old` to `new` (a snapshot of the region after a CFG
/// edit that only added blocks and redirected edges) may have broken
/// dominance, with `old_dominators` and `new_dominators` their trees.
///
/// A use in old block `u` of a value defined in another old block `d` was
/// dominated before the edit: `d` is on `u`'s old dominator chain
/// `u = c0, c1, ..., ck = d`. If `d` no longer dominates `u`, take the
/// largest `i` with `d` not dominating `ci`: then `d` still dominates
/// `ci+1`, so `ci+1` no longer dominates `ci` — a *direct loss* at `ci` —
/// and no block between `d` and `ci+1` on the chain dominates `ci` either
/// (`d` dominates each of them). So walking up the old chain from
/// `ci+1` while the blocks do not dominate `ci` finds every definer
/// whose values may have broken uses; there are usually few.
///
/// ```text
///    d            d no longer dominates u because the edge c1 -> u was
///    |            rerouted through a Flow block F that other paths reach:
///    c1 -> F      a direct loss at u, found by walking up from c1
///    |    |
///    u <--+
/// ```
///
/// Those walks are bounded by a budget of a few times the graph's size;
/// past it the answer is the coarser set of old blocks that lost some old
/// dominator (their uses are then checked instead). Blocks the edit
/// created hold only values and uses it placed correctly; blocks
/// unreachable before the edit were never checked by dominance.
pub(crate) fn lost_dominance(
    old: &RegionGraph<'_, '_>,
    old_dominators: &DominatorTree,
    new: &RegionGraph<'_, '_>,
    new_dominators: &DominatorTree,
) -> LostDominance {
    let new_id: Vec<BlockId> = (0..old.num_blocks())
        .map(|b| {
            new.id(old.block(BlockId::new(b)))
                .expect("the edit keeps every block")
        })
        .collect();
    lost_dominance_by_ids(old_dominators, new_dominators, &new_id)
}

/// [`lost_dominance`] on the dominator trees alone: old block `b` is block
/// `new_id[b]` after the edit.
pub(crate) fn lost_dominance_by_ids(
    old_dominators: &DominatorTree,
    new_dominators: &DominatorTree,
    new_id: &[BlockId],
) -> LostDominance {
    lost_dominance_within(
        old_dominators,
        new_dominators,
        new_id,
        4 * new_id.len() + 64,
    )
}

/// [`lost_dominance_by_ids`] with `budget` steps for the walks.
fn lost_dominance_within(
    old_dominators: &DominatorTree,
    new_dominators: &DominatorTree,
    new_id: &[BlockId],
    mut budget: usize,
) -> LostDominance {
    let num_old = new_id.len();
    let still_dominates =
        |a: BlockId, b: BlockId| new_dominators.dominates(new_id[a.index()], new_id[b.index()]);
    let mut is_definer = vec![false; num_old];
    let mut definers = Vec::new();
    // Old blocks that lost some old dominator (the fallback answer).
    let mut lost = vec![false; num_old];
    let mut lost_blocks = Vec::new();
    let mut stack = vec![old_dominators.root()];
    while let Some(u) = stack.pop() {
        stack.extend_from_slice(old_dominators.children(u));
        let Some(p) = old_dominators.idom(u) else {
            continue;
        };
        let direct = !still_dominates(p, u);
        lost[u.index()] = lost[p.index()] || direct;
        if lost[u.index()] {
            lost_blocks.push(new_id[u.index()]);
        }
        let mut above = Some(p);
        while direct && budget > 0 {
            let Some(a) = above.filter(|&a| !still_dominates(a, u)) else {
                break;
            };
            budget -= 1;
            if !std::mem::replace(&mut is_definer[a.index()], true) {
                definers.push(new_id[a.index()]);
            }
            above = old_dominators.idom(a);
        }
    }
    if budget == 0 {
        LostDominance {
            definers: Vec::new(),
            use_blocks: lost_blocks,
        }
    } else {
        LostDominance {
            definers,
            use_blocks: Vec::new(),
        }
    }
}

/// The block of `graph`'s region that contains `op`, possibly through
/// nested regions.
pub(crate) fn enclosing_block_in(
    graph: &RegionGraph<'_, '_>,
    op: OperationRef<'_, '_>,
) -> Option<BlockId> {
    let mut current = op;
    loop {
        let block = current.block()?;
        if let Some(id) = graph.id(block) {
            return Some(id);
        }
        current = current.parent_operation()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::{
        random::{realistic_cfg, SplitMix64},
        CfgGraph,
    };

    /// `g` with some edges rerouted through new Flow-like blocks, each of
    /// which branches to the original target and maybe to another block.
    fn random_edit(rng: &mut SplitMix64, g: &CfgGraph) -> CfgGraph {
        let n = g.num_blocks();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let flows = rng.range(1, 4);
        let mut flow_edges = Vec::new();
        for b in (0..n).map(BlockId::new) {
            for &t in g.successors(b) {
                if rng.chance(250) {
                    let flow = n + rng.below(flows as u64) as usize;
                    edges.push((b.as_u32(), flow as u32));
                    flow_edges.push((flow as u32, t.as_u32()));
                } else {
                    edges.push((b.as_u32(), t.as_u32()));
                }
            }
        }
        for flow in n..n + flows {
            if !flow_edges.iter().any(|&(f, _)| f as usize == flow) {
                flow_edges.push((flow as u32, rng.below(n as u64) as u32));
            }
        }
        edges.extend(flow_edges);
        CfgGraph::from_edges(n + flows, g.entry(), &edges)
    }

    #[test]
    fn property_every_broken_dominance_is_reported() {
        let seeds: u64 = crate::testing::seed_count("SPMD_SSA_SEEDS", 2000);
        let (mut broken_pairs, mut definer_answers) = (0, 0);
        for seed in 0..seeds {
            let mut rng = SplitMix64::new(seed);
            let n = rng.range(2, 80);
            let old = realistic_cfg(&mut rng, n);
            let new = random_edit(&mut rng, &old);
            let (old_dominators, new_dominators) =
                (DominatorTree::build(&old), DominatorTree::build(&new));
            let ids: Vec<BlockId> = (0..n).map(BlockId::new).collect();
            let budget = if seed % 4 == 0 {
                rng.range(0, 8)
            } else {
                4 * n + 64
            };
            let lost = lost_dominance_within(&old_dominators, &new_dominators, &ids, budget);
            definer_answers += usize::from(lost.use_blocks.is_empty());
            for u in ids
                .iter()
                .copied()
                .filter(|&u| old_dominators.is_reachable(u))
            {
                let mut d = old_dominators.idom(u);
                while let Some(definer) = d {
                    if !new_dominators.dominates(definer, u) {
                        broken_pairs += 1;
                        let reported =
                            lost.definers.contains(&definer) || lost.use_blocks.contains(&u);
                        assert!(
                            reported,
                            "seed {seed}: {definer:?} no longer dominates {u:?}, not in {lost:?}"
                        );
                    }
                    d = old_dominators.idom(definer);
                }
            }
        }
        // The corpus breaks dominance often, and mostly within the budget.
        assert!(
            broken_pairs as u64 > seeds && definer_answers as u64 * 2 > seeds,
            "{broken_pairs} {definer_answers}"
        );
    }
}
