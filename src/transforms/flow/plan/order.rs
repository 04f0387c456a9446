//! Step 1 of the planner: the sweep order ("layout") of the blocks.
//!
//! The layout is a sequence of *positions*. Every block of the relevant
//! set `R` (reachable from the entry and able to reach the exit) gets one
//! position, and every cycle of `R` gets one extra position, its *end
//! marker*, right after its last block:
//!
//! ```text
//!  entry  h1  a  h2  b  c  END(h2)  d  END(h1)  x  exit
//!                \__ cycle h2 ___/
//!         \____________ cycle h1 ____________/
//! ```
//!
//! Properties (they are what the sweep relies on):
//!
//! * every cycle is contiguous, its header first, its end marker last,
//!   recursively for nested cycles;
//! * inside each level (the top level, or a cycle minus its header) the
//!   members — blocks and collapsed child cycles — are in a topological
//!   order of the forward edges. Hence the only edges that go backwards
//!   in the layout are edges into the header of an enclosing cycle from
//!   inside it (back edges; irreducible cycles included, since the cycle
//!   forest nests the non-header entries below the header);
//! * the exit is last (it is the unique sink of `R`).
//!
//! Among the members that are ready (all forward predecessors placed),
//! those still waiting for a *soft* predecessor are postponed when possible:
//! the planner asks to place the successors of each divergent branch before
//! its immediate post-dominator, which only matters inside cycles (in an
//! acyclic level a post-dominator is already after what it post-dominates).
//! The [`Ordering`] then breaks the remaining ties: `Df`,
//! `Bf` and `Rpot` pick the ready member with the smallest DFS preorder,
//! BFS or RPO number (a cycle counts with the smallest number of its
//! blocks); `Dfpd` is a depth-first topological sort (the most recently
//! readied member first, first successor slot first), so a join — which
//! post-dominates the branches before it — is only entered after
//! everything that flows into it. Any ordering is correct; they differ
//! only in the number of Flow blocks the sweep needs.
//!
//! Cost: `O(E * d)` where `d` is the cycle nesting depth (member lookup
//! walks the cycle forest), plus a heap per level for the ranked orders.

use super::Ordering;
use crate::analysis::cfg::{BlockId, CycleForest, CycleId, Graph, OptionCycleId, Traversal};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

crate::support::define_id! {
    /// Index of a position in [`Layout::seq`].
    pub(super) struct LayoutPos;
    /// An optional [`LayoutPos`] (none: a block or cycle outside `R`).
    pub(super) struct OptionLayoutPos;
}

crate::support::define_id! {
    /// A block's tie-break rank under the ordering (smaller = earlier).
    struct Rank;
    /// An optional [`Rank`] (none: unranked, i.e. unreachable; it orders
    /// after every rank).
    struct OptionRank;
}

/// One position of the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Position {
    /// The block is placed here.
    Block(BlockId),
    /// End marker of the cycle: back edges into its header "arrive" here.
    CycleEnd(CycleId),
}

/// The layout of `R` (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct Layout {
    /// Positions in order.
    pub(crate) seq: Vec<Position>,
    /// Per block: its position, none outside `R`.
    pub(crate) block_pos: Vec<OptionLayoutPos>,
    /// Per cycle: position of its end marker, none for cycles outside `R`.
    pub(crate) cycle_end: Vec<OptionLayoutPos>,
    /// Per position: the innermost cycle a Flow block placed at this
    /// position lies in (none = no cycle). A Flow placed before a header
    /// is outside that header's cycle; a Flow at an end marker is inside
    /// the ending cycle.
    pub(crate) flow_ctx: Vec<OptionCycleId>,
}

impl Layout {
    /// The block a position is "about": the block itself, or the header
    /// of the ending cycle for an end marker.
    pub(super) fn key_block(&self, forest: &CycleForest, p: u32) -> BlockId {
        match self.seq[p as usize] {
            Position::Block(b) => b,
            Position::CycleEnd(c) => forest.header(c),
        }
    }
}

