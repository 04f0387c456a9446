//! Per-block control-flow tags: the flat, per-block summary that passes
//! read instead of querying the analyses one by one (in the spirit of
//! ptxas's AnalyzeControlFlow, which keeps RPO number, loop-header,
//! in-loop, latch and loop-exit bits on every block record).
//!
//! Loop terms follow the [`CycleForest`]: a "loop" is any cycle, reducible
//! or not; a block's loop depth is the number of cycles containing it.

use super::cycles::CycleForest;
use super::graph::{BlockId, Graph};
use super::traversal::{OptionRpoNumber, RpoNumber, Traversal};
use std::fmt;

/// A set of per-block boolean tags.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Default)]
pub struct BlockFlags(u16);

impl BlockFlags {
    /// Reachable from the entry. Every other flag except
    /// [`BlockFlags::FUNCTION_EXIT`] implies it.
    pub const REACHABLE: BlockFlags = BlockFlags(1 << 0);
    /// Header of a cycle.
    pub const LOOP_HEADER: BlockFlags = BlockFlags(1 << 1);
    /// Inside at least one cycle.
    pub const IN_LOOP: BlockFlags = BlockFlags(1 << 2);
    /// Has an edge to the header of a cycle containing it.
    pub const LATCH: BlockFlags = BlockFlags(1 << 3);
    /// Outside some cycle and the target of an edge leaving that cycle.
    pub const LOOP_EXIT: BlockFlags = BlockFlags(1 << 4);
    /// Inside some cycle and the source of an edge leaving that cycle.
    pub const EXITING: BlockFlags = BlockFlags(1 << 5);
    /// An entry (header included) of an irreducible cycle.
    pub const IRREDUCIBLE_ENTRY: BlockFlags = BlockFlags(1 << 6);
    /// Has no successors (return or `unreachable`-like terminator).
    pub const FUNCTION_EXIT: BlockFlags = BlockFlags(1 << 7);
    /// Source of at least one DFS back edge.
    pub const BACK_EDGE_SOURCE: BlockFlags = BlockFlags(1 << 8);

    const NAMES: [(BlockFlags, &'static str); 9] = [
        (Self::REACHABLE, "reachable"),
        (Self::LOOP_HEADER, "header"),
        (Self::IN_LOOP, "in-loop"),
        (Self::LATCH, "latch"),
        (Self::LOOP_EXIT, "loop-exit"),
        (Self::EXITING, "exiting"),
        (Self::IRREDUCIBLE_ENTRY, "irreducible-entry"),
        (Self::FUNCTION_EXIT, "function-exit"),
        (Self::BACK_EDGE_SOURCE, "back-edge-source"),
    ];

    /// The empty set.
    pub const fn empty() -> Self {
        BlockFlags(0)
    }

    /// Raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// True if every flag of `other` is set in `self`.
    pub const fn contains(self, other: BlockFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets the flags of `other`.
    pub fn insert(&mut self, other: BlockFlags) {
        self.0 |= other.0;
    }

    /// Short names of the set flags, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |&(f, _)| self.contains(f))
            .map(|(_, n)| n)
    }
}

impl std::ops::BitOr for BlockFlags {
    type Output = BlockFlags;
    fn bitor(self, rhs: BlockFlags) -> BlockFlags {
        BlockFlags(self.0 | rhs.0)
    }
}

impl fmt::Debug for BlockFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// The tags of one block, as returned by [`BlockTags::get`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockTag {
    /// Reverse-postorder number; `None` if unreachable.
    pub rpo: Option<u32>,
    /// Number of cycles containing the block (0 outside loops).
    pub loop_depth: u32,
    /// Boolean tags.
    pub flags: BlockFlags,
}

impl BlockTag {
    /// True if the block is unreachable from the entry.
    pub fn is_unreachable(&self) -> bool {
        !self.flags.contains(BlockFlags::REACHABLE)
    }
    /// True if the block heads a cycle.
    pub fn is_loop_header(&self) -> bool {
        self.flags.contains(BlockFlags::LOOP_HEADER)
    }
    /// True if the block is inside a cycle.
    pub fn in_loop(&self) -> bool {
        self.flags.contains(BlockFlags::IN_LOOP)
    }
    /// True if the block is a latch of some cycle.
    pub fn is_latch(&self) -> bool {
        self.flags.contains(BlockFlags::LATCH)
    }
    /// True if the block is an exit block of some cycle.
    pub fn is_loop_exit(&self) -> bool {
        self.flags.contains(BlockFlags::LOOP_EXIT)
    }
    /// True if the block is an exiting block of some cycle.
    pub fn is_exiting(&self) -> bool {
        self.flags.contains(BlockFlags::EXITING)
    }
}

