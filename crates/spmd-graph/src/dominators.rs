//! Dominator tree by the semi-NCA algorithm, with O(1) dominance queries,
//! plus the Cooper–Harvey–Kennedy iterative algorithm kept as a reference.
//!
//! # Algorithm (semi-NCA)
//!
//! Number the reachable blocks in DFS preorder (`0` = entry). For a block
//! `w`, its *semidominator* is the smallest-numbered block `s` from which a
//! path reaches `w` whose interior blocks all have numbers greater than
//! `w`. Semidominators are computed for `w = k-1 .. 1` by a link/eval
//! forest with path compression: a predecessor numbered below `w`
//! contributes its own number, a predecessor numbered above contributes the
//! smallest semidominator on its compressed forest path. Then, in increasing
//! preorder, `idom(w)` is found by walking up the (already final) dominator
//! tree from `w`'s DFS parent until reaching a block numbered `<= semi(w)`:
//! the nearest common ancestor of parent and semidominator. The first phase
//! is near-linear; the NCA walk is linear on real CFGs (quadratic only on
//! contrived inputs).
//!
//! A second linear pass numbers the dominator tree: subtree sizes are
//! accumulated bottom-up (a block's idom always has a smaller preorder
//! number), then each child receives a contiguous slice of its parent's
//! interval. `a` dominates `b` iff `b`'s tree number lies in `a`'s interval.
//!
//! # Edge cases
//!
//! * The entry has no immediate dominator ([`DominatorTree::idom`] is
//!   `None`) and dominates every reachable block.
//! * Unreachable blocks are outside the tree: no idom, no children, no
//!   depth; they dominate nothing and are dominated by nothing — not even
//!   themselves. (LLVM instead answers "dominated by everything" for
//!   unreachable blocks; we prefer the answer that can never license a
//!   transformation on dead code by accident.)
//! * Irreducible cycles need no special treatment: dominance is defined on
//!   paths and the algorithm is exact for every graph.
//! * Duplicate edges and self loops are harmless.

use super::csr::Csr;
use super::graph::{BlockId, Graph, OptionBlockId};
use super::traversal::{OptionPreorderNumber, PreorderNumber, Traversal};

crate::define_id! {
    /// Position of a reachable block in a preorder of the dominator tree
    /// (the start of its subtree interval; the root is 0).
    struct DomTreeNumber;
    /// An optional [`DomTreeNumber`] (none: unreachable).
    struct OptionDomTreeNumber;
}

crate::define_id! {
    /// An RPO number in [`reference_dominators`] (the entry is 0).
    struct RefRpo;
    /// An optional [`RefRpo`] (none: no idom found yet).
    struct OptionRefRpo;
}

/// Dominator tree of the blocks reachable from a graph's entry.
///
/// Lifecycle: [`DominatorTree::compute`] (reusing every buffer; it takes a
/// [`Traversal`] of the same graph so callers share one DFS), queries,
/// optionally [`DominatorTree::clear`].
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    root: BlockId,
    /// Per block: immediate dominator, none for the root / unreachable.
    idom: Vec<OptionBlockId>,
    /// Per block: position in a preorder of the dominator tree, none if
    /// unreachable.
    tin: Vec<OptionDomTreeNumber>,
    /// Per block: end (exclusive) of the block's subtree interval
    /// (meaningful where `tin` is some).
    tout: Vec<u32>,
    /// Per block: depth in the dominator tree (root = 0; meaningful where
    /// `tin` is some).
    depth: Vec<u32>,
    /// Per block: a skew-binary jump pointer to a strict dominator (none
    /// for the root and unreachable blocks; see the crate-private `jumps`
    /// module), for [`DominatorTree::nearest_common_dominator`].
    jump: Vec<OptionBlockId>,
    children: Csr<BlockId>,
    scratch: Scratch,
}

/// Buffers indexed by DFS preorder number, kept between runs.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// DFS tree parent (none for the root).
    parent: Vec<OptionPreorderNumber>,
    semi: Vec<PreorderNumber>,
    label: Vec<PreorderNumber>,
    /// Link/eval forest parent (none: a forest root, not linked yet).
    ancestor: Vec<OptionPreorderNumber>,
    /// Immediate dominator (the root's entry is the root itself, unused).
    idom: Vec<PreorderNumber>,
    size: Vec<u32>,
    next_slot: Vec<u32>,
    path: Vec<PreorderNumber>,
    child_pairs: Vec<(u32, BlockId)>,
}

impl DominatorTree {
    /// An empty tree; call [`DominatorTree::compute`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Convenience: the dominator tree of `g` (runs its own DFS).
    pub fn build<G: Graph + ?Sized>(g: &G) -> Self {
        let mut t = Self::new();
        t.compute(g, &Traversal::build(g));
        t
    }

