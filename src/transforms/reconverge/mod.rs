//! `--spmd-reconverge`: make every divergent branch reconverge.
//!
//! A CFG is *reconverging* (the reconvergence paper, Definition 1) if every divergent
//! branch has exactly two successors and one of them post-dominates it.
//! That is all a wave-level lowering needs: threads that leave at a
//! divergent branch rejoin at its post-dominating successor. Unlike full
//! structurization it keeps uniform branches as they are.
//!
//! The transform runs in the Flow engine's rounds
//! ([`rounds`](crate::transforms::flow::rounds), at most eight) until the
//! function is reconverging (input that already is comes out untouched):
//!
//! 1. **Analyse** once: run the uniformity analysis and remember, by block,
//!    which branches diverge. Edits preserve every thread's values, so the
//!    flags carry over (new blocks from switch lowering and Flow blocks are
//!    divergent); each round snapshots the region ([`RegionGraph`]) and
//!    checks Definition 1 ([`reconverging::check_with_exits`], returns as
//!    exits, dead ends impose nothing).
//! 2. **Prepare** (once, if needed; [`prepare::prepare_region`], shared
//!    with `--spmd-structurize`): divergent `cf.switch`es become chains
//!    of two-way branches; several returns are routed to one exit block,
//!    so that a reconvergence point exists for branches leading to
//!    different returns; in a later round, if a divergent branch sits in
//!    an infinite loop, the loops get a never-taken exit.
//! 3. **Plan** on the IR-independent graph ([`plan`](crate::transforms::flow::plan)): the OpenTree-style
//!    sweep that inserts Flow nodes and redirects edges, with the chosen
//!    block ordering (`df`, `dfpd`, `bf`, `rpot`).
//! 4. **Apply** the plan to the IR
//!    ([`apply`](crate::transforms::flow::apply)): Flow blocks ending in
//!    `spmd.flow_br` on i1 predicates, SSA repaired through block
//!    arguments and `ub.poison`.
//! 5. **Uniform marks**: branches that were uniform get a trusted
//!    `spmd.uniformity<uniform>`, because SSA repair may route their
//!    condition through Flow-block arguments where the analysis alone could
//!    no longer prove what the transform preserved.
//! 6. **Convergence tokens**: when the function changed, an
//!    `spmd.convergence.entry` in the entry block and an
//!    `spmd.convergence.loop` in every cycle header (its parent is the
//!    token of the nearest enclosing cycle whose header dominates it, or
//!    the entry token), as the lowering needs them.
//!
//! With `lane_branches` (the NVVM pipeline), the divergent branches that
//! `--spmd-predicate=lane-branches=true` keeps as per-lane branches without
//! a rejoin point ([`free_lane_branches`]: nothing between the branch and
//! its immediate post-dominator needs converged lanes, and no region that
//! does covers it) count as uniform for planning: the GPU reconverges there
//! by itself, so a Flow block would only cost a branch and a predicate.
//! They are not marked uniform. Divergent multi-way branches are still
//! lowered to two-way ones.
//!
//! A round that does not make progress is an internal error, reported as
//! a diagnostic: the transform never returns silently wrong IR.

use crate::support::FastSet;
use crate::transforms::flow::apply::FlowStyle;
use crate::transforms::flow::plan::{plan_reconvergence_checked_later, Ordering, PlanError};
use crate::transforms::flow::rounds::{Round, RoundStep, Rounds, Step};
use crate::transforms::predicate::lanes::free_lane_branches;
use crate::{
    analysis::{
        cfg::{BlockId, CycleForest, DominatorTree, Graph, Traversal},
        reconverging,
        region_uniformity::{RegionUniformity, UniformityOptions},
    },
    ir::{
        facts::{self, UniformityMark},
        key::BlockKey,
        names::{self},
        query,
        region_graph::{RegionGraph, RegionGraphError},
    },
    transforms::prepare::{self, op_name},
};
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        BlockRef, Location, OperationRef, RegionRef, Type, Value,
    },
    Context,
};

