//! The graph abstraction every analysis of this crate runs on.
//!
//! * [`BlockId`] names a basic block by a dense index `0..num_blocks`.
//! * [`Graph`] is the read-only interface: block count, entry block, and
//!   successor / predecessor *slices* (so implementations keep adjacency in
//!   dense arrays; no per-query allocation).
//! * [`CfgGraph`] is the concrete compressed-sparse-row implementation,
//!   built with [`CfgGraph::from_edges`] or a reusable [`CfgBuilder`].
//! * [`ReverseWithVirtualExit`] materializes the reverse graph plus one
//!   virtual exit node, the graph post-dominance is computed on.
//!
//! Successor lists are *per terminator slot*: a conditional branch whose two
//! targets are the same block, or a switch with several cases to one block,
//! yields duplicate entries, and they are kept (in both the successor list of
//! the source and the predecessor list of the target). Every analysis here is
//! insensitive to such duplicates; they only matter to clients that map
//! slots back to terminator operands.

use super::csr::Csr;
use std::fmt;

crate::define_id! {
    /// Dense index of a basic block within one [`Graph`].
    ///
    /// Valid ids of a graph are `0..num_blocks`. `u32::MAX` is reserved for
    /// [`OptionBlockId::NONE`], so [`BlockId::new`] rejects it.
    pub struct BlockId;
    /// An optional [`BlockId`] (an immediate dominator, a join point, ...).
    pub struct OptionBlockId;
}

impl Default for BlockId {
    /// Block 0.
    fn default() -> Self {
        BlockId(0)
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb{}", self.0)
    }
}

/// Read-only view of a control-flow graph with dense block ids.
///
/// Invariants implementations must uphold:
/// * `num_blocks() >= 1` and `entry().index() < num_blocks()`;
/// * every id in a successor or predecessor slice is `< num_blocks()`;
/// * `b` appears in `predecessors(s)` exactly as many times as `s`
///   appears in `successors(b)` (the two views describe the same edges).
///
/// The entry block may have predecessors (a loop back to the entry); the
/// analyses handle that (the entry is then a cycle header / cycle entry).
pub trait Graph {
    /// Number of blocks; ids are `0..num_blocks()`.
    fn num_blocks(&self) -> usize;
    /// The function entry block.
    fn entry(&self) -> BlockId;
    /// Successors of `b`, one per terminator slot (duplicates allowed).
    fn successors(&self, b: BlockId) -> &[BlockId];
    /// Predecessors of `b`, one per incoming edge (duplicates allowed).
    fn predecessors(&self, b: BlockId) -> &[BlockId];

    /// True if `b` has no successors (a return, or an `unreachable`-like
    /// terminator): an exit of the function for post-dominance purposes.
    fn is_exit(&self, b: BlockId) -> bool {
        self.successors(b).is_empty()
    }
}

impl<G: Graph + ?Sized> Graph for &G {
    fn num_blocks(&self) -> usize {
        (**self).num_blocks()
    }
    fn entry(&self) -> BlockId {
        (**self).entry()
    }
    fn successors(&self, b: BlockId) -> &[BlockId] {
        (**self).successors(b)
    }
    fn predecessors(&self, b: BlockId) -> &[BlockId] {
        (**self).predecessors(b)
    }
}

/// A control-flow graph in compressed-sparse-row form: successors and
/// predecessors each stored as offsets + one flat target array.
///
/// Successors of a block keep the order in which their edges were given
/// (terminator-slot order); predecessors of a block are ordered by the
/// position of the edge in the input.
#[derive(Clone, Debug, Default)]
pub struct CfgGraph {
    entry: BlockId,
    succs: Csr<BlockId>,
    preds: Csr<BlockId>,
}

