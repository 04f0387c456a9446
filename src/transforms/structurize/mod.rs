//! `--spmd-structurize`: StructurizeCFG for MLIR regions.
//!
//! The output satisfies the structured contract of the StructurizeCFG notes (checked by
//! [`structured`](crate::analysis::structured)): single-entry loops, every
//! structurized branch reconverging at one of its successors, linear Flow
//! chains of `spmd.flow_br` on `i1` path predicates, and loop Flow blocks
//! with "true = leave the loop, false = back edge".
//!
//! # Design: StructurizeCFG as an all-divergent reconvergence sweep
//!
//! LLVM's StructurizeCFG orders a region's nodes (RPO with loops kept
//! contiguous), then walks them inserting a Flow block wherever control
//! would otherwise bypass the next node, and rebuilds the phis with an
//! SSA updater. Per region that is quadratic in the worst case (the
//! "wantsToGoTo" predicate sets), and the region tree adds more. The sweep
//! of the reconverging transform ([`plan`](super::flow::plan)) does
//! the same job in one near-linear pass over a loop-contiguous layout:
//! when every branch is treated as divergent, "one successor
//! post-dominates every branch" forces exactly the serialization
//! StructurizeCFG produces (each skipped path joins a Flow chain before the
//! next block), with Flow dispatch chains and loop-latch Flows in
//! StructurizeCFG's conventions. So structurization here is:
//!
//! 1. **Check the input**: terminators with successors must implement
//!    BranchOpInterface; graph regions are rejected. Irreducible cycles are
//!    rejected with an `UnsupportedIrreducibleCFG` error naming their entry
//!    blocks and the IR untouched (`irreducible=reject`, the default, as
//!    in NVIDIA's pipeline), or routed through dispatch hubs first
//!    (`irreducible=fix`, [`hubs::fix_irreducible`]).
//! 2. **Prepare**: unreachable blocks are erased; `cf.switch`es become
//!    chains of two-way branches; several returns go to one exit block;
//!    each infinite loop gets a never-taken exit (`cf.cond_br` on a
//!    constant `true`) from the block the post-dominator tree uses as its
//!    representative, so branches inside it are structurized too. A
//!    function that never returns (no return block: every path ends in an
//!    infinite loop or a dead end) and has branches first gets a return
//!    block to exit to, at the end of its region: its
//!    own return op (`func.return`, `gpu.return`, `llvm.return`) on one
//!    `ub.poison` per result, never executed
//!    ([`prepare::append_return_block`]); for other function kinds the
//!    transform fails with [`StructurizeError::NoReturn`] instead of
//!    guessing their return op (see [`prepare`], "Functions that never
//!    return"; `--spmd-reconverge` does the same for loops that hold a
//!    divergent branch). (An
//!    entry block with predecessors cannot occur: MLIR's verifier forbids
//!    it.)
//! 3. **Choose what to structurize**: every two-way branch with two
//!    different successors, except — with `skip-uniform-regions` — the
//!    uniform branches [`uniform_regions`] keeps and the branches marked
//!    `#spmd.uniformity<uniform>` (which also makes a second run find
//!    exactly what the first one kept).
//! 4. **Plan and apply** with the reconvergence sweep (`ordering`, default
//!    RPO-like `rpot`), SSA repaired through block arguments and
//!    `ub.poison`. Each Flow block branches on its own `i1` path predicate,
//!    a block argument — except in chains longer than
//!    `selector-chain-length` (default 4): there, as in the reconverging
//!    transform, the chain carries one `i32` selector (the destination's
//!    index) and each Flow block derives its predicate with one
//!    `arith.cmpi` against a constant. This is the one deliberate departure
//!    from the StructurizeCFG notes' "no other computation in Flow blocks": with one `i1`
//!    per Flow, every predicate of a chain is threaded through every Flow
//!    before it, which is quadratic in the chain's length — and
//!    structurizing everything makes chains long (measured at 10k blocks:
//!    3.9 s and a 5x larger output with `i1`s only, 0.7 s with selectors).
//!    `selector-chain-length` set very large restores the strict form.
//! 5. **Mark**: kept uniform branches get `#spmd.uniformity<uniform>`;
//!    every structurized branch gets `spmd.reconvergence.head <id>` and its
//!    post-dominating successor `spmd.reconvergence.tail <id>` (the StructurizeCFG notes,
//!    pitfall 4), for predication to consume.
//!
//! The result is checked against the contract; a failure would be a bug
//! and is reported as an internal-error diagnostic, never returned as
//! silently wrong IR. A function that needs nothing is left byte-for-byte
//! unchanged, so the pass is idempotent.

