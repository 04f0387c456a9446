//! The *cycle-contiguous order*: a topological order of a CFG built level
//! by level over the [`CycleForest`], the one construction behind the
//! uniformity analysis' propagation order and the structurizer's layout.
//!
//! # Properties
//!
//! [`LevelOrder::place`] emits every kept block once, as a sequence of
//! [`Step`]s, such that
//!
//! 1. every edge between kept blocks goes forward, except the edges into
//!    the header of a cycle containing the edge's source — exactly the
//!    back edges of the forest (the DFS back edges are among them);
//! 2. every cycle occupies one contiguous interval of the blocks, its
//!    header first, nested cycles included: [`Step::Enter`] comes right
//!    before the header's [`Step::Block`] and [`Step::Exit`] right after
//!    the cycle's last block (after the `Exit`s of cycles nested in it);
//! 3. within these constraints, the caller's [`ReadyPolicy`] decides:
//!    among the *ready* items of a level (all forward predecessors
//!    placed) it picks the next one.
//!
//! # Construction
//!
//! Each *level* — the whole function, or one cycle `C` — has *items*: the
//! blocks whose innermost cycle is that level (for a cycle, its header is
//! one of them), and the level's child cycles. Item ids are dense `u32`s:
//! block `b` is `b`, cycle `c` is `num_blocks + c` ([`cycle_item`]). An edge
//! `u -> v` that is not a back edge belongs to the innermost level holding
//! both ends and connects the items of that level containing them
//! ([`condensed_pair`]); at each level these *condensed* edges form a DAG
//! (the child cycles are the strongly connected components of the level
//! minus its header) whose only source is the level's header (the entry's
//! item for the function).
//!
//! [`LevelOrder::condense`] stores the condensed edges of all levels at
//! once in one CSR, sources in DFS preorder and each source's edges in
//! successor-slot order (duplicate slots stay duplicate edges); that order
//! is what the policies see. [`LevelOrder::place`] then runs Kahn's
//! algorithm on a stack of levels: placing a block releases its condensed
//! successors (the ones whose in-degree drops to zero are handed to the
//! policy, in edge order); taking a child cycle *suspends* the level,
//! opens the child's level and places its header at once (it has no
//! condensed predecessor); when a level runs out of ready items it closes,
//! and the finished cycle is released as one item of the enclosing level.
//!
//! Two policies come with the module: [`FifoReady`] (items in the order
//! they became ready, so a block follows its last predecessor closely)
//! and [`PriorityReady`] (smallest key first or depth-first, with *soft*
//! predecessors that postpone an item while the choice is free).
//!
//! # Cost
//!
//! `O(n + c + E log d)`: one pass over the edges, two jump-pointer
//! searches of the forest per edge (`d` is the nesting depth; see
//! [`CycleForest::outermost_ancestor_where`]), one release per edge, plus
//! whatever the policy costs per push and pop (O(1) for FIFO, a heap for
//! [`PriorityReady`]). All buffers are kept between runs.
//!
//! # Edge cases
//!
//! * **Unreachable blocks** are never placed: the condensation only looks
//!   at the DFS preorder. Callers restrict further with `keep` (the
//!   structurizer keeps the blocks that reach the exit); `keep` must be
//!   closed under "is in the same cycle" and contain a DFS-tree path to
//!   every kept block, else some kept item never becomes ready.
//! * **Irreducible cycles**: the forest nests every non-header entry
//!   below the header (a cycle minus its header splits into child
//!   cycles), so an edge from outside into a non-header entry is a
//!   condensed edge into the outermost cycle it enters, and the header
//!   still comes first. The edges into the non-header entries from
//!   inside the cycle are ordinary forward edges of inner levels.
//! * **Infinite loops and blocks that cannot reach an exit** need nothing
//!   special: a cycle without exits is an item like any other, and
//!   whatever follows it in its level is released once it is closed.
//! * **The entry inside a cycle** (it has predecessors): the function
//!   level's first item is the entry's outermost cycle ([`top_item`]),
//!   whose header is the entry.

mod ready;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use ready::{FifoReady, PriorityReady, Tiebreak};

use crate::csr::Csr;
use crate::{BlockId, CycleForest, CycleId, Graph, OptionCycleId, Traversal};

/// One step of the placement (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The block is placed.
    Block(BlockId),
    /// The cycle starts: its header is the next block.
    Enter(CycleId),
    /// The cycle ends: its last block (nested cycles included) was the
    /// previous block.
    Exit(CycleId),
}

/// The choice among ready items, one level at a time. Levels are numbered
/// by their depth on the stack of open levels (0: the function); only the
/// innermost open level is ever asked to pop.
pub trait ReadyPolicy {
    /// A level opens at `depth`; it has no ready item yet.
    fn open_level(&mut self, depth: usize);
    /// `items` became ready in the level at `depth`, in the order of their
    /// condensed edges from the item just placed.
    fn push_ready(&mut self, depth: usize, items: &[u32]);
    /// The next item of the level at `depth` to place; `None` closes the
    /// level (it must then have no ready item left).
    fn pop(&mut self, depth: usize) -> Option<u32>;
    /// `item` of the level at `depth` is placed (a block, or a cycle just
    /// closed), before its condensed successors are released. A header is
    /// placed without being popped.
    fn placed(&mut self, depth: usize, item: u32) {
        let _ = (depth, item);
    }
}

/// The item id of cycle `c` in a graph of `num_blocks` blocks.
pub fn cycle_item(num_blocks: usize, c: CycleId) -> u32 {
    (num_blocks + c.index()) as u32
}

