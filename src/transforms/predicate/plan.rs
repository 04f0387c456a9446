//! The IR-independent half of `--spmd-predicate`: which successor of each
//! divergent branch is its rejoin point, whether the wave must jump over
//! the other successor when no lane is left for it, and which blocks a
//! divergent loop may re-execute while lanes wait (see the module docs of
//! [`super`]; which values the wave must keep for waiting lanes is decided
//! by liveness, in [`super::live`]).

use crate::analysis::{
    cfg::{BlockId, Graph},
    reconverging::ExitPostDominance,
};

/// One divergent branch and how it is lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DivergentBranch {
    /// The block ending in the divergent two-way branch.
    pub(crate) block: BlockId,
    /// The successor slot of the rejoin point (the post-dominating one).
    pub(crate) primary_slot: usize,
    /// Emit `spmd.exec.br_zero` (else the wave falls through to the other
    /// successor even with an empty exec).
    pub(crate) guarded: bool,
    /// Blocks the wave may execute again, with these lanes parked, before
    /// it reaches the rejoin point: the cycles through the branch that
    /// avoid the rejoin point. A wave with an empty exec must not enter
    /// them (it would spin), so a branch with loop blocks is guarded.
    pub(crate) loop_blocks: Vec<BlockId>,
}

impl DivergentBranch {
    /// The rejoin point.
    pub(crate) fn primary<G: Graph + ?Sized>(&self, graph: &G) -> BlockId {
        graph.successors(self.block)[self.primary_slot]
    }

    /// The branch's region: the blocks reachable from the other successor
    /// without passing the rejoin point (what the wave runs while lanes
    /// wait for it), by block index.
    pub(crate) fn region<G: Graph + ?Sized>(&self, graph: &G) -> Vec<bool> {
        let secondary = graph.successors(self.block)[1 - self.primary_slot];
        reachable_avoiding(graph, secondary, self.primary(graph), false)
    }
}

/// Why a divergent branch cannot be lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PlanError {
    /// Neither successor post-dominates the branch on the terminating paths.
    NoRejoinPoint(BlockId),
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoRejoinPoint(block) => write!(
                f,
                "the divergent branch of block {} has no successor that post-dominates it",
                block.index()
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// Plans one divergent branch with two distinct successors.
/// `uniform_branch(b)`: `b` ends in a scalar branch with several successors.
pub(crate) fn plan_branch<G: Graph + ?Sized>(
    graph: &G,
    post_dominators: &ExitPostDominance,
    block: BlockId,
    skip_empty_blocks: bool,
    uniform_branch: &dyn Fn(BlockId) -> bool,
) -> Result<DivergentBranch, PlanError> {
    let successors = graph.successors(block);
    // Strict post-dominance: a self-loop edge post-dominates its block only
    // reflexively, and lanes parked for it would wait for a wave that may
    // never come back (every terminating path leaves by the other edge).
    let primary_slot = (0..2)
        .find(|&slot| {
            successors[slot] != block
                && post_dominators.post_dominates(graph, successors[slot], block)
        })
        .ok_or(PlanError::NoRejoinPoint(block))?;
    let primary = successors[primary_slot];
    let secondary = successors[1 - primary_slot];
    let region = reachable_avoiding(graph, secondary, primary, false);
    let back = reachable_avoiding(graph, block, primary, true);
    let loop_blocks: Vec<BlockId> = (0..graph.num_blocks())
        .filter(|&i| region[i] && back[i])
        .map(BlockId::new)
        .collect();
    let guarded =
        skip_empty_blocks || !safe_to_fall_through(graph, &region, &loop_blocks, uniform_branch);
    Ok(DivergentBranch {
        block,
        primary_slot,
        guarded,
        loop_blocks,
    })
}

/// A wave with an empty exec walks through `region` to the rejoin point
/// only if nothing there can send it round a cycle or decide on a value no
/// lane computed: no cycle, no scalar branch, no dead end.
fn safe_to_fall_through<G: Graph + ?Sized>(
    graph: &G,
    region: &[bool],
    loop_blocks: &[BlockId],
    uniform_branch: &dyn Fn(BlockId) -> bool,
) -> bool {
    if !loop_blocks.is_empty() {
        return false;
    }
    let blocks: Vec<BlockId> = (0..graph.num_blocks())
        .filter(|&i| region[i])
        .map(BlockId::new)
        .collect();
    let dead_end_or_scalar = blocks
        .iter()
        .any(|&b| graph.successors(b).is_empty() || uniform_branch(b));
    !dead_end_or_scalar && !has_cycle(graph, region)
}

/// Blocks reachable from `from` (forward, or backward when `backward`)
/// without entering `avoid`; `from` itself counts.
pub(crate) fn reachable_avoiding<G: Graph + ?Sized>(
    graph: &G,
    from: BlockId,
    avoid: BlockId,
    backward: bool,
) -> Vec<bool> {
    let mut seen = vec![false; graph.num_blocks()];
    if from == avoid {
        return seen;
    }
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut seen[b.index()], true) {
            continue;
        }
        let next = if backward {
            graph.predecessors(b)
        } else {
            graph.successors(b)
        };
        stack.extend(
            next.iter()
                .copied()
                .filter(|&n| n != avoid && !seen[n.index()]),
        );
    }
    seen
}

