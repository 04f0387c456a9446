//! Post-dominator tree rooted at a virtual exit.
//!
//! `a` post-dominates `b` if every path from `b` to the (virtual) exit
//! passes through `a`. The tree is the dominator tree (same semi-NCA code)
//! of [`ReverseWithVirtualExit`]: the reversed CFG plus one virtual exit
//! node, with id `num_blocks`, whose reverse successors are the *roots*.
//!
//! # Roots: exits and infinite loops
//!
//! 1. **Exits.** Every block without successors is connected to the
//!    virtual exit: returns *and* `unreachable`-like terminators (traps,
//!    `exit` instructions) alike — the graph cannot tell them apart, and
//!    both end the thread's execution of the function.
//! 2. **Infinite loops.** Let `R` be the set of blocks from which no exit
//!    is reachable. `R` is closed under successors, so the condensation
//!    of the subgraph induced by `R` has *terminal* SCCs (no edge leaves
//!    them); each is a real cycle (size > 1 or a self loop) because its
//!    blocks have successors. For every terminal SCC of `R` we connect
//!    exactly one **representative** to the virtual exit: the member with
//!    the largest forward RPO number, i.e. the block visited last by the
//!    entry DFS — typically the loop's latch, so the loop post-dominates
//!    "as if it exited at the bottom" (this matches LLVM's intent of picking
//!    the node furthest from the loop entry). If the SCC is unreachable from
//!    the entry (then all its members are), the member with the largest
//!    block index is used instead. Extra roots are listed in block-index
//!    order after the exits.
//!
//! Every block can reach some exit or some terminal SCC of `R`, so after
//! adding the roots **every block, reachable from the entry or not, is in
//! the tree** and has an immediate post-dominator; the virtual exit
//! post-dominates everything. Forward-unreachable blocks never change the
//! post-dominance relation among reachable blocks (no path from a reachable
//! block visits them) — they only appear as extra leaves/roots.

use super::dominators::DominatorTree;
use super::graph::{BlockId, Graph, OptionBlockId, ReverseWithVirtualExit};
use super::scc::SccFinder;
use super::traversal::Traversal;

/// Post-dominator tree of a CFG with a virtual exit.
///
/// Lifecycle: [`PostDominatorTree::compute`] (reusing every buffer),
/// queries, optionally [`PostDominatorTree::clear`]. Queries accept real
/// block ids and, where documented, [`PostDominatorTree::virtual_exit`].
#[derive(Clone, Debug, Default)]
pub struct PostDominatorTree {
    num_blocks: usize,
    reverse: ReverseWithVirtualExit,
    reverse_dfs: Traversal,
    tree: DominatorTree,
    num_exits: usize,
    extra_roots: Vec<BlockId>,
    reaches_exit: Vec<bool>,
    no_exit: Vec<bool>,
    worklist: Vec<BlockId>,
    scc: SccFinder,
    terminal: Vec<bool>,
    /// Per terminal SCC (by [`super::scc::SccId`]): its representative so far.
    best_of_comp: Vec<OptionBlockId>,
}

impl PostDominatorTree {
    /// An empty tree; call [`PostDominatorTree::compute`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Convenience: the post-dominator tree of `g` (runs its own DFS).
    pub fn build<G: Graph + ?Sized>(g: &G) -> Self {
        let mut t = Self::new();
        t.compute(g, &Traversal::build(g));
        t
    }