/// Options of [`reconverge_function`] (the pass options of
/// `--spmd-reconverge`).
#[derive(Clone, Debug)]
pub struct ReconvergeOptions {
    /// Block ordering of the planner.
    pub ordering: Ordering,
    /// Options of the uniformity analysis it runs.
    pub uniformity: UniformityOptions,
    /// Flow chains with more blocks than this carry one `i32` selector
    /// instead of one `i1` predicate per Flow block.
    pub selector_chain_length: usize,
    /// Leave alone the divergent branches that can stay per-lane branches
    /// on a GPU that reconverges by itself (nothing between them and their
    /// immediate post-dominator needs converged lanes, and no region that
    /// does covers them), as
    /// `--spmd-predicate=lane-branches=true` keeps them. Default false.
    pub lane_branches: bool,
}

/// Default of [`ReconvergeOptions::selector_chain_length`] (`SpmdPasses.td`).
pub(crate) const DEFAULT_SELECTOR_CHAIN_LENGTH: usize =
    crate::ir::ods::spmd_reconverge::SELECTOR_CHAIN_LENGTH as usize;

impl Default for ReconvergeOptions {
    fn default() -> Self {
        Self {
            ordering: Ordering::default(),
            uniformity: UniformityOptions::default(),
            selector_chain_length: DEFAULT_SELECTOR_CHAIN_LENGTH,
            lane_branches: crate::ir::ods::spmd_reconverge::LANE_BRANCHES,
        }
    }
}

/// What [`reconverge_function`] did to one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReconvergeStats {
    /// True if the IR changed.
    pub changed: bool,
    /// Flow blocks inserted.
    pub flows: usize,
    /// Successor slots redirected to Flow blocks.
    pub redirected_slots: usize,
    /// Divergent switches lowered to two-way chains.
    pub switches_lowered: usize,
    /// Return blocks merged into one exit.
    pub returns_unified: usize,
    /// Values whose dominance was repaired with block arguments.
    pub repaired_values: usize,
    /// Infinite loops given a never-taken exit because a divergent branch
    /// inside them needed a rejoin point.
    pub infinite_loops: usize,
    /// Divergent branches (two or more successors) of the CFG the first
    /// plan was made for.
    pub divergent_branches: usize,
    /// Uniform branches (two or more successors) of that CFG, kept as they
    /// are.
    pub kept_uniform: usize,
}

/// Why a function could not be made reconverging.
#[derive(Debug)]
pub enum ReconvergeError<'c> {
    /// The region cannot be snapshotted (e.g. a block without terminator).
    Region(RegionGraphError<'c>),
    /// A terminator with successors that does not implement
    /// BranchOpInterface, or a divergent multi-way branch other than
    /// `cf.switch`.
    UnsupportedTerminator {
        /// The terminator.
        location: Location<'c>,
        /// Its operation name.
        name: String,
        /// Why it is rejected (the end of the diagnostic).
        reason: &'static str,
    },
    /// The planner rejected the graph.
    Plan {
        /// The function being transformed.
        location: Location<'c>,
        /// The planner's error.
        error: PlanError,
    },
    /// The function never returns, a divergent branch in one of its
    /// infinite loops needs a rejoin point, and spmd cannot create the
    /// return block the loop's never-taken exit needs in this kind of
    /// function (only `func.func`, `llvm.func` and `gpu.func` get one).
    NoReturn {
        /// The function.
        location: Location<'c>,
        /// Its operation name.
        kind: String,
    },
    /// Internal error: the rounds did not converge.
    NotConverged {
        /// The function being transformed.
        location: Location<'c>,
    },
}

impl std::error::Error for ReconvergeError<'_> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Plan { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl std::fmt::Display for ReconvergeError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Region(error) => write!(f, "{error}"),
            Self::UnsupportedTerminator { name, reason, .. } => {
                write!(f, "unsupported terminator '{name}': {reason}")
            }
            Self::Plan { error, .. } => {
                write!(f, "internal error while planning reconvergence: {error}")
            }
            Self::NoReturn { kind, .. } => write!(
                f,
                "it never returns, and the divergent branches in its infinite loops need a never-taken exit to a return block as their rejoin point, which spmd can create in func.func, gpu.func and llvm.func but not in '{kind}'; add a return that the loops can reach"
            ),
            Self::NotConverged { .. } => {
                write!(f, "internal error: the function is still not reconverging after the transform; please report this")
            }
        }
    }
}