impl CfgGraph {
    /// Builds a graph with blocks `0..num_blocks`, the given entry, and one
    /// edge per `(from, to)` pair (duplicates kept).
    ///
    /// Panics if `num_blocks == 0`, `num_blocks >= u32::MAX - 1` (one index
    /// is reserved for the post-dominance virtual exit), or if the entry or
    /// an edge endpoint is out of range.
    pub fn from_edges(num_blocks: usize, entry: BlockId, edges: &[(u32, u32)]) -> Self {
        let mut g = CfgGraph::default();
        g.rebuild_from_edges(num_blocks, entry, edges);
        g
    }

    /// Same as [`CfgGraph::from_edges`] but reuses this graph's buffers.
    pub fn rebuild_from_edges(&mut self, num_blocks: usize, entry: BlockId, edges: &[(u32, u32)]) {
        validate(num_blocks, entry, edges);
        self.entry = entry;
        self.succs
            .rebuild_by(num_blocks, edges, |e| e.0 as usize, |e| BlockId(e.1));
        self.preds
            .rebuild_by(num_blocks, edges, |e| e.1 as usize, |e| BlockId(e.0));
    }

    /// Total number of edges (counting duplicates).
    pub fn num_edges(&self) -> usize {
        self.succs.num_items()
    }

    /// All edges as `(from, to)`, grouped by source block in index order,
    /// each group in successor-slot order.
    pub fn edges(&self) -> impl Iterator<Item = (BlockId, BlockId)> + '_ {
        (0..self.num_blocks()).flat_map(move |i| {
            let b = BlockId::new(i);
            self.successors(b).iter().map(move |&s| (b, s))
        })
    }
}

fn validate(num_blocks: usize, entry: BlockId, edges: &[(u32, u32)]) {
    assert!(num_blocks >= 1, "a CFG needs at least its entry block");
    assert!(num_blocks < u32::MAX as usize - 1, "too many blocks");
    assert!(
        entry.index() < num_blocks,
        "entry {entry} out of range ({num_blocks} blocks)"
    );
    for &(from, to) in edges {
        assert!(
            (from as usize) < num_blocks && (to as usize) < num_blocks,
            "edge {from}->{to} out of range ({num_blocks} blocks)"
        );
    }
}

impl Graph for CfgGraph {
    fn num_blocks(&self) -> usize {
        self.succs.num_rows()
    }
    fn entry(&self) -> BlockId {
        self.entry
    }
    fn successors(&self, b: BlockId) -> &[BlockId] {
        self.succs.row(b.index())
    }
    fn predecessors(&self, b: BlockId) -> &[BlockId] {
        self.preds.row(b.index())
    }
}

/// Reusable incremental builder for [`CfgGraph`].
///
/// Lifecycle: [`CfgBuilder::clear`], then [`CfgBuilder::add_block`] /
/// [`CfgBuilder::set_num_blocks`], [`CfgBuilder::set_entry`] and
/// [`CfgBuilder::add_edge`] in any order, then [`CfgBuilder::finish`].
/// The edge list and the graph's arrays are kept between builds, so
/// rebuilding a graph of similar size does not allocate.
#[derive(Clone, Debug, Default)]
pub struct CfgBuilder {
    num_blocks: usize,
    entry: BlockId,
    edges: Vec<(u32, u32)>,
    graph: CfgGraph,
}

impl CfgBuilder {
    /// An empty builder (no blocks, entry 0).
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets all blocks and edges (keeps capacity); the entry resets to 0.
    pub fn clear(&mut self) {
        self.num_blocks = 0;
        self.entry = BlockId(0);
        self.edges.clear();
    }

    /// Adds one block and returns its id.
    pub fn add_block(&mut self) -> BlockId {
        self.num_blocks += 1;
        BlockId::new(self.num_blocks - 1)
    }

    /// Sets the number of blocks (ids `0..n`).
    pub fn set_num_blocks(&mut self, n: usize) {
        self.num_blocks = n;
    }

    /// Number of blocks declared so far.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// Sets the entry block (default: block 0).
    pub fn set_entry(&mut self, entry: BlockId) {
        self.entry = entry;
    }

