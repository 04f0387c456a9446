//! `--spmd-predicate`: lower a reconverging thread-level CFG to wave-level
//! code with explicit execution masks (the reconvergence paper, Listing 1).
//!
//! ## The idea
//!
//! In a reconverging CFG (Definition 1) every divergent branch `B` has two
//! successors and one of them, the *primary* `P`, post-dominates `B`. Every
//! lane that leaves `B` reaches `P` (or never returns), so the wave can
//! *park* the lanes that want `P`, run the other successor `S` with the
//! rest, and let the parked lanes *rejoin* when the wave reaches `P`:
//!
//! ```text
//!   A: c_a = ballot(A->D)             A ──────────┐      m_D: the rejoin mask
//!      m_D |= c_a; exec &= ~c_a       │           │      of D, one per rejoin
//!      br_zero D, B                   B ───────┐  │      point, carried in
//!   B: c_b = ballot(B->D)             │        │  │      !spmd.mask block
//!      m_D |= c_b; exec &= ~c_b       C        │  │      arguments
//!      br_zero D, C                   └──> D <─┴──┘
//!   C: br D                           D: exec |= m_D
//! ```
//!
//! This is Listing 1 with the seed's names. Per rejoin point `P` there is
//! one SSA variable `m_P` (the lanes parked for `P`): empty at the entry,
//! `m_P | c` after each branch parking for `P`, empty again after `P` adds
//! it back. Its block arguments are placed by the generic SSA construction
//! ([`ssa::solve`]), so several rejoin masks may be live
//! at once (nested regions) without any bookkeeping here.
//!
//! ## Why the wave always reaches the rejoin point in time
//!
//! All wave-level control flow is uniform: scalar (uniform) branches stay,
//! every divergent branch becomes `spmd.exec.br_zero ^P, ^S` (or `cf.br ^S`
//! when no guard is needed, see below). Let lanes wait for `P` (parked at
//! `B`). Every block the wave visits before `P` lies in the *region* of `B`:
//! reachable from `S` without passing `P`. A branch `B'` there parks for
//! its own primary `P'`, and both `P` and `P'` post-dominate `B'`, so one
//! post-dominates the other; if `P'` came strictly after `P`, the path
//! `B' -> P'` would avoid `P`, a contradiction. Hence the wave jumps to a
//! rejoin point no later than `P`, and a wave that returns has no parked
//! lanes left: the exit is the rejoin of everything, early returns
//! included (they have been routed to one exit by the producing pass).
//!
//! ## Loops
//!
//! A divergent loop exit is the same rule: the latch `L: cond_br c, X, H`
//! with `X` post-dominating parks the leaving lanes in `m_X` and goes round
//! with the rest; when none is left `br_zero` takes the exit. So `exec`
//! *is* the loop mask, and `m_X` accumulates across iterations (it is
//! carried through the header's block arguments). A rejoin point with a
//! back edge into it (a header that is the primary of a `continue`) needs no
//! split here: the back edge passes the pending `m_P`, and the reset after
//! the rejoin makes the edges that park nothing pass the empty mask, so the
//! `exec |= m_P` at the header is exact on every entry; the price is one
//! `spmd.mask.or` per iteration instead of a separate head block.
//!
//! ## Per-lane values of parked lanes
//!
//! A wave-level value is defined in the lanes that were active when it was
//! computed; in the others it is clobbered (poison in the executor). A lane
//! parked at `B` for `P` is off while the wave runs the *region* of `B`
//! (the blocks reachable from the other successor without passing `P`), so
//! it loses exactly the values the region defines: values a divergent loop
//! recomputes after the lane left it (temporal divergence), and the block
//! arguments of every block the wave enters, `P` included (the wave enters
//! `P` on one edge, not on the lane's edge `B -> P`). It only matters if
//! the lane can still *observe* the value after rejoining, so the pass keeps
//!
//! * every block argument of `P` that is observed ([`live`]: used by
//!   something other than dead arguments and dead arithmetic), and
//! * every value live-in at `P` (liveness on the thread-level graph,
//!   [`live`]) whose definition lies in the region of some branch parking
//!   for `P`. (Such a definition strictly dominates `P`, hence every
//!   parking branch, and lies on a cycle through the branch.)
//!
//! A kept value is *parked* like the lanes: at every branch parking for `P`,
//! `pv = spmd.mask.select c, v, pv` (computed in every lane, so lanes parked
//! earlier keep their copy), and at `P`, after the rejoin,
//! `v' = spmd.mask.select m_P, pv, v_arriving`. The copy is made at *every*
//! parking branch, not only at those whose region clobbers `v`, because the
//! merge takes `pv` for every lane of `m_P`. Then `v` has several
//! definitions (its own and the merges) and every use is repaired to the
//! one reaching it on the wave-level CFG: uses in the defining block follow
//! the definition, uses in a block holding a merge follow the merge (merges
//! come first), everything else, the parking copies included, reads the
//! value at the start of its block (SSA construction, which adds block
//! arguments; successor operands are remembered by slot and position, since
//! appending operands to one successor shifts the others).
//!
//! Cheaper cases for arguments of `P`:
//!
//! * a parking edge that passes `ub.poison` needs no copy (the lane may
//!   rejoin with any value), and if every parking edge does, no merge;
//! * if the parking edges pass one single value `u` (besides poison) whose
//!   definition strictly dominates `P` outside every parking region, the
//!   parked lanes still hold `u` at `P`: the merge is
//!   `spmd.mask.select m_P, u, arg`, with no copies at all (for example a
//!   value computed before the branch, outside any loop through it).
//!
//! `arith.constant` and `ub.poison` are first moved to the entry block:
//! they have no operands and no effects, and the entry block is in no
//! region, so they never need keeping.
//!
//! ## Skipping empty blocks
//!
//! With `skip-empty-blocks=true` (default) every divergent branch ends in
//! `spmd.exec.br_zero`, like `s_cbranch_execz`. With `false` the wave falls
//! through to `S` with an empty exec, except where that is unsafe: when
//! the region of `B` has a cycle (an empty wave would never leave it), a
//! scalar branch (its condition has no active lane to come from) or a dead
//! end.
//!
//! ## Lane branches
//!
//! Exec masks are the machine's model on AMDGPU; an NVIDIA warp diverges
//! and reconverges by itself, and simulating that with masks costs a
//! ballot, an `and` and a `select` per exit and per iteration where the
//! hardware spends one branch. With `lane-branches=true` a divergent
//! branch `B` stays a per-lane branch, marked `#spmd.uniformity<divergent>`,
//! when nothing in its region needs the lanes together
//! ([`collectives::needs_converged_lanes`]: no collective, barrier,
//! `activemask`, call or inline assembly; the region is what the wave would
//! run while lanes wait, so a loop exit's region is its loop) and the
//! region holds no parking branch and no rejoin point of one
//! ([`lanes::plan_lanes`]). Inside the region every lane runs its own
//! thread-level path, its values flow through ordinary block arguments,
//! and all of them meet again at the rejoin point `P` (the branch's
//! immediate post-dominator); exec is not written there. A lane branch
//! that was a `spmd.flow_br` becomes `cf.cond_br`.
//!
//! Outside every parking region exec is every live lane (lanes leave exec
//! only by parking, and a wave between a parking branch and its rejoin
//! point runs only blocks of the branch's region), so a lane branch there
//! needs nothing more. Inside a parking region exec may be partial, and a
//! lane that is not active must not run the region on a condition it never
//! computed, so the ways in are gated: the branch's condition becomes
//! `spmd.mask.select exec, c, (towards P)`, and an edge from elsewhere into
//! the region (a loop's entry, when the branch is its exit) gets a gate
//! block, `cf.cond_br (exec ? true : false), target, P` with `ub.poison`
//! for `P`'s arguments (block arguments repair the dominance the new edge
//! breaks). A gate is a lane branch too. Inside a lane region every
//! present lane is active, so nested lane branches need no gate.
//!
//! Independently of the option, the rejoin at a point `P` that no parking
//! region covers carries `spmd.exec_full`: after it every live lane is
//! active again (the wave executor checks it), which lets the NVVM lowering
//! drop lane guards and votes from there on.
//!
//! ## Invariants of the output
//!
//! * No `spmd.flow_br`; terminators are `spmd.exec.br_zero`, `cf.br`,
//!   returns, scalar branches marked `#spmd.uniformity<uniform>`, or (with
//!   `lane-branches=true`) lane branches marked
//!   `#spmd.uniformity<divergent>`, only where exec is every live lane.
//! * Every `spmd.exec.write` made here carries `spmd.park = N` (a branch
//!   parking lanes for rejoin point `N`) or `spmd.rejoin = N` (rejoin point
//!   `N` adding them back): the wave executor checks at each rejoin that
//!   every lane that diverged is active again.
//! * `spmd.reconvergence.head/tail` markers are dropped (their heads no
//!   longer end in divergent branches). Convergence tokens stay here; the
//!   pass (`crate::passes::predicate`) then removes the ones nothing uses,
//!   which wave-level code does not need.
//!
//! * Every lowered function carries `spmd.wave_size` (option `wave-size`,
//!   a power of two up to 64); the wave executor refuses larger waves.
//!
//! Edge cases: a divergent branch whose two slots target the same block
//! becomes `cf.br` with `arith.select`ed operands; a divergent branch one of
//! whose successors never returns parks for the one that does (a wave that
//! enters a dead end takes parked lanes with it, as on hardware); a
//! divergent self loop `B: cond_br c, B, X` parks for `X`, never for `B`
//! itself (post-dominance is reflexive, so the Definition 1 check accepts
//! the self edge too, but it always accepts `X` as well; see
//! [`reconverging`](crate::analysis::reconverging)).

