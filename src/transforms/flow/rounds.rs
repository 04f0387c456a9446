//! The round skeleton every Flow driver runs: check, plan, apply, repeat.
//!
//! A *round* looks at the region as it is, decides, and acts:
//!
//! 1. **Snapshot**: the round works on a [`RegionGraph`] of the region. When
//!    the previous step left an exact one — the graph [`apply_plan`]
//!    returns, or the one the driver had before the first round — that one
//!    is reused; otherwise (the first round without a graph, or after a
//!    step that edited the region itself) the region is read again, and the
//!    driver sees the fresh snapshot first ([`RoundStep::snapshot_taken`],
//!    e.g. to check its terminators again).
//! 2. **Step**: the driver's [`RoundStep::step`] checks the graph and
//!    answers with a [`Step`]: done (the region meets its contract), apply
//!    this plan, or "I edited the region myself" (a preparation step); or
//!    it fails with its own error.
//! 3. **Apply**: the skeleton carries the plan out with [`apply_plan`] in
//!    the driver's [`FlowStyle`] and selector chain length, adds the
//!    [`ApplyStats`] to its totals, tells the driver
//!    ([`RoundStep::applied`], for marks that need the new IR) and keeps
//!    the graph the application returns as the next round's exact snapshot.
//!
//! Reusing the exact snapshot matters for large functions: reading a
//! region back costs one pass over all its blocks and operations, while
//! the applier already knows the graph it produced (its edits after the
//! snapshot only add block arguments and operands; debug builds check the
//! two agree). So a driver that needs one plan reads its region once.
//!
//! # Termination
//!
//! The skeleton runs at most [`Rounds::max_rounds`] rounds. In the last
//! one the driver may only finish: a step that still asks to change the
//! region there gets [`RoundStep::out_of_rounds`] instead, before anything
//! is applied. The bounds of the drivers:
//!
//! * `--spmd-reconverge` ([`reconverge`](crate::transforms::reconverge)): 8
//!   rounds. One plan normally suffices; each preparation step that edits
//!   the region (switch lowering and return unification, then never-taken
//!   exits of infinite loops) takes a round, and one more round finds the
//!   region reconverging. A plan that changes nothing while a branch does
//!   not reconverge is an internal error.
//! * `--spmd-structurize` ([`structurize`](crate::transforms::structurize)):
//!   3 rounds, so at most two plans; a contract violation in the last round
//!   is reported as an internal error (a planner bug), and so is a plan
//!   that changes nothing while the contract is broken.
//! * the dispatch hubs ([`hubs`](crate::transforms::hubs)): one round more
//!   than the number of blocks of the first snapshot plus one, since each
//!   round fixes at least one cycle and creates no new cycle to fix; the
//!   rounds stop when the hub planner finds nothing left.
//!
//! Errors stay the drivers' own: the skeleton's failures, a region that
//! cannot be read back and rounds that run out, become the driver's errors
//! through [`RoundStep::region_error`] and [`RoundStep::out_of_rounds`].
//! With `SPMD_PHASE_TIMES` set, the caller's [`PhaseTimer`] reports the
//! skeleton's phases (`snapshot`, `apply`) between the driver's own.

use super::{
    apply::{apply_plan, ApplyStats, FlowStyle},
    plan::ReconvergePlan,
};
use crate::{
    ir::region_graph::{RegionGraph, RegionGraphError},
    support::PhaseTimer,
};
use melior::{
    ir::{Location, RegionRef},
    Context,
};

/// The settings of a run of rounds on one region.
pub(crate) struct Rounds<'c, 'a> {
    /// The context the Flow blocks are built in.
    pub(crate) context: &'c Context,
    /// The region the rounds edit.
    pub(crate) region: RegionRef<'c, 'a>,
    /// The location of the new operations (the function's).
    pub(crate) location: Location<'c>,
    /// How the new blocks branch.
    pub(crate) style: FlowStyle,
    /// Chains longer than this carry one `i32` selector.
    pub(crate) selector_chain_length: usize,
    /// The most rounds; in the last one the driver may only finish.
    pub(crate) max_rounds: usize,
}