pub(crate) mod uniform_regions;

use crate::ir::ods::spmd_structurize as ods;
use crate::support::{FastMap, FastSet};
use crate::transforms::{
    flow::{
        apply::FlowStyle,
        plan::{plan_reconvergence_checked_later, Ordering, PlanError},
        rounds::{Round, RoundStep, Rounds, Step},
    },
    hubs::{self, fix_irreducible::irreducible_hubs, HubError, HubStats},
    prepare::{self, op_name},
};
use crate::{
    analysis::{
        cfg::{BlockId, CycleForest, Graph, PostDominatorTree, Traversal},
        reconverging,
        region_uniformity::{is_marked_uniform, RegionUniformity, UniformityOptions},
        structured::{check_structured, FlowShape, StructuredInput, StructuredViolation},
    },
    ir::{
        edit,
        facts::{self, UniformityMark},
        key::BlockKey,
        names::{self},
        query,
        region_graph::{RegionGraph, RegionGraphError},
    },
};
use melior::{
    ir::{operation::OperationLike, BlockRef, Location, OperationRef, RegionRef},
    Context,
};

/// What to do with irreducible cycles. The default is
/// `--spmd-structurize`'s (`SpmdPasses.td`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrreduciblePolicy {
    /// Fail with `UnsupportedIrreducibleCFG`, IR unchanged.
    Reject,
    /// Route their entries through hubs first.
    Fix,
}

impl Default for IrreduciblePolicy {
    fn default() -> Self {
        Self::parse(ods::IRREDUCIBLE).expect("the ODS default of irreducible is a policy")
    }
}

impl IrreduciblePolicy {
    /// Parses `reject` or `fix`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "reject" => Some(Self::Reject),
            "fix" => Some(Self::Fix),
            _ => None,
        }
    }
}

/// Options of [`structurize_function`] (the pass options of
/// `--spmd-structurize`).
#[derive(Clone, Debug)]
pub struct StructurizeOptions {
    /// Keep uniform branches whose regions are uniform.
    pub skip_uniform_regions: bool,
    /// With `skip_uniform_regions`, tolerate nested SESE divergent regions.
    pub relaxed_uniform_regions: bool,
    /// Irreducible input.
    pub irreducible: IrreduciblePolicy,
    /// Layout of the Flow sweep.
    pub ordering: Ordering,
    /// Options of the uniformity analysis (used by `skip_uniform_regions`).
    pub uniformity: UniformityOptions,
    /// Flow chains with more blocks than this carry one `i32` selector, and
    /// each of their Flow blocks derives its `i1` predicate with one
    /// `arith.cmpi`; `usize::MAX` never does.
    pub selector_chain_length: usize,
}

/// The defaults of `--spmd-structurize` (`SpmdPasses.td`).
impl Default for StructurizeOptions {
    fn default() -> Self {
        Self {
            skip_uniform_regions: ods::SKIP_UNIFORM_REGIONS,
            relaxed_uniform_regions: ods::RELAXED_UNIFORM_REGIONS,
            irreducible: IrreduciblePolicy::default(),
            ordering: Ordering::parse(ods::ORDERING).expect("the ODS default is an ordering"),
            uniformity: UniformityOptions::default(),
            selector_chain_length: ods::SELECTOR_CHAIN_LENGTH as usize,
        }
    }
}

/// What [`structurize_function`] did to one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StructurizeStats {
    /// True if the IR changed.
    pub changed: bool,
    /// Flow blocks inserted.
    pub flows: usize,
    /// Branches structurized (marked with a reconvergence head).
    pub regions: usize,
    /// Uniform branches kept by `skip-uniform-regions`.
    pub kept_uniform: usize,
    /// Hubs inserted for irreducible cycles.
    pub irreducible: HubStats,
    /// Never-taken exits added to infinite loops.
    pub infinite_loops: usize,
    /// Switches lowered to two-way chains.
    pub switches_lowered: usize,
}