    /// Recomputes the tree for `g`, reusing buffers. `forward` must be a
    /// traversal of `g` from its entry; it orders infinite-loop
    /// representatives (see the module documentation).
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G, forward: &Traversal) {
        let n = g.num_blocks();
        assert_eq!(
            forward.num_blocks(),
            n,
            "traversal computed on another graph"
        );
        self.num_blocks = n;
        self.mark_blocks_reaching_exits(g);
        self.find_infinite_loop_roots(g, forward);
        self.reverse.compute(g, &self.extra_roots);
        self.num_exits = self.reverse.roots().len() - self.extra_roots.len();
        self.reverse_dfs.compute(&self.reverse);
        self.tree.compute(&self.reverse, &self.reverse_dfs);
        debug_assert_eq!(self.reverse_dfs.num_reachable(), n + 1);
    }

    /// Forgets the tree (keeps capacity).
    pub fn clear(&mut self) {
        self.num_blocks = 0;
        self.num_exits = 0;
        self.extra_roots.clear();
        self.reverse.clear();
        self.reverse_dfs.clear();
        self.tree.clear();
    }

    /// Backward search from every exit: `reaches_exit[b]` iff some exit is
    /// reachable from `b`.
    fn mark_blocks_reaching_exits<G: Graph + ?Sized>(&mut self, g: &G) {
        let n = g.num_blocks();
        self.reaches_exit.clear();
        self.reaches_exit.resize(n, false);
        self.worklist.clear();
        for i in 0..n {
            if g.is_exit(BlockId::new(i)) {
                self.reaches_exit[i] = true;
                self.worklist.push(BlockId::new(i));
            }
        }
        while let Some(b) = self.worklist.pop() {
            for &p in g.predecessors(b) {
                if !self.reaches_exit[p.index()] {
                    self.reaches_exit[p.index()] = true;
                    self.worklist.push(p);
                }
            }
        }
    }

    /// One representative per terminal SCC of the blocks that cannot reach
    /// an exit, into `extra_roots` (sorted by block index).
    fn find_infinite_loop_roots<G: Graph + ?Sized>(&mut self, g: &G, forward: &Traversal) {
        self.extra_roots.clear();
        self.no_exit.clear();
        self.no_exit.extend(self.reaches_exit.iter().map(|&r| !r));
        if !self.no_exit.contains(&true) {
            return;
        }
        self.scc.compute_masked(g, &self.no_exit);
        self.mark_terminal_components(g);
        self.best_of_comp.clear();
        self.best_of_comp
            .resize(self.scc.num_components(), OptionBlockId::NONE);
        for i in 0..g.num_blocks() {
            let b = BlockId::new(i);
            let Some(c) = self.scc.component(b) else {
                continue;
            };
            if !self.terminal[c.index()] {
                continue;
            }
            let best = &mut self.best_of_comp[c.index()];
            let better = best
                .get()
                .is_none_or(|r| representative_key(forward, b) > representative_key(forward, r));
            if better {
                *best = OptionBlockId::some(b);
            }
        }
        self.extra_roots
            .extend(self.best_of_comp.iter().filter_map(|r| r.get()));
        self.extra_roots.sort_unstable();
    }

    /// `terminal[c]`: no edge leaves component `c` of the no-exit blocks.
    fn mark_terminal_components<G: Graph + ?Sized>(&mut self, g: &G) {
        self.terminal.clear();
        self.terminal.resize(self.scc.num_components(), true);
        for i in 0..g.num_blocks() {
            let b = BlockId::new(i);
            let Some(c) = self.scc.component(b) else {
                continue;
            };
            if g.successors(b)
                .iter()
                .any(|&s| self.scc.component(s) != Some(c))
            {
                self.terminal[c.index()] = false;
            }
        }
    }

    /// Number of real blocks.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// The virtual exit's id (`num_blocks()`), the root of the tree.
    pub fn virtual_exit(&self) -> BlockId {
        BlockId::new(self.num_blocks)
    }

    /// True if `b` is the virtual exit.
    pub fn is_virtual_exit(&self, b: BlockId) -> bool {
        b.index() == self.num_blocks
    }

    /// All roots (reverse successors of the virtual exit): the exits, then
    /// the infinite-loop representatives.
    pub fn roots(&self) -> &[BlockId] {
        self.reverse.roots()
    }

    /// Blocks without successors, in index order.
    pub fn exits(&self) -> &[BlockId] {
        &self.roots()[..self.num_exits]
    }

    /// Representatives of terminal infinite-loop SCCs connected to the
    /// virtual exit, in index order.
    pub fn extra_roots(&self) -> &[BlockId] {
        &self.extra_roots
    }

    /// True if some exit (block without successors) is reachable from `b`.
    pub fn reaches_exit(&self, b: BlockId) -> bool {
        self.reaches_exit[b.index()]
    }

    /// Immediate post-dominator of real block `b`; `None` means the virtual
    /// exit (and is also returned for the virtual exit itself, which has no
    /// parent). Every real block has one (see module docs).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.idom(b).filter(|&p| !self.is_virtual_exit(p))
    }

    /// True if every path from `b` to the virtual exit passes through `a`.
    /// Reflexive; `a` or `b` may be the virtual exit (which post-dominates
    /// every block and is post-dominated only by itself). O(1).
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.dominates(a, b)
    }

    /// `post_dominates(a, b) && a != b`. O(1).
    pub fn strictly_post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.strictly_dominates(a, b)
    }

    /// The nearest block post-dominating both `a` and `b`; `None` means the
    /// virtual exit is the only common post-dominator.
    pub fn nearest_common_post_dominator(&self, a: BlockId, b: BlockId) -> Option<BlockId> {
        self.tree
            .nearest_common_dominator(a, b)
            .filter(|&p| !self.is_virtual_exit(p))
    }

    /// Children of `b` in the post-dominator tree (blocks whose immediate
    /// post-dominator is `b`); `b` may be the virtual exit.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        self.tree.children(b)
    }

    /// Depth in the post-dominator tree (virtual exit = 0).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.tree.depth(b).unwrap_or(0)
    }

    /// The reverse graph the tree was computed on.
    pub fn reverse_graph(&self) -> &ReverseWithVirtualExit {
        &self.reverse
    }

    /// The underlying dominator tree of [`PostDominatorTree::reverse_graph`].
    pub fn as_dominator_tree(&self) -> &DominatorTree {
        &self.tree
    }
}