/// A ready list: the ordering's tie-break, with members that still wait
/// for a soft predecessor ("should come after") kept aside.
struct Ready {
    free: List,
    blocked: List,
}

/// Min-heap by key (ranked orderings) or stack (`Dfpd`).
enum List {
    Heap(BinaryHeap<Reverse<(OptionRank, u32)>>),
    Stack(Vec<u32>),
}

impl List {
    fn new(lifo: bool) -> Self {
        if lifo {
            List::Stack(Vec::new())
        } else {
            List::Heap(BinaryHeap::new())
        }
    }

    fn push(&mut self, key: OptionRank, m: u32) {
        match self {
            List::Heap(h) => h.push(Reverse((key, m))),
            List::Stack(s) => s.push(m),
        }
    }

    fn pop(&mut self) -> Option<u32> {
        match self {
            List::Heap(h) => h.pop().map(|Reverse((_, m))| m),
            List::Stack(s) => s.pop(),
        }
    }
}

impl Ready {
    fn new(lifo: bool) -> Self {
        Ready {
            free: List::new(lifo),
            blocked: List::new(lifo),
        }
    }

    fn push(&mut self, blocked: bool, key: OptionRank, m: u32) {
        if blocked {
            self.blocked.push(key, m)
        } else {
            self.free.push(key, m)
        }
    }

    /// Next member: a free one if any, else a blocked one (its soft
    /// constraint is then given up). May return stale duplicates.
    fn pop(&mut self) -> Option<u32> {
        self.free.pop().or_else(|| self.blocked.pop())
    }
}

struct Frame {
    /// The level's cycle, none for the top level.
    cycle: OptionCycleId,
    ready: Ready,
}

/// Member states during the layout.
const WAITING: u8 = 0;
const READY_BLOCKED: u8 = 1;
const READY_FREE: u8 = 2;
const PLACED: u8 = 3;

/// Builds the layout of the blocks with `in_r[b]` (see module docs).
/// `dfs` and `forest` must be computed on `g`; `in_r` must be closed
/// under "is in the same cycle" (true for "reachable and reaches the exit").
/// `soft` lists pairs `(x, y)`: "place `x` before `y` when the forward
/// edges leave the choice" (the planner passes the successors of divergent
/// branches before their immediate post-dominator).
pub(super) fn build_layout<G: Graph + ?Sized>(
    g: &G,
    in_r: &[bool],
    dfs: &Traversal,
    forest: &CycleForest,
    ordering: Ordering,
    soft: &[(BlockId, BlockId)],
) -> Layout {
    let n = g.num_blocks();
    let m = forest.num_cycles();
    let members = n + m;
    let key = member_keys(g, dfs, forest, ordering);
    let hard = hard_pairs(g, in_r, dfs, forest);
    let soft_pairs: Vec<(u32, u32)> = soft
        .iter()
        .filter(|(x, y)| in_r[x.index()] && in_r[y.index()] && x != y)
        .filter_map(|&(x, y)| member_pair(forest, n, x, y))
        .collect();
    let (hard_start, hard_adj, indeg) = adjacency(members, &hard);
    let (soft_start, soft_adj, soft_indeg) = adjacency(members, &soft_pairs);
    let mut builder = Builder {
        n,
        forest,
        lifo: matches!(ordering, Ordering::Dfpd),
        key,
        hard_start,
        hard_adj,
        indeg,
        soft_start,
        soft_adj,
        soft_indeg,
        member_state: vec![WAITING; members],
        frames: Vec::new(),
        scratch: Vec::new(),
        layout: Layout {
            seq: Vec::new(),
            block_pos: vec![OptionLayoutPos::NONE; n],
            cycle_end: vec![OptionLayoutPos::NONE; m],
            flow_ctx: Vec::new(),
        },
    };
    let entry = g.entry();
    if in_r[entry.index()] {
        builder.run(member_of(forest, n, entry, None));
    }
    let layout = builder.layout;
    debug_assert_eq!(
        layout
            .seq
            .iter()
            .filter(|p| matches!(p, Position::Block(_)))
            .count(),
        in_r.iter().filter(|&&r| r).count(),
        "layout must place every relevant block"
    );
    layout
}