/// Why a function could not be structurized.
#[derive(Debug)]
pub enum StructurizeError<'c> {
    /// The region cannot be snapshotted.
    Region(RegionGraphError<'c>),
    /// A graph region has no control flow to structurize.
    GraphRegion,
    /// A terminator the transform cannot reroute.
    UnsupportedTerminator {
        /// The terminator.
        location: Location<'c>,
        /// Its operation name.
        name: String,
        /// Why it is rejected (the end of the diagnostic).
        reason: &'static str,
    },
    /// The function never returns, branches in its infinite loops must be
    /// structurized, and spmd cannot create the return block their
    /// never-taken exits need in this kind of function (only `func.func`,
    /// `llvm.func` and `gpu.func` get one).
    NoReturn {
        /// The function.
        location: Location<'c>,
        /// Its operation name.
        kind: String,
    },
    /// Irreducible control flow with `irreducible=reject`.
    Irreducible {
        /// The function being transformed.
        location: Location<'c>,
        /// The names of the entry blocks of one irreducible cycle.
        entries: Vec<String>,
    },
    /// `irreducible=fix` would route the entries of a cycle through a hub,
    /// but an entry holds a `spmd.convergence.loop`: the hub would become
    /// the cycle's header and leave the token in a block that is not one.
    TokenInHubTarget {
        /// The token.
        location: Location<'c>,
    },
    /// The planner rejected the graph (a bug).
    Plan {
        /// The function being transformed.
        location: Location<'c>,
        /// The planner's error.
        error: PlanError,
    },
    /// `irreducible=fix` still wanted hubs after its bound of rounds (a
    /// bug).
    HubsNotConverged {
        /// The function being transformed.
        location: Location<'c>,
    },
    /// The output does not satisfy the contract (a bug).
    NotStructured {
        /// The function being transformed.
        location: Location<'c>,
        /// The first violation left.
        violation: StructuredViolation,
        /// The name of the block it is in.
        block: String,
        /// True if the planner found nothing to change although the
        /// contract was broken; false if the rounds ran out.
        planner_idle: bool,
    },
}

impl std::fmt::Display for StructurizeError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Region(error) => write!(f, "{error}"),
            Self::GraphRegion => write!(f, "it is a graph region, which has no control flow to structurize"),
            Self::UnsupportedTerminator { name, reason, .. } => write!(f, "unsupported terminator '{name}': {reason}"),
            Self::NoReturn { kind, .. } => write!(
                f,
                "it never returns, and structurizing the branches in its infinite loops needs a never-taken exit to a return block, which spmd can create in func.func, gpu.func and llvm.func but not in '{kind}'; add a return that the loops can reach"
            ),
            Self::Irreducible { entries, .. } => write!(
                f,
                "UnsupportedIrreducibleCFG: irreducible control flow is not supported; run --spmd-fix-irreducible first or use irreducible=fix (cycle entered at {})",
                entries.join(", ")
            ),
            Self::TokenInHubTarget { .. } => write!(
                f,
                "irreducible=fix cannot route this cycle's entries through one hub: an entry holds '{}', which would be left outside the new header; fix the irreducible control flow before the convergence tokens are inserted, or remove the token",
                names::CONVERGENCE_LOOP
            ),
            Self::Plan { error, .. } => write!(f, "internal error while planning: {error}; please report this"),
            Self::HubsNotConverged { .. } => {
                write!(f, "internal error: the output is not structured (irreducible hubs did not converge); please report this")
            }
            Self::NotStructured { violation, block, planner_idle, .. } => {
                let detail = if *planner_idle {
                    format!("{violation:?}; the planner found nothing to do")
                } else {
                    format!("{violation:?} in {block}")
                };
                write!(f, "internal error: the output is not structured ({detail}); please report this")
            }
        }
    }
}