/// Per-block tags for a whole graph (struct-of-arrays).
#[derive(Clone, Debug, Default)]
pub struct BlockTags {
    rpo: Vec<OptionRpoNumber>,
    depth: Vec<u32>,
    flags: Vec<BlockFlags>,
}

impl BlockTags {
    /// Empty tags.
    pub fn new() -> Self {
        Self::default()
    }

    /// Recomputes all tags (reusing buffers) from analyses of `g`.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G, dfs: &Traversal, forest: &CycleForest) {
        let n = g.num_blocks();
        self.rpo.clear();
        self.rpo.extend((0..n).map(|i| {
            OptionRpoNumber::from(
                dfs.rpo_number(BlockId::new(i))
                    .map(|r| RpoNumber::new(r as usize)),
            )
        }));
        self.depth.clear();
        self.depth
            .extend((0..n).map(|i| forest.cycle_depth(BlockId::new(i))));
        self.flags.clear();
        self.flags.resize(n, BlockFlags::empty());
        self.tag_blocks(g, dfs);
        self.tag_cycles(forest);
    }

    /// Forgets all tags (keeps capacity).
    pub fn clear(&mut self) {
        self.rpo.clear();
        self.depth.clear();
        self.flags.clear();
    }

    fn tag_blocks<G: Graph + ?Sized>(&mut self, g: &G, dfs: &Traversal) {
        for (i, f) in self.flags.iter_mut().enumerate() {
            let b = BlockId::new(i);
            if dfs.is_reachable(b) {
                f.insert(BlockFlags::REACHABLE);
            }
            if g.is_exit(b) {
                f.insert(BlockFlags::FUNCTION_EXIT);
            }
            if self.depth[i] > 0 {
                f.insert(BlockFlags::IN_LOOP);
            }
        }
        for &(u, _) in dfs.back_edges() {
            self.flags[u.index()].insert(BlockFlags::BACK_EDGE_SOURCE);
        }
    }

    fn tag_cycles(&mut self, forest: &CycleForest) {
        for c in forest.cycles() {
            self.flags[forest.header(c).index()].insert(BlockFlags::LOOP_HEADER);
            let lists = [
                (forest.latches(c), BlockFlags::LATCH),
                (forest.exiting_blocks(c), BlockFlags::EXITING),
                (forest.exit_blocks(c), BlockFlags::LOOP_EXIT),
            ];
            for (list, flag) in lists {
                for &b in list {
                    self.flags[b.index()].insert(flag);
                }
            }
            if !forest.is_reducible(c) {
                for &e in forest.entries(c) {
                    self.flags[e.index()].insert(BlockFlags::IRREDUCIBLE_ENTRY);
                }
            }
        }
    }

    /// Number of blocks tagged.
    pub fn len(&self) -> usize {
        self.flags.len()
    }

    /// True if no block is tagged.
    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// All tags of block `b`.
    pub fn get(&self, b: BlockId) -> BlockTag {
        BlockTag {
            rpo: self.rpo[b.index()].get().map(RpoNumber::as_u32),
            loop_depth: self.depth[b.index()],
            flags: self.flags[b.index()],
        }
    }

    /// The boolean tags of block `b`.
    pub fn flags(&self, b: BlockId) -> BlockFlags {
        self.flags[b.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::CfgGraph;
    use super::*;

    #[test]
    fn multi_exit_loop_tags() {
        // 0 -> 1 (header); 1 -> 2; 1 -> 4 (exit from header);
        // 2 -> 1 (latch); 2 -> 3 (exit from latch); 5 unreachable -> 3.
        let g = CfgGraph::from_edges(
            6,
            BlockId::new(0),
            &[(0, 1), (1, 2), (1, 4), (2, 1), (2, 3), (5, 3)],
        );
        let t = Traversal::build(&g);
        let f = CycleForest::build(&g);
        let mut tags = BlockTags::new();
        tags.compute(&g, &t, &f);
        let get = |i| tags.get(BlockId::new(i));
        assert!(get(1).is_loop_header() && get(1).is_exiting() && get(1).in_loop());
        assert!(get(2).is_latch() && get(2).is_exiting() && get(2).loop_depth == 1);
        assert!(get(3).is_loop_exit() && get(4).is_loop_exit() && !get(0).in_loop());
        assert!(get(5).is_unreachable() && get(5).rpo.is_none());
        assert!(tags
            .flags(BlockId::new(3))
            .contains(BlockFlags::FUNCTION_EXIT));
        assert_eq!(get(0).rpo, Some(0));
        assert_eq!(
            format!("{:?}", tags.flags(BlockId::new(2))),
            r#"{"reachable", "in-loop", "latch", "exiting", "back-edge-source"}"#
        );
        assert_eq!(tags.len(), 6);
    }
}