impl<'c> ReconvergeError<'c> {
    /// Where to report the error.
    pub fn location(&self, fallback: Location<'c>) -> Location<'c> {
        match self {
            Self::Region(RegionGraphError::MissingTerminator { location, .. }) => *location,
            Self::Region(RegionGraphError::EmptyRegion) => fallback,
            Self::UnsupportedTerminator { location, .. }
            | Self::Plan { location, .. }
            | Self::NoReturn { location, .. }
            | Self::NotConverged { location } => *location,
        }
    }
}

const MAX_ROUNDS: usize = 8;

/// Divergence of the branches, by block identity, carried across edits of
/// the region: the transform preserves every thread's values, so a branch
/// keeps the uniformity the analysis found before the edit.
struct CarriedDivergence {
    divergent: FastSet<BlockKey>,
    known: FastSet<BlockKey>,
}

impl CarriedDivergence {
    /// Runs the uniformity analysis on the region as it is now; also
    /// returns the snapshot it ran on.
    fn analyse<'c, 'a>(
        function: OperationRef<'c, 'a>,
        region: RegionRef<'c, 'a>,
        options: &ReconvergeOptions,
    ) -> Result<(Self, RegionGraph<'c, 'a>), ReconvergeError<'c>> {
        let uniformity = RegionUniformity::compute(function, region, &options.uniformity)
            .map_err(ReconvergeError::Region)?;
        let graph = uniformity.graph();
        let mut carried = Self {
            divergent: FastSet::default(),
            known: FastSet::default(),
        };
        for b in (0..graph.num_blocks()).map(BlockId::new) {
            let key = BlockKey::of(&graph.block(b));
            carried.known.insert(key);
            if uniformity.info().is_divergent_branch(b) && graph.graph().successors(b).len() >= 2 {
                carried.divergent.insert(key);
            }
        }
        Ok((carried, uniformity.into_graph()))
    }

    /// Records a block created by the preparation whose branch is uniform.
    fn set_uniform(&mut self, block: melior::ir::BlockRef<'_, '_>) {
        self.known.insert(BlockKey::of(&block));
    }

    /// The flags of `graph`'s blocks. Blocks created since the analysis are
    /// divergent when they branch: the preparation only creates branches
    /// of lowered divergent switches, and the plan only Flow branches.
    fn flags(&self, graph: &RegionGraph<'_, '_>) -> Vec<bool> {
        (0..graph.num_blocks())
            .map(BlockId::new)
            .map(|b| {
                let key = BlockKey::of(&graph.block(b));
                let branches = graph.graph().successors(b).len() >= 2;
                branches && (self.divergent.contains(&key) || !self.known.contains(&key))
            })
            .collect()
    }
}

/// Makes the body `region` of the function-like `function` reconverging.
pub fn reconverge_function<'c, 'a>(
    context: &'c Context,
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &ReconvergeOptions,
) -> Result<ReconvergeStats, ReconvergeError<'c>> {
    let location = function.location();
    let mut timer = crate::support::PhaseTimer::new("reconverge");
    // The graph the analysis ran on is exact: the first round reuses it.
    let (divergence, graph) = CarriedDivergence::analyse(function, region, options)?;
    check_terminators(&graph)?;
    timer.lap("uniformity");
    let rounds = Rounds {
        context,
        region,
        location,
        style: FlowStyle::SpmdFlow,
        selector_chain_length: options.selector_chain_length,
        max_rounds: MAX_ROUNDS,
    };
    let mut step = ReconvergeRounds {
        context,
        function,
        region,
        options,
        location,
        divergence,
        stats: ReconvergeStats::default(),
        uniform_branches: Vec::new(),
    };
    let finished = rounds.run(&mut step, Some(graph), &mut timer)?;
    let mut stats = step.stats;
    stats.flows = finished.applied.flows;
    stats.redirected_slots = finished.applied.redirected_slots;
    stats.repaired_values = finished.applied.repaired_values;
    Ok(stats)
}

