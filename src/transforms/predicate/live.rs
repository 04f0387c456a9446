//! Liveness of per-lane values on the thread-level graph, IR-independent:
//! which values a lane can still observe when it rejoins the wave.
//!
//! ## Why `--spmd-predicate` needs it
//!
//! While lanes are parked for a rejoin point `P`, the wave runs the region
//! of the parking branch with those lanes off, and every value it defines
//! there is poison in them (temporal divergence: a divergent loop running
//! again after some lanes left it; or the block arguments of a block the
//! wave enters on an edge those lanes did not take). A parked lane only
//! loses something if it can still *observe* such a value after it rejoins,
//! that is, if the value is live at the start of `P`. So the pass keeps a
//! copy (`spmd.mask.select`) exactly of the values that are
//!
//! * live-in at a rejoin point `P` (this module), and
//! * defined in the region of some branch that parks lanes for `P`.
//!
//! ## The analysis
//!
//! Values are given by their defining block and their uses. A use is
//!
//! * [`Use::Plain`]: an operand that is observed (stores, conditions,
//!   calls, returns, anything not known to be pure);
//! * [`Use::Forward`]: a successor operand, observed only if the block
//!   argument it is forwarded to is;
//! * [`Use::Through`]: an operand of a pure operation, observed only if one
//!   of the operation's results is.
//!
//! A value is *observed* if it has a plain use, or a forward/through use
//! leading to an observed value (a fixed point from the plain uses,
//! backwards along forward/through edges: dead block arguments and dead
//! arithmetic chains keep nothing alive). A value is *live-in* at block
//! `X` if `X` is not its defining block and some observed use lies in a
//! block reachable from the start of `X` without passing the definition
//! (the classic backward walk from the use blocks, stopping at the
//! defining block; in SSA the definition dominates every use, so a use in
//! the defining block itself follows the definition). A successor operand
//! is used at the end of its block, like any other operand there.
//!
//! Edge cases: a value without observed uses is live nowhere; a use in an
//! unreachable block still makes its predecessors live (harmless, the
//! walk only ever over-approximates); a self loop on the defining block
//! stops the walk like any other edge into it.

use crate::analysis::cfg::{BlockId, Graph};

/// One use of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// An observed operand in this block.
    Plain(BlockId),
    /// A successor operand in this block, forwarded to value `usize`.
    Forward(BlockId, usize),
    /// An operand of a pure operation in this block with these results
    /// (the index of a result group, [`Values::groups`]).
    Through(BlockId, usize),
}

/// A value: where it is defined and how it is used.
#[derive(Clone, Debug, Default)]
pub(crate) struct ValueInfo {
    /// The defining block (block arguments: their block); `None` for a
    /// value defined outside the graph, whose liveness walk never stops
    /// at a definition.
    pub(crate) def: Option<BlockId>,
    /// Every use of the value, in any order.
    pub(crate) uses: Vec<Use>,
}

/// The values of a function, plus the result groups of pure operations
/// (`Use::Through(_, g)` refers to `groups[g]`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Values {
    /// The table of values; a value is named by its index here.
    pub(crate) values: Vec<ValueInfo>,
    /// Per pure operation used through [`Use::Through`]: the indices of
    /// its results.
    pub(crate) groups: Vec<Vec<usize>>,
}

impl Values {
    /// Which values are observed (see the module docs).
    pub(crate) fn observed(&self) -> Vec<bool> {
        let n = self.values.len();
        // Reverse edges: a value -> the values whose forward/through uses
        // lead to it.
        let mut feeds: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut group_feeds: Vec<Vec<usize>> = vec![Vec::new(); self.groups.len()];
        let mut observed = vec![false; n];
        let mut stack = Vec::new();
        for (v, info) in self.values.iter().enumerate() {
            for u in &info.uses {
                match *u {
                    Use::Plain(_) => {
                        if !observed[v] {
                            observed[v] = true;
                            stack.push(v);
                        }
                    }
                    Use::Forward(_, target) => feeds[target].push(v),
                    Use::Through(_, group) => group_feeds[group].push(v),
                }
            }
        }
        for (g, results) in self.groups.iter().enumerate() {
            for &r in results {
                feeds[r].extend(group_feeds[g].iter().copied());
            }
        }
        while let Some(v) = stack.pop() {
            for &w in &feeds[v] {
                if !observed[w] {
                    observed[w] = true;
                    stack.push(w);
                }
            }
        }
        observed
    }