impl std::error::Error for StructurizeError<'_> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Plan { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl<'c> StructurizeError<'c> {
    /// Where to report the error.
    pub fn location(&self, fallback: Location<'c>) -> Location<'c> {
        match self {
            Self::Region(RegionGraphError::MissingTerminator { location, .. }) => *location,
            Self::UnsupportedTerminator { location, .. }
            | Self::NoReturn { location, .. }
            | Self::Irreducible { location, .. }
            | Self::TokenInHubTarget { location }
            | Self::Plan { location, .. }
            | Self::HubsNotConverged { location }
            | Self::NotStructured { location, .. } => *location,
            _ => fallback,
        }
    }
}

impl<'c> StructurizeError<'c> {
    fn from_hub(error: HubError<'c>, location: Location<'c>) -> Self {
        match error {
            HubError::Region(e) => Self::Region(e),
            HubError::UnsupportedTerminator { location, name } => Self::UnsupportedTerminator {
                location,
                name,
                reason: "it has successors but does not implement BranchOpInterface, so its successor operands cannot be rerouted",
            },
            HubError::ConvergenceToken { location } => Self::TokenInHubTarget { location },
            HubError::NotConverged => Self::HubsNotConverged { location },
        }
    }
}

/// Rounds of plan-and-check; one is the norm (a second only if a check
/// after applying found something, which would be a planner bug that the
/// next round repairs or reports).
const MAX_ROUNDS: usize = 3;

/// Structurizes the body `region` of the function-like `function`.
pub fn structurize_function<'c, 'a>(
    context: &'c Context,
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &StructurizeOptions,
) -> Result<StructurizeStats, StructurizeError<'c>> {
    let location = function.location();
    let mut timer = crate::support::PhaseTimer::new("structurize");
    let (graph, irreducible, has_unreachable) = checked_input(function, region, options)?;
    // Uniformity is analysed on the input as it is: after return
    // unification every divergent early exit's sync region would run to the
    // end of the function (quadratic in total), and the analysis handles
    // several exits anyway. Blocks created by the preparation inherit or
    // get their flags there.
    let mut divergence = if options.skip_uniform_regions {
        Some(BranchDivergence::analyse(
            function,
            region,
            &options.uniformity,
        )?)
    } else {
        None
    };
    timer.lap("check input, uniformity");
    let (mut stats, graph) = prepare_region(
        context,
        region,
        graph,
        has_unreachable,
        irreducible,
        location,
        divergence.as_mut(),
    )?;
    timer.lap("prepare");
    let (kept_blocks, structurized) = kept_branches(&graph, divergence.as_ref(), options);
    stats.kept_uniform = kept_blocks.len();
    timer.lap("kept branches");
    let rounds = structurize_rounds(
        context,
        region,
        graph,
        &kept_blocks,
        options,
        location,
        &mut timer,
    )?;
    let (final_graph, final_shapes) = (rounds.graph, rounds.shapes);
    stats.flows += rounds.flows;
    stats.changed |= rounds.applied;
    // Kept branches that do not reconverge are marked even when nothing
    // else changed, so that the output states which branches were
    // deliberately left unstructured (and a second run finds the same).
    // Marks and markers add attributes and non-terminator ops: the final
    // snapshot stays exact for both.
    stats.changed |= mark_kept_uniform(context, &final_graph, &kept_blocks);
    if stats.changed {
        stats.regions =
            add_reconvergence_markers(region, &final_graph, &final_shapes, &structurized, location);
    }
    timer.lap("marks and markers");
    Ok(stats)
}

/// The checks on the input before anything is edited: a CFG region, branch
/// terminators, and (with `irreducible=reject`) no irreducible cycle.
/// Returns the snapshot, whether it has an irreducible cycle and whether
/// some block is unreachable.
fn checked_input<'c, 'a>(
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &StructurizeOptions,
) -> Result<(RegionGraph<'c, 'a>, bool, bool), StructurizeError<'c>> {
    if query::is_graph_region(function, 0) {
        return Err(StructurizeError::GraphRegion);
    }
    let graph = RegionGraph::snapshot(region).map_err(StructurizeError::Region)?;
    check_terminators(&graph)?;
    // Reachability and the cycle forest are all the checks need.
    let dfs = Traversal::build(graph.graph());
    let mut forest = CycleForest::new();
    forest.compute_nesting(graph.graph(), &dfs);
    let irreducible = !forest.all_reducible();
    if irreducible && options.irreducible == IrreduciblePolicy::Reject {
        let cycle = forest
            .cycles()
            .find(|&c| !forest.is_reducible(c))
            .expect("an irreducible cycle");
        let entries = forest
            .entries(cycle)
            .iter()
            .map(|&b| graph.name(b))
            .collect();
        return Err(StructurizeError::Irreducible {
            location: function.location(),
            entries,
        });
    }
    let has_unreachable = dfs.num_reachable() < graph.num_blocks();
    Ok((graph, irreducible, has_unreachable))
}