/// The reconverging transform's part of a round (steps 2 to 6 of the
/// module docs): check Definition 1, prepare, plan.
struct ReconvergeRounds<'o, 'c, 'a> {
    context: &'c Context,
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &'o ReconvergeOptions,
    location: Location<'c>,
    /// The branch divergence carried across the rounds' edits (the Flow
    /// branches count as divergent).
    divergence: CarriedDivergence,
    /// What the rounds did besides applying plans.
    stats: ReconvergeStats,
    /// The branches that were uniform when the round's plan was made, to
    /// mark once it is applied.
    uniform_branches: Vec<OperationRef<'c, 'a>>,
}

impl<'c: 'a, 'a> RoundStep<'c, 'a> for ReconvergeRounds<'_, 'c, 'a> {
    type Done = ();
    type Error = ReconvergeError<'c>;

    fn region_error(&self, error: RegionGraphError<'c>) -> ReconvergeError<'c> {
        ReconvergeError::Region(error)
    }

    fn out_of_rounds(&mut self) -> ReconvergeError<'c> {
        ReconvergeError::NotConverged {
            location: self.location,
        }
    }

    /// The graphs the analysis and the plan applications leave had their
    /// terminators checked (a plan adds only Flow branches); a graph read
    /// after a preparation step is checked here.
    fn snapshot_taken(&mut self, graph: &RegionGraph<'c, 'a>) -> Result<(), ReconvergeError<'c>> {
        check_terminators(graph)
    }

    fn step(
        &mut self,
        graph: RegionGraph<'c, 'a>,
        round: Round,
        timer: &mut crate::support::PhaseTimer,
    ) -> Result<Step<'c, 'a, ()>, ReconvergeError<'c>> {
        let divergent = self.divergence.flags(&graph);
        let planned = planned_branches(
            &graph,
            &divergent,
            self.options,
            facts::lane_shared_work(self.function),
        );
        timer.lap("divergence flags");
        let reconverging = is_reconverging(&graph, &divergent, &planned, self.options);
        timer.lap("check");
        if reconverging {
            if self.stats.changed {
                insert_convergence_tokens(self.context, &graph, self.location);
            }
            timer.lap("tokens");
            return Ok(Step::Done(()));
        }
        reject_unknown_exit(&graph)?;
        // Every divergent switch becomes two-way branches and returns are
        // unified for free lane branches too: predication expects both.
        let prepared = prepare_region(
            self.context,
            self.region,
            graph,
            &divergent,
            &mut self.divergence,
            &mut self.stats,
        )?;
        timer.lap("prepare");
        let Some(graph) = prepared else {
            self.stats.changed = true;
            return Ok(Step::Edited);
        };
        self.plan(graph, &divergent, &planned, round, timer)
    }

    /// Marks the branches that were uniform and records the change.
    fn applied(&mut self) {
        mark_uniform(self.context, &self.uniform_branches);
        self.uniform_branches.clear();
        self.stats.changed = true;
    }
}

impl<'c, 'a> ReconvergeRounds<'_, 'c, 'a> {
    /// Plans Flow blocks for the planned branches of a prepared snapshot
    /// and remembers the uniform branches to mark once it is applied.
    fn plan(
        &mut self,
        graph: RegionGraph<'c, 'a>,
        divergent: &[bool],
        planned: &[bool],
        round: Round,
        timer: &mut crate::support::PhaseTimer,
    ) -> Result<Step<'c, 'a, ()>, ReconvergeError<'c>> {
        let location = self.location;
        let exit = prepare::single_return_block_in(&graph);
        let plan =
            plan_reconvergence_checked_later(graph.graph(), planned, exit, self.options.ordering)
                .map_err(|error| ReconvergeError::Plan { location, error })?;
        timer.lap("plan");
        if !plan.changed() {
            return Err(ReconvergeError::NotConverged { location });
        }
        self.uniform_branches = (0..graph.num_blocks())
            .map(BlockId::new)
            .filter(|&b| !divergent[b.index()] && graph.graph().successors(b).len() >= 2)
            .map(|b| graph.terminator(b))
            .collect();
        if round.applied.flows == 0 {
            count_branches(&graph, divergent, &mut self.stats);
        }
        Ok(Step::Apply { graph, plan })
    }
}