    /// The blocks holding an observed use of `v`.
    fn use_blocks(&self, v: usize, observed: &[bool]) -> Vec<BlockId> {
        self.values[v]
            .uses
            .iter()
            .filter_map(|u| match *u {
                Use::Plain(b) => Some(b),
                Use::Forward(b, target) => observed[target].then_some(b),
                Use::Through(b, group) => {
                    self.groups[group].iter().any(|&r| observed[r]).then_some(b)
                }
            })
            .collect()
    }

    /// For every block `X` with `at[X]`, the values live-in at `X`
    /// (sorted). Other blocks get an empty list.
    pub(crate) fn live_in_at<G: Graph + ?Sized>(&self, graph: &G, at: &[bool]) -> Vec<Vec<usize>> {
        let observed = self.observed();
        let mut result = vec![Vec::new(); graph.num_blocks()];
        let mut seen = vec![usize::MAX; graph.num_blocks()];
        for (v, info) in self.values.iter().enumerate() {
            if !observed[v] {
                continue;
            }
            let mut stack: Vec<BlockId> = self.use_blocks(v, &observed);
            while let Some(b) = stack.pop() {
                if Some(b) == info.def || seen[b.index()] == v {
                    continue;
                }
                seen[b.index()] = v;
                if at[b.index()] {
                    result[b.index()].push(v);
                }
                stack.extend(graph.predecessors(b).iter().copied());
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::CfgGraph;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    /// 0 -> H(1) -> L(2); L -> H, L -> X(3).
    fn loop_graph() -> CfgGraph {
        CfgGraph::from_edges(4, b(0), &[(0, 1), (1, 2), (2, 1), (2, 3)])
    }

    #[test]
    fn a_loop_value_used_after_the_loop_is_live_at_the_exit_only() {
        let g = loop_graph();
        // v0 defined in L, stored in X; v1 defined in L, used only in L.
        let values = Values {
            values: vec![
                ValueInfo {
                    def: Some(b(2)),
                    uses: vec![Use::Plain(b(3))],
                },
                ValueInfo {
                    def: Some(b(2)),
                    uses: vec![Use::Plain(b(2))],
                },
            ],
            groups: vec![],
        };
        let live = values.live_in_at(&g, &[true; 4]);
        assert_eq!(live[3], vec![0]);
        assert_eq!(
            live[1],
            Vec::<usize>::new(),
            "the walk stops at the definition in L"
        );
        assert!(live[2].is_empty() && live[0].is_empty());
    }

    #[test]
    fn dead_arguments_and_pure_chains_keep_nothing_alive() {
        let g = loop_graph();
        // v0 (def 0) forwarded to argument v1 of H, which only feeds the
        // pure op with result v2, which is forwarded to argument v3 of X
        // (never used). v4 (def 0) is forwarded to v5, stored in X.
        let values = Values {
            values: vec![
                ValueInfo {
                    def: Some(b(0)),
                    uses: vec![Use::Forward(b(0), 1)],
                },
                ValueInfo {
                    def: Some(b(1)),
                    uses: vec![Use::Through(b(1), 0)],
                },
                ValueInfo {
                    def: Some(b(1)),
                    uses: vec![Use::Forward(b(2), 3)],
                },
                ValueInfo {
                    def: Some(b(3)),
                    uses: vec![],
                },
                ValueInfo {
                    def: Some(b(0)),
                    uses: vec![Use::Forward(b(2), 5)],
                },
                ValueInfo {
                    def: Some(b(3)),
                    uses: vec![Use::Plain(b(3))],
                },
            ],
            groups: vec![vec![2]],
        };
        assert_eq!(
            values.observed(),
            vec![false, false, false, false, true, true]
        );
        let live = values.live_in_at(&g, &[true; 4]);
        assert_eq!(live[1], vec![4]);
        assert_eq!(live[2], vec![4]);
        assert!(live[3].is_empty(), "an argument is defined at its block");
    }

    #[test]
    fn a_self_loop_on_the_defining_block_stops_the_walk() {
        // 0 -> 1; 1 -> 1; 1 -> 2. v0 defined in 1, used in 1 and 2.
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (1, 1), (1, 2)]);
        let values = Values {
            values: vec![ValueInfo {
                def: Some(b(1)),
                uses: vec![Use::Plain(b(1)), Use::Plain(b(2))],
            }],
            groups: vec![],
        };
        let live = values.live_in_at(&g, &[true; 3]);
        assert_eq!((live[0].len(), live[1].len(), live[2].len()), (0, 0, 1));
    }
}
