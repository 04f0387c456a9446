//! Definition 1 of the reconvergence paper, as a check.
//!
//! > A CFG is *reconverging* if every divergent branch has exactly two
//! > successors, one of which post-dominates it.
//!
//! ```text
//!     A (divergent)          A (divergent)
//!    / \                    / \
//!   B   C      -->         C   |          Flow post-dominates A:
//!    \ /                    \  |          A is reconverging.
//!     D                     Flow
//!   not reconverging        /  \
//!                          B    D
//! ```
//!
//! Post-dominance is taken on the blocks that can reach an *exit*, a block
//! the caller designates (normally the blocks that return): a path that
//! never returns — an infinite loop, or a dead end such as a trap or
//! `llvm.unreachable` — imposes nothing, since its threads never rejoin
//! anyway. Consequently a successor that cannot reach an exit is ignored
//! when looking for the post-dominating one. [`check`] counts every block
//! without successors as an exit; [`check_with_exits`] lets the caller
//! choose (the passes count returns only).
//!
//! A divergent branch that cannot reach any exit (inside an infinite loop)
//! is *not* exempt: its threads still meet again inside the loop, and the
//! wave-level lowering needs a rejoin point for them. It is checked against
//! the post-dominator tree of the whole graph, whose virtual exit hangs off
//! one representative of each infinite loop (the block the entry's DFS
//! visits last, typically the latch; see
//! [`PostDominatorTree`]), the same tree
//! `--spmd-reconverge` plans with and `--spmd-predicate` looks for rejoin
//! points in:
//!
//! ```text
//!   H: cond_br div, T, E       neither T nor E post-dominates H; J does
//!   T: br J     E: br J        (the virtual exit hangs off J, the latch):
//!   J: br H    (no exit)       a Flow block before J makes H reconverging
//! ```
//!
//! Post-dominance is reflexive, so a self-loop edge `B -> B` counts as a
//! successor that post-dominates `B`. That is harmless: if `B`'s two
//! successors are `B` and `X`, every path that leaves `B` leaves through
//! `X`, so `X` post-dominates `B` strictly whenever `B` can reach an exit
//! at all (and a `B` that cannot is exempt anyway). A branch is therefore
//! accepted because of its self loop only if it is also accepted because of
//! `X`; consumers that need a rejoin point (`--spmd-predicate`) take the
//! strictly post-dominating successor and never park lanes on the self
//! loop, where they could be stranded.
//!
//! # One rule, two models of post-dominance
//!
//! The rule itself is checked in one place, [`check_against`]: a divergent
//! block must have two successor slots, and one of its two successors must
//! post-dominate it. What "post-dominate" means, and which blocks the rule
//! applies to, is a [`PostDominanceModel`]:
//!
//! * [`ExitPostDominance`], the model above, for the passes
//!   (`--spmd-verify-reconverging`, the structured contract, the rounds of
//!   `--spmd-reconverge`, `--spmd-predicate`, the branch-fold gate): exits
//!   chosen by the caller, every block judged, infinite loops against the
//!   whole graph's tree. A divergent terminator with fewer than two
//!   successors is no branch and is not judged. [`check`] and
//!   [`check_with_exits`] use it.
//! * The planner's model (`RView` in the `plan` module of
//!   `--spmd-reconverge`; see its docs, "What reconverging means here"):
//!   only `R`, the blocks reachable from the entry that can reach the
//!   unique exit (the return block), matters, and post-dominance is
//!   computed on the subgraph induced by `R`, whose only sink is the exit.
//!   A divergent block outside `R`, one with both slots to one block, or
//!   one with a successor outside `R` is trivially reconverging; without an
//!   exit nothing terminates, so every graph is reconverging. A divergent
//!   block must have exactly two slots wherever it is (one with fewer also
//!   violates the rule). The planner checks its output with it, through
//!   `plan::reconvergence_violations`.
//!
//! With the unique return as the only exit, the two models give the same
//! verdict on every two-way divergent block of `R`; they differ on what
//! lies outside it (inside infinite loops, unreachable code), which the
//! planner leaves alone and the passes still judge, and on divergent
//! blocks with fewer than two slots.