/// The blocks (by identity) whose uniform branch stays as it is, and those
/// whose branch is structurized. Without `skip-uniform-regions` every
/// branch is structurized.
fn kept_branches(
    graph: &RegionGraph<'_, '_>,
    divergence: Option<&BranchDivergence>,
    options: &StructurizeOptions,
) -> (FastSet<BlockKey>, FastSet<BlockKey>) {
    let n = graph.num_blocks();
    let branch: Vec<bool> = (0..n)
        .map(|b| has_two_targets(graph.graph(), BlockId::new(b)))
        .collect();
    let kept = if let Some(divergence) = divergence {
        let divergent: Vec<bool> = (0..n)
            .map(|b| branch[b] && divergence.is_divergent(graph.block(BlockId::new(b))))
            .collect();
        let uniform: Vec<bool> = (0..n).map(|b| branch[b] && !divergent[b]).collect();
        let mut kept = uniform_regions::kept_uniform_branches(
            graph.graph(),
            &uniform,
            &divergent,
            options.relaxed_uniform_regions,
        );
        // An explicit uniform mark (from the user or an earlier run) says the
        // branch was deliberately left unstructured: keep it. Divergent
        // branches inside its region are structurized all the same.
        for (b, keep) in kept.iter_mut().enumerate() {
            *keep |= branch[b] && is_marked_uniform(graph.terminator(BlockId::new(b)));
        }
        kept
    } else {
        vec![false; n]
    };
    let blocks = |select: &dyn Fn(usize) -> bool| -> FastSet<BlockKey> {
        (0..n)
            .filter(|&b| select(b))
            .map(|b| BlockKey::of(&graph.block(BlockId::new(b))))
            .collect()
    };
    (blocks(&|b| kept[b]), blocks(&|b| branch[b] && !kept[b]))
}

/// What [`structurize_rounds`] leaves: the final snapshot, its Flow shapes,
/// the Flow blocks inserted and whether any plan was applied.
struct Structured<'c, 'a> {
    graph: RegionGraph<'c, 'a>,
    shapes: Vec<Option<FlowShape>>,
    flows: usize,
    applied: bool,
}

/// Plans and applies Flow blocks in the Flow engine's rounds ([`Rounds`])
/// until the region meets the structured contract (every branch but the
/// kept ones reconverges, in Flow shapes), at most [`MAX_ROUNDS`] rounds.
fn structurize_rounds<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: RegionGraph<'c, 'a>,
    kept_blocks: &FastSet<BlockKey>,
    options: &StructurizeOptions,
    location: Location<'c>,
    timer: &mut crate::support::PhaseTimer,
) -> Result<Structured<'c, 'a>, StructurizeError<'c>> {
    let rounds = Rounds {
        context,
        region,
        location,
        style: FlowStyle::SpmdFlow,
        selector_chain_length: options.selector_chain_length,
        max_rounds: MAX_ROUNDS,
    };
    let mut step = ContractRounds {
        kept_blocks,
        ordering: options.ordering,
        location,
        violation: None,
    };
    // The preparation leaves an exact snapshot of the region.
    let finished = rounds.run(&mut step, Some(graph), timer)?;
    let (graph, shapes) = finished.done;
    Ok(Structured {
        graph,
        shapes,
        flows: finished.applied.flows,
        applied: finished.plans > 0,
    })
}

