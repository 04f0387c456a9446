//! `--spmd-fix-irreducible`: make every cycle single-entry.
//!
//! An irreducible cycle has several *entries* (blocks with a predecessor
//! outside it; [`CycleForest::entries`]). Every edge into any entry, from
//! outside the cycle **and from inside it**, is routed into one hub that
//! dispatches to the entry the edge was heading for:
//!
//! ```text
//!      E                          E
//!     / \                         |
//!    A <-> B      ==>           HUB <----+
//!                               /   \    |
//!                              A     B   |
//!                              |     |   |
//!                              +-----+---+   (A -> HUB, B -> HUB)
//! ```
//!
//! The hub is then the only block of the (grown) cycle with a predecessor
//! outside it, so it dominates the cycle: the cycle is reducible with the
//! hub as header. Routing the inner edges too is what makes the hub the
//! target of every back edge; without it the old entries would still form
//! a multi-entry cycle below the hub.
//!
//! Only the outermost irreducible cycles are fixed in a round (they are
//! disjoint); cycles nested in them are looked at again on the next
//! snapshot, where their entries may have changed. This is LLVM's
//! FixIrreducible idea (route through a "guard" hub instead of splitting
//! nodes, which can blow up exponentially) on our cycle forest.
//!
//! Edge cases: edges from blocks unreachable from the entry are ignored
//! (they do not make a cycle irreducible and are left alone); a self loop
//! or a reducible cycle is never touched; the region's entry block cannot
//! be a cycle entry in MLIR (it has no predecessors).

use super::slots_into;
use crate::{
    analysis::cfg::{CycleForest, Graph, Traversal},
    transforms::reconverge::plan::HubSpec,
};

/// The hubs of one round: one per outermost irreducible cycle, with its
/// entries as targets (header first) and every reachable edge into them.
pub fn irreducible_hubs<G: Graph + ?Sized>(g: &G) -> Vec<HubSpec> {
    let dfs = Traversal::build(g);
    let mut forest = CycleForest::new();
    forest.compute(g, &dfs);
    let reachable = |b| dfs.is_reachable(b);
    let mut hubs = Vec::new();
    for cycle in forest.cycles() {
        if forest.is_reducible(cycle) || inside_irreducible(&forest, cycle) {
            continue;
        }
        let targets: Vec<_> = forest.entries(cycle).iter().copied().filter(|&e| e != g.entry()).collect();
        if targets.len() < 2 {
            continue;
        }
        let mut slots = Vec::new();
        for &entry in &targets {
            slots_into(g, entry, &reachable, &mut slots);
        }
        hubs.push(HubSpec { slots, targets });
    }
    hubs
}

/// True if an enclosing cycle of `cycle` is irreducible.
fn inside_irreducible(forest: &CycleForest, cycle: crate::analysis::cfg::CycleId) -> bool {
    let mut parent = forest.parent(cycle);
    while let Some(p) = parent {
        if !forest.is_reducible(p) {
            return true;
        }
        parent = forest.parent(p);
    }
    false
}