/// Rejects a block that leaves the region without a known exit terminator
/// (the plan could not route its threads to a rejoin point).
fn reject_unknown_exit<'c>(graph: &RegionGraph<'c, '_>) -> Result<(), ReconvergeError<'c>> {
    match prepare::unknown_exit(graph) {
        Some(b) => {
            let terminator = graph.terminator(b);
            Err(ReconvergeError::UnsupportedTerminator {
                location: terminator.location(),
                name: op_name(terminator),
                reason: prepare::UNKNOWN_EXIT_REASON,
            })
        }
        None => Ok(()),
    }
}

/// The branches to make reconverging: every divergent one, less the free
/// lane branches with `lane_branches` ([`free_lane_branches`]; those whose
/// sides share work too with `shared_work_ok`).
fn planned_branches(
    graph: &RegionGraph<'_, '_>,
    divergent: &[bool],
    options: &ReconvergeOptions,
    shared_work_ok: bool,
) -> Vec<bool> {
    if !options.lane_branches {
        return divergent.to_vec();
    }
    let converged = crate::ir::collectives::blocks_needing_converged_lanes(graph);
    let free = free_lane_branches(graph.graph(), divergent, &converged, shared_work_ok);
    divergent
        .iter()
        .zip(free)
        .map(|(&d, free)| d && free.is_none())
        .collect()
}

/// True if the region is done: every planned branch reconverges
/// (Definition 1, returns as exits) and, with lane branches, no divergent
/// multi-way branch is left (a free one still becomes two-way branches
/// here; predication would otherwise add the blocks).
fn is_reconverging(
    graph: &RegionGraph<'_, '_>,
    divergent: &[bool],
    planned: &[bool],
    options: &ReconvergeOptions,
) -> bool {
    let divergent_switch = options.lane_branches
        && (0..graph.num_blocks())
            .map(BlockId::new)
            .any(|b| divergent[b.index()] && graph.graph().successors(b).len() > 2);
    let is_exit = |b: BlockId| prepare::is_function_exit(graph.terminator(b));
    !divergent_switch
        && reconverging::check_with_exits(graph.graph(), &|b| planned[b.index()], &is_exit)
            .is_empty()
}

/// The branch counts of the CFG the first plan is made for.
fn count_branches(graph: &RegionGraph<'_, '_>, divergent: &[bool], stats: &mut ReconvergeStats) {
    let branches = |b: usize| graph.graph().successors(BlockId::new(b)).len() >= 2;
    stats.kept_uniform = (0..graph.num_blocks())
        .filter(|&b| !divergent[b] && branches(b))
        .count();
    stats.divergent_branches = (0..graph.num_blocks())
        .filter(|&b| divergent[b] && branches(b))
        .count();
}

/// Marks the branches that were uniform before the transform with a trusted
/// `spmd.uniformity<uniform>`: the transform keeps every thread's values,
/// so they stay uniform, but after SSA repair their condition may reach
/// them through Flow-block arguments where the analysis alone could no
/// longer prove it. Existing marks are kept.
fn mark_uniform<'c>(context: &'c Context, branches: &[OperationRef<'c, '_>]) {
    let uniform = facts::uniformity_attribute(context, UniformityMark::Uniform);
    for branch in branches {
        if !branch.has_attribute(names::UNIFORMITY_ATTR) {
            facts::set_attribute(*branch, names::UNIFORMITY_ATTR, uniform);
        }
    }
}

/// Rejects terminators the transform cannot reroute.
fn check_terminators<'c>(
    graph: &crate::ir::region_graph::RegionGraph<'c, '_>,
) -> Result<(), ReconvergeError<'c>> {
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        if graph.graph().successors(b).is_empty() {
            continue;
        }
        let terminator = graph.terminator(b);
        if !query::is_branch(terminator) {
            return Err(ReconvergeError::UnsupportedTerminator {
                location: terminator.location(),
                name: op_name(terminator),
                reason: "it has successors but does not implement BranchOpInterface, so its successor operands cannot be rerouted",
            });
        }
    }
    Ok(())
}

impl<'c, 'a> prepare::PrepareObserver<'c, 'a> for CarriedDivergence {
    fn detour_added(&mut self, detour: BlockRef<'c, 'a>) {
        self.set_uniform(detour);
    }
}

