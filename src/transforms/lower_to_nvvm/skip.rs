//! Which divergent regions keep their skip branch.
//!
//! `spmd.exec.br_zero ^skip, ^region` is the reconvergence paper's step 4: "optionally
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
//! **Loop exits.** A loop's back edge is a `br_zero` too ("loop while a
//! lane is active"), its *latch*: its region edge goes back to a block
//! that dominates it. A latch always keeps its vote (falling through
//! would make the back edge unconditional). With an empty exec a latch
//! therefore leaves through its zero edge, and a region is judged along
//! the paths an empty exec can take: only the zero edge of a latch, every
//! edge of any other branch. So a divergent exit at the top of a loop
//! (`while (lo <= hi)`), whose region is the rest of the body up to the
//! latch that leaves to the same exit, may fall through, and a whole
//! inner loop may lie in a region (it runs once). Such a loop-exit region
//! may be longer ([`LOOP_THRESHOLD`]): running it empty happens once, when
//! the last lanes leave, while the vote it saves is paid on every
//! iteration. The mask must stay empty on the way: every `spmd.rejoin` in
//! the region must bring back lanes parked inside it (none), not lanes
//! parked before it (a rejoin at a loop header of lanes parked before the
//! loop, say), or the region keeps its skip.
//!
//! The values the skip edge forwards stand for lanes that are not in the
//! region; running the region with an empty exec forwards the region's
//! values instead, which no lane reads: every lane of the warp is then
//! outside the region, and the values a region forwards for its inactive
//! lanes are not read after the join (that is what makes the non-empty
//! case correct). The lockstep NVVM differential checks it on random
//! kernels. A `br_zero` whose two successors are the same block needs no
//! decision at all.

use crate::analysis::cfg::{BlockId, CfgGraph, DominatorTree};
use crate::ir::collectives::{self, Lowering};
use crate::ir::{
    edit, facts,
    key::{BlockKey, OperationKey},
    names,
};
use crate::transforms::predicate::{PARK_ATTR, REJOIN_ATTR};
use crate::transforms::{lower_to_nvvm::SpmdOp, prepare::op_name};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef};
use std::collections::{HashMap, HashSet};

/// Regions of at most this many operations run with an empty exec instead
/// of being skipped (measured, see the [module docs](self)).
pub(crate) const THRESHOLD: usize = 32;

/// The same for the rest of a loop's body after a divergent exit at its
/// top (see the [module docs](self), "Loop exits"): the empty run happens
/// once per loop, the vote once per iteration.
pub(crate) const LOOP_THRESHOLD: usize = 2 * THRESHOLD;

/// The `spmd.exec.br_zero` operations of a function whose region is short
/// enough to run without the skip.
pub(crate) struct ShortRegions {
    ops: HashSet<OperationKey>,
}

impl ShortRegions {
    /// True if `br_zero` falls through into its region.
    pub(crate) fn contains(&self, br_zero: OperationRef<'_, '_>) -> bool {
        self.ops.contains(&op_key(br_zero))
    }
}

fn op_key(op: OperationRef<'_, '_>) -> OperationKey {
    OperationKey::of(&op)
}

fn block_key(block: BlockRef<'_, '_>) -> BlockKey {
    BlockKey::of(&block)
}

/// Decides every `spmd.exec.br_zero` of `blocks` (a function body, entry
/// first, before it is lowered).
pub(crate) fn short_regions(blocks: &[BlockRef<'_, '_>]) -> ShortRegions {
    let latches = latches(blocks);
    let mut ops = HashSet::new();
    for block in blocks {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        if SpmdOp::of(&op_name(terminator)) != Some(SpmdOp::BranchZero)
            || latches.contains(&op_key(terminator))
        {
            continue;
        }
        let (skip, region) = (
            terminator.successor(0).expect("br_zero has two successors"),
            terminator.successor(1).expect("br_zero has two successors"),
        );
        if skip == region || region_is_short(*block, region, skip, &latches) {
            ops.insert(op_key(terminator));
        }
    }
    ShortRegions { ops }
}

/// The `br_zero`s that close a loop: their region edge goes back to a
/// block that dominates them ("loop while a lane is active"). They always
/// keep their vote: falling through would make the back edge
/// unconditional.
fn latches(blocks: &[BlockRef<'_, '_>]) -> HashSet<OperationKey> {
    let index: HashMap<BlockKey, u32> = blocks
        .iter()
        .enumerate()
        .map(|(i, &b)| (block_key(b), i as u32))
        .collect();
    let mut edges = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        for slot in 0..terminator.successor_count() {
            if let Some(&t) = terminator
                .successor(slot)
                .ok()
                .and_then(|s| index.get(&block_key(s)))
            {
                edges.push((i as u32, t));
            }
        }
    }
    let mut latches = HashSet::new();
    if blocks.is_empty() {
        return latches;
    }
    let graph = CfgGraph::from_edges(blocks.len(), BlockId::new(0), &edges);
    let dominators = DominatorTree::build(&graph);
    for (i, block) in blocks.iter().enumerate() {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        if SpmdOp::of(&op_name(terminator)) != Some(SpmdOp::BranchZero) {
            continue;
        }
        let target = terminator
            .successor(1)
            .ok()
            .and_then(|s| index.get(&block_key(s)));
        if target.is_some_and(|&t| dominators.dominates(BlockId::new(t as usize), BlockId::new(i)))
        {
            latches.insert(op_key(terminator));
        }
    }
    latches
}

