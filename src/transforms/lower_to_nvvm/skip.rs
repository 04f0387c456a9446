//! Which divergent regions keep their skip branch.
//!
//! `spmd.exec.br_zero ^skip, ^region` is seed 004's step 4: "optionally
//! keep scalar branch instructions to skip blocks that would be executed
//! with an empty execution mask". On a warp the skip costs a
//! `vote.sync.any` and a branch every time the region is reached, whether
//! or not it is skipped; running the region with no active lane costs its
//! instructions, all of them harmless there (side effects and collectives
//! with member masks are guarded by the exec bit, everything else is pure).
//! So the skip is a cost model, not a rule (AMDGPU's backend likewise
//! drops `s_cbranch_execz` over short blocks, below a threshold of 12
//! instructions by default; on a warp the vote is a synchronisation, not a
//! scalar branch, so the break-even is higher: on the 51 kernels of
//! `examples/cuda/bench` on an H100, 32 operations against 12 took the
//! geomean time ratio to clang's code from 1.17 to 1.14 and the worst,
//! a particle loop whose bounce tests each had a vote, from 3.17 to 2.26):
//! a region keeps its skip unless it is
//!
//! * **acyclic** and **closed**: every path from `^region` reaches `^skip`
//!   without a return and without a cycle, so running it with an empty
//!   exec terminates there (a loop inside could spin on a condition that
//!   no active lane decides);
//! * **short**: at most [`THRESHOLD`] operations (constants are free);
//! * **free of warp and block collectives**: a barrier or a whole-warp
//!   operation in the region keeps the warp's path exactly as before.
//!
//! The values the skip edge forwards stand for lanes that are not in the
//! region; running the region with an empty exec forwards the region's
//! values instead, which no lane reads: every lane of the warp is then
//! outside the region, and the values a region forwards for its inactive
//! lanes are not read after the join (that is what makes the non-empty
//! case correct). The lockstep NVVM differential checks it on random
//! kernels. A `br_zero` whose two successors are the same block needs no
//! decision at all.

use crate::ir::collectives::{self, Lowering};
use crate::ir::{edit, names};
use crate::transforms::{lower_to_nvvm::SpmdOp, prepare::op_name};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef};
use std::collections::{HashMap, HashSet};

/// Regions of at most this many operations run with an empty exec instead
/// of being skipped (measured, see the [module docs](self)).
pub const THRESHOLD: usize = 32;

/// The `spmd.exec.br_zero` operations of a function whose region is short
/// enough to run without the skip.
pub struct ShortRegions {
    ops: HashSet<usize>,
}

impl ShortRegions {
    /// True if `br_zero` falls through into its region.
    pub fn contains(&self, br_zero: OperationRef<'_, '_>) -> bool {
        self.ops.contains(&address_of_op(br_zero))
    }
}

fn address_of_op(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

fn address(block: BlockRef<'_, '_>) -> usize {
    block.to_raw().ptr as usize
}

/// Decides every `spmd.exec.br_zero` of `blocks` (a function body, before
/// it is lowered).
pub fn short_regions(blocks: &[BlockRef<'_, '_>]) -> ShortRegions {
    let mut ops = HashSet::new();
    for block in blocks {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        if SpmdOp::of(&op_name(terminator)) != Some(SpmdOp::BranchZero) {
            continue;
        }
        let (skip, region) = (
            terminator.successor(0).expect("br_zero has two successors"),
            terminator.successor(1).expect("br_zero has two successors"),
        );
        if skip == region || region_is_short(*block, region, skip) {
            ops.insert(address_of_op(terminator));
        }
    }
    ShortRegions { ops }
}

/// Whether the blocks from `region` up to `skip` are closed, acyclic,
/// short and free of collectives (see the [module docs](self)).
fn region_is_short(
    branch: BlockRef<'_, '_>,
    region: BlockRef<'_, '_>,
    skip: BlockRef<'_, '_>,
) -> bool {
    // Iterative DFS with colours: 1 = on the stack, 2 = done.
    let mut colour: HashMap<usize, u8> = HashMap::from([(address(branch), 1)]);
    let mut cost = 0;
    let mut stack = vec![(region, 0usize)];
    if !enter(region, &mut colour, &mut cost) {
        return false;
    }
    while let Some((block, next)) = stack.pop() {
        let terminator = block.terminator().expect("a block ends with a terminator");
        if next == terminator.successor_count() {
            colour.insert(address(block), 2);
            continue;
        }
        stack.push((block, next + 1));
        let successor = terminator.successor(next).expect("counted successor");
        if successor == skip {
            continue;
        }
        match colour.get(&address(successor)) {
            Some(1) => return false,
            Some(_) => continue,
            None => {}
        }
        if !enter(successor, &mut colour, &mut cost) {
            return false;
        }
        stack.push((successor, 0));
    }
    true
}

/// Marks `block` as on the stack and adds its cost; false if the region
/// can no longer be short (too long, a collective, a return).
fn enter(block: BlockRef<'_, '_>, colour: &mut HashMap<usize, u8>, cost: &mut usize) -> bool {
    colour.insert(address(block), 1);
    for op in edit::operations(block) {
        let name = op_name(op);
        if name == names::ARITH_CONSTANT || name == names::LLVM_CONSTANT {
            continue;
        }
        let whole_warp = collectives::members(op)
            .is_some_and(|members| members.lowering() == Lowering::EveryLiveLane);
        *cost += 1;
        if whole_warp || op.region_count() > 0 || *cost > THRESHOLD {
            return false;
        }
    }
    let returns = block
        .terminator()
        .is_none_or(|terminator| terminator.successor_count() == 0);
    !returns
}