/// The tie-break key of every member: a block's rank, or for a cycle the
/// smallest rank of its blocks (nested cycles included).
fn member_keys<G: Graph + ?Sized>(
    g: &G,
    dfs: &Traversal,
    forest: &CycleForest,
    ordering: Ordering,
) -> Vec<OptionRank> {
    let n = g.num_blocks();
    let m = forest.num_cycles();
    let rank = block_ranks(g, dfs, ordering);
    let members = n + m;
    let mut key = vec![OptionRank::NONE; members];
    for b in 0..n {
        key[b] = rank[b];
        if let Some(c) = forest.innermost_cycle(BlockId::new(b)) {
            let k = &mut key[n + c.index()];
            *k = (*k).min(rank[b]);
        }
    }
    // Child cycles have larger ids than their parents: propagate minima up.
    for c in (0..m).rev() {
        if let Some(p) = forest.parent(CycleId::new(c)) {
            key[n + p.index()] = key[n + p.index()].min(key[n + c]);
        }
    }
    key
}

/// The member pairs of the forward edges within `R` (the hard ordering
/// constraints), in DFS preorder of their sources.
fn hard_pairs<G: Graph + ?Sized>(
    g: &G,
    in_r: &[bool],
    dfs: &Traversal,
    forest: &CycleForest,
) -> Vec<(u32, u32)> {
    let n = g.num_blocks();
    let mut hard = Vec::new();
    for &u in dfs.preorder() {
        if !in_r[u.index()] {
            continue;
        }
        for &v in g.successors(u) {
            if in_r[v.index()] {
                if let Some(e) = member_pair(forest, n, u, v) {
                    hard.push(e);
                }
            }
        }
    }
    hard
}

/// The members of the innermost level containing both blocks for an
/// ordering constraint "`u` before `v`"; `None` if it is a back edge into
/// that level's header (no constraint).
fn member_pair(forest: &CycleForest, n: usize, u: BlockId, v: BlockId) -> Option<(u32, u32)> {
    let level = common_level(forest, u, v);
    if level.is_some_and(|l| forest.header(l) == v) {
        return None;
    }
    let mu = member_of(forest, n, u, level);
    let mv = member_of(forest, n, v, level);
    (mu != mv).then_some((mu, mv))
}

