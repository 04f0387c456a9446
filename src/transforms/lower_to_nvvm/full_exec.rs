//! Where exec is every live lane.
//!
//! `--spmd-predicate` marks the rejoins after which no lane waits any more
//! ([`EXEC_FULL_ATTR`]); the entry starts with every live lane. Between
//! such points and the next narrowing `spmd.exec.write`, every thread of
//! the warp is active, so nothing needs a lane guard or a vote, and a lane
//! branch (a divergent branch `--spmd-predicate=lane-branches=true` kept,
//! marked `#spmd.uniformity<divergent>`) may split the warp: every thread
//! that takes it runs its own path, as in thread-level code.
//!
//! The analysis is the greatest fixpoint of "exec is full at the start of
//! the block" over the wave-level CFG (a must-property: true at the entry,
//! and at another block when it is true at the end of every predecessor).
//! Blocks no edge reaches count as full; they never run.

use crate::analysis::{
    cfg::{BlockId, Graph, PostDominatorTree},
    reconverging::ExitPostDominance,
};
use crate::ir::{
    edit,
    facts::{self, UniformityMark},
    key::BlockKey,
    names::{self, EXEC_FULL_ATTR},
    region_graph::RegionGraph,
};
use crate::transforms::predicate::plan::reachable_avoiding;
use crate::transforms::prepare::{is_function_exit, op_name};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef};

use super::SpmdOp;
use std::collections::HashMap;

/// Whether `op` sets exec: `Some(true)` for a write after which every live
/// lane is active, `Some(false)` for any other write, `None` otherwise.
pub(crate) fn write_kind(op: OperationRef<'_, '_>) -> Option<bool> {
    (SpmdOp::of(&op_name(op)) == Some(SpmdOp::ExecWrite)).then(|| op.has_attribute(EXEC_FULL_ATTR))
}

/// Whether exec is full at the end of `block`, given its start.
pub(crate) fn full_at_end(block: BlockRef<'_, '_>, full_at_start: bool) -> bool {
    edit::operations(block)
        .into_iter()
        .filter_map(write_kind)
        .last()
        .unwrap_or(full_at_start)
}

/// Per block of `blocks` (the body, entry first): exec is every live lane
/// at its start.
pub(crate) fn full_at_start(blocks: &[BlockRef<'_, '_>]) -> Vec<bool> {
    let position: HashMap<BlockKey, usize> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| (BlockKey::of(block), index))
        .collect();
    let predecessors: Vec<Vec<usize>> = super::incoming_edges(blocks)
        .into_iter()
        .map(|edges| {
            edges
                .into_iter()
                .map(|(terminator, _)| {
                    let source = terminator.block().expect("a terminator is in a block");
                    position[&BlockKey::of(&source)]
                })
                .collect()
        })
        .collect();
    let mut full = vec![true; blocks.len()];
    let mut changed = true;
    while changed {
        changed = false;
        let at_end: Vec<bool> = blocks
            .iter()
            .zip(&full)
            .map(|(block, &start)| full_at_end(*block, start))
            .collect();
        for (index, sources) in predecessors.iter().enumerate().skip(1) {
            if full[index] && !sources.iter().all(|&source| at_end[source]) {
                full[index] = false;
                changed = true;
            }
        }
    }
    full
}

/// The blocks where every running thread is active because a lane branch
/// brought it there, and the lane branches whose gating cannot be
/// confirmed.
pub(crate) struct LaneRegions<'c, 'a> {
    /// Per block of the body: it lies in the region of a lane branch (the
    /// blocks reachable from its other successor before its rejoin point,
    /// or, for a lane branch with no post-dominating successor, from both
    /// before its immediate post-dominator).
    pub(crate) inside: Vec<bool>,
    /// Lane branches where exec may be partial and a thread that is not
    /// active could enter the region: the condition is not
    /// `spmd.mask.select exec, c, ..` (or the branch has no post-dominating
    /// successor to send such threads to), or an edge into the region
    /// comes from a block where exec may be partial that is no such gate.
    pub(crate) ungated: Vec<OperationRef<'c, 'a>>,
}