/// The structurizer's part of a round: check the contract, plan the
/// branches that must reconverge.
struct ContractRounds<'k, 'c> {
    kept_blocks: &'k FastSet<BlockKey>,
    ordering: Ordering,
    location: Location<'c>,
    /// The first violation the last check found, and its block's name.
    violation: Option<(StructuredViolation, String)>,
}

impl<'c> ContractRounds<'_, 'c> {
    /// The internal error for the last violation found.
    fn not_structured(&mut self, planner_idle: bool) -> StructurizeError<'c> {
        let (violation, block) = self
            .violation
            .take()
            .expect("a round asks for a change only after a violation");
        StructurizeError::NotStructured {
            location: self.location,
            violation,
            block,
            planner_idle,
        }
    }
}

impl<'c: 'a, 'a> RoundStep<'c, 'a> for ContractRounds<'_, 'c> {
    type Done = (RegionGraph<'c, 'a>, Vec<Option<FlowShape>>);
    type Error = StructurizeError<'c>;

    fn region_error(&self, error: RegionGraphError<'c>) -> StructurizeError<'c> {
        StructurizeError::Region(error)
    }

    fn out_of_rounds(&mut self) -> StructurizeError<'c> {
        self.not_structured(false)
    }

    fn step(
        &mut self,
        graph: RegionGraph<'c, 'a>,
        round: Round,
        timer: &mut crate::support::PhaseTimer,
    ) -> Result<Step<'c, 'a, Self::Done>, StructurizeError<'c>> {
        let must: Vec<bool> = (0..graph.num_blocks())
            .map(BlockId::new)
            .map(|b| {
                has_two_targets(graph.graph(), b)
                    && !self.kept_blocks.contains(&BlockKey::of(&graph.block(b)))
            })
            .collect();
        let shapes = flow_shapes(&graph);
        let violations = check_structured(
            graph.graph(),
            &StructuredInput {
                must_reconverge: &|b| must[b.index()],
                is_exit: &|b| prepare::is_function_exit(graph.terminator(b)),
                flow: &|b| shapes[b.index()],
            },
        );
        timer.lap("contract check");
        let Some(first) = violations.first() else {
            return Ok(Step::Done((graph, shapes)));
        };
        self.violation = Some((first.clone(), graph.name(first.block())));
        if round.last {
            return Err(self.not_structured(false));
        }
        let exit = prepare::single_return_block_in(&graph);
        let plan = plan_reconvergence_checked_later(graph.graph(), &must, exit, self.ordering)
            .map_err(|error| StructurizeError::Plan {
                location: self.location,
                error,
            })?;
        timer.lap("plan");
        if !plan.changed() {
            return Err(self.not_structured(true));
        }
        Ok(Step::Apply { graph, plan })
    }
}

/// True if `b` branches to at least two different blocks.
fn has_two_targets<G: Graph + ?Sized>(g: &G, b: BlockId) -> bool {
    let s = g.successors(b);
    s.len() >= 2 && s.iter().any(|&t| t != s[0])
}

/// Rejects terminators whose successor operands cannot be rewritten.
fn check_terminators<'c>(graph: &RegionGraph<'c, '_>) -> Result<(), StructurizeError<'c>> {
    hubs::check_branch_terminators(graph)
        .map_err(|e| StructurizeError::from_hub(e, graph.terminator_location(BlockId::new(0))))?;
    let branches =
        (0..graph.num_blocks()).any(|b| graph.graph().successors(BlockId::new(b)).len() >= 2);
    match prepare::unknown_exit(graph) {
        Some(b) if branches => {
            let terminator = graph.terminator(b);
            Err(StructurizeError::UnsupportedTerminator {
                location: terminator.location(),
                name: op_name(terminator),
                reason: prepare::UNKNOWN_EXIT_REASON,
            })
        }
        _ => Ok(()),
    }
}