/// CSR adjacency by source (pairs in the given order) and in-degrees.
fn adjacency(members: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; members + 1];
    let mut indeg = vec![0u32; members];
    for &(a, b) in pairs {
        start[a as usize + 1] += 1;
        indeg[b as usize] += 1;
    }
    for i in 0..members {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut adj = vec![0u32; pairs.len()];
    for &(a, b) in pairs {
        adj[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    (start, adj, indeg)
}

struct Builder<'a> {
    n: usize,
    forest: &'a CycleForest,
    lifo: bool,
    key: Vec<OptionRank>,
    hard_start: Vec<u32>,
    hard_adj: Vec<u32>,
    indeg: Vec<u32>,
    soft_start: Vec<u32>,
    soft_adj: Vec<u32>,
    soft_indeg: Vec<u32>,
    member_state: Vec<u8>,
    frames: Vec<Frame>,
    scratch: Vec<u32>,
    layout: Layout,
}

impl Builder<'_> {
    /// Hierarchical topological sort from the entry's top-level member.
    fn run(&mut self, entry_member: u32) {
        self.frames.push(Frame {
            cycle: OptionCycleId::NONE,
            ready: Ready::new(self.lifo),
        });
        self.make_ready(entry_member);
        while let Some(frame) = self.frames.last_mut() {
            match frame.ready.pop() {
                Some(mm) if self.member_state[mm as usize] == PLACED => {}
                Some(mm) if (mm as usize) < self.n => {
                    self.member_state[mm as usize] = PLACED;
                    place_block(&mut self.layout, self.forest, BlockId::new(mm as usize));
                    self.release(mm);
                }
                Some(mm) => {
                    self.member_state[mm as usize] = PLACED;
                    let c = CycleId::new(mm as usize - self.n);
                    self.frames.push(Frame {
                        cycle: OptionCycleId::some(c),
                        ready: Ready::new(self.lifo),
                    });
                    let h = self.forest.header(c);
                    self.member_state[h.index()] = PLACED;
                    place_block(&mut self.layout, self.forest, h);
                    self.release(h.as_u32());
                }
                None => {
                    let done = self.frames.pop().expect("frame");
                    if let Some(c) = done.cycle.get() {
                        self.layout.cycle_end[c.index()] =
                            OptionLayoutPos::some(LayoutPos::new(self.layout.seq.len()));
                        self.layout.seq.push(Position::CycleEnd(c));
                        self.layout.flow_ctx.push(OptionCycleId::some(c));
                        self.release((self.n + c.index()) as u32);
                    }
                }
            }
        }
    }

    fn make_ready(&mut self, mm: u32) {
        let blocked = self.soft_indeg[mm as usize] > 0;
        self.member_state[mm as usize] = if blocked { READY_BLOCKED } else { READY_FREE };
        let key = self.key[mm as usize];
        self.frames
            .last_mut()
            .expect("frame")
            .ready
            .push(blocked, key, mm);
    }

    /// `mm` was placed: update hard and soft in-degrees of its successors.
    fn release(&mut self, mm: u32) {
        let (lo, hi) = (
            self.soft_start[mm as usize] as usize,
            self.soft_start[mm as usize + 1] as usize,
        );
        for k in lo..hi {
            let t = self.soft_adj[k] as usize;
            self.soft_indeg[t] -= 1;
            if self.soft_indeg[t] == 0 && self.member_state[t] == READY_BLOCKED {
                self.member_state[t] = READY_FREE;
                let key = self.key[t];
                self.frames
                    .last_mut()
                    .expect("frame")
                    .ready
                    .push(false, key, t as u32);
            }
        }
        self.scratch.clear();
        let (lo, hi) = (
            self.hard_start[mm as usize] as usize,
            self.hard_start[mm as usize + 1] as usize,
        );
        for k in lo..hi {
            let t = self.hard_adj[k];
            self.indeg[t as usize] -= 1;
            if self.indeg[t as usize] == 0 {
                self.scratch.push(t);
            }
        }
        if self.lifo {
            self.scratch.reverse();
        }
        for k in 0..self.scratch.len() {
            let t = self.scratch[k];
            self.make_ready(t);
        }
    }
}

fn place_block(layout: &mut Layout, forest: &CycleForest, b: BlockId) {
    layout.block_pos[b.index()] = OptionLayoutPos::some(LayoutPos::new(layout.seq.len()));
    layout.seq.push(Position::Block(b));
    let ctx = match forest.innermost_cycle(b) {
        Some(c) if forest.header(c) == b => forest.parent(c),
        other => other,
    };
    layout.flow_ctx.push(ctx.into());
}

/// Per-block tie-break ranks of the ordering (smaller = earlier).
fn block_ranks<G: Graph + ?Sized>(g: &G, dfs: &Traversal, ordering: Ordering) -> Vec<OptionRank> {
    let n = g.num_blocks();
    let ranked = |r: Option<u32>| OptionRank::from(r.map(Rank));
    match ordering {
        Ordering::Df | Ordering::Dfpd => (0..n)
            .map(|b| ranked(dfs.pre_number(BlockId::new(b)).map(|p| p.as_u32())))
            .collect(),
        Ordering::Rpot => (0..n)
            .map(|b| ranked(dfs.rpo_number(BlockId::new(b))))
            .collect(),
        Ordering::Bf => {
            let mut rank = vec![OptionRank::NONE; n];
            let mut queue = std::collections::VecDeque::new();
            let mut next = 0;
            rank[g.entry().index()] = OptionRank::some(Rank(0));
            queue.push_back(g.entry());
            while let Some(b) = queue.pop_front() {
                for &s in g.successors(b) {
                    if rank[s.index()].is_none() {
                        next += 1;
                        rank[s.index()] = OptionRank::some(Rank(next));
                        queue.push_back(s);
                    }
                }
            }
            rank
        }
    }
}

