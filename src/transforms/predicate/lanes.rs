//! Which divergent branches stay per-lane branches (`lane-branches=true`),
//! and where lanes that are not active must be kept out of their regions.
//! The IR-independent half: it works on the graph, the plan of every
//! divergent branch, and which blocks hold operations that need converged
//! lanes (see [Lane branches](super#lane-branches)).
//!
//! A divergent branch `B` *parks* (becomes exec-mask code) when its region
//! holds an operation that needs the lanes together, or a parking branch,
//! or the rejoin point of one (a lane region has no exec write inside), or
//! when it would need gates (below) but a divergent branch outside its
//! region rejoins inside it (a gate's edge to `B`'s rejoin point would
//! bypass that rejoin point); every other divergent branch is a *lane
//! branch*. Parking only grows as
//! more branches park, so the choice is a fixpoint.
//!
//! Inside a parking region exec may be partial, and a lane that is not
//! active must not run a lane region on a condition it never computed (it
//! could loop forever, or split a warp at a collective later). Such lanes
//! are kept out where they could enter:
//!
//! * at a lane branch in a parking region (and in no lane region), the
//!   condition becomes `exec ? c : (towards the rejoin point)`
//!   ([`LanePlan::gated`]);
//! * an edge from a block of a parking region (in no lane region), or from
//!   a parking branch into its own region, into a lane region, other than
//!   from the lane branch itself, gets a *gate*: a block that
//!   branches on the lane's exec bit to the old target or to the rejoin
//!   point ([`LanePlan::gates`]); the caller inserts them and plans again,
//!   and the gates are gated lane branches of the next round. An edge
//!   that leaves a gated lane branch away from its rejoin point carries
//!   only active lanes and needs no gate; its edge toward the rejoin point
//!   may need one (if that block is in another lane region).
//!
//! Inside a lane region every present lane is active, so nested lane
//! branches and edges between lane regions need nothing.

use super::plan::{reachable_avoiding, DivergentBranch};
use crate::analysis::cfg::{BlockId, Graph, PostDominatorTree};

/// An edge that needs a gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gate {
    /// The block the edge leaves.
    pub(crate) from: BlockId,
    /// Its successor slot.
    pub(crate) slot: usize,
    /// Where lanes that are not active go: the rejoin point of the lane
    /// branch whose region the edge enters.
    pub(crate) rejoin: BlockId,
}

/// The choice for every planned divergent branch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LanePlan {
    /// Per branch (in the order given): it stays a lane branch.
    pub(crate) lane: Vec<bool>,
    /// Per branch: a lane branch whose condition must be gated by exec.
    pub(crate) gated: Vec<bool>,
    /// Edges into lane regions that need a gate block.
    pub(crate) gates: Vec<Gate>,
    /// Per block: it lies in the region of a parking branch (exec may be
    /// partial there).
    pub(crate) covered: Vec<bool>,
}

/// Chooses the lane branches among `branches` (`None`: a branch lowered
/// otherwise, never a lane branch). `converged[b]`: block `b` holds an
/// operation that needs converged lanes. Without `allow_gates`, a branch
/// that would need a gate parks instead. The gates of an earlier round are
/// gated lane branches here: the lanes they let in are active.
///
/// `same_target`: the divergent branches whose two slots go to one block
/// (lowered to a select): their only successor is their rejoin point.
/// `gate[b]`: block `b` is a gate of an earlier round; its edge around the
/// region was already checked against the rejoin points inside (when the
/// lane branch that asked for it was chosen), so it is not checked again.
pub(crate) fn plan_lanes<G: Graph + ?Sized>(
    graph: &G,
    branches: &[Option<&DivergentBranch>],
    same_target: &[BlockId],
    converged: &[bool],
    gate: &[bool],
    allow_gates: bool,
) -> LanePlan {
    let n = graph.num_blocks();
    let regions: Vec<Option<Vec<bool>>> = branches
        .iter()
        .map(|branch| branch.map(|branch| branch.region(graph)))
        .collect();
    let choice = LaneChoice {
        graph,
        branches,
        regions: &regions,
    };
    let (parking, covered) = choice.parking_fixpoint(same_target, converged, gate, allow_gates);
    let lane: Vec<bool> = branches
        .iter()
        .zip(&parking)
        .map(|(branch, &parks)| branch.is_some() && !parks)
        .collect();
    let in_lane_region = union(n, &regions, &lane);
    let outside = |b: BlockId| covered[b.index()] && !in_lane_region[b.index()];
    let gated: Vec<bool> = branches
        .iter()
        .zip(&lane)
        .map(|(branch, &lane)| lane && branch.is_some_and(|branch| outside(branch.block)))
        .collect();
    let gates = choice.gates(&parking, &lane, &gated, &outside);
    LanePlan {
        lane,
        gated,
        gates,
        covered,
    }
}