use super::cfg::{BlockId, CfgGraph, Graph, PostDominatorTree};

/// Why a divergent branch breaks Definition 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The branch has `successors` successor slots instead of two.
    NotTwoWay {
        /// The block ending in the divergent branch.
        block: BlockId,
        /// Its number of successor slots (0, 1, or more than 2).
        successors: usize,
    },
    /// Neither of the two `successors` post-dominates the branch;
    /// `reconvergence` is its immediate post-dominator in the model, where
    /// its threads actually meet (`None`: only at the function's end, the
    /// virtual exit).
    NoPostDominatingSuccessor {
        /// The block ending in the divergent branch.
        block: BlockId,
        /// Its two successors, in slot order.
        successors: [BlockId; 2],
        /// Where its threads meet again, if before the virtual exit.
        reconvergence: Option<BlockId>,
    },
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::NotTwoWay { block, successors } => {
                write!(
                    f,
                    "divergent {block} has {successors} successor slots (expected 2)"
                )
            }
            Violation::NoPostDominatingSuccessor {
                block,
                successors,
                reconvergence,
            } => {
                write!(
                    f,
                    "divergent {block}: neither {} nor {} post-dominates it",
                    successors[0], successors[1]
                )?;
                match reconvergence {
                    Some(p) => write!(f, " (ipdom {p})"),
                    None => write!(f, " (ipdom: virtual exit)"),
                }
            }
        }
    }
}

/// How a check reads post-dominance and which divergent blocks the rule
/// applies to (see the module docs, "One rule, two models").
pub(crate) trait PostDominanceModel {
    /// True if a divergent block with fewer than two successor slots breaks
    /// the rule; false if it is no branch and is not judged. (More than two
    /// always breaks it.)
    fn fewer_than_two_slots_violate(&self) -> bool;
    /// True if the divergent two-way `block` with `successors` is not
    /// judged (it imposes nothing in this model).
    fn exempt<G: Graph + ?Sized>(
        &self,
        graph: &G,
        block: BlockId,
        successors: [BlockId; 2],
    ) -> bool;
    /// True if the successor `successor` of `block` post-dominates it, as
    /// the rule reads it.
    fn successor_post_dominates<G: Graph + ?Sized>(
        &self,
        graph: &G,
        successor: BlockId,
        block: BlockId,
    ) -> bool;
    /// Where the paths from `block` meet again (`None`: only at the end),
    /// reported with a violation.
    fn reconvergence<G: Graph + ?Sized>(&self, graph: &G, block: BlockId) -> Option<BlockId>;
}

/// Definition 1 of the reconvergence paper: every divergent branch is
/// two-way and one of its two successors post-dominates it (the threads
/// that split there meet again at that successor). Checks every block for
/// which `divergent` holds, in block order, and returns what breaks the
/// rule; every block without successors is an exit.
pub fn check<G: Graph + ?Sized>(graph: &G, divergent: &dyn Fn(BlockId) -> bool) -> Vec<Violation> {
    check_with_exits(graph, divergent, &|b| graph.is_exit(b))
}

/// Like [`check`], with the exits chosen by `is_exit` (blocks without
/// successors that are not exits are dead ends).
pub fn check_with_exits<G: Graph + ?Sized>(
    graph: &G,
    divergent: &dyn Fn(BlockId) -> bool,
    is_exit: &dyn Fn(BlockId) -> bool,
) -> Vec<Violation> {
    check_against(graph, divergent, &ExitPostDominance::new(graph, is_exit))
}

