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

use crate::ir::{edit, names::EXEC_FULL_ATTR};
use crate::transforms::prepare::op_name;
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef};

use super::SpmdOp;
use std::collections::HashMap;

/// Whether `op` sets exec: `Some(true)` for a write after which every live
/// lane is active, `Some(false)` for any other write, `None` otherwise.
pub fn write_kind(op: OperationRef<'_, '_>) -> Option<bool> {
    (SpmdOp::of(&op_name(op)) == Some(SpmdOp::ExecWrite)).then(|| op.has_attribute(EXEC_FULL_ATTR))
}

/// Whether exec is full at the end of `block`, given its start.
pub fn full_at_end(block: BlockRef<'_, '_>, full_at_start: bool) -> bool {
    edit::operations(block)
        .into_iter()
        .filter_map(write_kind)
        .last()
        .unwrap_or(full_at_start)
}

/// Per block of `blocks` (the body, entry first): exec is every live lane
/// at its start.
pub fn full_at_start(blocks: &[BlockRef<'_, '_>]) -> Vec<bool> {
    let position: HashMap<usize, usize> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| (block.to_raw().ptr as usize, index))
        .collect();
    let predecessors: Vec<Vec<usize>> = super::incoming_edges(blocks)
        .into_iter()
        .map(|edges| {
            edges
                .into_iter()
                .map(|(terminator, _)| {
                    let source = terminator.block().expect("a terminator is in a block");
                    position[&(source.to_raw().ptr as usize)]
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
