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
//! A round fixes every irreducible cycle whose entries and entering slots
//! no earlier (enclosing or sibling) hub of the round claims; the others
//! are looked at again on the next snapshot, where their entries may have
//! changed. This is LLVM's
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
    support::FastSet,
    transforms::flow::plan::HubSpec,
};

/// The hubs of one round: one per irreducible cycle whose entries and
/// entering slots are not claimed by a hub chosen before it in forest
/// preorder (outer cycles first), with its entries as targets (header
/// first) and every reachable edge into them. A nested irreducible cycle
/// whose entries are disjoint from its ancestors' gets its hub in the same
/// round (edges into it come from inside the outer cycle, which the outer
/// hub does not touch); one that shares an entry or a slot waits for the
/// next round, on the fixed graph.
pub(crate) fn irreducible_hubs<G: Graph + ?Sized>(g: &G) -> Vec<HubSpec> {
    let dfs = Traversal::build(g);
    let mut forest = CycleForest::new();
    forest.compute_nesting(g, &dfs);
    let reachable = |b| dfs.is_reachable(b);
    let mut claimed_targets = FastSet::default();
    let mut claimed_slots = FastSet::default();
    let mut hubs = Vec::new();
    for cycle in forest.cycles() {
        if forest.is_reducible(cycle) {
            continue;
        }
        let targets: Vec<_> = forest
            .entries(cycle)
            .iter()
            .copied()
            .filter(|&e| e != g.entry())
            .collect();
        if targets.len() < 2 || targets.iter().any(|t| claimed_targets.contains(t)) {
            continue;
        }
        let mut slots = Vec::new();
        for &entry in &targets {
            slots_into(g, entry, &reachable, &mut slots);
        }
        if slots.iter().any(|s| claimed_slots.contains(s)) {
            continue;
        }
        claimed_targets.extend(targets.iter().copied());
        claimed_slots.extend(slots.iter().copied());
        hubs.push(HubSpec { slots, targets });
    }
    hubs
}