    /// Recomputes the tree for `g`, reusing buffers. `dfs` must be a
    /// traversal of this same `g` (from its entry, or from whatever root
    /// the tree should have). Panics if the sizes disagree.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G, dfs: &Traversal) {
        let n = g.num_blocks();
        assert_eq!(dfs.num_blocks(), n, "traversal computed on another graph");
        self.root = dfs.root();
        self.scratch.semi_nca(g, dfs);
        self.store_idoms(dfs);
        self.number_tree(dfs);
        self.build_children(n, dfs);
    }

    /// Forgets the tree (keeps capacity).
    pub fn clear(&mut self) {
        self.tin.clear();
        self.tout.clear();
        self.depth.clear();
        self.jump.clear();
        self.idom.clear();
        self.children.clear();
    }

    fn store_idoms(&mut self, dfs: &Traversal) {
        let n = dfs.num_blocks();
        self.idom.clear();
        self.idom.resize(n, OptionBlockId::NONE);
        let order = dfs.preorder();
        for (i, &b) in order.iter().enumerate().skip(1) {
            self.idom[b.index()] = OptionBlockId::some(order[self.scratch.idom[i].index()]);
        }
    }

    /// Assigns each reachable block a contiguous dominator-subtree interval,
    /// its depth and its jump pointer, in two linear passes over the DFS
    /// preorder (a dominator comes before the blocks it dominates).
    fn number_tree(&mut self, dfs: &Traversal) {
        let n = dfs.num_blocks();
        let k = dfs.num_reachable();
        self.tin.clear();
        self.tin.resize(n, OptionDomTreeNumber::NONE);
        for v in [&mut self.tout, &mut self.depth] {
            v.clear();
            v.resize(n, 0);
        }
        self.jump.clear();
        self.jump.resize(n, OptionBlockId::NONE);
        let s = &mut self.scratch;
        s.size.clear();
        s.size.resize(k, 1);
        for i in (1..k).rev() {
            let p = s.idom[i].index();
            s.size[p] += s.size[i];
        }
        s.next_slot.clear();
        s.next_slot.resize(k, 0);
        let order = dfs.preorder();
        for (i, &b) in order.iter().enumerate() {
            let (tin, depth) = if i == 0 {
                (0, 0)
            } else {
                let p = s.idom[i].index();
                let parent = order[p];
                let parent_depth = self.depth[parent.index()];
                let tin = s.next_slot[p];
                s.next_slot[p] += s.size[i];
                let jump = super::jumps::jump_for_child_of(
                    parent,
                    |x: BlockId| self.jump[x.index()].get(),
                    |x: BlockId| self.depth[x.index()],
                );
                self.jump[b.index()] = OptionBlockId::some(jump);
                (tin, parent_depth + 1)
            };
            s.next_slot[i] = tin + 1;
            self.tin[b.index()] = OptionDomTreeNumber::some(DomTreeNumber(tin));
            self.tout[b.index()] = tin + s.size[i];
            self.depth[b.index()] = depth;
        }
    }

    fn build_children(&mut self, n: usize, dfs: &Traversal) {
        let pairs = &mut self.scratch.child_pairs;
        pairs.clear();
        for &b in &dfs.preorder()[dfs.num_reachable().min(1)..] {
            let idom = self.idom[b.index()]
                .get()
                .expect("a reachable block other than the root has an idom");
            pairs.push((idom.as_u32(), b));
        }
        self.children
            .rebuild_by(n, pairs, |p| p.0 as usize, |p| p.1);
    }

    /// Number of blocks of the graph (reachable or not).
    pub fn num_blocks(&self) -> usize {
        self.idom.len()
    }

    /// The root of the tree: the entry block.
    pub fn root(&self) -> BlockId {
        self.root
    }

    /// True if `b` is reachable from the entry (so it is in the tree).
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.tin[b.index()].is_some()
    }

    /// Immediate dominator of `b`; `None` for the entry and for
    /// unreachable blocks.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.idom[b.index()].get()
    }

    /// True if every path from the entry to `b` passes through `a`
    /// (reflexive: a reachable block dominates itself). `false` whenever
    /// `a` or `b` is unreachable. O(1).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        match (self.tin[a.index()].get(), self.tin[b.index()].get()) {
            (Some(ta), Some(tb)) => ta <= tb && tb.0 < self.tout[a.index()],
            _ => false,
        }
    }

    /// `dominates(a, b) && a != b`. O(1).
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The deepest block dominating both `a` and `b`; `None` if either is
    /// unreachable. O(log depth): "does not dominate `b`" holds from `a`
    /// up to just below the answer, so the jump pointers find the
    /// outermost such dominator of `a`, whose idom is the answer. Deep
    /// trees (long-range CFGs, post-dominators of long chains) are not
    /// walked level by level.
    pub fn nearest_common_dominator(&self, a: BlockId, b: BlockId) -> Option<BlockId> {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return None;
        }
        if self.dominates(a, b) {
            return Some(a);
        }
        // The root dominates `b`, so the outermost non-dominator found
        // has an idom: the answer.
        let outermost = super::jumps::outermost_ancestor_where(
            a,
            |x| self.idom(x),
            |x| self.jump[x.index()].get(),
            |x| !self.dominates(x, b),
        )?;
        self.idom(outermost)
    }

    /// Children of `b` in the dominator tree (blocks whose idom is `b`),
    /// in DFS preorder. Empty for leaves and unreachable blocks.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        self.children.row(b.index())
    }

    /// Depth of `b` in the dominator tree (entry = 0); `None` if
    /// unreachable.
    pub fn depth(&self, b: BlockId) -> Option<u32> {
        self.is_reachable(b).then(|| self.depth[b.index()])
    }

    /// The half-open interval `[start, end)` of `b`'s subtree in a preorder
    /// numbering of the dominator tree; `None` if unreachable.
    pub fn tree_interval(&self, b: BlockId) -> Option<(u32, u32)> {
        self.tin[b.index()]
            .get()
            .map(|t| (t.0, self.tout[b.index()]))
    }
}