/// Definition 1, the one checker: every block for which `divergent` holds
/// must have two successor slots, one of which post-dominates it, as
/// `model` reads post-dominance. A branch whose slots all target one block
/// splits no threads and needs nothing. Returns the violations in block
/// order.
pub(crate) fn check_against<G: Graph + ?Sized, M: PostDominanceModel>(
    graph: &G,
    divergent: &dyn Fn(BlockId) -> bool,
    model: &M,
) -> Vec<Violation> {
    let mut violations = Vec::new();
    for index in 0..graph.num_blocks() {
        let block = BlockId::new(index);
        let successors = graph.successors(block);
        if (successors.len() < 2 && !model.fewer_than_two_slots_violate()) || !divergent(block) {
            continue;
        }
        // Every slot to one block: every thread goes there, nothing splits.
        if successors.len() >= 2 && successors.iter().all(|&s| s == successors[0]) {
            continue;
        }
        let &[first, second] = successors else {
            violations.push(Violation::NotTwoWay {
                block,
                successors: successors.len(),
            });
            continue;
        };
        let successors = [first, second];
        if model.exempt(graph, block, successors) {
            continue;
        }
        if !successors
            .iter()
            .any(|&s| model.successor_post_dominates(graph, s, block))
        {
            violations.push(Violation::NoPostDominatingSuccessor {
                block,
                successors,
                reconvergence: model.reconvergence(graph, block),
            });
        }
    }
    violations
}

/// Post-dominance as Definition 1 reads it, for the check above and for
/// the passes that need a branch's rejoin point (`--spmd-predicate`):
///
/// * from a block that reaches an exit, only the paths that reach an exit
///   count (dead ends such as `llvm.unreachable`, and infinite loops,
///   impose nothing), so the tree is that of the exit-reaching subgraph;
/// * from a block inside an infinite loop, the whole graph's tree, whose
///   virtual exit hangs off one representative per loop (see the module
///   docs).
pub(crate) struct ExitPostDominance {
    live: ExitReachingSubgraph,
    whole: std::cell::OnceCell<PostDominatorTree>,
}

impl ExitPostDominance {
    /// The relation for `graph` with the exits chosen by `is_exit`.
    pub(crate) fn new<G: Graph + ?Sized>(graph: &G, is_exit: &dyn Fn(BlockId) -> bool) -> Self {
        Self {
            live: ExitReachingSubgraph::new(graph, is_exit),
            whole: std::cell::OnceCell::new(),
        }
    }

    /// True if `block` can reach an exit.
    pub(crate) fn reaches_exit(&self, block: BlockId) -> bool {
        self.live.local(block).is_some()
    }

    /// True if `a` post-dominates `b` (reflexive); `graph` must be the
    /// graph the relation was built for.
    pub(crate) fn post_dominates<G: Graph + ?Sized>(
        &self,
        graph: &G,
        a: BlockId,
        b: BlockId,
    ) -> bool {
        match self.live.local(b) {
            Some(local_b) => self
                .live
                .local(a)
                .is_some_and(|local_a| self.live.post_dominators.post_dominates(local_a, local_b)),
            None => self.whole(graph).post_dominates(a, b),
        }
    }

    /// Where the paths from `b` meet again, `None` if only at the end.
    pub(crate) fn ipdom<G: Graph + ?Sized>(&self, graph: &G, b: BlockId) -> Option<BlockId> {
        match self.live.local(b) {
            Some(local) => self
                .live
                .post_dominators
                .ipdom(local)
                .map(|p| self.live.original[p.index()]),
            None => self.whole(graph).ipdom(b),
        }
    }

    fn whole<G: Graph + ?Sized>(&self, graph: &G) -> &PostDominatorTree {
        self.whole.get_or_init(|| PostDominatorTree::build(graph))
    }
}

impl PostDominanceModel for ExitPostDominance {
    fn fewer_than_two_slots_violate(&self) -> bool {
        false
    }

    fn exempt<G: Graph + ?Sized>(
        &self,
        _graph: &G,
        _block: BlockId,
        _successors: [BlockId; 2],
    ) -> bool {
        false
    }