pub(crate) mod carriers;
pub(crate) mod lanes;
pub(crate) mod live;
mod lowerer;
mod masks;
mod parking;
pub(crate) mod plan;
mod repair;

use lowerer::Lowerer;

use crate::ir::{collectives, names};
use crate::transforms::flow::ssa;
use crate::transforms::{
    constants,
    prepare::{self, op_name},
};
use crate::{
    analysis::{
        cfg::{BlockId, DominatorTree, Graph},
        reconverging::{check_with_exits, ExitPostDominance, Violation},
        region_uniformity::{RegionUniformity, UniformityOptions},
    },
    ir::{
        names::UNIFORMITY_ATTR,
        region_graph::{RegionGraph, RegionGraphError},
    },
};
use crate::{
    ir::edit,
    transforms::flow::ssa::{
        rewrite::{Def, IrVariable},
        solve::Variable,
        values::enclosing_block_in,
    },
};
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, OperationMutLike},
        r#type::IntegerType,
        Attribute, BlockRef, Identifier, Location, OperationRef, RegionLike, RegionRef, Type,
        Value, ValueLike,
    },
    Context,
};
use plan::{plan_branch, DivergentBranch, PlanError};
use std::collections::{BTreeMap, HashMap};

/// Discardable attribute on the `spmd.exec.write` of a parking branch.
pub(crate) const PARK_ATTR: &str = "spmd.park";
/// Discardable attribute on the `spmd.exec.write` of a rejoin point.
pub(crate) const REJOIN_ATTR: &str = "spmd.rejoin";
pub(crate) use crate::ir::names::EXEC_FULL_ATTR;
pub use crate::ir::names::WAVE_SIZE_ATTR;

