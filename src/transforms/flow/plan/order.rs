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
//! The construction is the shared level-by-level one of
//! [`spmd_graph::levels`] (the uniformity analysis' order uses it too),
//! restricted to `R`, with its [`PriorityReady`] policy: the ordering's
//! ranks as keys ([`Tiebreak::SmallestKey`]) or, for `Dfpd`,
//! [`Tiebreak::DepthFirst`], and the soft pairs; its cycle ends become the
//! end markers.
//!
//! Cost: `O(n + E log d)` where `d` is the cycle nesting depth (two
//! jump-pointer searches of the forest per constraint), plus a heap per
//! level for the ranked orders.

use super::Ordering;
use crate::analysis::cfg::levels::{condensed_pair, LevelOrder, PriorityReady, Step, Tiebreak};
use crate::analysis::cfg::{BlockId, CycleForest, CycleId, Graph, OptionCycleId, Traversal};

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
    let key = member_keys(g, dfs, forest, ordering);
    let soft_pairs: Vec<(u32, u32)> = soft
        .iter()
        .filter(|(x, y)| in_r[x.index()] && in_r[y.index()] && x != y)
        .filter_map(|&(x, y)| condensed_pair(forest, n, x, y))
        .collect();
    let tiebreak = match ordering {
        Ordering::Dfpd => Tiebreak::DepthFirst,
        Ordering::Df | Ordering::Bf | Ordering::Rpot => Tiebreak::SmallestKey,
    };
    let mut ready = PriorityReady::new(tiebreak, key, &soft_pairs);
    let mut layout = Layout {
        seq: Vec::new(),
        block_pos: vec![OptionLayoutPos::NONE; n],
        cycle_end: vec![OptionLayoutPos::NONE; m],
        flow_ctx: Vec::new(),
    };
    let entry = g.entry();
    if in_r[entry.index()] {
        let mut levels = LevelOrder::new();
        levels.condense(g, dfs, forest, |b| in_r[b.index()]);
        levels.place(forest, entry, &mut ready, |step| match step {
            Step::Block(b) => place_block(&mut layout, forest, b),
            Step::Enter(_) => {}
            Step::Exit(c) => {
                layout.cycle_end[c.index()] =
                    OptionLayoutPos::some(LayoutPos::new(layout.seq.len()));
                layout.seq.push(Position::CycleEnd(c));
                layout.flow_ctx.push(OptionCycleId::some(c));
            }
        });
    }
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
