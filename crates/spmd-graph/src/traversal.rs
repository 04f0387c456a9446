//! Depth-first traversal: preorder, postorder, reverse postorder (RPO),
//! the DFS spanning tree and back edges.
//!
//! The DFS is iterative with an explicit stack of `(block, next successor
//! slot)` frames, so a chain of a million blocks cannot overflow the native
//! stack. Successors are visited in slot order, which makes every number
//! here a deterministic function of the graph.
//!
//! Only blocks reachable from the root (the graph entry unless
//! [`Traversal::compute_from`] names another) are numbered; every query
//! about an unreachable block answers `None` / `false`.
//!
//! Edge classification: an edge `u -> v` between reachable blocks is a
//! *back edge* iff `v` is an ancestor-or-self of `u` in the DFS tree (it
//! was still on the DFS stack when the edge was examined); self loops are
//! back edges. Back edges are exactly the edges that go backwards (or stay
//! put) in RPO: for every other edge `rpo(u) < rpo(v)`, so RPO is a
//! topological order of the graph minus its back edges.

use super::graph::{BlockId, Graph, OptionBlockId};

crate::define_id! {
    /// Position of a reachable block in [`Traversal::preorder`] (the root
    /// is 0).
    pub struct PreorderNumber;
    /// An optional [`PreorderNumber`] (none: not reached by the DFS yet, or
    /// unreachable).
    pub struct OptionPreorderNumber;
}

crate::define_id! {
    /// Position of a reachable block in [`Traversal::rpo`] (the root is 0).
    pub struct RpoNumber;
    /// An optional [`RpoNumber`] (none: unreachable).
    pub struct OptionRpoNumber;
}

crate::define_id! {
    /// Position of a reachable block in [`Traversal::postorder`] (the root
    /// is last).
    pub struct PostorderNumber;
    /// An optional [`PostorderNumber`] (none: not finished by the DFS yet,
    /// or unreachable).
    pub struct OptionPostorderNumber;
}

/// Reusable DFS numbering of the blocks reachable from a root.
///
/// Lifecycle: [`Traversal::compute`] (reusing every buffer), queries,
/// optionally [`Traversal::clear`]. Per-block arrays are indexed by
/// [`BlockId::index`].
#[derive(Clone, Debug, Default)]
pub struct Traversal {
    root: BlockId,
    pre: Vec<OptionPreorderNumber>,
    post: Vec<OptionPostorderNumber>,
    parent: Vec<OptionBlockId>,
    preorder: Vec<BlockId>,
    postorder: Vec<BlockId>,
    rpo: Vec<BlockId>,
    back_edges: Vec<(BlockId, BlockId)>,
    stack: Vec<(BlockId, u32)>,
}

impl Traversal {
    /// An empty traversal (no blocks); call [`Traversal::compute`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Convenience: a traversal of `g` from its entry.
    pub fn build<G: Graph + ?Sized>(g: &G) -> Self {
        let mut t = Self::new();
        t.compute(g);
        t
    }