/// Options of [`predicate_function`] (the pass options of
/// `--spmd-predicate`).
#[derive(Clone, Debug)]
pub struct PredicateOptions {
    /// Guard every parking branch with `spmd.exec.br_zero`, so the wave
    /// jumps over the other successor when no lane is left for it (like
    /// `s_cbranch_execz`); when false the wave falls through with an empty
    /// exec wherever that is safe (no cycle and no uniform branch before
    /// the rejoin point). Default true (`skip-empty-blocks`).
    pub skip_empty_blocks: bool,
    /// Lanes per wave, recorded on the function as
    /// [`WAVE_SIZE_ATTR`]: a power of two up to 64, the width of an exec
    /// mask in the wave executor (32 and 64 are the hardware ones).
    pub wave_size: u32,
    /// How divergence is computed (extra sources, argument defaults).
    pub uniformity: UniformityOptions,
    /// Keep a divergent branch as a per-lane branch where nothing in its
    /// region needs the lanes together (a collective, a barrier, a call that
    /// may reach one),
    /// for targets whose hardware diverges and reconverges by itself
    /// (NVIDIA). Default false (`lane-branches`): every divergent branch
    /// becomes exec-mask code, as on AMDGPU.
    pub lane_branches: bool,
}

/// The defaults of `--spmd-predicate` (`SpmdPasses.td`).
impl Default for PredicateOptions {
    fn default() -> Self {
        use crate::ir::ods::spmd_predicate as ods;
        Self {
            skip_empty_blocks: ods::SKIP_EMPTY_BLOCKS,
            wave_size: ods::WAVE_SIZE,
            uniformity: UniformityOptions::default(),
            lane_branches: ods::LANE_BRANCHES,
        }
    }
}

