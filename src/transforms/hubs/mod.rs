//! Dispatch hubs: the shared machinery of `--spmd-fix-irreducible` and
//! `--spmd-unify-loop-exits`.
//!
//! A *hub* takes a set of successor slots that lead to several target
//! blocks and routes them all into one new block, from which a chain of
//! guard blocks sends every thread on to the target its slot originally
//! had:
//!
//! ```text
//!   p -> t1   q -> t2   r -> t3          p, q, r -> G1
//!                                 ==>    G1: cond_br %is_t1, t1, G2
//!                                        G2: cond_br %is_t2, t2, t3
//! ```
//!
//! The graph-level planners ([`fix_irreducible`], [`unify_loop_exits`])
//! pick the hubs as [`HubSpec`]s; [`ReconvergePlan::from_hubs`] turns them
//! into the same plan format the reconverging transform uses, and the
//! shared applier ([`apply_plan`](super::flow::apply::apply_plan) with
//! [`FlowStyle::CfGuard`]) materializes it: guard predicates are `i1` block
//! arguments set on the edges that enter the hub (a chain longer than
//! [`SELECTOR_CHAIN_LENGTH`] carries one `i32` selector instead, compared in
//! each guard), the targets' block arguments travel through the guards, and
//! values that no longer dominate their uses are repaired through block
//! arguments, with `ub.poison` on paths that never define them. No block is
//! ever duplicated.
//!
//! [`run_rounds`] repeats plan-and-apply in the Flow engine's rounds
//! ([`Rounds`]) until the planner has nothing left to do: each round
//! handles the cycles that can be handled independently (disjoint ones),
//! so the number of rounds is bounded by the cycle nesting depth (and, as
//! the enforced bound, by the number of blocks).

pub(crate) mod fix_irreducible;
pub(crate) mod unify_loop_exits;

use crate::{
    analysis::cfg::{BlockId, CfgGraph, Graph},
    ir::names,
    ir::region_graph::{RegionGraph, RegionGraphError},
    transforms::{
        flow::{
            apply::FlowStyle,
            plan::{HubSpec, ReconvergePlan},
            rounds::{Round, RoundStep, Rounds, Step},
        },
        prepare::op_name,
    },
};
use melior::{
    ir::{operation::OperationLike, Location, RegionRef},
    Context,
};

/// Guard chains with more blocks than this dispatch on one `i32` selector.
pub(crate) const SELECTOR_CHAIN_LENGTH: usize = 4;

/// What the hub rounds of `irreducible=fix` did
/// ([`StructurizeStats::irreducible`](crate::StructurizeStats::irreducible)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HubStats {
    /// Hubs created (one per fixed cycle).
    pub hubs: usize,
    /// Guard blocks created.
    pub guards: usize,
    /// Successor slots routed into hubs.
    pub redirected_slots: usize,
    /// Values whose dominance was repaired.
    pub repaired_values: usize,
    /// Rounds that changed the IR.
    pub rounds: usize,
}

/// Why the hubs could not be built.
#[derive(Debug)]
pub(crate) enum HubError<'c> {
    /// The region cannot be snapshotted.
    Region(RegionGraphError<'c>),
    /// A terminator with successors that does not implement
    /// BranchOpInterface: its successor operands cannot be rerouted.
    UnsupportedTerminator {
        /// Where it is.
        location: Location<'c>,
        /// Its name.
        name: String,
    },
    /// A block a hub would enter holds a `spmd.convergence.loop`: once its
    /// entering edges run through the hub, the hub is the cycle's header
    /// and the token would be left in a block that is not one (invalid IR).
    ConvergenceToken {
        /// The token.
        location: Location<'c>,
    },
    /// Internal error: the planner still wants hubs after the bound.
    NotConverged,
}

impl std::error::Error for HubError<'_> {}

impl std::fmt::Display for HubError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Region(error) => write!(f, "{error}"),
            Self::UnsupportedTerminator { name, .. } => write!(
                f,
                "unsupported terminator '{name}': it has successors but does not implement BranchOpInterface, so its successor operands cannot be rerouted"
            ),
            Self::ConvergenceToken { .. } => write!(
                f,
                "'{}' in a block that a hub would enter: the hub becomes the header of the cycle and the token would be left outside it; route the edges before the convergence tokens are inserted (--spmd-reconverge inserts them) or remove the token",
                names::CONVERGENCE_LOOP
            ),
            Self::NotConverged => write!(f, "internal error: the hubs did not converge; please report this"),
        }
    }
}

impl<'c> HubError<'c> {
    /// Where to report the error.
    pub(crate) fn location(&self, fallback: Location<'c>) -> Location<'c> {
        match self {
            Self::Region(RegionGraphError::MissingTerminator { location, .. }) => *location,
            Self::UnsupportedTerminator { location, .. } | Self::ConvergenceToken { location } => {
                *location
            }
            _ => fallback,
        }
    }
}

/// Rejects terminators whose successor operands cannot be rewritten.
/// `graph`'s snapshot terminators must be current (one C++ pass over them).
pub(crate) fn check_branch_terminators<'c>(
    graph: &RegionGraph<'c, '_>,
) -> Result<(), HubError<'c>> {
    let terminators: Vec<_> = (0..graph.num_blocks())
        .map(|b| graph.snapshot_terminator(BlockId::new(b)))
        .collect();
    let Some(index) = crate::ir::query::find_non_branch_terminator(&terminators) else {
        return Ok(());
    };
    let terminator = graph.snapshot_terminator(BlockId::new(index));
    Err(HubError::UnsupportedTerminator {
        location: terminator.location(),
        name: op_name(terminator),
    })
}

