//! [`CfgAnalysis`]: the re-entrant "analyze control flow" service.
//!
//! One object owns every analysis of this crate and recomputes all of
//! them with one call, reusing every buffer (a compute/clear lifecycle in
//! the style of Cranelift's analyses). A transform that edits the CFG
//! simply calls [`CfgAnalysis::compute`] again; after the first run on a
//! graph of a given size, refreshes do not allocate.
//!
//! Order of computation (each step reads only earlier ones):
//! forward DFS → dominators → post-dominators → cycle forest →
//! irreducibility report → per-block tags.

use super::cycles::CycleForest;
use super::dominators::DominatorTree;
use super::graph::{BlockId, Graph};
use super::irreducible::Irreducibility;
use super::post_dominators::PostDominatorTree;
use super::tags::{BlockTag, BlockTags};
use super::traversal::Traversal;

/// All control-flow analyses of one graph, refreshed together.
#[derive(Clone, Debug, Default)]
pub struct CfgAnalysis {
    traversal: Traversal,
    dominators: DominatorTree,
    post_dominators: PostDominatorTree,
    cycles: CycleForest,
    irreducibility: Irreducibility,
    tags: BlockTags,
    runs: u64,
}

impl CfgAnalysis {
    /// An empty analysis; call [`CfgAnalysis::compute`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Convenience: a fresh analysis of `g`.
    pub fn build<G: Graph + ?Sized>(g: &G) -> Self {
        let mut a = Self::new();
        a.compute(g);
        a
    }

    /// Recomputes every analysis for `g`, reusing all buffers.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G) {
        self.traversal.compute(g);
        self.dominators.compute(g, &self.traversal);
        self.post_dominators.compute(g, &self.traversal);
        self.cycles.compute(g, &self.traversal);
        self.irreducibility
            .compute(&self.traversal, &self.dominators, &self.cycles);
        self.tags.compute(g, &self.traversal, &self.cycles);
        self.runs += 1;
    }

    /// Forgets all results (keeps capacity).
    pub fn clear(&mut self) {
        self.traversal.clear();
        self.dominators.clear();
        self.post_dominators.clear();
        self.cycles.clear();
        self.irreducibility.clear();
        self.tags.clear();
    }

    /// How many times [`CfgAnalysis::compute`] has run.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// Number of blocks of the analyzed graph.
    pub fn num_blocks(&self) -> usize {
        self.traversal.num_blocks()
    }

    /// DFS orders, RPO numbers, back edges.
    pub fn traversal(&self) -> &Traversal {
        &self.traversal
    }

    /// Dominator tree.
    pub fn dominators(&self) -> &DominatorTree {
        &self.dominators
    }

    /// Post-dominator tree (with virtual exit).
    pub fn post_dominators(&self) -> &PostDominatorTree {
        &self.post_dominators
    }

    /// Cycle forest.
    pub fn cycles(&self) -> &CycleForest {
        &self.cycles
    }

    /// Irreducible cycles found by the back-edge rule.
    pub fn irreducibility(&self) -> &Irreducibility {
        &self.irreducibility
    }

    /// Per-block tags.
    pub fn tags(&self) -> &BlockTags {
        &self.tags
    }

    /// Tags of one block.
    pub fn tag(&self, b: BlockId) -> BlockTag {
        self.tags.get(b)
    }

    /// True if the graph has no irreducible cycle.
    pub fn is_reducible(&self) -> bool {
        self.irreducibility.is_reducible()
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::{CfgBuilder, CfgGraph};
    use super::*;

    #[test]
    fn recompute_after_edit_reuses_the_service() {
        let mut builder = CfgBuilder::new();
        builder.set_num_blocks(3);
        for (a, b) in [(0, 1), (1, 2), (2, 1)] {
            builder.add_edge(BlockId::new(a), BlockId::new(b));
        }
        let mut a = CfgAnalysis::new();
        a.compute(builder.finish());
        assert_eq!(a.cycles().num_cycles(), 1);
        assert!(a.tag(BlockId::new(1)).is_loop_header());
        assert_eq!(a.post_dominators().extra_roots(), &[BlockId::new(2)]);
        // Edit: add an exit 3 reached from 2; the loop now terminates.
        builder.set_num_blocks(4);
        builder.add_edge(BlockId::new(2), BlockId::new(3));
        a.compute(builder.finish());
        assert_eq!(a.runs(), 2);
        assert!(a.post_dominators().extra_roots().is_empty());
        assert_eq!(
            a.post_dominators().ipdom(BlockId::new(1)),
            Some(BlockId::new(2))
        );
        assert!(a.tag(BlockId::new(3)).is_loop_exit());
        assert!(a.is_reducible());
        a.clear();
        assert_eq!(a.num_blocks(), 0);
        let g = CfgGraph::from_edges(1, BlockId::new(0), &[]);
        assert_eq!(
            CfgAnalysis::build(&g).dominators().idom(BlockId::new(0)),
            None
        );
    }
}