/// Wave sizes the lowering supports: powers of two up to 64, the width of
/// an exec mask in the wave executor (32 and 64 are the hardware ones).
pub(crate) fn valid_wave_size(size: u32) -> bool {
    size.is_power_of_two() && size <= 64
}

/// What [`predicate_function`] did to one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PredicateStats {
    /// Divergent branches lowered to exec-mask updates.
    pub divergent_branches: usize,
    /// Rejoin points (post-dominating successors) given a mask.
    pub rejoin_points: usize,
    /// Parking branches guarded with `spmd.exec.br_zero`.
    pub guarded: usize,
    /// Per-lane values kept for parked lanes (`spmd.mask.select` copies of
    /// values that lanes waiting at a rejoin point still need).
    pub parked_values: usize,
    /// Mask block arguments carried as integers across `llvm` branches.
    pub mask_carriers: usize,
    /// Divergent branches kept as per-lane branches (option
    /// `lane-branches`), gates included.
    pub lane_branches: usize,
    /// Gate blocks inserted on edges into lane regions from parking
    /// regions.
    pub lane_gates: usize,
}

/// Why a function cannot be lowered.
#[derive(Debug)]
pub enum PredicateError<'c> {
    /// The region cannot be snapshotted (e.g. a block without terminator).
    Region(RegionGraphError<'c>),
    /// A divergent branch breaks Definition 1 (or has no rejoin point).
    NotReconverging {
        /// The divergent branch.
        location: Location<'c>,
        /// The name of its block (`^bb3`).
        block: String,
        /// What is wrong with it.
        reason: NotReconvergingReason,
    },
    /// The input already is wave-level code.
    AlreadyWaveLevel {
        /// The first `spmd.exec.*` operation found.
        location: Location<'c>,
    },
    /// A terminator the lowering cannot rewrite or reason about.
    UnsupportedTerminator {
        /// The terminator.
        location: Location<'c>,
        /// Its operation name.
        name: String,
        /// Why it is rejected (the end of the diagnostic).
        reason: &'static str,
    },
}

/// Why a divergent branch is not reconverging ([`PredicateError::NotReconverging`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotReconvergingReason {
    /// It has this many successors, not two (Definition 1).
    NotTwoWay(usize),
    /// Neither successor post-dominates it (Definition 1).
    NoPostDominatingSuccessor,
    /// Neither successor post-dominates it on every terminating path, so
    /// there is no rejoin point to park its lanes for.
    NoRejoinPoint,
    /// A per-lane branch without a post-dominating successor inside a
    /// region where exec may be partial (a parking region grew over it).
    PartialExec,
}

impl std::fmt::Display for NotReconvergingReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotTwoWay(successors) => write!(f, "has {successors} successors, not two"),
            Self::NoPostDominatingSuccessor => write!(f, "has no post-dominating successor"),
            Self::NoRejoinPoint => {
                write!(f, "has no successor that post-dominates it on every path")
            }
            Self::PartialExec => write!(
                f,
                "has no post-dominating successor and lies where exec may be partial"
            ),
        }
    }
}

impl std::fmt::Display for PredicateError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Region(error) => write!(f, "{error}"),
            Self::NotReconverging { block, reason, .. } => write!(
                f,
                "divergent branch in {block} {reason}: the CFG is not reconverging (Definition 1); run --spmd-reconverge or --spmd-structurize first"
            ),
            Self::AlreadyWaveLevel { .. } => {
                write!(
                    f,
                    "the function already manipulates exec masks (it is wave-level code)"
                )
            }
            Self::UnsupportedTerminator { name, reason, .. } => {
                write!(f, "unsupported terminator '{name}': {reason}")
            }
        }
    }
}

impl std::error::Error for PredicateError<'_> {}