/// The divergent branches of [`plan_lanes`] with their regions.
struct LaneChoice<'r, G: ?Sized> {
    graph: &'r G,
    branches: &'r [Option<&'r DivergentBranch>],
    regions: &'r [Option<Vec<bool>>],
}

impl<G: Graph + ?Sized> LaneChoice<'_, G> {
    /// Which branches park (the fixpoint of the module docs), and the
    /// blocks in the region of a parking branch.
    fn parking_fixpoint(
        &self,
        same_target: &[BlockId],
        converged: &[bool],
        gate: &[bool],
        allow_gates: bool,
    ) -> (Vec<bool>, Vec<bool>) {
        let (graph, branches, regions) = (self.graph, self.branches, self.regions);
        let n = graph.num_blocks();
        let mut parking: Vec<bool> = regions
            .iter()
            .map(|region| region.as_ref().is_some_and(|r| any_in(r, converged)))
            .collect();
        loop {
            let covered = union(n, regions, &parking);
            let mut parked_blocks = vec![false; n];
            for (branch, _) in branches.iter().zip(&parking).filter(|(_, &p)| p) {
                if let Some(branch) = branch {
                    parked_blocks[branch.block.index()] = true;
                    parked_blocks[branch.primary(graph).index()] = true;
                }
            }
            let mut changed = false;
            for (index, branch) in branches.iter().enumerate() {
                let (Some(branch), Some(region)) = (branch, &regions[index]) else {
                    continue;
                };
                let needs_gate = covered[branch.block.index()] || any_in(region, &covered);
                let gate_breaks_rejoin = needs_gate
                    && !gate[branch.block.index()]
                    && rejoins_from_outside(graph, branches, same_target, region);
                if !parking[index]
                    && (any_in(region, &parked_blocks)
                        || (needs_gate && (!allow_gates || gate_breaks_rejoin)))
                {
                    parking[index] = true;
                    changed = true;
                }
            }
            if !changed {
                return (parking, covered);
            }
        }
    }

    /// The edges into lane regions that need a gate: one per edge, toward
    /// the rejoin point of the largest lane region the edge enters (lane
    /// regions nest: past that gate every lane is active in the inner ones
    /// too). `outside(b)`: `b` is in a parking region and in no lane region.
    fn gates(
        &self,
        parking: &[bool],
        lane: &[bool],
        gated: &[bool],
        outside: &dyn Fn(BlockId) -> bool,
    ) -> Vec<Gate> {
        let (graph, branches, regions) = (self.graph, self.branches, self.regions);
        let n = graph.num_blocks();
        // Lanes that leave a gated lane branch away from its rejoin point
        // are active (its condition sends the others toward the rejoin
        // point); a parking branch narrows exec on its way into its region.
        let leaving_slot = |selected: &[bool]| {
            let mut slot = vec![None; n];
            for (branch, _) in branches.iter().zip(selected).filter(|(_, &s)| s) {
                if let Some(branch) = branch {
                    slot[branch.block.index()] = Some(1 - branch.primary_slot);
                }
            }
            slot
        };
        let active_only = leaving_slot(gated);
        let narrowing = leaving_slot(parking);
        let exposed_edge =
            |from: BlockId, slot: usize| outside(from) || narrowing[from.index()] == Some(slot);
        let mut gates: Vec<(Gate, usize)> = Vec::new();
        for (index, branch) in branches.iter().enumerate() {
            let (Some(branch), Some(region), true) = (branch, &regions[index], lane[index]) else {
                continue;
            };
            let size = region.iter().filter(|&&inside| inside).count();
            for from in (0..n).map(BlockId::new) {
                if from == branch.block || region[from.index()] {
                    continue;
                }
                for (slot, &to) in graph.successors(from).iter().enumerate() {
                    if !region[to.index()]
                        || !exposed_edge(from, slot)
                        || active_only[from.index()] == Some(slot)
                    {
                        continue;
                    }
                    let gate = Gate {
                        from,
                        slot,
                        rejoin: branch.primary(graph),
                    };
                    match gates
                        .iter_mut()
                        .find(|(known, _)| (known.from, known.slot) == (from, slot))
                    {
                        Some(known) if known.1 < size => *known = (gate, size),
                        Some(_) => {}
                        None => gates.push((gate, size)),
                    }
                }
            }
        }
        gates.into_iter().map(|(gate, _)| gate).collect()
    }
}

