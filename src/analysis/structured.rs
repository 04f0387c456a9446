//! The structured-CFG contract of `--spmd-structurize` (the StructurizeCFG notes' "PTX
//! structured control flow contract"), as a check.
//!
//! A function is *structured* if
//!
//! 1. **single-entry loops**: every cycle is reducible (its header
//!    dominates it);
//! 2. **post-dominator reconvergence**: every branch that must reconverge
//!    (by default every conditional branch not marked uniform) has two
//!    successors and one of them post-dominates it — Definition 1 of
//!    [`reconverging`], with the same treatment of paths that never return;
//! 3. **linear Flow chains**: a Flow block holds nothing but its
//!    terminator, reconvergence tails and, in selector chains, the
//!    `arith.constant`/`arith.cmpi` that derive its predicate; it has at
//!    most one Flow-block successor, so Flow blocks form chains, never
//!    trees;
//! 4. **loop Flow convention**: a loop Flow block takes the back edge on
//!    `false` (its false successor is the header of a cycle that contains
//!    it) and leaves that cycle on `true`;
//! 5. **reconvergence markers pair up** ([`check_markers`]): every head id
//!    has exactly one tail, no id is used twice, and the tail's block
//!    post-dominates the head's.
//!
//! Item 4 of the StructurizeCFG notes (the `i1` predicate is the Flow branch's sole
//! condition) is enforced by the op itself: `spmd.flow_br` takes one `i1`.
//! Violations are reported in block order, by kind in the order above; the
//! pass names the first.

use super::{
    cfg::{BlockId, CycleForest, Graph, PostDominatorTree, Traversal},
    reconverging::{self, Violation as ReconvergenceViolation},
};

/// What the checker needs to know about a Flow block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowShape {
    /// It is a loop Flow (`spmd.flow_br loop`).
    pub is_loop: bool,
    /// It holds operations other than its terminator, reconvergence tails
    /// and a selector comparison.
    pub has_other_ops: bool,
}

/// Per-block facts the check reads.
pub struct StructuredInput<'a> {
    /// Branches that must reconverge.
    pub must_reconverge: &'a dyn Fn(BlockId) -> bool,
    /// Blocks that return (other blocks without successors are dead ends).
    pub is_exit: &'a dyn Fn(BlockId) -> bool,
    /// `Some` for Flow blocks.
    pub flow: &'a dyn Fn(BlockId) -> Option<FlowShape>,
}

/// A broken rule of the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructuredViolation {
    /// Rule 1: a cycle with several entries.
    Irreducible {
        /// The cycle's header.
        header: BlockId,
        /// All its entries, header first.
        entries: Vec<BlockId>,
    },
    /// Rule 2.
    NotReconverging(ReconvergenceViolation),
    /// Rule 3: a Flow block with other operations.
    FlowNotEmpty {
        /// The Flow block.
        block: BlockId,
    },
    /// Rule 3: a Flow block with two Flow-block successors.
    FlowChainForks {
        /// The Flow block.
        block: BlockId,
    },
    /// Rule 4: a loop Flow whose false successor is not the header of a
    /// cycle containing it.
    LoopFlowWithoutBackEdge {
        /// The Flow block.
        block: BlockId,
    },
    /// Rule 4: a loop Flow whose true successor stays in its cycle.
    LoopFlowExitStaysInLoop {
        /// The Flow block.
        block: BlockId,
    },
}

impl StructuredViolation {
    /// The block to report.
    pub fn block(&self) -> BlockId {
        match self {
            Self::Irreducible { header, .. } => *header,
            Self::NotReconverging(ReconvergenceViolation::NotTwoWay { block, .. })
            | Self::NotReconverging(ReconvergenceViolation::NoPostDominatingSuccessor {
                block,
                ..
            }) => *block,
            Self::FlowNotEmpty { block }
            | Self::FlowChainForks { block }
            | Self::LoopFlowWithoutBackEdge { block }
            | Self::LoopFlowExitStaysInLoop { block } => *block,
        }
    }
}