/// The member of level `level` (a cycle, or `None` for the top level)
/// that contains block `b`: `b` itself if its innermost cycle is `level`,
/// else the child cycle of `level` containing it. Member ids: blocks are
/// `0..n`, cycle `c` is `n + c`. `level` must contain `b`. O(log depth)
/// through the forest's jump pointers: long-range CFGs nest thousands of
/// cycles deep, and a walk up the parents per ordering constraint made the
/// layout quadratic there.
fn member_of(forest: &CycleForest, n: usize, b: BlockId, level: Option<CycleId>) -> u32 {
    let c = forest.innermost_cycle(b);
    if c == level {
        return b.as_u32();
    }
    let inner = c.expect("a block outside every cycle is a member of the top level");
    let level_depth = level.map_or(0, |l| forest.depth(l));
    let child = forest
        .outermost_ancestor_where(inner, |d| forest.depth(d) > level_depth)
        .expect("the block is inside the level");
    (n + child.index()) as u32
}

/// The innermost cycle containing both `a` and `b` (`None`: top level).
/// O(log depth), as [`member_of`].
fn common_level(forest: &CycleForest, a: BlockId, b: BlockId) -> Option<CycleId> {
    let cb = forest.innermost_cycle(b)?;
    let ca = forest.innermost_cycle(a)?;
    match forest.outermost_ancestor_where(ca, |d| !forest.contains_cycle(d, cb)) {
        None => Some(ca),
        Some(outermost_without) => forest.parent(outermost_without),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walking up the parents, one cycle at a time: the reference for the
    /// jump-pointer versions.
    /// The member of level `level` (a cycle, or `None` for the top level)
    /// that contains block `b`: `b` itself if its innermost cycle is `level`,
    /// else the child cycle of `level` containing it. Member ids: blocks are
    /// `0..n`, cycle `c` is `n + c`.
    fn reference_member_of(
        forest: &CycleForest,
        n: usize,
        b: BlockId,
        level: Option<CycleId>,
    ) -> u32 {
        let mut c = forest.innermost_cycle(b);
        if c == level {
            return b.as_u32();
        }
        while let Some(x) = c {
            let parent = forest.parent(x);
            if parent == level {
                return (n + x.index()) as u32;
            }
            c = parent;
        }
        unreachable!("block {b} is not inside the level");
    }

    /// The innermost cycle containing both `a` and `b` (`None`: top level).
    fn reference_common_level(forest: &CycleForest, a: BlockId, b: BlockId) -> Option<CycleId> {
        let cb = forest.innermost_cycle(b)?;
        let mut c = forest.innermost_cycle(a);
        while let Some(x) = c {
            if forest.contains_cycle(x, cb) {
                return Some(x);
            }
            c = forest.parent(x);
        }
        None
    }

    #[test]
    fn property_levels_and_members_match_the_parent_walk() {
        use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
        use crate::analysis::cfg::{CycleForest, Graph};
        let mut checked = 0;
        for seed in 0..crate::testing::seed_count("SPMD_PLAN_SEEDS", 2000) {
            let mut rng = SplitMix64::new(seed);
            let n = rng.range(2, 60);
            let g = realistic_cfg(&mut rng, n);
            let forest = CycleForest::build(&g);
            for _ in 0..20 {
                let a = BlockId::new(rng.below(n as u64) as usize);
                let b = BlockId::new(rng.below(n as u64) as usize);
                let level = reference_common_level(&forest, a, b);
                assert_eq!(common_level(&forest, a, b), level, "seed {seed}");
                if forest.innermost_cycle(a).is_some() || level.is_none() {
                    assert_eq!(
                        member_of(&forest, n, a, level),
                        reference_member_of(&forest, n, a, level),
                        "seed {seed}"
                    );
                    checked += usize::from(level.is_some());
                }
            }
            let _ = g.num_blocks();
        }
        assert!(checked > 1000, "{checked} pairs inside cycles");
    }
}