/// Divergent branches that can stay per-lane branches without being made
/// reconverging at all (`--spmd-reconverge` and `--spmd-predicate` with
/// `lane-branches=true`): on a GPU that reconverges by itself, a branch
/// needs a rejoin point among its successors only for the exec masks
/// around code that needs converged lanes. A divergent branch `B` is free
/// when the blocks between it and its immediate post-dominator `J` (a real
/// block: not only the virtual exit) hold nothing that needs converged
/// lanes (`converged`), no block there is reached from both successors
/// (that work would run once per group of threads; a rejoin point among
/// the successors runs it once), and neither `B` nor those blocks lie in
/// the region of a divergent branch that does need masks (or that has no
/// such `J`; its region is then everything it reaches), where exec may be
/// partial.
///
/// With `shared_work_ok` (the function's [`LANE_SHARED_WORK_ATTR`]), work
/// shared by both sides does not keep a branch from being free: a target
/// whose backend structurizes divergent regions itself (AMDGPU) runs it once
/// anyway, and its structurizer may do better there than a Flow block
/// planned before it.
///
/// Returns, per block, the region of a free branch (`None` otherwise).
///
/// [`LANE_SHARED_WORK_ATTR`]: crate::ir::names::LANE_SHARED_WORK_ATTR
pub(crate) fn free_lane_branches<G: Graph + ?Sized>(
    graph: &G,
    divergent: &[bool],
    converged: &[bool],
    shared_work_ok: bool,
) -> Vec<Option<Vec<bool>>> {
    let n = graph.num_blocks();
    let post_dominators = PostDominatorTree::build(graph);
    // Per divergent branch: its region, whether it has a join, and whether
    // both sides reach a block of it before the join.
    let regions: Vec<Option<(Vec<bool>, bool, bool)>> = (0..n)
        .map(BlockId::new)
        .map(|b| {
            if !divergent[b.index()] || graph.successors(b).len() < 2 {
                return None;
            }
            Some(match post_dominators.ipdom(b) {
                Some(join) => {
                    let (region, shared) = region_before(graph, b, join);
                    (region, true, shared)
                }
                None => (region_before(graph, b, b).0, false, false),
            })
        })
        .collect();
    let needs_masks: Vec<bool> = regions
        .iter()
        .map(|region| {
            region
                .as_ref()
                .is_some_and(|(region, has_join, _)| !has_join || any_in(region, converged))
        })
        .collect();
    let mut covered = vec![false; n];
    for (region, _) in regions.iter().zip(&needs_masks).filter(|(_, &m)| m) {
        for (b, &inside) in region.iter().flat_map(|(r, _, _)| r).enumerate() {
            covered[b] |= inside;
        }
    }
    regions
        .into_iter()
        .enumerate()
        .map(|(b, region)| {
            let (region, _, shared) = region?;
            // Work shared by both sides before the join is cheaper with a
            // rejoin point (a Flow block runs it once for both groups).
            let shared = shared && !shared_work_ok;
            (!needs_masks[b] && !shared && !covered[b] && !any_in(&region, &covered))
                .then_some(region)
        })
        .collect()
}

/// The blocks reachable from the successors of `branch` without entering
/// `join` (`branch` itself if a cycle leads back to it; with `join ==
/// branch`, everything reachable), and whether some block is reached from
/// two successors without passing `branch` again: threads that split there
/// run it once per group before they meet at `join`. (A path back through
/// `branch` is the same threads deciding again: the exit of a loop whose
/// header branches is reached from the body only through the header, and
/// the threads that leave it in different iterations are not two groups of
/// one split.)
fn region_before<G: Graph + ?Sized>(
    graph: &G,
    branch: BlockId,
    join: BlockId,
) -> (Vec<bool>, bool) {
    let n = graph.num_blocks();
    let mut region = vec![false; n];
    let mut first_pass = vec![false; n];
    let mut shared = false;
    let mut successors = graph.successors(branch).to_vec();
    successors.sort_unstable();
    successors.dedup();
    // An out-of-range block is never entered: no join at all.
    let avoid = if join == branch {
        BlockId::new(n)
    } else {
        join
    };
    for successor in successors {
        for (b, inside) in reachable_avoiding(graph, successor, avoid, false)
            .into_iter()
            .enumerate()
        {
            region[b] |= inside;
        }
        let once = reachable_avoiding_both(graph, successor, avoid, branch);
        for (b, inside) in once.into_iter().enumerate() {
            shared |= inside && first_pass[b];
            first_pass[b] |= inside;
        }
    }
    (region, shared)
}