/// The item of the function level holding block `b`: `b` itself, or the
/// outermost cycle around it. O(log depth).
pub fn top_item(forest: &CycleForest, num_blocks: usize, b: BlockId) -> u32 {
    match forest.innermost_cycle(b) {
        None => b.as_u32(),
        Some(c) => {
            let top = forest
                .outermost_ancestor_where(c, |d| forest.depth(d) > 0)
                .expect("every cycle has depth at least 1");
            cycle_item(num_blocks, top)
        }
    }
}

/// The condensed edge of the ordering constraint "`u` before `v`": the
/// items of the innermost level holding both blocks that contain `u` and
/// `v`. `None` if `v` is the header of a cycle containing `u` (a back
/// edge: no constraint) or both are the same item. Both blocks must be
/// reachable. O(log depth).
pub fn condensed_pair(
    forest: &CycleForest,
    num_blocks: usize,
    u: BlockId,
    v: BlockId,
) -> Option<(u32, u32)> {
    if forest
        .innermost_cycle(v)
        .is_some_and(|c| forest.header(c) == v && forest.contains(c, u))
    {
        return None;
    }
    // An endpoint's item is the outermost cycle around it without the
    // other endpoint, or the block itself. (A cycle around `v` below the
    // common level cannot contain `u`: it would be a lower common cycle.)
    let item = |x: BlockId, other: BlockId| {
        forest
            .innermost_cycle(x)
            .and_then(|c| forest.outermost_without(c, other))
            .map_or(x.as_u32(), |c| cycle_item(num_blocks, c))
    };
    let (a, b) = (item(u, v), item(v, u));
    (a != b).then_some((a, b))
}

/// The condensed forward edges of a graph's levels and the level-by-level
/// placement (see the module docs). Reusable: every buffer is kept.
#[derive(Clone, Debug, Default)]
pub struct LevelOrder {
    num_blocks: usize,
    /// Condensed edges as `(from item, to item)`, before the CSR.
    pairs: Vec<(u32, u32)>,
    /// Condensed successors per item.
    edges: Csr<u32>,
    /// Per item: condensed predecessors not placed yet.
    in_degree: Vec<u32>,
    /// Open levels: the cycle, none for the function.
    frames: Vec<OptionCycleId>,
    /// Items made ready by the last placement.
    batch: Vec<u32>,
}

impl LevelOrder {
    /// An empty order; call [`LevelOrder::condense`] then
    /// [`LevelOrder::place`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of items (blocks and cycles) of the last condensation.
    pub fn num_items(&self) -> usize {
        self.in_degree.len()
    }

    /// Builds the condensed edges of `g` between the reachable blocks with
    /// `keep(b)`; `dfs` and `forest` must be computed on `g`.
    pub fn condense<G: Graph + ?Sized>(
        &mut self,
        g: &G,
        dfs: &Traversal,
        forest: &CycleForest,
        keep: impl Fn(BlockId) -> bool,
    ) {
        let n = g.num_blocks();
        let items = n + forest.num_cycles();
        assert!(items < u32::MAX as usize, "too many blocks and cycles");
        self.num_blocks = n;
        self.pairs.clear();
        for &u in dfs.preorder() {
            if !keep(u) {
                continue;
            }
            for &v in g.successors(u) {
                if keep(v) {
                    self.pairs.extend(condensed_pair(forest, n, u, v));
                }
            }
        }
        self.edges
            .rebuild_by(items, &self.pairs, |e| e.0 as usize, |e| e.1);
        self.in_degree.clear();
        self.in_degree.resize(items, 0);
        for &(_, to) in &self.pairs {
            self.in_degree[to as usize] += 1;
        }
    }

    /// Places the items level by level from the function level's item
    /// holding `root` (a kept block, normally the entry), calling `emit`
    /// for each [`Step`]. Consumes the in-degrees: call
    /// [`LevelOrder::condense`] again before placing again.
    pub fn place<P: ReadyPolicy + ?Sized>(
        &mut self,
        forest: &CycleForest,
        root: BlockId,
        policy: &mut P,
        mut emit: impl FnMut(Step),
    ) {
        let n = self.num_blocks;
        self.frames.clear();
        self.frames.push(OptionCycleId::NONE);
        policy.open_level(0);
        policy.push_ready(0, &[top_item(forest, n, root)]);
        while let Some(&level) = self.frames.last() {
            let depth = self.frames.len() - 1;
            match policy.pop(depth) {
                None => {
                    // The level is finished: it was a cycle item of the
                    // enclosing level.
                    self.frames.pop();
                    if let Some(c) = level.get() {
                        emit(Step::Exit(c));
                        self.release(depth - 1, cycle_item(n, c), policy);
                    }
                }
                Some(item) if (item as usize) < n => {
                    emit(Step::Block(BlockId::new(item as usize)));
                    self.release(depth, item, policy);
                }
                Some(item) => {
                    let c = CycleId::new(item as usize - n);
                    emit(Step::Enter(c));
                    self.frames.push(OptionCycleId::some(c));
                    policy.open_level(depth + 1);
                    let h = forest.header(c);
                    emit(Step::Block(h));
                    self.release(depth + 1, h.as_u32(), policy);
                }
            }
        }
    }

    /// `item` of the level at `depth` is placed: tell the policy, then hand
    /// it the successors that become ready.
    fn release<P: ReadyPolicy + ?Sized>(&mut self, depth: usize, item: u32, policy: &mut P) {
        policy.placed(depth, item);
        self.batch.clear();
        for &to in self.edges.row(item as usize) {
            self.in_degree[to as usize] -= 1;
            if self.in_degree[to as usize] == 0 {
                self.batch.push(to);
            }
        }
        if !self.batch.is_empty() {
            policy.push_ready(depth, &self.batch);
        }
    }
}
