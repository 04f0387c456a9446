//! Which nodes of any branch's sync graph can still lead to a join that
//! matters: decremental reachability of *unsaturated* blocks.
//!
//! # The union graph `D`
//!
//! Every sync graph `G_B` of [`super::sync`] is, up to collapsing, a
//! subgraph of one acyclic graph `D` over the reachable blocks plus one
//! *sink node* per cycle:
//!
//! ```text
//!   u -> s        for a CFG edge, unless s heads a cycle C containing u
//!   u -> sink(C)  for that edge into the header of C (the back edges)
//!   sink(C) -> x  for every exit block x of C (or sink(P) when x heads
//!                 a cycle P around C)
//! ```
//!
//! and, for an edge (of the first or third kind) that enters cycles, one
//! more edge to the header of the outermost cycle it enters.
//!
//! `D` is acyclic: every closed walk of the CFG enters the header of some
//! cycle from inside it, and that edge goes to a sink, whose edges leave
//! the cycle for good (an edge to the header of an entered cycle comes
//! from outside that cycle, which the cycle cannot reach without passing
//! the header of a cycle around both). A plain node of `G_B` is a block
//! of `D`, a sink of `G_B` is the sink of `D`, and a cycle node of `G_B` (a
//! cycle `Y` not containing `B`, named by its header) is reached in `D`
//! from every node with a `G_B` edge into it (the extra edges: the
//! outermost entered cycle's header reaches the headers of the cycles
//! nested in it), and reaches, from that header, every block and exit of
//! `Y`. So whatever `G_B` reaches from a node, `D` reaches too, and a dead
//! node has no `G_B` edge to a live one.
//!
//! # Liveness
//!
//! A node is *unsaturated* while finding it as a join can still change the
//! analysis (a block; a sink counts as its cycle's header), and *live*
//! while it is unsaturated or reaches a live node. A propagation may
//! ignore dead nodes: nothing they reach can matter, and no live node is
//! reachable from a dead one, so labels of live nodes are unchanged.
//! Saturation only grows, so liveness only shrinks: each node keeps the
//! number of its live successor edges, and a node that is saturated with
//! none left dies and decrements its predecessors. Every node dies at most
//! once and every edge is decremented at most once: `O(|D|)` for the whole
//! analysis. The reference twin ([`JoinLiveness::recompute_reference`])
//! recomputes liveness from scratch; property tests compare the two.
//!
//! # Single entries
//!
//! Every edge of `G_B` into a block or sink stands for a distinct edge of
//! `D` into it (a seed `B -> x` is the edge itself, a cycle node's edge to
//! an exit one of the cycle's exiting edges), so a node with at most one
//! edge into it in `D` receives at most one label: it is never a join and
//! counts as saturated from the start. A cycle header is exempt, as `G_B`
//! may enter its cycle as one node through any entry. This keeps the sink
//! of a cycle with a single back edge from holding the whole cycle live.
//!
//! Unreachable blocks are not in `D` (never live).

use crate::analysis::cfg::{BlockId, CfgAnalysis, CycleId, Graph};

/// Decremental liveness over the union graph `D` (see module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct JoinLiveness {
    num_blocks: usize,
    /// `D`'s edges `(from, to)`; node `num_blocks + c` is the sink of `c`.
    edges: Vec<(u32, u32)>,
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    live_succs: Vec<u32>,
    unsaturated: Vec<bool>,
    live: Vec<bool>,
    stack: Vec<u32>,
}