/// Blocks reachable from `from` entering neither `avoid` nor `branch`
/// (`from` itself counts unless it is one of them).
fn reachable_avoiding_both<G: Graph + ?Sized>(
    graph: &G,
    from: BlockId,
    avoid: BlockId,
    branch: BlockId,
) -> Vec<bool> {
    let mut seen = vec![false; graph.num_blocks()];
    let blocked = |b: BlockId| b == avoid || b == branch;
    let mut stack: Vec<BlockId> = if blocked(from) {
        Vec::new()
    } else {
        vec![from]
    };
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut seen[b.index()], true) {
            continue;
        }
        stack.extend(
            graph
                .successors(b)
                .iter()
                .copied()
                .filter(|&next| !blocked(next) && !seen[next.index()]),
        );
    }
    seen
}

/// True if some divergent branch outside `region` rejoins inside it: a
/// gate's edge around the region would then bypass that rejoin point, and
/// the branch would no longer reconverge (Definition 1).
fn rejoins_from_outside<G: Graph + ?Sized>(
    graph: &G,
    branches: &[Option<&DivergentBranch>],
    same_target: &[BlockId],
    region: &[bool],
) -> bool {
    let rejoins = branches
        .iter()
        .flatten()
        .map(|branch| (branch.block, branch.primary(graph)))
        .chain(same_target.iter().map(|&b| (b, graph.successors(b)[0])));
    rejoins
        .into_iter()
        .any(|(block, rejoin)| !region[block.index()] && region[rejoin.index()])
}

/// True if some block is in both sets.
fn any_in(set: &[bool], other: &[bool]) -> bool {
    set.iter().zip(other).any(|(&a, &b)| a && b)
}

