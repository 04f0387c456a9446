//! Sync dependence of one divergent branch: its *join blocks*, found by
//! label propagation over the cycle-collapsed graph of the branch.
//!
//! # The graph `G_B` of a divergent branch at block `B`
//!
//! Threads that execute `B` together split over its successor slots; the
//! joins are the blocks they can reach along different paths *within the
//! current iteration* of every cycle containing `B`. Two collapses turn the
//! reachable part of the CFG into a DAG:
//!
//! * **Sinks.** For a cycle `C` containing `B`, an edge into its header
//!   `H_C` ends the iteration. `H_C` becomes a sink node placed after all
//!   of `C`: it can receive labels (threads arriving at the next iteration
//!   along different paths make `H_C` a join), and it forwards its label to
//!   the exit blocks of `C` — the threads that went round will eventually
//!   leave through some exit, later than the threads that left directly.
//!   Every closed walk through `B` passes the header of the smallest cycle
//!   containing it, so no path from `B` returns to `B`.
//! * **Cycle nodes.** A cycle `D` not containing `B`, entered from the
//!   region (take the outermost such one around the entered block), is one
//!   node: its interior is never walked, and its label goes straight to
//!   its exit blocks. If `D` is reducible, every thread enters at its
//!   header, so a single label stays single inside `D` and the only
//!   possible join is the header. If `D` is irreducible, a join at `D`
//!   (two different labels entering) means threads may enter through
//!   different entries; the caller then applies the conservative
//!   irreducible rule to all of `D`.
//!
//! Remaining edges go forward in the cycle-contiguous order of
//! [`super::order`]; sinks are keyed just after the last block of their
//! cycle (inner sinks before outer ones), cycle nodes at their header.
//! So every edge of `G_B` strictly increases the key.
//!
//! # Propagation
//!
//! Each successor slot of `B` seeds its target node with the node's own
//! label (a node seeded twice — duplicate successors — is a join). Nodes
//! are popped in increasing key order; a popped node sends its label along
//! its `G_B` edges. A node receiving a label different from the one it has
//! is a *join* and from then on carries itself as label. Because keys
//! increase along edges, a node's label is final when it is popped, and
//! each node is pushed and popped at most once.
//!
//! **Stopping.** When all pending nodes carry the same label, every node
//! after them can only receive that label (processed nodes all have
//! smaller keys): no further join exists, and the propagation stops. (This
//! is stronger than stopping when a single node is pending: a label that
//! fans out over several paths after the last join does not keep the
//! propagation alive.) In an acyclic region this happens at the immediate
//! post-dominator of `B` at the latest, when that is a real block. The
//! rule is exact whatever the order, but its cost is not: a node placed
//! late keeps its label pending, hence the ready-order of
//! [`super::order`]. Inside a cycle the stop can lie
//! beyond `ipdom(B)`: a `continue` path that skips `ipdom(B)` reaches the
//! header and, through the sink, the exits — the reason the region cannot
//! simply be bounded by `ipdom(B)` (see the module docs of [`super`]).
//!
//! **Pruning.** Given a `liveness::JoinLiveness`, nodes that are
//! dead there are never labelled nor queued: no live node is reachable
//! from them, so the live nodes get the labels of the complete run, and
//! the stop comes as soon as the pending *live* nodes agree.
//!
//! **Cost.** Per branch, `O(k log k)` for the `k` nodes and edges of `G_B`
//! between `B` and the point where its labels converge, plus a walk up the
//! cycle forest per visited block. The sum over all divergent branches is
//! quadratic only in adversarial shapes (many divergent branches whose
//! paths reconverge at the very end of a long function).

use super::liveness::JoinLiveness;
use super::order::ForestOrder;
use crate::analysis::cfg::{
    BlockId, CfgAnalysis, CycleForest, CycleId, Graph, OptionBlockId, OptionCycleId,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a node of `G_B` stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Node {
    /// A plain block.
    Block,
    /// The header sink of a cycle containing the branch.
    Sink(CycleId),
    /// A whole cycle not containing the branch (node id = its header).
    Cycle(CycleId),
}

/// Reusable label propagation (see module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct SyncPropagator {
    /// Per block: current label (a node id), none before the first visit.
    label: Vec<OptionBlockId>,
    is_join: Vec<bool>,
    /// Per label: number of pending (pushed, not popped) nodes carrying it.
    pending: Vec<u32>,
    /// Number of labels with a non-zero `pending` count.
    distinct: u32,
    touched: Vec<BlockId>,
    /// Pending nodes: `(key, node, cycle of a sink or cycle node, tag)`.
    heap: BinaryHeap<Reverse<(u64, BlockId, OptionCycleId, u8)>>,
    /// Joins of the last propagation, in discovery order.
    pub(super) joins: Vec<(BlockId, Node)>,
    /// Nodes popped over all propagations since the last `reset` (stats).
    pub(super) work: u64,
}