impl<'c> PredicateError<'c> {
    /// Where to report the error.
    pub fn location(&self, fallback: Location<'c>) -> Location<'c> {
        match self {
            Self::Region(RegionGraphError::MissingTerminator { location, .. }) => *location,
            Self::Region(RegionGraphError::EmptyRegion) => fallback,
            Self::NotReconverging { location, .. }
            | Self::AlreadyWaveLevel { location }
            | Self::UnsupportedTerminator { location, .. } => *location,
        }
    }
}

/// The lowering of one divergent branch, as decided on the graph.
enum Lowering {
    Park(DivergentBranch),
    /// A per-lane branch without a post-dominating successor (option
    /// `lane-branches`, [`lanes::free_lane_branches`]): its lanes meet at
    /// its immediate post-dominator, where exec is every live lane.
    FreeLane(BlockId),
    /// Stays a per-lane branch (option `lane-branches`); `gated`: its
    /// condition becomes `exec ? c : (towards the rejoin point)`.
    Lane {
        branch: DivergentBranch,
        gated: bool,
    },
    /// Both slots go to the same block: a select of the operands.
    SameTarget(BlockId),
}

/// Lowers the function body `region` of `function` in place.
pub fn predicate_function<'c, 'a>(
    context: &'c Context,
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &PredicateOptions,
) -> Result<PredicateStats, PredicateError<'c>> {
    lower_divergent_switches(context, function, region, options)?;
    let mut gates = Vec::new();
    let mut stats = PredicateStats::default();
    for round in 0..GATE_ROUNDS {
        hoist_constants(region);
        let uniformity = RegionUniformity::compute(function, region, &options.uniformity)
            .map_err(PredicateError::Region)?;
        let graph = uniformity.graph();
        reject_wave_level(graph)?;
        reject_terminators(graph, &uniformity)?;
        let divergent: Vec<bool> = (0..graph.num_blocks())
            .map(BlockId::new)
            .map(|b| {
                let terminator = graph.terminator(b);
                graph.graph().successors(b).len() >= 2
                    && (uniformity.info().is_divergent_branch(b)
                        || op_name(terminator) == names::FLOW_BR
                        || gates.contains(&terminator))
            })
            .collect();
        let converged = collectives::blocks_needing_converged_lanes(graph);
        let lanes = options
            .lane_branches
            .then(|| crate::ir::facts::lane_shared_work(function));
        let free = free_non_reconverging(graph, &divergent, &converged, lanes);
        let planned: Vec<bool> = divergent
            .iter()
            .zip(&free)
            .map(|(&d, f)| d && f.is_none())
            .collect();
        check_reconverging(graph, &planned)?;
        let lowerings = plan_function(graph, &planned, options.skip_empty_blocks)?;
        let lane_options = LaneOptions {
            enabled: options.lane_branches,
            gates: &gates,
            allow_gates: round + 1 < GATE_ROUNDS,
        };
        let (mut lowerings, needed, covered) =
            choose_lane_branches(graph, lowerings, &converged, lane_options);
        if !needed.is_empty() {
            gates.extend(insert_gates(context, region, graph, &needed));
            repair_dominance(context, region, function.location())?;
            continue;
        }
        for (b, region) in free.iter().enumerate() {
            let Some(region) = region else {
                continue;
            };
            let b = BlockId::new(b);
            // The parking regions may have grown past what the choice of
            // free branches assumed: then the branch needs reconverging.
            if covered[b.index()] || region.iter().zip(&covered).any(|(&r, &c)| r && c) {
                return Err(not_reconverging(
                    graph,
                    b,
                    NotReconvergingReason::PartialExec,
                ));
            }
            lowerings.push(Lowering::FreeLane(b));
        }
        Lowerer::new(context, graph, function.location()).run(&lowerings, &divergent, &mut stats);
        break;
    }
    stats.lane_gates = gates.len();
    let mask = crate::ir::facts::mask_type(context);
    stats.mask_carriers =
        carriers::carry_masks_across_llvm_branches(context, region, mask, options.wave_size);
    let size = IntegerAttribute::new(
        IntegerType::new(context, 64).into(),
        i64::from(options.wave_size),
    );
    crate::ir::facts::set_attribute(function, crate::ir::names::WAVE_SIZE_ATTR, size.into());
    Ok(stats)
}

/// Divergent `cf.switch`es and `llvm.switch`es (a reconverging one has two slots) become
/// two-way branches on `arith.cmpi`, so that every divergent branch has an
/// `i1` condition.
fn lower_divergent_switches<'c>(
    context: &'c Context,
    function: OperationRef<'c, '_>,
    region: RegionRef<'c, '_>,
    options: &PredicateOptions,
) -> Result<(), PredicateError<'c>> {
    let uniformity = RegionUniformity::compute(function, region, &options.uniformity)
        .map_err(PredicateError::Region)?;
    let graph = uniformity.graph();
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        let terminator = graph.terminator(b);
        if prepare::is_switch(terminator) && uniformity.info().is_divergent_branch(b) {
            prepare::lower_switch(context, region, graph.block(b));
        }
    }
    Ok(())
}

