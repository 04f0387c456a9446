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
//! Each *level* — the whole function, or one cycle `C` — has *items*: the
//! blocks whose innermost cycle is that level (for a cycle, its header is
//! one of them), and the level's child cycles. An edge `u -> v` that is not
//! a back edge belongs to the innermost level containing both ends and
//! connects the items of that level containing them; at each level these
//! condensed edges form a DAG (the child cycles are the strongly connected
//! components of the level minus its header), whose only source is the
//! level's header (or the function entry's item).
//!
//! Kahn's algorithm runs on each level with a FIFO queue: items are placed
//! in the order in which their last predecessor was placed, so a block
//! follows its last predecessor closely unless many items became ready in
//! between. Taking a child cycle suspends the level: the child's
//! items are placed first (a stack of levels, the child starting from its
//! header), which makes cycles contiguous with their header first.
//!
//! Cost: `O(n + E * d)` where `d` bounds how many cycle levels an
//! edge crosses (walks up the forest to find an edge's level).

use crate::analysis::cfg::{BlockId, CfgAnalysis, CycleForest, CycleId, Graph, OptionCycleId};
use std::collections::VecDeque;

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
    /// Condensed edges as `(from item, to item)`; items are blocks `0..n`
    /// and cycles `n + c`.
    edges: Vec<(u32, u32)>,
    edge_start: Vec<u32>,
    edge_to: Vec<u32>,
    in_degree: Vec<u32>,
    fill: Vec<u32>,
    /// One FIFO queue of ready items per open level (stack).
    queues: Vec<VecDeque<u32>>,
    /// Open levels: cycle id, or none for the function.
    frames: Vec<OptionCycleId>,
}

impl ForestOrder {
    /// Recomputes the order for `g`, whose analyses are `cfg`.
    pub(super) fn compute<G: Graph + ?Sized>(&mut self, g: &G, cfg: &CfgAnalysis) {
        let forest = cfg.cycles();
        let dfs = cfg.traversal();
        let n = g.num_blocks();
        let nc = forest.num_cycles();
        assert!(n + nc < u32::MAX as usize, "too many blocks and cycles");
        self.build_condensed_edges(g, cfg);
        self.frames.clear();
        // Kahn per level, levels stacked.
        self.index.clear();
        self.index.resize(n, OptionOrderPosition::NONE);
        self.cycle_first.clear();
        self.cycle_first.resize(nc, OptionOrderPosition::NONE);
        self.cycle_last.clear();
        self.cycle_last.resize(nc, OptionOrderPosition::NONE);
        if dfs.num_reachable() == 0 {
            return;
        }
        self.open(OptionCycleId::NONE, root_item(forest, dfs.root(), n));
        let cursor = self.place_items(forest, n);
        debug_assert_eq!(cursor as usize, dfs.num_reachable());
        debug_assert!(self.check(g, cfg));
    }

    /// Fills `edges`, their CSR (`edge_start`, `edge_to`) and the
    /// `in_degree` of every item: the condensed edges of every level.
    fn build_condensed_edges<G: Graph + ?Sized>(&mut self, g: &G, cfg: &CfgAnalysis) {
        let forest = cfg.cycles();
        let n = g.num_blocks();
        let items = n + forest.num_cycles();
        // Condensed edges.
        self.edges.clear();
        for &u in cfg.traversal().preorder() {
            for &v in g.successors(u) {
                if is_back_edge(forest, u, v) {
                    continue;
                }
                let (from, to) = condensed(forest, n, u, v);
                self.edges.push((from, to));
            }
        }
        self.in_degree.clear();
        self.in_degree.resize(items, 0);
        self.edge_start.clear();
        self.edge_start.resize(items + 1, 0);
        for &(from, to) in &self.edges {
            self.edge_start[from as usize + 1] += 1;
            self.in_degree[to as usize] += 1;
        }
        for i in 0..items {
            self.edge_start[i + 1] += self.edge_start[i];
        }
        self.edge_to.clear();
        self.edge_to.resize(self.edges.len(), 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.edge_start[..items]);
        for &(from, to) in &self.edges {
            self.edge_to[self.fill[from as usize] as usize] = to;
            self.fill[from as usize] += 1;
        }
    }

    /// Runs Kahn's algorithm on the stacked levels from the open root
    /// level, recording the positions of blocks and cycles; returns the
    /// number of blocks placed.
    fn place_items(&mut self, forest: &CycleForest, n: usize) -> u32 {
        let mut cursor = 0u32;
        while let Some(&level) = self.frames.last() {
            let depth = self.frames.len() - 1;
            let Some(item) = self.queues[depth].pop_front() else {
                // Level finished: it was a cycle item of the enclosing level.
                self.frames.pop();
                if let Some(level) = level.get() {
                    self.cycle_last[level.index()] =
                        OptionOrderPosition::some(OrderPosition(cursor - 1));
                    self.release((n + level.index()) as u32);
                }
                continue;
            };
            if (item as usize) < n {
                self.index[item as usize] = OptionOrderPosition::some(OrderPosition(cursor));
                cursor += 1;
                self.release(item);
            } else {
                let c = CycleId::new(item as usize - n);
                self.cycle_first[c.index()] = OptionOrderPosition::some(OrderPosition(cursor));
                let h = forest.header(c).as_u32();
                self.open(OptionCycleId::some(c), h);
            }
        }
        cursor
    }

    fn open(&mut self, level: OptionCycleId, first: u32) {
        let depth = self.frames.len();
        self.frames.push(level);
        if self.queues.len() <= depth {
            self.queues.push(VecDeque::new());
        }
        self.queues[depth].clear();
        self.queues[depth].push_back(first);
    }

    /// Item `item` of the innermost open level is placed: its successors
    /// that become ready join that level's queue.
    fn release(&mut self, item: u32) {
        let depth = self.frames.len() - 1;
        let (start, end) = (
            self.edge_start[item as usize] as usize,
            self.edge_start[item as usize + 1] as usize,
        );
        for k in start..end {
            let to = self.edge_to[k];
            self.in_degree[to as usize] -= 1;
            if self.in_degree[to as usize] == 0 {
                self.queues[depth].push_back(to);
            }
        }
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

/// The item of the function level holding `entry`: the block itself, or
/// its outermost cycle.
fn root_item(forest: &CycleForest, entry: BlockId, n: usize) -> u32 {
    match forest.innermost_cycle(entry) {
        None => entry.as_u32(),
        Some(mut c) => {
            while let Some(p) = forest.parent(c) {
                c = p;
            }
            (n + c.index()) as u32
        }
    }
}

/// True if `u -> v` enters the header of a cycle containing `u`.
fn is_back_edge(forest: &CycleForest, u: BlockId, v: BlockId) -> bool {
    forest
        .innermost_cycle(v)
        .is_some_and(|c| forest.header(c) == v && forest.contains(c, u))
}

/// The items `(from, to)` of the level an edge `u -> v` (not a back edge)
/// belongs to: the innermost level containing both blocks.
fn condensed(forest: &CycleForest, n: usize, u: BlockId, v: BlockId) -> (u32, u32) {
    // The level is the innermost cycle containing both (or the function);
    // an endpoint's item there is the outermost cycle around it without
    // the other endpoint, or the block itself. (A cycle around `v` below
    // the level cannot contain `u`: it would be a lower common cycle.)
    let item = |x: BlockId, other: BlockId| {
        forest
            .innermost_cycle(x)
            .and_then(|c| forest.outermost_without(c, other))
            .map_or(x.as_u32(), |c| (n + c.index()) as u32)
    };
    (item(u, v), item(v, u))
}