impl SyncPropagator {
    /// Prepares for a graph of `n` blocks.
    pub(super) fn reset(&mut self, n: usize) {
        self.label.clear();
        self.label.resize(n, OptionBlockId::NONE);
        self.is_join.clear();
        self.is_join.resize(n, false);
        self.pending.clear();
        self.pending.resize(n, 0);
        self.distinct = 0;
        self.touched.clear();
        self.joins.clear();
        self.heap.clear();
        self.work = 0;
    }

    /// Computes the joins of a divergent branch at reachable block `b`
    /// into [`SyncPropagator::joins`]. With `prune`, nodes that are dead
    /// there are ignored: the joins found are then the live ones, a
    /// subsequence of the complete list (see the module docs of
    /// [`super::liveness`] and [`super::analysis`]).
    pub(super) fn propagate<G: Graph + ?Sized>(
        &mut self,
        g: &G,
        cfg: &CfgAnalysis,
        order: &ForestOrder,
        b: BlockId,
        prune: Option<&JoinLiveness>,
    ) {
        let live = |node: BlockId, kind: Node| match (prune, kind) {
            (None, _) => true,
            (Some(l), Node::Sink(c)) => l.is_live_sink(c),
            (Some(l), _) => l.is_live_block(node),
        };
        for &t in &self.touched {
            self.label[t.index()] = OptionBlockId::NONE;
            self.is_join[t.index()] = false;
            self.pending[t.index()] = 0;
        }
        self.distinct = 0;
        self.touched.clear();
        self.joins.clear();
        self.heap.clear();
        let forest = cfg.cycles();
        for &s in g.successors(b) {
            let (node, key, kind) = classify(forest, order, s, b);
            if live(node, kind) {
                self.visit(node, key, kind, node, true);
            }
        }
        let mut last_key = 0;
        while self.distinct > 1 {
            let Reverse((key, node, cycle, tag)) = self.heap.pop().expect("pending labels");
            debug_assert!(key >= last_key, "propagation went backwards");
            last_key = key;
            self.work += 1;
            let label = self.label[node.index()]
                .get()
                .expect("a queued node has a label");
            self.unpend(label);
            let targets = match tag {
                0 => g.successors(node),
                _ => forest.exit_blocks(cycle.get().expect("a sink or cycle node has its cycle")),
            };
            for &t in targets {
                let (to, to_key, kind) = classify(forest, order, t, b);
                debug_assert!(to_key > key, "edge of G_B does not increase the key");
                if live(to, kind) {
                    self.visit(to, to_key, kind, label, false);
                }
            }
        }
        self.heap.clear();
    }

    /// Gives `label` to `node`. Dead ends (no `G_B` successors) are queued
    /// too: until the propagation has passed them they can still become
    /// joins, so they count as pending for the stopping rule.
    fn visit(&mut self, node: BlockId, key: u64, kind: Node, label: BlockId, seeding: bool) {
        let i = node.index();
        let Some(current) = self.label[i].get() else {
            self.label[i] = OptionBlockId::some(label);
            self.touched.push(node);
            let (cycle, tag) = match kind {
                Node::Block => (OptionCycleId::NONE, 0),
                Node::Sink(c) => (OptionCycleId::some(c), 1),
                Node::Cycle(c) => (OptionCycleId::some(c), 2),
            };
            self.heap.push(Reverse((key, node, cycle, tag)));
            self.pend(label);
            return;
        };
        if seeding || current != label {
            if !self.is_join[i] {
                self.is_join[i] = true;
                self.joins.push((node, kind));
            }
            if current != node {
                // Still pending (keys increase along edges): relabel.
                self.unpend(current);
                self.pend(node);
                self.label[i] = OptionBlockId::some(node);
            }
        }
    }

    fn pend(&mut self, label: BlockId) {
        let c = &mut self.pending[label.index()];
        if *c == 0 {
            self.distinct += 1;
        }
        *c += 1;
    }

    fn unpend(&mut self, label: BlockId) {
        let c = &mut self.pending[label.index()];
        *c -= 1;
        if *c == 0 {
            self.distinct -= 1;
        }
    }
}

/// The `G_B` node a CFG block `s` (reached from the region of the branch at
/// `b`) belongs to, with its key.
fn classify(
    forest: &CycleForest,
    order: &ForestOrder,
    s: BlockId,
    b: BlockId,
) -> (BlockId, u64, Node) {
    let block_key = |x: BlockId| (order.index(x) as u64) << 32;
    let Some(c) = forest.innermost_cycle(s) else {
        return (s, block_key(s), Node::Block);
    };
    if forest.contains(c, b) {
        if forest.header(c) == s {
            // After every block of `c`; deeper sinks first.
            let key = ((order.cycle_last(c) as u64) << 32)
                | 0x8000_0000
                | (0x7FFF_FFFF - forest.depth(c) as u64);
            return (s, key, Node::Sink(c));
        }
        return (s, block_key(s), Node::Block);
    }
    let d = forest
        .outermost_without(c, b)
        .expect("`c` does not contain `b`");
    let h = forest.header(d);
    (h, block_key(h), Node::Cycle(d))
}