    /// Appends the edge `from -> to` as the next successor slot of `from`.
    /// Endpoints are validated by [`CfgBuilder::finish`].
    pub fn add_edge(&mut self, from: BlockId, to: BlockId) {
        self.edges.push((from.0, to.0));
    }

    /// Builds the graph (reusing the previous graph's buffers) and returns
    /// it. Panics under the same conditions as [`CfgGraph::from_edges`].
    pub fn finish(&mut self) -> &CfgGraph {
        self.graph
            .rebuild_from_edges(self.num_blocks, self.entry, &self.edges);
        &self.graph
    }

    /// The graph produced by the last [`CfgBuilder::finish`].
    pub fn graph(&self) -> &CfgGraph {
        &self.graph
    }
}

/// The reverse of a graph plus one *virtual exit* node, materialized in CSR
/// form: the graph post-dominance is the dominance of.
///
/// With `n` real blocks the virtual exit has id `n` and is the entry of
/// this graph. Reverse successors of a real block are its forward
/// predecessors; reverse successors of the virtual exit are the *roots*:
/// every forward exit (block without successors) in index order, followed
/// by the extra roots given to [`ReverseWithVirtualExit::compute`]
/// (deduplicated). Reverse predecessors of a real block are its forward
/// successors, plus the virtual exit if the block is a root.
#[derive(Clone, Debug, Default)]
pub struct ReverseWithVirtualExit {
    num_real: usize,
    succs: Csr<BlockId>,
    preds: Csr<BlockId>,
    is_root: Vec<bool>,
}

impl ReverseWithVirtualExit {
    /// An empty reverse graph; call [`ReverseWithVirtualExit::compute`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The reverse of `g` whose roots are exactly the exits of `g`.
    pub fn build<G: Graph + ?Sized>(g: &G) -> Self {
        let mut r = Self::new();
        r.compute(g, &[]);
        r
    }

    /// Rebuilds (reusing buffers) as the reverse of `g` whose roots are the
    /// exits of `g` followed by `extra_roots` (duplicates and roots that are
    /// already exits are dropped). Panics if an extra root is out of range.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G, extra_roots: &[BlockId]) {
        let n = g.num_blocks();
        assert!(n < u32::MAX as usize - 1, "too many blocks");
        self.num_real = n;
        self.is_root.clear();
        self.is_root.resize(n, false);
        self.succs.start();
        for i in 0..n {
            let b = BlockId(i as u32);
            self.succs.extend(g.predecessors(b));
            self.succs.end_row();
        }
        self.push_roots(g, extra_roots);
        self.succs.end_row();
        let exit = self.virtual_exit();
        self.preds.start();
        for i in 0..n {
            let b = BlockId(i as u32);
            self.preds.extend(g.successors(b));
            if self.is_root[i] {
                self.preds.push(exit);
            }
            self.preds.end_row();
        }
        self.preds.end_row();
    }

    /// Forgets the graph (keeps capacity): afterwards it has no real
    /// blocks, only the virtual exit with no roots.
    pub fn clear(&mut self) {
        self.num_real = 0;
        self.is_root.clear();
        for csr in [&mut self.succs, &mut self.preds] {
            csr.start();
            csr.end_row();
        }
    }

    /// Appends the root row (exits, then new extra roots) to `succs`.
    fn push_roots<G: Graph + ?Sized>(&mut self, g: &G, extra_roots: &[BlockId]) {
        for i in 0..self.num_real {
            if g.is_exit(BlockId(i as u32)) {
                self.is_root[i] = true;
                self.succs.push(BlockId(i as u32));
            }
        }
        for &r in extra_roots {
            if !self.is_root[r.index()] {
                self.is_root[r.index()] = true;
                self.succs.push(r);
            }
        }
    }

    /// The id of the virtual exit (`num_real_blocks()`).
    pub fn virtual_exit(&self) -> BlockId {
        BlockId(self.num_real as u32)
    }

    /// Number of real blocks (the forward graph's block count).
    pub fn num_real_blocks(&self) -> usize {
        self.num_real
    }

    /// The roots: reverse successors of the virtual exit.
    pub fn roots(&self) -> &[BlockId] {
        self.succs.row(self.num_real)
    }

    /// True if `b` is a real block connected to the virtual exit.
    pub fn is_root(&self, b: BlockId) -> bool {
        self.is_root.get(b.index()).copied().unwrap_or(false)
    }
}