impl JoinLiveness {
    /// Builds `D` for `g` and computes liveness with `unsaturated(b)` for
    /// every reachable block (sinks follow their header).
    pub(super) fn compute<G: Graph + ?Sized>(
        &mut self,
        g: &G,
        cfg: &CfgAnalysis,
        unsaturated: impl Fn(BlockId) -> bool,
    ) {
        let forest = cfg.cycles();
        let n = g.num_blocks();
        let nodes = n + forest.num_cycles();
        self.num_blocks = n;
        self.edges.clear();
        for u in 0..n {
            let from = BlockId::new(u);
            if !cfg.traversal().is_reachable(from) {
                continue;
            }
            for &s in g.successors(from) {
                self.push_edges(cfg, u as u32, from, s);
            }
        }
        for c in forest.cycles() {
            let sink = (n + c.index()) as u32;
            for &x in forest.exit_blocks(c) {
                self.push_edges(cfg, sink, forest.header(c), x);
            }
        }
        self.pred_start.clear();
        self.pred_start.resize(nodes + 1, 0);
        for &(_, to) in &self.edges {
            self.pred_start[to as usize + 1] += 1;
        }
        for i in 0..nodes {
            self.pred_start[i + 1] += self.pred_start[i];
        }
        self.preds.clear();
        self.preds.resize(self.edges.len(), 0);
        let mut fill = self.pred_start.clone();
        for &(from, to) in &self.edges {
            self.preds[fill[to as usize] as usize] = from;
            fill[to as usize] += 1;
        }
        self.unsaturated.clear();
        self.unsaturated.resize(nodes, false);
        for b in 0..n {
            let block = BlockId::new(b);
            if cfg.traversal().is_reachable(block) && unsaturated(block) {
                self.unsaturated[b] = true;
            }
        }
        for c in forest.cycles() {
            self.unsaturated[n + c.index()] = self.unsaturated[forest.header(c).index()];
        }
        // A node with at most one edge into it can never be a join of any
        // branch (see "Single entries" in the module docs), except a
        // header, which `G_B` may enter as a whole cycle through any entry.
        for node in 0..nodes {
            let in_degree = self.pred_start[node + 1] - self.pred_start[node];
            let header = node < n && forest.is_header(BlockId::new(node));
            if in_degree <= 1 && !header {
                self.unsaturated[node] = false;
            }
        }
        self.recompute_reference();
    }

    /// The edges of `D` for an edge into `s` from node `node`, whose block
    /// (itself, or the header of a sink's cycle) is `from`: to `s` or a
    /// sink, plus, when the edge enters cycles, to the header of the
    /// outermost cycle entered (a cycle node of `G_B` stands for its
    /// header, whichever entry the edge takes).
    fn push_edges(&mut self, cfg: &CfgAnalysis, node: u32, from: BlockId, s: BlockId) {
        let forest = cfg.cycles();
        self.edges.push((node, self.target(cfg, from, s)));
        let Some(entered) = forest
            .innermost_cycle(s)
            .and_then(|c| forest.outermost_without(c, from))
        else {
            return;
        };
        let header = forest.header(entered);
        if header != s {
            self.edges.push((node, header.as_u32()));
        }
    }

    /// The node an edge `from -> s` of the CFG leads to in `D`.
    fn target(&self, cfg: &CfgAnalysis, from: BlockId, s: BlockId) -> u32 {
        let forest = cfg.cycles();
        match forest.innermost_cycle(s) {
            Some(c) if forest.header(c) == s && forest.contains(c, from) => {
                (self.num_blocks + c.index()) as u32
            }
            _ => s.as_u32(),
        }
    }

    /// Liveness from scratch: backwards reachability from the unsaturated
    /// nodes, then the live-successor counts. The reference of the
    /// decremental updates, and their initial state.
    pub(super) fn recompute_reference(&mut self) {
        let nodes = self.unsaturated.len();
        self.live.clear();
        self.live.resize(nodes, false);
        self.stack.clear();
        for i in 0..nodes {
            if self.unsaturated[i] {
                self.live[i] = true;
                self.stack.push(i as u32);
            }
        }
        while let Some(v) = self.stack.pop() {
            let v = v as usize;
            for k in self.pred_start[v]..self.pred_start[v + 1] {
                let p = self.preds[k as usize] as usize;
                if !self.live[p] {
                    self.live[p] = true;
                    self.stack.push(p as u32);
                }
            }
        }
        self.live_succs.clear();
        self.live_succs.resize(nodes, 0);
        for &(from, to) in &self.edges {
            if self.live[to as usize] {
                self.live_succs[from as usize] += 1;
            }
        }
    }

    /// Block `b` became saturated (and with it the sink of the cycle it
    /// heads, if any).
    pub(super) fn saturate(&mut self, cfg: &CfgAnalysis, b: BlockId) {
        self.saturate_node(b.index());
        let forest = cfg.cycles();
        if let Some(c) = forest.innermost_cycle(b) {
            if forest.header(c) == b {
                self.saturate_node(self.num_blocks + c.index());
            }
        }
    }