/// Ordering key for infinite-loop representatives: reachable blocks by
/// forward RPO number, unreachable ones (whole SCC unreachable) by index.
fn representative_key(forward: &Traversal, b: BlockId) -> (bool, u32) {
    match forward.rpo_number(b) {
        Some(rpo) => (true, rpo),
        None => (false, b.as_u32()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::dominators::reference_dominators;
    use super::super::graph::CfgGraph;
    use super::*;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    fn ipdoms(t: &PostDominatorTree) -> Vec<Option<BlockId>> {
        (0..t.num_blocks()).map(|i| t.ipdom(b(i))).collect()
    }

    fn check_against_reference(t: &PostDominatorTree) {
        let reference = reference_dominators(t.reverse_graph());
        for (i, r) in reference.iter().enumerate().take(t.num_blocks()) {
            let expected = r.filter(|&p| !t.is_virtual_exit(p));
            assert_eq!(t.ipdom(b(i)), expected, "block {i}");
        }
    }

    #[test]
    fn diamond() {
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let t = PostDominatorTree::build(&g);
        assert_eq!(ipdoms(&t), vec![Some(b(3)), Some(b(3)), Some(b(3)), None]);
        assert!(t.post_dominates(b(3), b(0)) && !t.post_dominates(b(1), b(0)));
        assert!(t.post_dominates(t.virtual_exit(), b(2)));
        assert!(!t.post_dominates(b(2), t.virtual_exit()));
        assert_eq!(t.nearest_common_post_dominator(b(1), b(2)), Some(b(3)));
        assert_eq!(t.exits(), &[b(3)]);
        assert!(t.extra_roots().is_empty());
        check_against_reference(&t);
    }

    #[test]
    fn multiple_exits_meet_at_virtual_exit() {
        // 0 -> 1, 0 -> 2; both return.
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (0, 2)]);
        let t = PostDominatorTree::build(&g);
        assert_eq!(ipdoms(&t), vec![None, None, None]);
        assert_eq!(t.nearest_common_post_dominator(b(1), b(2)), None);
        assert_eq!(t.children(t.virtual_exit()), &[b(1), b(0), b(2)][..]);
        check_against_reference(&t);
    }

    #[test]
    fn infinite_self_loop_beside_an_exit() {
        // 0 -> 1 (a), 0 -> 3 (ret); a -> 2 (b); b -> b.
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 3), (1, 2), (2, 2)]);
        let t = PostDominatorTree::build(&g);
        assert_eq!(t.extra_roots(), &[b(2)]);
        assert_eq!(ipdoms(&t), vec![None, Some(b(2)), None, None]);
        assert!(!t.reaches_exit(b(1)) && t.reaches_exit(b(0)));
        check_against_reference(&t);
    }

    #[test]
    fn whole_function_is_an_infinite_loop() {
        // 0 -> 1 -> 2 -> 1: representative is 2 (largest RPO).
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (1, 2), (2, 1)]);
        let t = PostDominatorTree::build(&g);
        assert!(t.exits().is_empty());
        assert_eq!(t.extra_roots(), &[b(2)]);
        assert_eq!(ipdoms(&t), vec![Some(b(1)), Some(b(2)), None]);
        check_against_reference(&t);
    }

    #[test]
    fn non_terminal_infinite_scc_gets_no_root() {
        // 0 -> 1 <-> 2, 2 -> 3 <-> 4: only {3,4} is terminal; rep = 4.
        let g = CfgGraph::from_edges(5, b(0), &[(0, 1), (1, 2), (2, 1), (2, 3), (3, 4), (4, 3)]);
        let t = PostDominatorTree::build(&g);
        assert_eq!(t.extra_roots(), &[b(4)]);
        assert_eq!(t.ipdom(b(2)), Some(b(3)));
        check_against_reference(&t);
    }

    #[test]
    fn unreachable_infinite_loop_uses_largest_index() {
        // 0 returns; 1 <-> 2 unreachable.
        let g = CfgGraph::from_edges(3, b(0), &[(1, 2), (2, 1)]);
        let mut t = PostDominatorTree::new();
        t.compute(&g, &Traversal::build(&g));
        assert_eq!(t.extra_roots(), &[b(2)]);
        assert_eq!(ipdoms(&t), vec![None, Some(b(2)), None]);
        t.clear();
        assert_eq!(t.num_blocks(), 0);
        assert!(t.roots().is_empty());
    }
}