/// True if the subgraph induced by `inside` has a cycle (iterative
/// three-colour depth-first search).
fn has_cycle<G: Graph + ?Sized>(graph: &G, inside: &[bool]) -> bool {
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut colour = vec![0u8; graph.num_blocks()];
    for start in (0..graph.num_blocks()).filter(|&i| inside[i]) {
        if colour[start] != 0 {
            continue;
        }
        let mut stack = vec![(BlockId::new(start), 0usize)];
        colour[start] = 1;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let successors = graph.successors(b);
            if *next == successors.len() {
                colour[b.index()] = 2;
                stack.pop();
                continue;
            }
            let s = successors[*next];
            *next += 1;
            if !inside[s.index()] {
                continue;
            }
            match colour[s.index()] {
                1 => return true,
                0 => {
                    colour[s.index()] = 1;
                    stack.push((s, 0));
                }
                _ => {}
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::CfgGraph;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    #[test]
    fn figure_1a_rejoins_at_d_and_falls_through_when_allowed() {
        // A(0) -> D(3), B(1); B -> D, C(2); C -> D.
        let g = CfgGraph::from_edges(4, b(0), &[(0, 3), (0, 1), (1, 3), (1, 2), (2, 3)]);
        let pdt = ExitPostDominance::new(&g, &|b| g.is_exit(b));
        let a = plan_branch(&g, &pdt, b(0), false, &|_| false).unwrap();
        assert_eq!(
            (a.primary(&g), a.guarded, a.loop_blocks.is_empty()),
            (b(3), false, true)
        );
        let a = plan_branch(&g, &pdt, b(0), true, &|_| false).unwrap();
        assert!(a.guarded);
        // A scalar branch in B forces the guard on A even without skipping.
        let a = plan_branch(&g, &pdt, b(0), false, &|x| x == b(1)).unwrap();
        assert!(a.guarded);
    }

    #[test]
    fn a_divergent_latch_parks_for_the_exit_and_keeps_its_loop() {
        // 0 -> H(1) -> L(2); L -> X(3) (exit), L -> H (back edge).
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (1, 2), (2, 3), (2, 1)]);
        let pdt = ExitPostDominance::new(&g, &|b| g.is_exit(b));
        let latch = plan_branch(&g, &pdt, b(2), false, &|_| false).unwrap();
        assert_eq!(latch.primary(&g), b(3));
        assert!(latch.guarded, "an empty wave must not spin in the loop");
        assert_eq!(latch.loop_blocks, vec![b(1), b(2)]);
    }

    #[test]
    fn a_self_loop_parks_for_the_exit_not_for_itself() {
        // 0 -> 1; 1 -> 1 (self loop), 1 -> 2 (exit).
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (1, 1), (1, 2)]);
        let pdt = ExitPostDominance::new(&g, &|b| g.is_exit(b));
        let latch = plan_branch(&g, &pdt, b(1), true, &|_| false).unwrap();
        assert_eq!(latch.primary(&g), b(2));
        assert_eq!(latch.loop_blocks, vec![b(1)]);
    }

    #[test]
    fn no_post_dominating_successor_is_an_error() {
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let pdt = ExitPostDominance::new(&g, &|b| g.is_exit(b));
        assert_eq!(
            plan_branch(&g, &pdt, b(0), true, &|_| false),
            Err(PlanError::NoRejoinPoint(b(0)))
        );
    }
}
