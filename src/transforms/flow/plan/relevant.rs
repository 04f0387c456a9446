//! The planner's view of Definition 1 (see the `plan` module docs, "What
//! reconverging means here"): `R`, the blocks reachable from the entry
//! that can reach the exit (the unique return block), and post-dominance
//! computed on the subgraph induced by `R`, whose only sink is the exit
//! ([`RView`]). The rule itself is checked by
//! [`reconverging::check_against`], with [`RView`] as its
//! [`PostDominanceModel`]; the module docs of [`reconverging`] tell how this
//! model differs from the passes' one.
//!
//! Without an exit nothing terminates, so every graph is reconverging.

use crate::analysis::{
    cfg::{BlockId, CfgGraph, Graph, OptionBlockId, PostDominatorTree},
    reconverging::{self, PostDominanceModel, Violation},
};

/// `R`: blocks reachable from the entry that can reach `exit`.
pub(super) fn relevant_blocks<G: Graph + ?Sized>(g: &G, exit: Option<BlockId>) -> Vec<bool> {
    let n = g.num_blocks();
    let mut in_r = vec![false; n];
    let Some(exit) = exit else { return in_r };
    let mut back = vec![false; n];
    let mut stack = vec![exit];
    back[exit.index()] = true;
    while let Some(b) = stack.pop() {
        for &p in g.predecessors(b) {
            if !back[p.index()] {
                back[p.index()] = true;
                stack.push(p);
            }
        }
    }
    let entry = g.entry();
    if !back[entry.index()] {
        return in_r;
    }
    in_r[entry.index()] = true;
    stack.push(entry);
    while let Some(b) = stack.pop() {
        for &s in g.successors(b) {
            if back[s.index()] && !in_r[s.index()] {
                in_r[s.index()] = true;
                stack.push(s);
            }
        }
    }
    in_r
}

/// `R` with its post-dominator tree (computed on the subgraph induced by
/// `R`, whose only sink is the exit).
pub(super) struct RView {
    pub(crate) in_r: Vec<bool>,
    /// Per block: its id in the subgraph induced by `R`, none outside `R`.
    id: Vec<OptionBlockId>,
    global: Vec<BlockId>,
    pdt: PostDominatorTree,
}

impl RView {
    pub(super) fn build<G: Graph + ?Sized>(g: &G, exit: Option<BlockId>) -> Self {
        let n = g.num_blocks();
        let in_r = relevant_blocks(g, exit);
        let mut id = vec![OptionBlockId::NONE; n];
        let mut global = Vec::new();
        for b in 0..n {
            if in_r[b] {
                id[b] = OptionBlockId::some(BlockId::new(global.len()));
                global.push(BlockId::new(b));
            }
        }
        let local = |b: BlockId| id[b.index()].get().expect("a block of R has a local id");
        let mut pdt = PostDominatorTree::new();
        if !global.is_empty() {
            let mut edges = Vec::new();
            for &b in &global {
                for &s in g.successors(b) {
                    if in_r[s.index()] {
                        edges.push((local(b).as_u32(), local(s).as_u32()));
                    }
                }
            }
            let entry = local(g.entry());
            let sub = CfgGraph::from_edges(global.len(), entry, &edges);
            pdt = PostDominatorTree::build(&sub);
        }
        RView {
            in_r,
            id,
            global,
            pdt,
        }
    }

    fn local(&self, b: BlockId) -> BlockId {
        self.id[b.index()]
            .get()
            .expect("a block of R has a local id")
    }

    /// `a` post-dominates `b` in `R` (both must be in `R`).
    pub(super) fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.pdt.post_dominates(self.local(a), self.local(b))
    }

    /// Immediate post-dominator in `R` of a block of `R` (`None` for the exit).
    pub(super) fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.pdt
            .ipdom(self.local(b))
            .map(|p| self.global[p.index()])
    }

    /// Nearest common post-dominator in `R` of two blocks of `R` (`None`:
    /// only the exit's virtual parent).
    pub(super) fn nearest_common_post_dominator(&self, a: BlockId, b: BlockId) -> Option<BlockId> {
        self.pdt
            .nearest_common_post_dominator(self.local(a), self.local(b))
            .map(|p| self.global[p.index()])
    }

    /// Blocks of `R` strictly inside some divergent region: reachable from
    /// a divergent block `B` (two different successors in `R`) without
    /// passing `ipdom(B)`.
    #[cfg(test)]
    pub(super) fn in_divergent_regions<G: Graph + ?Sized>(
        &self,
        g: &G,
        divergent: &dyn Fn(BlockId) -> bool,
    ) -> Vec<bool> {
        let n = g.num_blocks();
        let mut inside = vec![false; n];
        // Per block: the local id of the divergent block whose region last
        // visited it.
        let mut seen = vec![OptionBlockId::NONE; n];
        let mut stack = Vec::new();
        for (k, &b) in self.global.iter().enumerate() {
            if !divergent(b) || !self.is_relevant_divergent(g, b) {
                continue;
            }
            let stop = self.ipdom(b);
            stack.extend(g.successors(b).iter().copied());
            while let Some(y) = stack.pop() {
                let region = OptionBlockId::some(BlockId::new(k));
                if !self.in_r[y.index()] || seen[y.index()] == region || Some(y) == stop {
                    continue;
                }
                seen[y.index()] = region;
                inside[y.index()] = true;
                stack.extend(g.successors(y).iter().copied());
            }
        }
        inside
    }

    /// Divergent blocks of `R` with two different successors in `R`.
    pub(super) fn is_relevant_divergent<G: Graph + ?Sized>(&self, g: &G, b: BlockId) -> bool {
        let s = g.successors(b);
        self.in_r[b.index()]
            && s.len() == 2
            && s[0] != s[1]
            && self.in_r[s[0].index()]
            && self.in_r[s[1].index()]
    }
}

/// The planner's model: a divergent block must have two slots wherever it
/// is; only the divergent blocks of `R` with two different successors in
/// `R` are judged, against post-dominance in `R`.
impl PostDominanceModel for RView {
    fn fewer_than_two_slots_violate(&self) -> bool {
        true
    }

    fn exempt<G: Graph + ?Sized>(
        &self,
        graph: &G,
        block: BlockId,
        _successors: [BlockId; 2],
    ) -> bool {
        !self.is_relevant_divergent(graph, block)
    }

    fn successor_post_dominates<G: Graph + ?Sized>(
        &self,
        _graph: &G,
        successor: BlockId,
        block: BlockId,
    ) -> bool {
        self.post_dominates(successor, block)
    }

    fn reconvergence<G: Graph + ?Sized>(&self, _graph: &G, block: BlockId) -> Option<BlockId> {
        self.ipdom(block)
    }
}

/// Checks Definition 1 in the planner's model (see module docs) and
/// returns every violation, in block order. `is_divergent(b)` tells whether
/// `b` ends in a divergent branch; `exit` is the unique return block (it
/// must have no successors).
pub(crate) fn reconvergence_violations<G: Graph + ?Sized>(
    g: &G,
    is_divergent: &dyn Fn(BlockId) -> bool,
    exit: Option<BlockId>,
) -> Vec<Violation> {
    reconverging::check_against(g, is_divergent, &RView::build(g, exit))
}

/// True if the graph satisfies Definition 1 in the planner's model (see
/// module docs).
#[cfg(test)]
pub fn is_reconverging<G: Graph + ?Sized>(
    g: &G,
    is_divergent: &dyn Fn(BlockId) -> bool,
    exit: Option<BlockId>,
) -> bool {
    reconvergence_violations(g, is_divergent, exit).is_empty()
}
