//! `--spmd-unify-loop-exits`: give every cycle a single exit block.
//!
//! A cycle whose exiting edges lead to several blocks gets a hub outside
//! it; every exiting edge enters the hub, which dispatches to the exit block
//! the edge was heading for:
//!
//! ```text
//!    H <--+                       H <--+
//!    |    |                       |    |
//!    A ---+--> X        ==>       A ---+--> HUB: cond_br %to_x, X, Y
//!    |    |                       |    |
//!    B ---+--> Y                  B ---+--> HUB
//! ```
//!
//! Afterwards the hub's first guard is the cycle's only exit block, which
//! is what StructurizeCFG-style lowerings and loop-exit masks want.
//! Values defined in the cycle and used after it reach their uses through
//! the guards' block arguments (dominance repair).
//!
//! Inner cycles go first: a round only takes cycles none of whose nested
//! cycles still need a hub. An inner hub may lie inside the enclosing cycle
//! (when one of its targets does); its guards' edges that leave the outer
//! cycle are then ordinary exiting edges of the outer cycle, handled in a
//! later round. Cycles without exits (infinite loops) need nothing.

use crate::{
    analysis::cfg::{CycleForest, Graph, Traversal},
    transforms::flow::plan::HubSpec,
};

/// The hubs of one round: one per cycle with several exit blocks whose
/// nested cycles all have at most one.
pub(crate) fn loop_exit_hubs<G: Graph + ?Sized>(g: &G) -> Vec<HubSpec> {
    let dfs = Traversal::build(g);
    let mut forest = CycleForest::new();
    forest.compute(g, &dfs);
    let needs: Vec<bool> = forest
        .cycles()
        .map(|c| forest.exit_blocks(c).len() > 1)
        .collect();
    // Cycle ids are a preorder of the forest: children after parents, so a
    // reverse scan sees every child before its parent.
    let mut pending_below = vec![false; needs.len()];
    for cycle in forest.cycles().collect::<Vec<_>>().into_iter().rev() {
        if let Some(parent) = forest.parent(cycle) {
            if needs[cycle.index()] || pending_below[cycle.index()] {
                pending_below[parent.index()] = true;
            }
        }
    }
    let mut hubs = Vec::new();
    for cycle in forest.cycles() {
        if !needs[cycle.index()] || pending_below[cycle.index()] {
            continue;
        }
        let mut slots = Vec::new();
        for &b in forest.blocks(cycle) {
            for (slot, &t) in g.successors(b).iter().enumerate() {
                if !forest.contains(cycle, t) {
                    slots.push((b, slot));
                }
            }
        }
        hubs.push(HubSpec {
            slots,
            targets: forest.exit_blocks(cycle).to_vec(),
        });
    }
    hubs
}