impl Graph for ReverseWithVirtualExit {
    fn num_blocks(&self) -> usize {
        self.num_real + 1
    }
    fn entry(&self) -> BlockId {
        self.virtual_exit()
    }
    fn successors(&self, b: BlockId) -> &[BlockId] {
        self.succs.row(b.index())
    }
    fn predecessors(&self, b: BlockId) -> &[BlockId] {
        self.preds.row(b.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u32]) -> Vec<BlockId> {
        v.iter().map(|&i| BlockId::new(i as usize)).collect()
    }

    #[test]
    fn csr_keeps_slot_order_and_duplicates() {
        // 0 -> {2, 1, 2} (a switch with two cases to 2), 1 -> 2.
        let g = CfgGraph::from_edges(3, BlockId::new(0), &[(0, 2), (0, 1), (0, 2), (1, 2)]);
        assert_eq!(g.num_blocks(), 3);
        assert_eq!(g.num_edges(), 4);
        assert_eq!(g.successors(BlockId::new(0)), &ids(&[2, 1, 2])[..]);
        assert_eq!(g.predecessors(BlockId::new(2)), &ids(&[0, 0, 1])[..]);
        assert!(g.is_exit(BlockId::new(2)));
        let edges: Vec<_> = g.edges().map(|(a, b)| (a.as_u32(), b.as_u32())).collect();
        assert_eq!(edges, vec![(0, 2), (0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn builder_reuses_and_rebuilds() {
        let mut b = CfgBuilder::new();
        let x = b.add_block();
        let y = b.add_block();
        b.add_edge(x, y);
        b.add_edge(y, x);
        assert_eq!(b.finish().num_edges(), 2);
        b.clear();
        b.set_num_blocks(3);
        b.set_entry(BlockId::new(2));
        b.add_edge(BlockId::new(2), BlockId::new(0));
        let g = b.finish();
        assert_eq!(g.entry(), BlockId::new(2));
        assert_eq!(g.num_blocks(), 3);
        assert_eq!(g.predecessors(BlockId::new(0)), &ids(&[2])[..]);
        assert!(g.successors(BlockId::new(1)).is_empty());
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn bad_edge_panics() {
        CfgGraph::from_edges(2, BlockId::new(0), &[(0, 2)]);
    }

    #[test]
    fn reverse_with_virtual_exit() {
        // 0 -> 1, 0 -> 2, 1 -> 1 (infinite), 2 exit.
        let g = CfgGraph::from_edges(3, BlockId::new(0), &[(0, 1), (0, 2), (1, 1)]);
        let mut r = ReverseWithVirtualExit::build(&g);
        assert_eq!(r.num_blocks(), 4);
        assert_eq!(r.entry(), BlockId::new(3));
        assert_eq!(r.roots(), &ids(&[2])[..]);
        assert_eq!(r.successors(BlockId::new(2)), &ids(&[0])[..]);
        assert_eq!(r.predecessors(BlockId::new(2)), &ids(&[3])[..]);
        r.compute(&g, &ids(&[1, 2, 1]));
        assert_eq!(r.roots(), &ids(&[2, 1])[..]);
        assert!(r.is_root(BlockId::new(1)) && !r.is_root(BlockId::new(0)));
        assert_eq!(r.predecessors(BlockId::new(1)), &ids(&[1, 3])[..]);
        assert_eq!(r.successors(BlockId::new(1)), &ids(&[0, 1])[..]);
        r.clear();
        assert_eq!(r.num_blocks(), 1);
        assert!(r.roots().is_empty() && !r.is_root(BlockId::new(1)));
    }
}