    fn successor_post_dominates<G: Graph + ?Sized>(
        &self,
        graph: &G,
        successor: BlockId,
        block: BlockId,
    ) -> bool {
        // In an infinite loop the self edge never counts (the whole graph's
        // tree has no terminating path to make it harmless).
        let in_infinite_loop = !self.reaches_exit(block);
        !(in_infinite_loop && successor == block) && self.post_dominates(graph, successor, block)
    }

    fn reconvergence<G: Graph + ?Sized>(&self, graph: &G, block: BlockId) -> Option<BlockId> {
        self.ipdom(graph, block)
    }
}

/// The blocks that can reach an exit, renumbered, with their post-dominators.
struct ExitReachingSubgraph {
    local_of: Vec<Option<BlockId>>,
    original: Vec<BlockId>,
    post_dominators: PostDominatorTree,
}

impl ExitReachingSubgraph {
    fn new<G: Graph + ?Sized>(graph: &G, is_exit: &dyn Fn(BlockId) -> bool) -> Self {
        let reaches = reaches_exit(graph, is_exit);
        let mut local_of = vec![None; graph.num_blocks()];
        let mut original = Vec::new();
        for index in 0..graph.num_blocks() {
            if reaches[index] {
                local_of[index] = Some(BlockId::new(original.len()));
                original.push(BlockId::new(index));
            }
        }
        let mut edges = Vec::new();
        for &block in &original {
            if graph.successors(block).is_empty() {
                continue;
            }
            for &s in graph.successors(block) {
                if let (Some(from), Some(to)) = (local_of[block.index()], local_of[s.index()]) {
                    edges.push((from.as_u32(), to.as_u32()));
                }
            }
        }
        let entry = local_of[graph.entry().index()].unwrap_or(BlockId::new(0));
        let post_dominators = if original.is_empty() {
            PostDominatorTree::build(&CfgGraph::from_edges(1, BlockId::new(0), &[]))
        } else {
            PostDominatorTree::build(&CfgGraph::from_edges(original.len(), entry, &edges))
        };
        Self {
            local_of,
            original,
            post_dominators,
        }
    }

    fn local(&self, block: BlockId) -> Option<BlockId> {
        self.local_of[block.index()]
    }
}