    /// Recomputes the traversal of `g` from `g.entry()`, reusing buffers.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G) {
        self.compute_from(g, g.entry());
    }

    /// Recomputes the traversal of `g` from `root`, reusing buffers.
    /// Panics if `root` is out of range.
    pub fn compute_from<G: Graph + ?Sized>(&mut self, g: &G, root: BlockId) {
        let n = g.num_blocks();
        assert!(root.index() < n, "DFS root {root} out of range");
        self.reset(n, root);
        self.visit(root, OptionBlockId::NONE);
        while let Some(top) = self.stack.last_mut() {
            let (v, slot) = *top;
            let succs = g.successors(v);
            match succs.get(slot as usize) {
                Some(&w) => {
                    top.1 += 1;
                    self.examine_edge(v, w);
                }
                None => self.finish(v),
            }
        }
        self.rpo.extend(self.postorder.iter().rev());
    }

    /// Forgets all results (keeps capacity). Afterwards the traversal
    /// describes an empty graph.
    pub fn clear(&mut self) {
        self.reset(0, BlockId::default());
    }

    fn reset(&mut self, n: usize, root: BlockId) {
        self.root = root;
        self.pre.clear();
        self.pre.resize(n, OptionPreorderNumber::NONE);
        self.post.clear();
        self.post.resize(n, OptionPostorderNumber::NONE);
        self.parent.clear();
        self.parent.resize(n, OptionBlockId::NONE);
        self.preorder.clear();
        self.postorder.clear();
        self.rpo.clear();
        self.back_edges.clear();
        self.stack.clear();
    }

    fn visit(&mut self, b: BlockId, parent: OptionBlockId) {
        self.pre[b.index()] =
            OptionPreorderNumber::some(PreorderNumber(self.preorder.len() as u32));
        self.parent[b.index()] = parent;
        self.preorder.push(b);
        self.stack.push((b, 0));
    }

    fn examine_edge(&mut self, v: BlockId, w: BlockId) {
        if self.pre[w.index()].is_none() {
            self.visit(w, OptionBlockId::some(v));
        } else if self.post[w.index()].is_none() {
            // Started but not finished: `w` is on the DFS stack.
            self.back_edges.push((v, w));
        }
    }

    fn finish(&mut self, v: BlockId) {
        self.stack.pop();
        self.post[v.index()] =
            OptionPostorderNumber::some(PostorderNumber(self.postorder.len() as u32));
        self.postorder.push(v);
    }

    /// Number of blocks of the graph last computed on.
    pub fn num_blocks(&self) -> usize {
        self.pre.len()
    }

    /// The DFS root (the entry unless [`Traversal::compute_from`] was used).
    pub fn root(&self) -> BlockId {
        self.root
    }

    /// Number of blocks reachable from the root.
    pub fn num_reachable(&self) -> usize {
        self.preorder.len()
    }

    /// True if `b` is reachable from the root.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.pre[b.index()].is_some()
    }

    /// Reachable blocks in DFS preorder (root first).
    pub fn preorder(&self) -> &[BlockId] {
        &self.preorder
    }

    /// Reachable blocks in DFS postorder (root last).
    pub fn postorder(&self) -> &[BlockId] {
        &self.postorder
    }

    /// Reachable blocks in reverse postorder (root first).
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Position of `b` in [`Traversal::preorder`]; `None` if unreachable.
    pub fn pre_number(&self, b: BlockId) -> Option<PreorderNumber> {
        self.pre[b.index()].get()
    }

    /// Position of `b` in [`Traversal::postorder`]; `None` if unreachable.
    pub fn post_number(&self, b: BlockId) -> Option<PostorderNumber> {
        self.post[b.index()].get()
    }

    /// Position of `b` in [`Traversal::rpo`] (the root is 0); `None` if
    /// unreachable.
    pub fn rpo_number(&self, b: BlockId) -> Option<u32> {
        let post = self.post_number(b)?;
        Some(self.num_reachable() as u32 - 1 - post.as_u32())
    }

    /// Parent of `b` in the DFS spanning tree; `None` for the root and for
    /// unreachable blocks.
    pub fn dfs_parent(&self, b: BlockId) -> Option<BlockId> {
        self.parent[b.index()].get()
    }

    /// True if `a` is an ancestor of `d` in the DFS tree, or `a == d`
    /// (both reachable). O(1) via preorder/postorder intervals.
    pub fn is_dfs_ancestor(&self, a: BlockId, d: BlockId) -> bool {
        match (self.pre[a.index()].get(), self.pre[d.index()].get()) {
            (Some(pa), Some(pd)) => {
                pa <= pd && self.post[d.index()].get() <= self.post[a.index()].get()
            }
            _ => false,
        }
    }

    /// Back edges `(from, to)` in the order the DFS examined them; an edge
    /// given by several terminator slots appears once per slot.
    pub fn back_edges(&self) -> &[(BlockId, BlockId)] {
        &self.back_edges
    }

    /// True if the edge `from -> to` (assumed to exist) is a back edge:
    /// both blocks reachable and `to` is a DFS ancestor-or-self of `from`.
    pub fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.is_dfs_ancestor(to, from)
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::CfgGraph;
    use super::*;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    #[test]
    fn seed_001_dot_example() {
        // bix0 -> bix1, bix0 -> bix3, bix1 -> bix2, bix2 -> bix1, bix2 -> bix3
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 3), (1, 2), (2, 1), (2, 3)]);
        let t = Traversal::build(&g);
        assert_eq!(t.rpo(), &[b(0), b(1), b(2), b(3)]);
        assert_eq!(t.preorder(), &[b(0), b(1), b(2), b(3)]);
        assert_eq!(t.back_edges(), &[(b(2), b(1))]);
        assert_eq!(t.rpo_number(b(3)), Some(3));
        assert!(t.is_back_edge(b(2), b(1)));
        assert!(!t.is_back_edge(b(0), b(3)));
        assert_eq!(t.dfs_parent(b(3)), Some(b(2)));
        assert_eq!(t.dfs_parent(b(0)), None);
    }

    #[test]
    fn unreachable_and_self_loop() {
        // 0 -> 0, 0 -> 1; 2 -> 1 unreachable.
        let g = CfgGraph::from_edges(3, b(0), &[(0, 0), (0, 1), (2, 1)]);
        let t = Traversal::build(&g);
        assert_eq!(t.num_reachable(), 2);
        assert_eq!(t.rpo_number(b(2)), None);
        assert!(!t.is_reachable(b(2)));
        assert!(t.is_back_edge(b(0), b(0)));
        assert!(!t.is_back_edge(b(2), b(1)));
        assert_eq!(t.back_edges(), &[(b(0), b(0))]);
    }

    #[test]
    fn million_block_chain_does_not_overflow() {
        let n = 1_000_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let g = CfgGraph::from_edges(n as usize, b(0), &edges);
        let mut t = Traversal::new();
        t.compute(&g);
        assert_eq!(t.num_reachable(), n as usize);
        assert_eq!(t.rpo_number(b(n as usize - 1)), Some(n - 1));
        t.clear();
        assert_eq!(t.num_reachable(), 0);
    }
}