/// Step 2 of the module docs: erases unreachable blocks and fixes
/// irreducible cycles (steps only this transform takes), then the shared
/// preparation ([`prepare::prepare_region`]) lowers every multi-way branch,
/// unifies returns and gives every infinite loop a never-taken exit. Takes
/// an exact snapshot of `region` and returns one of the prepared region,
/// re-reading the region only after steps that changed its CFG.
fn prepare_region<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: RegionGraph<'c, 'a>,
    has_unreachable: bool,
    irreducible: bool,
    location: Location<'c>,
    divergence: Option<&mut BranchDivergence>,
) -> Result<(StructurizeStats, RegionGraph<'c, 'a>), StructurizeError<'c>> {
    let snapshot = || RegionGraph::snapshot(region).map_err(StructurizeError::Region);
    let mut timer = crate::support::PhaseTimer::new("prepare");
    let mut stats = StructurizeStats::default();
    // SAFETY: when blocks were erased, `graph` (the only holder of handles
    // into them) is dropped below for a fresh snapshot; nothing else here
    // holds a handle into the region yet.
    let erased = has_unreachable && unsafe { edit::erase_unreachable_blocks(region) };
    stats.changed |= erased;
    let mut graph = if erased { snapshot()? } else { graph };
    timer.lap("unreachable blocks");
    if irreducible {
        let (hub_stats, fixed) =
            hubs::run_rounds_on(context, region, Some(graph), location, irreducible_hubs)
                .map_err(|e| StructurizeError::from_hub(e, location))?;
        stats.irreducible = hub_stats;
        stats.changed |= stats.irreducible.rounds > 0;
        graph = fixed;
        timer.lap("irreducible cycles");
    }
    let preparation = prepare::Preparation {
        lower_switch: &|_| true,
        switch_reason: "a multi-way branch must be a cf.switch or llvm.switch to be lowered into two-way branches",
        infinite_loops: prepare::InfiniteLoops::Always,
        stop_after_change: false,
    };
    let mut observer = divergence;
    let prepared = prepare::prepare_region(
        context,
        region,
        graph,
        &preparation,
        &mut observer,
        Some(&mut timer),
    )
    .map_err(|error| match error {
        prepare::PrepareError::Region(error) => StructurizeError::Region(error),
        prepare::PrepareError::UnsupportedTerminator {
            location,
            name,
            reason,
        } => StructurizeError::UnsupportedTerminator {
            location,
            name,
            reason,
        },
        prepare::PrepareError::NoReturn { location, kind } => {
            StructurizeError::NoReturn { location, kind }
        }
    })?;
    stats.switches_lowered = prepared.switches_lowered;
    stats.infinite_loops = prepared.infinite_loops;
    stats.changed |= prepared.changed();
    let graph = prepared
        .graph
        .expect("a preparation that does not stop re-reads the region");
    Ok((stats, graph))
}

impl<'c, 'a> prepare::PrepareObserver<'c, 'a> for Option<&mut BranchDivergence> {
    fn switch_lowered(&mut self, block: BlockRef<'c, 'a>, created: &[BlockRef<'c, 'a>]) {
        if let Some(divergence) = self.as_deref_mut() {
            // The chain compares the switch's operand: its branches are as
            // divergent as the switch was.
            let flag = divergence.is_divergent(block);
            for &block in created {
                divergence.set(block, flag);
            }
        }
    }

    fn detour_added(&mut self, detour: BlockRef<'c, 'a>) {
        // A branch on a constant is uniform.
        if let Some(divergence) = self.as_deref_mut() {
            divergence.set(detour, false);
        }
    }
}

/// Which branches diverge, by block identity, as analysed on the input
/// and kept up to date by the preparation. Blocks it does not know (the
/// guard blocks of irreducible hubs) count as divergent.
struct BranchDivergence {
    divergent: FastMap<BlockKey, bool>,
}

impl BranchDivergence {
    fn analyse<'c>(
        function: OperationRef<'c, '_>,
        region: RegionRef<'c, '_>,
        options: &UniformityOptions,
    ) -> Result<Self, StructurizeError<'c>> {
        let uniformity = RegionUniformity::compute(function, region, options)
            .map_err(StructurizeError::Region)?;
        let graph = uniformity.graph();
        let divergent = (0..graph.num_blocks())
            .map(BlockId::new)
            .map(|b| {
                (
                    BlockKey::of(&graph.block(b)),
                    uniformity.info().is_divergent_branch(b),
                )
            })
            .collect();
        Ok(Self { divergent })
    }

    fn is_divergent(&self, block: BlockRef<'_, '_>) -> bool {
        self.divergent
            .get(&BlockKey::of(&block))
            .copied()
            .unwrap_or(true)
    }

    fn set(&mut self, block: BlockRef<'_, '_>, divergent: bool) {
        self.divergent.insert(BlockKey::of(&block), divergent);
    }
}