/// The blocks in the region of some branch selected by `selected`.
fn union(n: usize, regions: &[Option<Vec<bool>>], selected: &[bool]) -> Vec<bool> {
    let mut all = vec![false; n];
    for (region, _) in regions.iter().zip(selected).filter(|(_, &s)| s) {
        for (b, &inside) in region.iter().flatten().enumerate() {
            all[b] |= inside;
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{cfg::CfgGraph, reconverging::ExitPostDominance};
    use crate::transforms::predicate::plan::plan_branch;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    fn plans(g: &CfgGraph, blocks: &[usize]) -> Vec<DivergentBranch> {
        let pdt = ExitPostDominance::new(g, &|b| g.is_exit(b));
        blocks
            .iter()
            .map(|&x| plan_branch(g, &pdt, b(x), true, &|_| false).unwrap())
            .collect()
    }

    #[test]
    fn a_loop_outside_parking_regions_is_a_lane_branch_without_gates() {
        // 0 -> H(1) -> L(2); L -> X(3), L -> H.
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (1, 2), (2, 3), (2, 1)]);
        let branches = plans(&g, &[2]);
        let refs: Vec<_> = branches.iter().map(Some).collect();
        let plan = plan_lanes(&g, &refs, &[], &[false; 4], &[false; 4], true);
        assert_eq!(plan.lane, vec![true]);
        assert_eq!(plan.gated, vec![false]);
        assert!(plan.gates.is_empty());
        // A collective in the loop makes it park.
        let plan = plan_lanes(
            &g,
            &refs,
            &[],
            &[false, true, false, false],
            &[false; 4],
            true,
        );
        assert_eq!(plan.lane, vec![false]);
    }

    #[test]
    fn a_loop_inside_a_parking_region_is_gated_at_its_entry() {
        // A(0) -> X(5) (early return), A -> C(1) (collective); C -> P(2);
        // P -> H(3) -> L(4); L -> X, L -> H.
        let g = CfgGraph::from_edges(
            6,
            b(0),
            &[(0, 5), (0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (4, 3)],
        );
        let branches = plans(&g, &[0, 4]);
        let refs: Vec<_> = branches.iter().map(Some).collect();
        let converged = [false, true, false, false, false, false];
        let plan = plan_lanes(&g, &refs, &[], &converged, &[false; 6], true);
        assert_eq!(plan.lane, vec![false, true]);
        // The latch is inside its own region: no condition gate; the edge
        // P -> H enters the loop from the parking region.
        assert_eq!(plan.gated, vec![false, false]);
        assert_eq!(
            plan.gates,
            vec![Gate {
                from: b(2),
                slot: 0,
                rejoin: b(5)
            }]
        );
        // Without gates the loop parks.
        assert_eq!(
            plan_lanes(&g, &refs, &[], &converged, &[false; 6], false).lane,
            vec![false, false]
        );
    }

    #[test]
    fn free_branches_need_a_join_no_shared_work_and_no_masks() {
        // An if / else-if: 0 -> 1, 2; 2 -> 3, 4; 1 -> 4; 3 -> 4. Neither
        // successor of 0 post-dominates it, both sides meet first at 4.
        let g = CfgGraph::from_edges(5, b(0), &[(0, 1), (0, 2), (2, 3), (2, 4), (1, 4), (3, 4)]);
        let divergent = [true, false, true, false, false];
        let free = free_lane_branches(&g, &divergent, &[false; 5], false);
        assert!(free[0].is_some() && free[2].is_some());
        // A collective in 3 makes 2 need masks, and covers nothing of 0's
        // region that 0 could avoid: 0 is not free either.
        let free = free_lane_branches(&g, &divergent, &[false, false, false, true, false], false);
        assert!(free[0].is_none() && free[2].is_none());
        // Both sides of 0 reach 3 before the join 4: shared work.
        let g = CfgGraph::from_edges(5, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3), (2, 4), (3, 4)]);
        let free = free_lane_branches(&g, &[true, false, true, false, false], &[false; 5], false);
        assert!(free[0].is_none(), "3 would run once per group");
        assert!(free[2].is_some());
        // Unless the function leaves shared work to the target's structurizer.
        let free = free_lane_branches(&g, &[true, false, true, false, false], &[false; 5], true);
        assert!(free[0].is_some() && free[2].is_some());
        // A collective still needs masks, shared work or not.
        let converged = [false, false, false, true, false];
        let free = free_lane_branches(&g, &[true, false, true, false, false], &converged, true);
        assert!(free[0].is_none());
    }

    #[test]
    fn a_loop_exit_is_not_shared_work_of_its_own_branch() {
        // 0 -> H(1); H -> B(2) (body), H -> D(4) (done); B -> E(3) (early
        // exit), B -> L(5); L -> H; E -> X(6); D -> X. The body reaches D
        // only through H again: the same threads deciding in a later
        // iteration, not a second group.
        let g = CfgGraph::from_edges(
            7,
            b(0),
            &[
                (0, 1),
                (1, 2),
                (1, 4),
                (2, 3),
                (2, 5),
                (5, 1),
                (3, 6),
                (4, 6),
            ],
        );
        let mut divergent = [false; 7];
        divergent[1] = true;
        let free = free_lane_branches(&g, &divergent, &[false; 7], false);
        let region = free[1].as_ref().expect("the loop's exit is free");
        assert_eq!(region, &[false, true, true, true, true, true, false]);
        // A block both sides reach without passing H is shared: B -> D.
        let g = CfgGraph::from_edges(
            7,
            b(0),
            &[(0, 1), (1, 2), (1, 4), (2, 3), (2, 4), (3, 6), (4, 6)],
        );
        assert!(free_lane_branches(&g, &divergent, &[false; 7], false)[1].is_none());
    }

    #[test]
    fn an_if_inside_a_parking_region_gates_its_condition() {
        // A(0) -> X(4), A -> C(1) (collective); C -> D(3), C -> S(2);
        // S -> D; D -> X.
        let g = CfgGraph::from_edges(5, b(0), &[(0, 4), (0, 1), (1, 3), (1, 2), (2, 3), (3, 4)]);
        let branches = plans(&g, &[0, 1]);
        let refs: Vec<_> = branches.iter().map(Some).collect();
        let converged = [false, true, false, false, false];
        let plan = plan_lanes(&g, &refs, &[], &converged, &[false; 5], true);
        assert_eq!(plan.lane, vec![false, true]);
        assert_eq!(plan.gated, vec![false, true]);
        assert!(plan.gates.is_empty());
    }
}