/// Checks rules 1-4 (see module docs).
pub fn check_structured<G: Graph + ?Sized>(
    g: &G,
    input: &StructuredInput<'_>,
) -> Vec<StructuredViolation> {
    let dfs = Traversal::build(g);
    let mut forest = CycleForest::new();
    forest.compute_nesting(g, &dfs);
    let mut violations: Vec<StructuredViolation> = forest
        .cycles()
        .filter(|&c| !forest.is_reducible(c))
        .map(|c| StructuredViolation::Irreducible {
            header: forest.header(c),
            entries: forest.entries(c).to_vec(),
        })
        .collect();
    violations.extend(
        reconverging::check_with_exits(g, input.must_reconverge, input.is_exit)
            .into_iter()
            .map(StructuredViolation::NotReconverging),
    );
    for b in (0..g.num_blocks()).map(BlockId::new) {
        let Some(shape) = (input.flow)(b) else {
            continue;
        };
        if shape.has_other_ops {
            violations.push(StructuredViolation::FlowNotEmpty { block: b });
        }
        let successors = g.successors(b);
        if successors.len() == 2
            && successors.iter().all(|&s| (input.flow)(s).is_some())
            && successors[0] != successors[1]
        {
            violations.push(StructuredViolation::FlowChainForks { block: b });
        }
        if shape.is_loop && successors.len() == 2 {
            let (on_true, on_false) = (successors[0], successors[1]);
            let cycle = forest.innermost_cycle(b).and_then(|c| {
                std::iter::successors(Some(c), |&c| forest.parent(c))
                    .find(|&c| forest.header(c) == on_false)
            });
            match cycle {
                None => violations.push(StructuredViolation::LoopFlowWithoutBackEdge { block: b }),
                Some(c) if forest.contains(c, on_true) => {
                    violations.push(StructuredViolation::LoopFlowExitStaysInLoop { block: b })
                }
                Some(_) => {}
            }
        }
    }
    violations
}

/// A broken marker pairing (rule 5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MarkerViolation {
    /// Two heads use `id`; `block` holds the second.
    DuplicateHead {
        /// The marker id used twice.
        id: u64,
        /// The block of the second head (in program order).
        block: BlockId,
    },
    /// Two tails use `id`; `block` holds the second.
    DuplicateTail {
        /// The marker id used twice.
        id: u64,
        /// The block of the second tail (in program order).
        block: BlockId,
    },
    /// A tail without a head.
    TailWithoutHead {
        /// The tail's marker id.
        id: u64,
        /// The block holding the tail.
        block: BlockId,
    },
    /// A head without a tail.
    HeadWithoutTail {
        /// The head's marker id.
        id: u64,
        /// The block holding the head.
        block: BlockId,
    },
    /// The tail's block does not post-dominate the head's.
    TailDoesNotPostDominate {
        /// The pair's marker id.
        id: u64,
        /// The block holding the head.
        head: BlockId,
        /// The block holding the tail.
        tail: BlockId,
    },
}