/// Moves `arith.constant` and `ub.poison` to the start of the entry block,
/// in region order ([`constants::hoist_constants`]): a value defined in the
/// entry block is never recomputed while lanes are parked, so it never
/// needs to be kept for them.
fn hoist_constants(region: RegionRef<'_, '_>) {
    let Some(entry) = region.first_block() else {
        return;
    };
    let later = edit::blocks(region).into_iter().skip(1);
    constants::hoist_constants(
        entry,
        later,
        constants::Hoisting {
            placement: constants::Placement::InRegionOrder,
            merge: false,
        },
    );
}

/// Refuses terminators the lowering cannot handle: a divergent branch
/// must implement `BranchOpInterface` (its successor operands are
/// rewritten and `spmd.exec.br_zero` replaces it), and when anything
/// diverges every exit must be a known return or dead end (a wave that
/// leaves through an exit must not strand parked lanes).
fn reject_terminators<'c>(
    graph: &RegionGraph<'c, '_>,
    uniformity: &RegionUniformity<'c, '_>,
) -> Result<(), PredicateError<'c>> {
    let mut any_divergent = false;
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        if graph.graph().successors(b).len() < 2 || !uniformity.info().is_divergent_branch(b) {
            continue;
        }
        any_divergent = true;
        let terminator = graph.terminator(b);
        if !crate::ir::query::is_branch(terminator) {
            return Err(PredicateError::UnsupportedTerminator {
                location: terminator.location(),
                name: op_name(terminator),
                reason: "a divergent branch must implement BranchOpInterface to be lowered to exec-mask code",
            });
        }
    }
    match prepare::unknown_exit(graph) {
        Some(b) if any_divergent => {
            let terminator = graph.terminator(b);
            Err(PredicateError::UnsupportedTerminator {
                location: terminator.location(),
                name: op_name(terminator),
                reason: prepare::UNKNOWN_EXIT_REASON,
            })
        }
        _ => Ok(()),
    }
}

/// Refuses input that already contains exec-mask code.
fn reject_wave_level<'c>(graph: &RegionGraph<'c, '_>) -> Result<(), PredicateError<'c>> {
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        for op in edit::operations(graph.block(b)) {
            if op_name(op).starts_with(names::EXEC_PREFIX) {
                return Err(PredicateError::AlreadyWaveLevel {
                    location: op.location(),
                });
            }
        }
    }
    Ok(())
}

/// Definition 1 on the divergent branches; the first violation is an error
/// that names the branch and the passes that fix it.
fn check_reconverging<'c>(
    graph: &RegionGraph<'c, '_>,
    divergent: &[bool],
) -> Result<(), PredicateError<'c>> {
    let violations = check_with_exits(graph.graph(), &|b| divergent[b.index()], &|b| {
        prepare::is_function_exit(graph.terminator(b))
    });
    let Some(first) = violations.first() else {
        return Ok(());
    };
    let (block, reason) = match first {
        Violation::NotTwoWay { block, successors } => {
            (*block, NotReconvergingReason::NotTwoWay(*successors))
        }
        Violation::NoPostDominatingSuccessor { block, .. } => {
            (*block, NotReconvergingReason::NoPostDominatingSuccessor)
        }
    };
    Err(not_reconverging(graph, block, reason))
}

fn not_reconverging<'c>(
    graph: &RegionGraph<'c, '_>,
    block: BlockId,
    reason: NotReconvergingReason,
) -> PredicateError<'c> {
    PredicateError::NotReconverging {
        location: graph.terminator_location(block),
        block: graph.name(block),
        reason,
    }
}

/// Plans every divergent branch on the graph.
fn plan_function<'c>(
    graph: &RegionGraph<'c, '_>,
    divergent: &[bool],
    skip: bool,
) -> Result<Vec<Lowering>, PredicateError<'c>> {
    let g = graph.graph();
    // The rejoin point post-dominates on the paths that end the thread
    // normally: a successor that only reaches a dead end (`llvm.unreachable`,
    // a trap) imposes nothing, as in Definition 1.
    let post_dominators =
        ExitPostDominance::new(g, &|b| prepare::is_function_exit(graph.terminator(b)));
    let uniform_branch = |b: BlockId| g.successors(b).len() >= 2 && !divergent[b.index()];
    let mut lowerings = Vec::new();
    for b in (0..graph.num_blocks())
        .map(BlockId::new)
        .filter(|b| divergent[b.index()])
    {
        let successors = g.successors(b);
        if successors[0] == successors[1] {
            lowerings.push(Lowering::SameTarget(b));
            continue;
        }
        match plan_branch(g, &post_dominators, b, skip, &uniform_branch) {
            Ok(branch) => lowerings.push(Lowering::Park(branch)),
            Err(PlanError::NoRejoinPoint(block)) => {
                return Err(not_reconverging(
                    graph,
                    block,
                    NotReconvergingReason::NoRejoinPoint,
                ))
            }
        }
    }
    Ok(lowerings)
}