/// Step 2 of the module docs ([`prepare::prepare_region`]): lowers
/// divergent switches and unifies returns; if neither was needed, gives
/// infinite loops a never-taken exit when a divergent branch inside one
/// needs a rejoin point. Stops after the first step that changed the
/// region (the next round re-reads and re-checks it). Returns the graph
/// back when nothing changed.
fn prepare_region<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: RegionGraph<'c, 'a>,
    divergent: &[bool],
    divergence: &mut CarriedDivergence,
    stats: &mut ReconvergeStats,
) -> Result<Option<RegionGraph<'c, 'a>>, ReconvergeError<'c>> {
    let preparation = prepare::Preparation {
        lower_switch: &|b| divergent[b.index()],
        switch_reason: "a divergent multi-way branch must be a cf.switch or llvm.switch to be lowered into two-way branches",
        // A divergent branch inside an infinite loop still needs a rejoin
        // point (the wave-level lowering parks lanes there): give the loops
        // a never-taken exit so that post-dominance inside them is the
        // ordinary one, as --spmd-structurize does.
        infinite_loops: prepare::InfiniteLoops::ForStranded {
            divergent,
            reason: "it is a divergent branch in an infinite loop of a function that never returns, so its threads have no point to rejoin at",
        },
        stop_after_change: true,
    };
    let prepared = prepare::prepare_region(context, region, graph, &preparation, divergence, None)
        .map_err(|error| match error {
            prepare::PrepareError::Region(error) => ReconvergeError::Region(error),
            prepare::PrepareError::UnsupportedTerminator {
                location,
                name,
                reason,
            } => ReconvergeError::UnsupportedTerminator {
                location,
                name,
                reason,
            },
            prepare::PrepareError::NoReturn { location, kind } => {
                ReconvergeError::NoReturn { location, kind }
            }
        })?;
    stats.switches_lowered += prepared.switches_lowered;
    stats.returns_unified += prepared.returns_unified;
    stats.infinite_loops += prepared.infinite_loops;
    Ok(if prepared.changed() {
        None
    } else {
        prepared.graph
    })
}

/// Puts `spmd.convergence.entry` in the entry block and
/// `spmd.convergence.loop` in each cycle header that lacks one.
fn insert_convergence_tokens<'c, 'a>(
    context: &'c Context,
    graph: &RegionGraph<'c, 'a>,
    location: Location<'c>,
) {
    let dfs = Traversal::build(graph.graph());
    let dominators = DominatorTree::build(graph.graph());
    let mut forest = CycleForest::new();
    forest.compute_nesting(graph.graph(), &dfs);
    let token: Type = facts::token_type(context);
    let entry_block = graph.block(graph.graph().entry());
    let entry_token = existing_token(entry_block, names::CONVERGENCE_ENTRY).unwrap_or_else(|| {
        let op = OperationBuilder::new(names::CONVERGENCE_ENTRY, location)
            .add_results(&[token])
            .build()
            .unwrap();
        entry_block
            .insert_operation(0, op)
            .result(0)
            .unwrap()
            .into()
    });
    let mut loop_tokens: Vec<Option<Value<'c, 'a>>> = vec![None; forest.num_cycles()];
    for cycle in forest.cycles() {
        // Cycle ids are in forest pre-order: parents come first.
        let header_id = forest.header(cycle);
        let header = graph.block(header_id);
        // The parent token is the nearest enclosing cycle's, when its header
        // dominates this one (an irreducible outer cycle's may not).
        let mut enclosing = forest.parent(cycle);
        while let Some(p) = enclosing {
            if dominators.dominates(forest.header(p), header_id) {
                break;
            }
            enclosing = forest.parent(p);
        }
        let parent = enclosing
            .and_then(|p| loop_tokens[p.index()])
            .unwrap_or(entry_token);
        let value = existing_token(header, names::CONVERGENCE_LOOP).unwrap_or_else(|| {
            let op = OperationBuilder::new(names::CONVERGENCE_LOOP, location)
                .add_operands(&[parent])
                .add_results(&[token])
                .build()
                .unwrap();
            header.insert_operation(0, op).result(0).unwrap().into()
        });
        loop_tokens[cycle.index()] = Some(value);
    }
}

fn existing_token<'c, 'a>(block: BlockRef<'c, 'a>, name: &str) -> Option<Value<'c, 'a>> {
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op_name(op) == name {
            return op.result(0).ok().map(Into::into);
        }
        next = op.next_in_block();
    }
    None
}