/// Checks rule 5 for the markers `heads` and `tails` (`(id, block)`, in
/// program order). Linear apart from sorting the ids.
pub(crate) fn check_markers<G: Graph + ?Sized>(
    g: &G,
    heads: &[(u64, BlockId)],
    tails: &[(u64, BlockId)],
) -> Vec<MarkerViolation> {
    let mut violations = Vec::new();
    let mut head_of = std::collections::HashMap::with_capacity(heads.len());
    for &(id, block) in heads {
        if head_of.insert(id, block).is_some() {
            violations.push(MarkerViolation::DuplicateHead { id, block });
        }
    }
    let mut tail_of = std::collections::HashMap::with_capacity(tails.len());
    let pdom = (!tails.is_empty()).then(|| PostDominatorTree::build(g));
    for &(id, block) in tails {
        if tail_of.insert(id, block).is_some() {
            violations.push(MarkerViolation::DuplicateTail { id, block });
            continue;
        }
        match head_of.get(&id) {
            None => violations.push(MarkerViolation::TailWithoutHead { id, block }),
            Some(&head) => {
                if !pdom
                    .as_ref()
                    .expect("tails exist")
                    .post_dominates(block, head)
                {
                    violations.push(MarkerViolation::TailDoesNotPostDominate {
                        id,
                        head,
                        tail: block,
                    });
                }
            }
        }
    }
    for &(id, block) in heads {
        if !tail_of.contains_key(&id) && head_of.get(&id) == Some(&block) {
            violations.push(MarkerViolation::HeadWithoutTail { id, block });
        }
    }
    violations
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::CfgGraph;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    fn check(
        g: &CfgGraph,
        must: &[usize],
        flows: &[(usize, bool, bool)],
    ) -> Vec<StructuredViolation> {
        let flow = |x: BlockId| {
            flows
                .iter()
                .find(|f| f.0 == x.index())
                .map(|&(_, is_loop, has_other_ops)| FlowShape {
                    is_loop,
                    has_other_ops,
                })
        };
        check_structured(
            g,
            &StructuredInput {
                must_reconverge: &|x| must.contains(&x.index()),
                is_exit: &|x| g.is_exit(x),
                flow: &flow,
            },
        )
    }

    #[test]
    fn diamond_is_not_structured_until_a_flow_splits_it() {
        let diamond = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert!(matches!(
            check(&diamond, &[0], &[])[..],
            [StructuredViolation::NotReconverging(_)]
        ));
        // 0 -> 1 | F(4); 1 -> F; F -> 2 | 3 (the StructurizeCFG notes' Flow1).
        let flowed =
            CfgGraph::from_edges(5, b(0), &[(0, 1), (0, 4), (1, 4), (4, 2), (4, 3), (2, 3)]);
        assert_eq!(check(&flowed, &[0, 4], &[(4, false, false)]), vec![]);
        assert_eq!(
            check(&flowed, &[0, 4], &[(4, false, true)]),
            vec![StructuredViolation::FlowNotEmpty { block: b(4) }]
        );
    }

    #[test]
    fn irreducible_cycle_is_named_by_its_entries() {
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 2), (2, 1), (1, 3), (2, 3)]);
        let v = check(&g, &[], &[]);
        assert!(
            matches!(&v[..], [StructuredViolation::Irreducible { entries, .. }] if entries.len() == 2)
        );
    }

    #[test]
    fn loop_flow_convention() {
        // 0 -> 1 (header); 1 -> 2 (loop flow); 2: true -> 3 (exit), false -> 1.
        let good = CfgGraph::from_edges(4, b(0), &[(0, 1), (1, 2), (2, 3), (2, 1)]);
        assert_eq!(check(&good, &[], &[(2, true, false)]), vec![]);
        // Inverted: true takes the back edge.
        let inverted = CfgGraph::from_edges(4, b(0), &[(0, 1), (1, 2), (2, 1), (2, 3)]);
        assert_eq!(
            check(&inverted, &[], &[(2, true, false)]),
            vec![StructuredViolation::LoopFlowWithoutBackEdge { block: b(2) }]
        );
    }

    #[test]
    fn flow_chains_do_not_fork() {
        // F(1) -> F(2) | F(3): a tree of Flows.
        let g = CfgGraph::from_edges(
            5,
            b(0),
            &[(0, 1), (1, 2), (1, 3), (2, 4), (2, 4), (3, 4), (3, 4)],
        );
        let v = check(
            &g,
            &[],
            &[(1, false, false), (2, false, false), (3, false, false)],
        );
        assert_eq!(v, vec![StructuredViolation::FlowChainForks { block: b(1) }]);
    }

    #[test]
    fn markers_pair_up() {
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert_eq!(check_markers(&g, &[(0, b(0))], &[(0, b(3))]), vec![]);
        assert_eq!(
            check_markers(&g, &[(0, b(0))], &[(0, b(1))]),
            vec![MarkerViolation::TailDoesNotPostDominate {
                id: 0,
                head: b(0),
                tail: b(1)
            }]
        );
        assert_eq!(
            check_markers(&g, &[(0, b(0))], &[]),
            vec![MarkerViolation::HeadWithoutTail { id: 0, block: b(0) }]
        );
        assert_eq!(
            check_markers(&g, &[], &[(4, b(3))]),
            vec![MarkerViolation::TailWithoutHead { id: 4, block: b(3) }]
        );
        assert_eq!(
            check_markers(&g, &[(1, b(0)), (1, b(1))], &[(1, b(3))]),
            vec![MarkerViolation::DuplicateHead { id: 1, block: b(1) }]
        );
    }
}