/// With `lane_branches`, turns the parking branches [`lanes::plan_lanes`]
/// chooses into [`Lowering::Lane`]; the edges that need a gate block
/// (empty without the option).
fn choose_lane_branches(
    graph: &RegionGraph<'_, '_>,
    lowerings: Vec<Lowering>,
    converged: &[bool],
    options: LaneOptions<'_, '_, '_>,
) -> (Vec<Lowering>, Vec<lanes::Gate>, Vec<bool>) {
    let g = graph.graph();
    if !options.enabled {
        return (lowerings, Vec::new(), vec![false; g.num_blocks()]);
    }
    let block_flags = |flag: &dyn Fn(BlockId) -> bool| -> Vec<bool> {
        (0..g.num_blocks()).map(BlockId::new).map(flag).collect()
    };
    let branches: Vec<Option<&DivergentBranch>> = lowerings
        .iter()
        .map(|lowering| match lowering {
            Lowering::Park(branch) => Some(branch),
            _ => None,
        })
        .collect();
    let same_target: Vec<BlockId> = lowerings
        .iter()
        .filter_map(|lowering| match lowering {
            Lowering::SameTarget(b) => Some(*b),
            _ => None,
        })
        .collect();
    let gate = block_flags(&|b| options.gates.contains(&graph.terminator(b)));
    let plan = lanes::plan_lanes(
        g,
        &branches,
        &same_target,
        converged,
        &gate,
        options.allow_gates,
    );
    let lowerings = lowerings
        .into_iter()
        .zip(plan.lane.iter().zip(&plan.gated))
        .map(|(lowering, (&lane, &gated))| match lowering {
            Lowering::Park(branch) if lane => Lowering::Lane { branch, gated },
            other => other,
        })
        .collect();
    (lowerings, plan.gates, plan.covered)
}

/// With lane branches (`lanes` is `Some(shared_work_ok)`), the divergent
/// branches that break Definition 1 but may stay per-lane branches as they
/// are ([`lanes::free_lane_branches`]: `--spmd-reconverge{lane-branches=true}`
/// leaves them alone).
fn free_non_reconverging(
    graph: &RegionGraph<'_, '_>,
    divergent: &[bool],
    converged: &[bool],
    lanes: Option<bool>,
) -> Vec<Option<Vec<bool>>> {
    let g = graph.graph();
    let Some(shared_work_ok) = lanes else {
        return vec![None; g.num_blocks()];
    };
    let post_dominators =
        ExitPostDominance::new(g, &|b| prepare::is_function_exit(graph.terminator(b)));
    let reconverges = |b: BlockId| {
        g.successors(b)
            .iter()
            .any(|&s| s != b && post_dominators.post_dominates(g, s, b))
    };
    lanes::free_lane_branches(g, divergent, converged, shared_work_ok)
        .into_iter()
        .enumerate()
        .map(|(b, region)| region.filter(|_| !reconverges(BlockId::new(b))))
        .collect()
}

/// What [`choose_lane_branches`] needs besides the graph.
#[derive(Clone, Copy)]
struct LaneOptions<'r, 'c, 'a> {
    enabled: bool,
    /// The terminators of the gate blocks inserted so far.
    gates: &'r [OperationRef<'c, 'a>],
    /// Whether new gates may be asked for (else such branches park).
    allow_gates: bool,
}

/// Routes every value whose definition stopped dominating a use (a gate's
/// edge to a rejoin point bypasses the region that defined it) through
/// block arguments, with `ub.poison` on the gate's edge: lanes that take
/// it are not active, and lose what the region would have defined.
fn repair_dominance<'c>(
    context: &'c Context,
    region: RegionRef<'c, '_>,
    location: Location<'c>,
) -> Result<(), PredicateError<'c>> {
    let graph = RegionGraph::snapshot(region).map_err(PredicateError::Region)?;
    let dominators = DominatorTree::build(graph.graph());
    let lost = ssa::values::LostDominance {
        definers: (0..graph.num_blocks()).map(BlockId::new).collect(),
        use_blocks: Vec::new(),
    };
    ssa::values::repair(context, &graph, &dominators, &lost, location);
    Ok(())
}