/// Where a round stands, for the driver's step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Round {
    /// The round's number, from 0.
    pub(crate) index: usize,
    /// True in the last round: asking for another change fails with
    /// [`RoundStep::out_of_rounds`].
    pub(crate) last: bool,
    /// What the plans applied in the earlier rounds did, in total.
    pub(crate) applied: ApplyStats,
}

/// What the driver's step decided. One is made per round and taken apart
/// at once, so the size of `Apply` costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step<'c, 'a, D> {
    /// The region is done; `D` is what the driver hands back.
    Done(D),
    /// Apply `plan`, made for `graph` (the round's snapshot).
    Apply {
        /// The round's snapshot, exact.
        graph: RegionGraph<'c, 'a>,
        /// The plan made for it.
        plan: ReconvergePlan,
    },
    /// The step edited the region itself: the next round reads it again.
    Edited,
}

/// What the rounds left.
pub(crate) struct Finished<D> {
    /// What the last step handed back.
    pub(crate) done: D,
    /// What the applied plans did, in total.
    pub(crate) applied: ApplyStats,
    /// The number of plans applied.
    pub(crate) plans: usize,
}

/// The part of a round that is the driver's own.
pub(crate) trait RoundStep<'c, 'a> {
    /// What the step hands back when the region is done.
    type Done;
    /// The driver's error.
    type Error;

    /// The driver's error for a region that cannot be snapshotted.
    fn region_error(&self, error: RegionGraphError<'c>) -> Self::Error;

    /// The driver's error when the step still asks for a change in the
    /// last round.
    fn out_of_rounds(&mut self) -> Self::Error;

    /// Checks a snapshot the skeleton had to read from the region (not one
    /// reused from the previous step). Accepts it by default.
    fn snapshot_taken(&mut self, _graph: &RegionGraph<'c, 'a>) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Checks `graph`, the region as it is now, and decides.
    fn step(
        &mut self,
        graph: RegionGraph<'c, 'a>,
        round: Round,
        timer: &mut PhaseTimer,
    ) -> Result<Step<'c, 'a, Self::Done>, Self::Error>;

    /// Called once the plan of the round is applied, before the next round.
    fn applied(&mut self) {}
}

impl<'c, 'a> Rounds<'c, 'a> {
    /// Runs the rounds of `driver`, starting from `graph` when the caller
    /// holds an exact snapshot of the region.
    pub(crate) fn run<S: RoundStep<'c, 'a>>(
        &self,
        driver: &mut S,
        graph: Option<RegionGraph<'c, 'a>>,
        timer: &mut PhaseTimer,
    ) -> Result<Finished<S::Done>, S::Error> {
        let mut exact_graph = graph;
        let mut applied = ApplyStats::default();
        let mut plans = 0;
        for index in 0..self.max_rounds {
            let graph = match exact_graph.take() {
                Some(graph) => graph,
                None => {
                    let graph = RegionGraph::snapshot(self.region)
                        .map_err(|error| driver.region_error(error))?;
                    driver.snapshot_taken(&graph)?;
                    graph
                }
            };
            timer.lap("snapshot");
            let last = index + 1 == self.max_rounds;
            let round = Round {
                index,
                last,
                applied,
            };
            let (graph, plan) = match driver.step(graph, round, timer)? {
                Step::Done(done) => {
                    return Ok(Finished {
                        done,
                        applied,
                        plans,
                    })
                }
                _ if last => break,
                Step::Edited => continue,
                Step::Apply { graph, plan } => (graph, plan),
            };
            let result = apply_plan(
                self.context,
                self.region,
                &graph,
                &plan,
                self.selector_chain_length,
                self.style,
                self.location,
            )
            .map_err(|error| driver.region_error(error))?;
            applied.add(result.stats);
            plans += 1;
            driver.applied();
            exact_graph = Some(result.graph);
            timer.lap("apply");
        }
        Err(driver.out_of_rounds())
    }
}