/// Finds the lane branches of `blocks` (the body, entry first; terminators
/// marked `#spmd.uniformity<divergent>` with two successors) and their
/// regions; `full` is [`full_at_start`] of the same blocks.
pub(crate) fn lane_regions<'c, 'a>(
    blocks: &[BlockRef<'c, 'a>],
    full: &[bool],
) -> LaneRegions<'c, 'a> {
    let mut result = LaneRegions {
        inside: vec![false; blocks.len()],
        ungated: Vec::new(),
    };
    let Some(region) = blocks.first().and_then(|entry| entry.parent_region()) else {
        return result;
    };
    let Ok(graph) = RegionGraph::snapshot(region) else {
        return result;
    };
    if graph.num_blocks() != blocks.len() {
        return result;
    }
    let g = graph.graph();
    let post_dominance = ExitPostDominance::new(g, &|b| is_function_exit(graph.terminator(b)));
    let immediate = PostDominatorTree::build(g);
    // Per lane branch: its region, and whether its join is one of its
    // successors (else only threads that are all active may take it: a
    // gated condition cannot send the others to a join it does not reach).
    let lanes: Vec<(BlockId, Vec<bool>, bool)> = (0..g.num_blocks())
        .map(BlockId::new)
        .filter(|&b| is_lane_branch(graph.terminator(b)))
        .map(|b| {
            let successors = g.successors(b);
            let primary = (0..2).find(|&slot| {
                successors[slot] != b && post_dominance.post_dominates(g, successors[slot], b)
            });
            match primary {
                Some(primary) => {
                    let other = successors[1 - primary];
                    (
                        b,
                        reachable_avoiding(g, other, successors[primary], false),
                        true,
                    )
                }
                None => {
                    let mut inside = vec![false; g.num_blocks()];
                    if let Some(join) = immediate.ipdom(b) {
                        for &successor in successors {
                            let reached = reachable_avoiding(g, successor, join, false);
                            for (block, reached) in reached.into_iter().enumerate() {
                                inside[block] |= reached;
                            }
                        }
                    }
                    (b, inside, false)
                }
            }
        })
        .collect();
    // Block ids of the snapshot follow region order, as `blocks` does
    // (same count, checked above).
    for (_, inside, _) in &lanes {
        for (b, &is_inside) in inside.iter().enumerate() {
            result.inside[b] |= is_inside;
        }
    }
    let exposed =
        |b: BlockId| !result.inside[b.index()] && !full_at_end(graph.block(b), full[b.index()]);
    for (branch, inside, joins_at_successor) in &lanes {
        let terminator = graph.terminator(*branch);
        let gated = |op| *joins_at_successor && is_gated(op);
        let entries_gated = (0..g.num_blocks()).map(BlockId::new).all(|from| {
            from == *branch
                || inside[from.index()]
                || !exposed(from)
                || !g.successors(from).iter().any(|to| inside[to.index()])
                || is_gated(graph.terminator(from))
        });
        if (exposed(*branch) && !gated(terminator)) || !entries_gated {
            result.ungated.push(terminator);
        }
    }
    result
}

/// A conditional branch marked `#spmd.uniformity<divergent>`.
pub(crate) fn is_lane_branch(terminator: OperationRef<'_, '_>) -> bool {
    terminator.successor_count() == 2
        && facts::uniformity_mark(terminator) == Some(UniformityMark::Divergent)
}

/// A lane branch whose condition is `spmd.mask.select %exec, ..` on an
/// `spmd.exec.read` of its own block with no exec write after it: threads
/// that are not active take the other operand.
fn is_gated(terminator: OperationRef<'_, '_>) -> bool {
    if !is_lane_branch(terminator) {
        return false;
    }
    let Some(select) = terminator.operand(0).ok().and_then(edit::defining_op) else {
        return false;
    };
    let Some(read) = select.operand(0).ok().and_then(edit::defining_op) else {
        return false;
    };
    let block = terminator.block();
    op_name(select) == names::MASK_SELECT
        && SpmdOp::of(&op_name(read)) == Some(SpmdOp::ExecRead)
        && read.block() == block
        && !edit::operations(block.expect("a terminator is in a block"))
            .into_iter()
            .skip_while(|op| *op != read)
            .any(|op| write_kind(op).is_some())
}