/// Plans hubs with `planner` on a fresh snapshot of `region` and applies
/// them, round after round, until the planner returns none.
pub(crate) fn run_rounds<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    location: Location<'c>,
    planner: impl Fn(&CfgGraph) -> Vec<HubSpec>,
) -> Result<HubStats, HubError<'c>> {
    run_rounds_on(context, region, None, location, planner).map(|(stats, _)| stats)
}

/// [`run_rounds`] starting from `graph` if the caller has an exact snapshot
/// of `region`; also returns the exact snapshot of the result.
pub(crate) fn run_rounds_on<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: Option<RegionGraph<'c, 'a>>,
    location: Location<'c>,
    planner: impl Fn(&CfgGraph) -> Vec<HubSpec>,
) -> Result<(HubStats, RegionGraph<'c, 'a>), HubError<'c>> {
    let mut timer = crate::support::PhaseTimer::new("hubs");
    let graph = match graph {
        Some(graph) => graph,
        None => RegionGraph::snapshot(region).map_err(HubError::Region)?,
    };
    // Each round fixes at least one cycle and creates no new ones that
    // need fixing, so the number of blocks bounds the rounds that apply
    // hubs; one more finds none left.
    let rounds = Rounds {
        context,
        region,
        location,
        style: FlowStyle::CfGuard,
        selector_chain_length: SELECTOR_CHAIN_LENGTH,
        max_rounds: graph.num_blocks() + 2,
    };
    let mut step = HubRounds { planner, hubs: 0 };
    let finished = rounds.run(&mut step, Some(graph), &mut timer)?;
    let stats = HubStats {
        hubs: step.hubs,
        guards: finished.applied.flows,
        redirected_slots: finished.applied.redirected_slots,
        repaired_values: finished.applied.repaired_values,
        rounds: finished.plans,
    };
    Ok((stats, finished.done))
}

/// The hub driver's part of a round: plan hubs, done when there are none.
struct HubRounds<P> {
    planner: P,
    /// Hubs planned so far.
    hubs: usize,
}

impl<'c: 'a, 'a, P: Fn(&CfgGraph) -> Vec<HubSpec>> RoundStep<'c, 'a> for HubRounds<P> {
    type Done = RegionGraph<'c, 'a>;
    type Error = HubError<'c>;

    fn region_error(&self, error: RegionGraphError<'c>) -> HubError<'c> {
        HubError::Region(error)
    }

    fn out_of_rounds(&mut self) -> HubError<'c> {
        HubError::NotConverged
    }

    fn step(
        &mut self,
        graph: RegionGraph<'c, 'a>,
        round: Round,
        timer: &mut crate::support::PhaseTimer,
    ) -> Result<Step<'c, 'a, RegionGraph<'c, 'a>>, HubError<'c>> {
        let hubs = (self.planner)(graph.graph());
        timer.lap(&format!("plan round {} ({} hubs)", round.index, hubs.len()));
        if hubs.is_empty() {
            return Ok(Step::Done(graph));
        }
        // Later rounds only add guard branches (`cf.cond_br`).
        if round.index == 0 {
            check_branch_terminators(&graph)?;
        }
        check_no_token_in_targets(&graph, &hubs)?;
        let plan = ReconvergePlan::from_hubs(graph.graph(), &hubs);
        self.hubs += hubs.len();
        Ok(Step::Apply { graph, plan })
    }
}

/// Refuses hubs whose targets hold a `spmd.convergence.loop`
/// ([`HubError::ConvergenceToken`]).
fn check_no_token_in_targets<'c>(
    graph: &RegionGraph<'c, '_>,
    hubs: &[HubSpec],
) -> Result<(), HubError<'c>> {
    let token = hubs
        .iter()
        .flat_map(|hub| hub.targets.iter())
        .flat_map(|&target| crate::ir::edit::operations(graph.block(target)))
        .find(|op| op_name(*op) == names::CONVERGENCE_LOOP);
    match token {
        Some(token) => Err(HubError::ConvergenceToken {
            location: token.location(),
        }),
        None => Ok(()),
    }
}

/// Every successor slot `(block, slot)` of a reachable block that targets
/// `target`, in block order.
pub(crate) fn slots_into<G: Graph + ?Sized>(
    g: &G,
    target: BlockId,
    reachable: &dyn Fn(BlockId) -> bool,
    out: &mut Vec<(BlockId, usize)>,
) {
    let mut preds: Vec<BlockId> = g
        .predecessors(target)
        .iter()
        .copied()
        .filter(|&p| reachable(p))
        .collect();
    preds.sort_unstable();
    preds.dedup();
    for p in preds {
        for (slot, &t) in g.successors(p).iter().enumerate() {
            if t == target {
                out.push((p, slot));
            }
        }
    }
}

#[cfg(test)]
mod tests;