/// Rounds of gate insertion before lane branches that would still need a
/// gate park instead. Usually one round of gates suffices: a gate leads
/// only into the region it guards, whose other entries are gated in the
/// same round; a gate's edge to its rejoin point may need a gate of its
/// own when that block lies in another lane region.
const GATE_ROUNDS: usize = 6;

/// Inserts a gate block on each edge of `gates` (a constant-`true` branch
/// to the old target and to the rejoin point; the lowering turns its
/// condition into the lane's exec bit) and returns the new terminators.
/// The gate is not marked divergent for the uniformity analysis: at thread
/// level it always takes the old edge, so it adds no divergence (a mark
/// would make the values joined at the rejoin point divergent, and could
/// turn uniform branches after it into divergent ones).
fn insert_gates<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    gates: &[lanes::Gate],
) -> Vec<OperationRef<'c, 'a>> {
    gates
        .iter()
        .filter_map(|gate| {
            let block = prepare::add_never_taken_exit(
                context,
                region,
                graph.block(gate.from),
                gate.slot,
                graph.block(gate.rejoin),
            )?;
            block.terminator()
        })
        .collect()
}

/// The first operation of `block` that is not a reconvergence tail marker
/// or a convergence token.
fn first_non_marker<'c, 'a>(block: BlockRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    edit::operations(block).into_iter().find(|op| {
        let name = op_name(*op);
        name != names::RECONVERGENCE_TAIL && !name.starts_with(names::CONVERGENCE_PREFIX)
    })
}

/// An operand of an operation, stable across [`ssa::rewrite::apply`]: that
/// appends successor operands to branches, which shifts the indices of
/// every later successor segment, so a successor operand is remembered by
/// its slot and its position in the slot's segment.
#[derive(Clone, Copy)]
enum OperandSite {
    Plain(usize),
    Successor { slot: usize, position: usize },
}

impl OperandSite {
    fn of(user: OperationRef<'_, '_>, operand: usize) -> Self {
        for slot in 0..user.successor_count() {
            let (begin, count) = successor_range(user, slot);
            if (begin..begin + count).contains(&operand) {
                return Self::Successor {
                    slot,
                    position: operand - begin,
                };
            }
        }
        Self::Plain(operand)
    }

    fn index(self, user: OperationRef<'_, '_>) -> usize {
        match self {
            Self::Plain(operand) => operand,
            Self::Successor { slot, position } => successor_range(user, slot).0 + position,
        }
    }
}

/// `(first operand, count)` of the operands `user` forwards to `slot`
/// (`(0, 0)` if unknown).
fn successor_range(user: OperationRef<'_, '_>, slot: usize) -> (usize, usize) {
    crate::ir::query::successor_operand_range(user, slot).unwrap_or((0, 0))
}

/// Operations whose results are all the operands influence: a use by one
/// is observed only through its results ([`live::Use::Through`]).
fn is_pure(op: OperationRef<'_, '_>) -> bool {
    op_name(op).starts_with(names::ARITH_PREFIX) && op.region_count() == 0
}

/// True if `value` is the result of `ub.poison`.
fn is_poison(value: Value<'_, '_>) -> bool {
    edit::defining_op(value).is_some_and(|op| op_name(op) == names::UB_POISON)
}

/// The block defining `value` (argument owner or parent of the op).
fn value_block<'c, 'a>(value: Value<'c, 'a>) -> BlockRef<'c, 'a> {
    crate::ir::query::defining_block(value).expect("a value of the region is defined in a block")
}

/// The first result of `op`.
fn value<'c, 'a>(op: OperationRef<'c, 'a>) -> Value<'c, 'a> {
    op.result(0).expect("op has a result").into()
}

/// A generic operation without attributes.
fn build<'c>(
    context: &'c Context,
    name: &str,
    operands: &[Value<'c, '_>],
    results: &[Type<'c>],
    location: Location<'c>,
) -> melior::ir::Operation<'c> {
    let _ = context;
    OperationBuilder::new(name, location)
        .add_operands(operands)
        .add_results(results)
        .build()
        .unwrap_or_else(|_| panic!("valid {name}"))
}