/// Which blocks can reach an exit.
/// Which blocks can reach a block without successors for which `is_exit`
/// holds.
pub(crate) fn reaches_exit<G: Graph + ?Sized>(
    graph: &G,
    is_exit: &dyn Fn(BlockId) -> bool,
) -> Vec<bool> {
    let mut reaches = vec![false; graph.num_blocks()];
    let mut stack: Vec<BlockId> = (0..graph.num_blocks())
        .map(BlockId::new)
        .filter(|&b| graph.is_exit(b) && is_exit(b))
        .collect();
    while let Some(block) = stack.pop() {
        if std::mem::replace(&mut reaches[block.index()], true) {
            continue;
        }
        stack.extend(
            graph
                .predecessors(block)
                .iter()
                .copied()
                .filter(|p| !reaches[p.index()]),
        );
    }
    reaches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    #[test]
    fn figure_2a_is_not_reconverging_and_2b_is() {
        // 2a: A(0) -> B(1), C(2); B -> D(3); C -> D.
        let a = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert_eq!(
            check(&a, &|x| x == b(0)),
            vec![Violation::NoPostDominatingSuccessor {
                block: b(0),
                successors: [b(1), b(2)],
                reconvergence: Some(b(3))
            }]
        );
        // 2b: A -> C, Flow(4); C -> Flow; Flow -> B, D; B -> D.
        let fixed =
            CfgGraph::from_edges(5, b(0), &[(0, 2), (0, 4), (2, 4), (4, 1), (4, 3), (1, 3)]);
        assert!(check(&fixed, &|x| x == b(0) || x == b(4)).is_empty());
    }

    #[test]
    fn switches_must_be_two_way_and_infinite_paths_impose_nothing() {
        let switch = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (0, 3)]);
        assert_eq!(
            check(&switch, &|x| x == b(0)),
            vec![Violation::NotTwoWay {
                block: b(0),
                successors: 3
            }]
        );
        // 0 -> 1 (spins forever), 0 -> 2 (exit): 2 post-dominates 0 among terminating paths.
        let spin = CfgGraph::from_edges(3, b(0), &[(0, 1), (1, 1), (0, 2)]);
        assert!(check(&spin, &|x| x == b(0)).is_empty());
    }

    #[test]
    fn dead_ends_impose_nothing_when_they_are_not_exits() {
        // 0 -> 1 (trap), 0 -> 2 -> 3 (return).
        let trap = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (2, 3)]);
        assert!(!check(&trap, &|x| x == b(0)).is_empty());
        assert!(check_with_exits(&trap, &|x| x == b(0), &|x| x == b(3)).is_empty());
    }

    #[test]
    fn a_self_loop_is_accepted_only_together_with_its_exit() {
        // 0 -> 1; 1 -> 1 (self loop), 1 -> 2 (return): 2 post-dominates 1.
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (1, 1), (1, 2)]);
        let live = ExitReachingSubgraph::new(&g, &|x| x == b(2));
        let (one, two) = (live.local(b(1)).unwrap(), live.local(b(2)).unwrap());
        assert!(
            live.post_dominators.post_dominates(two, one)
                && live.post_dominators.post_dominates(one, one)
        );
        assert!(check(&g, &|x| x == b(1)).is_empty());
        // The other successor leads to a divergent join that needs a Flow
        // block: the self loop does not hide that violation of block 2.
        let g = CfgGraph::from_edges(
            6,
            b(0),
            &[(0, 1), (1, 1), (1, 2), (2, 3), (2, 4), (3, 5), (4, 5)],
        );
        assert_eq!(
            check(&g, &|x| x == b(1) || x == b(2)),
            vec![Violation::NoPostDominatingSuccessor {
                block: b(2),
                successors: [b(3), b(4)],
                reconvergence: Some(b(5))
            }]
        );
    }

    /// On random CFGs: a two-way block with a self loop always has its
    /// other successor strictly post-dominating it (when it reaches an
    /// exit), so the reflexive acceptance never accepts anything more.
    #[test]
    fn the_other_successor_of_a_self_loop_always_post_dominates() {
        use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
        let mut rng = SplitMix64::new(7);
        let mut self_loops = 0;
        for _ in 0..300 {
            let n = rng.range(2, 40);
            let g = realistic_cfg(&mut rng, n);
            // Add a self loop to every block with exactly one successor.
            let mut edges = Vec::new();
            for x in 0..g.num_blocks() {
                for &s in g.successors(b(x)) {
                    edges.push((x as u32, s.as_u32()));
                }
                if g.successors(b(x)).len() == 1 && g.successors(b(x))[0] != b(x) {
                    edges.push((x as u32, x as u32));
                }
            }
            let g = CfgGraph::from_edges(g.num_blocks(), g.entry(), &edges);
            let live = ExitReachingSubgraph::new(&g, &|x| g.successors(x).is_empty());
            for x in (0..g.num_blocks()).map(b) {
                let successors = g.successors(x);
                if successors.len() != 2
                    || !successors.contains(&x)
                    || successors[0] == successors[1]
                {
                    continue;
                }
                let Some(local) = live.local(x) else { continue };
                let other = if successors[0] == x {
                    successors[1]
                } else {
                    successors[0]
                };
                let other = live
                    .local(other)
                    .expect("the only way out of a live block is live");
                assert!(live.post_dominators.post_dominates(other, local));
                self_loops += 1;
            }
        }
        assert!(self_loops > 100, "only {self_loops} self loops checked");
    }
}