impl Scratch {
    /// Fills `self.idom` (by preorder number) with immediate dominators.
    fn semi_nca<G: Graph + ?Sized>(&mut self, g: &G, dfs: &Traversal) {
        let k = dfs.num_reachable();
        self.init(dfs);
        for w in (1..k).rev() {
            let block = dfs.preorder()[w];
            let mut s = self.semi[w];
            for &p in g.predecessors(block) {
                if let Some(v) = dfs.pre_number(p) {
                    let u = self.eval(v);
                    s = s.min(self.semi[u.index()]);
                }
            }
            self.semi[w] = s;
            self.ancestor[w] = self.parent[w];
        }
        for w in 1..k {
            let mut x = self.parent[w]
                .get()
                .expect("a non-root block has a DFS parent");
            while x > self.semi[w] {
                x = self.idom[x.index()];
            }
            self.idom[w] = x;
        }
    }

    fn init(&mut self, dfs: &Traversal) {
        let k = dfs.num_reachable();
        self.parent.clear();
        self.parent.extend(dfs.preorder().iter().map(|&b| {
            OptionPreorderNumber::from(dfs.dfs_parent(b).and_then(|p| dfs.pre_number(p)))
        }));
        for v in [&mut self.semi, &mut self.label, &mut self.idom] {
            v.clear();
            v.extend((0..k).map(PreorderNumber::new));
        }
        self.ancestor.clear();
        self.ancestor.resize(k, OptionPreorderNumber::NONE);
    }

    /// The vertex with minimum semidominator on the forest path from `v` to
    /// (excluding) its forest root; `v` itself if `v` is not linked yet.
    fn eval(&mut self, v: PreorderNumber) -> PreorderNumber {
        if self.ancestor[v.index()].is_none() {
            return v;
        }
        self.compress(v);
        self.label[v.index()]
    }

    /// Iterative path compression from `v` up to the forest root.
    /// `v` must be linked (its `ancestor` is some).
    fn compress(&mut self, v: PreorderNumber) {
        let linked =
            |a: OptionPreorderNumber| a.get().expect("compress starts from a linked vertex");
        let mut x = v;
        self.path.clear();
        loop {
            let a = linked(self.ancestor[x.index()]);
            if self.ancestor[a.index()].is_none() {
                break;
            }
            self.path.push(x);
            x = a;
        }
        while let Some(y) = self.path.pop() {
            let (yu, a) = (y.index(), linked(self.ancestor[y.index()]).index());
            if self.semi[self.label[a].index()] < self.semi[self.label[yu].index()] {
                self.label[yu] = self.label[a];
            }
            self.ancestor[yu] = self.ancestor[a];
        }
    }
}