/// Whether the blocks that run from `region` up to `skip` when the exec
/// mask is empty are closed, acyclic, short and free of collectives, and
/// keep the mask empty (see the [module docs](self)).
///
/// With an empty exec a latch (which keeps its vote) leaves through its
/// zero edge, so only that edge is followed; every other branch may go
/// anywhere. A region that reaches a latch back to `branch` is the rest of
/// a loop that `branch` exits at its top, and may be as long as
/// [`LOOP_THRESHOLD`]. Every `spmd.rejoin` met must bring back lanes
/// parked inside the region (none, the mask being empty), not lanes
/// parked before it, which would make the mask non-empty.
fn region_is_short(
    branch: BlockRef<'_, '_>,
    region: BlockRef<'_, '_>,
    skip: BlockRef<'_, '_>,
    latches: &HashSet<OperationKey>,
) -> bool {
    if region == branch {
        // A self loop: the back edge itself, which must keep its vote.
        return false;
    }
    let mut walk = Walk {
        colour: HashMap::from([(block_key(branch), 1)]),
        cost: 0,
        parks: HashSet::new(),
        rejoins: HashSet::new(),
    };
    let outside_parks: HashSet<i64> = edit::operations(branch)
        .into_iter()
        .filter_map(|op| park_id(op, PARK_ATTR))
        .collect();
    let mut loop_exit = false;
    let mut stack = vec![(region, 0usize)];
    if !walk.enter(region) {
        return false;
    }
    while let Some((block, next)) = stack.pop() {
        let terminator = block.terminator().expect("a block ends with a terminator");
        let latch = latches.contains(&op_key(terminator));
        loop_exit |= latch && terminator.successor(1).is_ok_and(|h| h == branch);
        // A latch leaves through its zero edge (slot 0).
        let followed = if latch {
            1
        } else {
            terminator.successor_count()
        };
        if next == followed {
            walk.colour.insert(block_key(block), 2);
            continue;
        }
        stack.push((block, next + 1));
        let successor = terminator.successor(next).expect("counted successor");
        if successor == skip {
            continue;
        }
        match walk.colour.get(&block_key(successor)) {
            Some(1) => return false,
            Some(_) => continue,
            None => {}
        }
        if !walk.enter(successor) {
            return false;
        }
        stack.push((successor, 0));
    }
    let rejoins_inside = walk
        .rejoins
        .iter()
        .all(|id| walk.parks.contains(id) && !outside_parks.contains(id));
    rejoins_inside && (walk.cost <= THRESHOLD || loop_exit)
}

/// The state of one walk of [`region_is_short`].
struct Walk {
    /// 1 = on the DFS stack, 2 = done.
    colour: HashMap<BlockKey, u8>,
    cost: usize,
    /// The park and rejoin ids of the region's exec writes.
    parks: HashSet<i64>,
    rejoins: HashSet<i64>,
}

impl Walk {
    /// Marks `block` as on the stack, adds its cost and its park and
    /// rejoin ids (one pass over its ops); false if the region can no
    /// longer be short (longer than [`LOOP_THRESHOLD`], a collective, a
    /// return).
    fn enter(&mut self, block: BlockRef<'_, '_>) -> bool {
        self.colour.insert(block_key(block), 1);
        for op in edit::operations(block) {
            let name = op_name(op);
            if name == names::ARITH_CONSTANT || name == names::LLVM_CONSTANT {
                continue;
            }
            let whole_warp = collectives::members(op)
                .is_some_and(|members| members.lowering() == Lowering::EveryLiveLane);
            self.cost += 1;
            if whole_warp || op.region_count() > 0 || self.cost > LOOP_THRESHOLD {
                return false;
            }
            self.parks.extend(park_id(op, PARK_ATTR));
            self.rejoins.extend(park_id(op, REJOIN_ATTR));
        }
        let returns = block
            .terminator()
            .is_none_or(|terminator| terminator.successor_count() == 0);
        !returns
    }
}

/// The id of `op` if it is an exec write carrying `attribute`
/// (`spmd.park` or `spmd.rejoin`).
fn park_id(op: OperationRef<'_, '_>, attribute: &str) -> Option<i64> {
    facts::integer_attribute(op, attribute).map(|id| id.value)
}
