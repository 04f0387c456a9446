//! The *cycle-contiguous order*: a numbering of the reachable blocks in
//! which
//!
//! 1. every edge goes forward except the edges into the header of a cycle
//!    (of the [`CycleForest`]) containing the edge's source — exactly the
//!    DFS back edges; and
//! 2. every cycle occupies one contiguous interval, starting with its
//!    header (nested cycles included).
//!
//! The sync propagation of [`super::sync`] processes blocks in this order
//! and stops once the pending blocks all carry the same label, so besides
//! these two properties the order should place every block *soon after its
//! last predecessor*. RPO does not: the DFS finishes an early `return`
//! first, so RPO lists it after everything the DFS visited next, and its
//! label would stay pending across unrelated code (measured: hundreds of
//! times more propagation work on code-shaped CFGs). A DFS-preorder
//! priority has the same defect for blocks the DFS reaches last. We use
//! the order in which blocks become *ready*.
//!
//! # Construction
//!
//! The shared level-by-level construction of
//! [`spmd_graph::levels`] (the structurizer's layout uses it too) with its
//! FIFO policy ([`FifoReady`]): each level — the function, or a cycle —
//! is condensed into a DAG of its blocks and child cycles, and Kahn's
//! algorithm places the items of each level in the order in which their
//! last predecessor was placed, suspending the level to place a child
//! cycle whole, header first. All reachable blocks are placed.
//!
//! Cost: `O(n + E log d)` where `d` is the cycle nesting depth (two
//! jump-pointer searches of the forest per edge); buffers are reused.

use crate::analysis::cfg::levels::{FifoReady, LevelOrder, Step};
use crate::analysis::cfg::{BlockId, CfgAnalysis, CycleForest, CycleId, Graph};

crate::support::define_id! {
    /// Position of a reachable block in the cycle-contiguous order.
    pub(super) struct OrderPosition;
    /// An optional [`OrderPosition`] (none: unreachable).
    pub(super) struct OptionOrderPosition;
}

/// Positions of blocks and cycles in the cycle-contiguous order.
#[derive(Clone, Debug, Default)]
pub(super) struct ForestOrder {
    /// Per block: position, none if unreachable.
    index: Vec<OptionOrderPosition>,
    /// Per cycle: position of its first block (the header).
    cycle_first: Vec<OptionOrderPosition>,
    /// Per cycle: position of its last block.
    cycle_last: Vec<OptionOrderPosition>,
    /// The condensed levels of the last graph.
    levels: LevelOrder,
    /// Kahn's FIFO queues, one per open level.
    fifo: FifoReady,
}

impl ForestOrder {
    /// Recomputes the order for `g`, whose analyses are `cfg`.
    pub(super) fn compute<G: Graph + ?Sized>(&mut self, g: &G, cfg: &CfgAnalysis) {
        let forest = cfg.cycles();
        let dfs = cfg.traversal();
        let n = g.num_blocks();
        let nc = forest.num_cycles();
        self.levels.condense(g, dfs, forest, |_| true);
        self.index.clear();
        self.index.resize(n, OptionOrderPosition::NONE);
        self.cycle_first.clear();
        self.cycle_first.resize(nc, OptionOrderPosition::NONE);
        self.cycle_last.clear();
        self.cycle_last.resize(nc, OptionOrderPosition::NONE);
        if dfs.num_reachable() == 0 {
            return;
        }
        let mut cursor = 0u32;
        let (index, first, last) = (&mut self.index, &mut self.cycle_first, &mut self.cycle_last);
        self.levels
            .place(forest, dfs.root(), &mut self.fifo, |step| match step {
                Step::Block(b) => {
                    index[b.index()] = OptionOrderPosition::some(OrderPosition(cursor));
                    cursor += 1;
                }
                Step::Enter(c) => {
                    first[c.index()] = OptionOrderPosition::some(OrderPosition(cursor));
                }
                Step::Exit(c) => {
                    last[c.index()] = OptionOrderPosition::some(OrderPosition(cursor - 1));
                }
            });
        debug_assert_eq!(cursor as usize, dfs.num_reachable());
        debug_assert!(self.check(g, cfg));
    }

    /// Position of reachable block `b`.
    pub(super) fn index(&self, b: BlockId) -> u32 {
        self.index[b.index()]
            .get()
            .expect("a reachable block has a position")
            .as_u32()
    }

    /// Position of the last block of cycle `c` (every cycle is reachable).
    pub(super) fn cycle_last(&self, c: CycleId) -> u32 {
        self.cycle_last[c.index()]
            .get()
            .expect("a cycle has a last block")
            .as_u32()
    }

    /// Debug check of properties 1 and 2 of the module docs.
    fn check<G: Graph + ?Sized>(&self, g: &G, cfg: &CfgAnalysis) -> bool {
        let forest: &CycleForest = cfg.cycles();
        for c in forest.cycles() {
            let first = self.cycle_first[c.index()]
                .get()
                .expect("a cycle has a first block")
                .as_u32();
            assert_eq!(
                self.index(forest.header(c)),
                first,
                "header not first in its cycle"
            );
            assert_eq!(
                self.cycle_last(c) + 1 - first,
                forest.blocks(c).len() as u32,
                "cycle size"
            );
            for &b in forest.blocks(c) {
                let i = self.index(b);
                assert!(
                    first <= i && i <= self.cycle_last(c),
                    "cycle not contiguous"
                );
            }
        }
        let dfs = cfg.traversal();
        for &(from, to) in dfs.back_edges() {
            assert!(
                is_back_edge(forest, from, to),
                "DFS back edge is not a cycle back edge"
            );
        }
        for &from in dfs.rpo() {
            for &to in g.successors(from) {
                assert!(
                    is_back_edge(forest, from, to) || self.index(from) < self.index(to),
                    "edge {from}->{to} goes backwards"
                );
            }
        }
        true
    }
}

/// True if `u -> v` enters the header of a cycle containing `u`.
fn is_back_edge(forest: &CycleForest, u: BlockId, v: BlockId) -> bool {
    forest
        .innermost_cycle(v)
        .is_some_and(|c| forest.header(c) == v && forest.contains(c, u))
}