/// The Flow facts of every block of `graph` for the contract check,
/// indexed by block id: `Some` for a block that ends in `spmd.flow_br`.
/// Besides the branch, a Flow block may hold reconvergence tails and, in a
/// selector chain, the comparison that derives its predicate
/// (`arith.constant` and `arith.cmpi`). Read from the IR as it is now, in
/// one pass on the C++ side (no per-op name lookups), where that list of
/// allowed operations is kept, once.
pub fn flow_shapes(graph: &RegionGraph<'_, '_>) -> Vec<Option<FlowShape>> {
    let blocks: Vec<_> = (0..graph.num_blocks())
        .map(|b| graph.block(BlockId::new(b)))
        .collect();
    facts::flow_shapes(&blocks)
}

/// Marks the kept branches that do not reconverge with a trusted
/// `#spmd.uniformity<uniform>`; true if a mark was added.
fn mark_kept_uniform<'c>(
    context: &'c Context,
    graph: &RegionGraph<'c, '_>,
    kept: &FastSet<BlockKey>,
) -> bool {
    if kept.is_empty() {
        return false;
    }
    let is_kept = |b: BlockId| kept.contains(&BlockKey::of(&graph.block(b)));
    let violations = reconverging::check_with_exits(graph.graph(), &is_kept, &|b| {
        prepare::is_function_exit(graph.terminator(b))
    });
    let uniform = facts::uniformity_attribute(context, UniformityMark::Uniform);
    let mut added = false;
    for violation in violations {
        let (reconverging::Violation::NotTwoWay { block, .. }
        | reconverging::Violation::NoPostDominatingSuccessor { block, .. }) = violation;
        let terminator = graph.terminator(block);
        if is_marked_uniform(terminator) {
            continue;
        }
        added = true;
        facts::set_attribute(terminator, names::UNIFORMITY_ATTR, uniform);
    }
    added
}

/// Puts `spmd.reconvergence.head <id>` before the terminator of every
/// structurized branch and `spmd.reconvergence.tail <id>` at the start of
/// its successor that post-dominates it. Branches without such a successor
/// (their paths end in different dead ends) and blocks that already carry
/// a head are skipped. Ids continue after the largest one in the region.
fn add_reconvergence_markers<'c>(
    region: RegionRef<'c, '_>,
    graph: &RegionGraph<'c, '_>,
    flow_shapes: &[Option<FlowShape>],
    structurized: &FastSet<BlockKey>,
    location: Location<'c>,
) -> usize {
    let pdom = {
        let cfg = graph.graph().clone();
        crate::support::in_background(cfg.num_blocks(), move || PostDominatorTree::build(&cfg))
    };
    let (mut next_id, has_head) = existing_heads(region, graph);
    let pdom = pdom.join();
    let mut added = 0;
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        let block = graph.block(b);
        let wanted =
            structurized.contains(&BlockKey::of(&block)) && flow_shapes[b.index()].is_none();
        if !wanted || has_head[b.index()] || !has_two_targets(graph.graph(), b) {
            continue;
        }
        let Some(&join) = graph
            .graph()
            .successors(b)
            .iter()
            .find(|&&s| pdom.post_dominates(s, b))
        else {
            continue;
        };
        // The branch and its join are in the snapshot, their terminators unreplaced.
        let terminator = graph.snapshot_terminator(b);
        edit::insert_reconvergence_marker(block, Some(terminator), true, next_id, location);
        edit::insert_reconvergence_marker(graph.block(join), None, false, next_id, location);
        next_id += 1;
        added += 1;
    }
    added
}

/// The next free marker id and which blocks already hold a head.
fn existing_heads(region: RegionRef<'_, '_>, graph: &RegionGraph<'_, '_>) -> (u64, Vec<bool>) {
    facts::reconvergence_markers(region, graph.num_blocks())
        .expect("the snapshot has the region's blocks")
}