/// Reference immediate dominators by the Cooper–Harvey–Kennedy iterative
/// algorithm ("A Simple, Fast Dominance Algorithm", 2001): iterate over
/// reverse postorder, setting each block's idom to the intersection
/// (walk-up by postorder number) of its already-processed predecessors'
/// idoms, until nothing changes. Quadratic worst case; kept as the oracle
/// the fast tree is tested against.
///
/// Returns one entry per block: `None` for the entry and for unreachable
/// blocks (use a [`Traversal`] to tell them apart), `Some(idom)` otherwise.
pub fn reference_dominators<G: Graph + ?Sized>(g: &G) -> Vec<Option<BlockId>> {
    let dfs = Traversal::build(g);
    let rpo = dfs.rpo();
    let rpo_num = |b: BlockId| dfs.rpo_number(b);
    let mut doms: Vec<OptionRefRpo> = vec![OptionRefRpo::NONE; rpo.len()];
    doms[0] = OptionRefRpo::some(RefRpo(0));
    let mut changed = true;
    while changed {
        changed = false;
        for (i, &b) in rpo.iter().enumerate().skip(1) {
            let mut new_idom = OptionRefRpo::NONE;
            for p in g
                .predecessors(b)
                .iter()
                .filter_map(|&p| rpo_num(p))
                .map(RefRpo)
            {
                if doms[p.index()].is_none() {
                    continue;
                }
                new_idom = OptionRefRpo::some(match new_idom.get() {
                    None => p,
                    Some(cur) => intersect(&doms, p, cur),
                });
            }
            if doms[i] != new_idom {
                doms[i] = new_idom;
                changed = true;
            }
        }
    }
    let mut out = vec![None; g.num_blocks()];
    for (i, &b) in rpo.iter().enumerate().skip(1) {
        out[b.index()] = Some(
            rpo[doms[i]
                .get()
                .expect("a reachable block gets an idom")
                .index()],
        );
    }
    out
}

/// Walks two RPO numbers up the partial dominator tree until they meet.
/// Both must have an idom already (every block on their walk up has one).
fn intersect(doms: &[OptionRefRpo], mut a: RefRpo, mut b: RefRpo) -> RefRpo {
    let up = |x: RefRpo| {
        doms[x.index()]
            .get()
            .expect("a processed block has an idom")
    };
    while a != b {
        while a > b {
            a = up(a);
        }
        while b > a {
            b = up(b);
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::super::graph::CfgGraph;
    use super::*;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    fn idoms(t: &DominatorTree) -> Vec<Option<BlockId>> {
        (0..t.num_blocks()).map(|i| t.idom(b(i))).collect()
    }

    #[test]
    fn diamond() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let t = DominatorTree::build(&g);
        assert_eq!(idoms(&t), vec![None, Some(b(0)), Some(b(0)), Some(b(0))]);
        assert_eq!(idoms(&t), reference_dominators(&g));
        assert!(t.dominates(b(0), b(3)) && !t.dominates(b(1), b(3)));
        assert!(t.dominates(b(3), b(3)) && !t.strictly_dominates(b(3), b(3)));
        assert_eq!(t.nearest_common_dominator(b(1), b(2)), Some(b(0)));
        assert_eq!(t.nearest_common_dominator(b(3), b(0)), Some(b(0)));
        assert_eq!(t.children(b(0)), &[b(1), b(3), b(2)]);
        assert_eq!(t.depth(b(3)), Some(1));
    }

    #[test]
    fn unreachable_blocks_are_outside_the_tree() {
        // 0 -> 1; 2 -> 1, 2 -> 2 (unreachable self loop)
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (2, 1), (2, 2)]);
        let t = DominatorTree::build(&g);
        assert_eq!(idoms(&t), vec![None, Some(b(0)), None]);
        assert!(!t.is_reachable(b(2)));
        assert!(!t.dominates(b(2), b(2)) && !t.dominates(b(0), b(2)) && !t.dominates(b(2), b(1)));
        assert_eq!(t.nearest_common_dominator(b(1), b(2)), None);
        assert_eq!(t.depth(b(2)), None);
        assert!(t.children(b(2)).is_empty());
    }

    #[test]
    fn seed_000_irreducible_example() {
        // Entry(0) -> A(1), Entry -> B(2), A -> B, B -> C(3), C -> A.
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 1)]);
        let t = DominatorTree::build(&g);
        assert_eq!(idoms(&t), vec![None, Some(b(0)), Some(b(0)), Some(b(2))]);
        assert_eq!(idoms(&t), reference_dominators(&g));
        assert!(!t.dominates(b(1), b(2)) && !t.dominates(b(2), b(1)));
    }

    #[test]
    fn entry_with_predecessor_and_duplicates() {
        // 0 -> 1 (twice), 1 -> 0, 1 -> 2
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (0, 1), (1, 0), (1, 2)]);
        let mut t = DominatorTree::new();
        t.compute(&g, &Traversal::build(&g));
        assert_eq!(idoms(&t), vec![None, Some(b(0)), Some(b(1))]);
        t.clear();
        assert_eq!(t.num_blocks(), 0);
    }

    #[test]
    fn long_chain_and_ladder() {
        // A 200k chain with a back edge to the entry every 1000 blocks.
        let n = 200_000u32;
        let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        edges.extend((1..n / 1000).map(|k| (k * 1000, 0)));
        let g = CfgGraph::from_edges(n as usize, b(0), &edges);
        let t = DominatorTree::build(&g);
        assert_eq!(t.idom(b(n as usize - 1)), Some(b(n as usize - 2)));
        assert!(t.dominates(b(5), b(150_000)));
        assert_eq!(t.depth(b(n as usize - 1)), Some(n - 1));
    }
}