    fn saturate_node(&mut self, node: usize) {
        if !self.unsaturated[node] {
            return;
        }
        self.unsaturated[node] = false;
        if self.live_succs[node] > 0 || !self.live[node] {
            return;
        }
        self.live[node] = false;
        self.stack.push(node as u32);
        while let Some(v) = self.stack.pop() {
            let v = v as usize;
            for k in self.pred_start[v]..self.pred_start[v + 1] {
                let p = self.preds[k as usize] as usize;
                self.live_succs[p] -= 1;
                if self.live_succs[p] == 0 && !self.unsaturated[p] && self.live[p] {
                    self.live[p] = false;
                    self.stack.push(p as u32);
                }
            }
        }
    }

    /// True if block `b` can still lead to a join that matters.
    pub(super) fn is_live_block(&self, b: BlockId) -> bool {
        self.live[b.index()]
    }

    /// True if the sink of cycle `c` can still lead to a join that matters.
    pub(super) fn is_live_sink(&self, c: CycleId) -> bool {
        self.live[self.num_blocks + c.index()]
    }

    /// Liveness of every node (tests).
    #[cfg(test)]
    pub(super) fn live_nodes(&self) -> Vec<bool> {
        self.live.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
    use crate::analysis::cfg::CfgGraph;
    use crate::testing::long_range::{long_range_function, LongRangeShape, Signature};

    /// Kahn's algorithm: true if `D` has no cycle.
    fn acyclic(l: &JoinLiveness) -> bool {
        let nodes = l.unsaturated.len();
        let mut in_degree = vec![0u32; nodes];
        let mut succs = vec![Vec::new(); nodes];
        for &(from, to) in &l.edges {
            in_degree[to as usize] += 1;
            succs[from as usize].push(to as usize);
        }
        let mut ready: Vec<usize> = (0..nodes).filter(|&i| in_degree[i] == 0).collect();
        let mut seen = 0;
        while let Some(v) = ready.pop() {
            seen += 1;
            for &t in &succs[v] {
                in_degree[t] -= 1;
                if in_degree[t] == 0 {
                    ready.push(t);
                }
            }
        }
        seen == nodes
    }

    /// Saturates the blocks of `g` in a random order, comparing the
    /// decremental liveness with a recomputation after every step.
    fn check(rng: &mut SplitMix64, g: &CfgGraph) {
        let cfg = CfgAnalysis::build(g);
        let mut l = JoinLiveness::default();
        let unsaturated: Vec<bool> = (0..g.num_blocks()).map(|_| rng.chance(700)).collect();
        l.compute(g, &cfg, |b| unsaturated[b.index()]);
        assert!(acyclic(&l), "D has a cycle");
        let mut order: Vec<usize> = (0..g.num_blocks()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for b in order {
            l.saturate(&cfg, BlockId::new(b));
            let fast = l.live_nodes();
            let mut reference = l.clone();
            reference.recompute_reference();
            assert_eq!(fast, reference.live_nodes(), "after saturating bb{b}");
        }
        assert!(
            l.live_nodes().iter().all(|&x| !x),
            "all saturated, all dead"
        );
    }

    #[test]
    fn decremental_liveness_matches_recomputation_on_random_cfgs() {
        let mut rng = SplitMix64::new(0x11FE_0001);
        for _ in 0..1500 {
            let n = rng.range(2, 60);
            let g = realistic_cfg(&mut rng, n);
            check(&mut rng, &g);
        }
    }

    #[test]
    fn decremental_liveness_matches_recomputation_on_long_range_cfgs() {
        let mut rng = SplitMix64::new(0x11FE_0002);
        for seed in 0..200u64 {
            let shape = LongRangeShape {
                blocks: 2 + rng.below(120) as usize,
                reach: 2 + rng.below(30) as usize,
                back_edge_per_mille: [100, 300, 0][seed as usize % 3],
                ..LongRangeShape::new(0)
            };
            let (_, g) = long_range_function(seed, &shape, Signature::Bench);
            check(&mut rng, &g);
        }
    }
}
