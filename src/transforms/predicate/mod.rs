//! `--spmd-predicate`: lower a reconverging thread-level CFG to wave-level
//! code with explicit execution masks (seed 004, Listing 1).
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
//! ([`ssa_repair`](super::ssa_repair)), so several rejoin masks may be live
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
//! ## Invariants of the output
//!
//! * No `spmd.flow_br`, no divergent branch: terminators are
//!   `spmd.exec.br_zero`, `cf.br`, returns, or scalar branches marked
//!   `#spmd.uniformity<uniform>`.
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

pub mod carriers;
pub mod live;
pub mod plan;

use super::{
    ir_edit,
    ssa_apply::{self, Def, IrVariable},
    ssa_repair::Variable,
    value_repair::enclosing_block_in,
};
use crate::analysis::{
    cfg::{BlockId, DominatorTree, Graph},
    reconverging::{check_with_exits, ExitPostDominance, Violation},
    region_graph::{RegionGraph, RegionGraphError},
    region_uniformity::{RegionUniformity, UniformityOptions, UNIFORMITY_ATTR},
};
use crate::transforms::prepare::{self, op_name};
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut},
        r#type::IntegerType,
        Attribute, BlockRef, Identifier, Location, OperationRef, RegionLike, RegionRef, Type, Value, ValueLike,
    },
    Context,
};
use plan::{plan_branch, DivergentBranch, PlanError};
use std::collections::{BTreeMap, HashMap};

/// Discardable attribute on the `spmd.exec.write` of a parking branch.
pub const PARK_ATTR: &str = "spmd.park";
/// Discardable attribute on the `spmd.exec.write` of a rejoin point.
pub const REJOIN_ATTR: &str = "spmd.rejoin";

/// Options of the pass.
#[derive(Clone, Debug)]
pub struct PredicateOptions {
    pub skip_empty_blocks: bool,
    /// Lanes per wave, recorded on the function as
    /// [`WAVE_SIZE_ATTR`](crate::exec::WAVE_SIZE_ATTR); see
    /// [`valid_wave_size`].
    pub wave_size: u32,
    pub uniformity: UniformityOptions,
}

impl Default for PredicateOptions {
    fn default() -> Self {
        Self {
            skip_empty_blocks: true,
            wave_size: 32,
            uniformity: UniformityOptions::default(),
        }
    }
}

/// Wave sizes the lowering supports: powers of two up to 64, the width of
/// an exec mask in the wave executor (32 and 64 are the hardware ones).
pub fn valid_wave_size(size: u32) -> bool {
    size.is_power_of_two() && size <= 64
}

/// What the lowering did to one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PredicateStats {
    pub divergent_branches: usize,
    pub rejoin_points: usize,
    pub guarded: usize,
    pub parked_values: usize,
    /// Mask block arguments carried as integers across `llvm` branches
    /// ([`carriers`]).
    pub mask_carriers: usize,
}

/// Why a function cannot be lowered.
#[derive(Debug)]
pub enum PredicateError<'c> {
    Region(RegionGraphError<'c>),
    /// A divergent branch breaks Definition 1 (or has no rejoin point).
    NotReconverging {
        location: Location<'c>,
        message: String,
    },
    /// The input already is wave-level code.
    AlreadyWaveLevel {
        location: Location<'c>,
    },
    /// A terminator the lowering cannot rewrite or reason about.
    UnsupportedTerminator {
        location: Location<'c>,
        name: String,
        reason: &'static str,
    },
}

impl std::fmt::Display for PredicateError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Region(error) => write!(f, "{error}"),
            Self::NotReconverging { message, .. } => write!(f, "{message}"),
            Self::AlreadyWaveLevel { .. } => {
                write!(f, "the function already manipulates exec masks (it is wave-level code)")
            }
            Self::UnsupportedTerminator { name, reason, .. } => write!(f, "unsupported terminator '{name}': {reason}"),
        }
    }
}

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
    hoist_constants(region);
    let uniformity = RegionUniformity::compute(function, region, &options.uniformity).map_err(PredicateError::Region)?;
    let graph = uniformity.graph();
    reject_wave_level(graph)?;
    reject_terminators(graph, &uniformity)?;
    let divergent: Vec<bool> = (0..graph.num_blocks())
        .map(BlockId::new)
        .map(|b| {
            graph.graph().successors(b).len() >= 2
                && (uniformity.info().is_divergent_branch(b) || op_name(graph.terminator(b)) == "spmd.flow_br")
        })
        .collect();
    check_reconverging(graph, &divergent)?;
    let lowerings = plan_function(graph, &divergent, options.skip_empty_blocks)?;
    let mut stats = PredicateStats::default();
    Lowerer::new(context, graph, function.location()).run(&lowerings, &divergent, &mut stats);
    let mask = Type::parse(context, "!spmd.mask").expect("spmd dialect loaded");
    stats.mask_carriers = carriers::carry_masks_across_llvm_branches(context, region, mask, options.wave_size);
    let size = IntegerAttribute::new(IntegerType::new(context, 64).into(), i64::from(options.wave_size));
    // SAFETY: the function is live; only a discardable attribute changes.
    let mut function_mut = unsafe { OperationRefMut::from_raw(function.to_raw()) };
    function_mut.set_discardable_attribute(crate::exec::WAVE_SIZE_ATTR, size.into());
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
    let uniformity = RegionUniformity::compute(function, region, &options.uniformity).map_err(PredicateError::Region)?;
    let graph = uniformity.graph();
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        let terminator = graph.terminator(b);
        if prepare::is_switch(terminator) && uniformity.info().is_divergent_branch(b) {
            prepare::lower_switch(context, region, graph.block(b));
        }
    }
    Ok(())
}

/// Moves `arith.constant` and `ub.poison` to the start of the entry block.
/// They have no operands and no effects, so this is always valid; and a
/// value defined in the entry block is never recomputed while lanes are
/// parked, so it never needs to be kept for them.
fn hoist_constants(region: RegionRef<'_, '_>) {
    let Some(entry) = region.first_block() else { return };
    let Some(anchor) = entry.first_operation() else { return };
    let mut block = entry.next_in_region();
    while let Some(b) = block {
        for op in ir_edit::operations(b) {
            let name = op_name(op);
            if (name == "arith.constant" || name == "ub.poison") && op.operand_count() == 0 && op.region_count() == 0 {
                ir_edit::move_before(op, anchor);
            }
        }
        block = b.next_in_region();
    }
}

/// Refuses terminators the lowering cannot handle: a divergent branch
/// must implement `BranchOpInterface` (its successor operands are
/// rewritten and `spmd.exec.br_zero` replaces it), and when anything
/// diverges every exit must be a known return or dead end (a wave that
/// leaves through an exit must not strand parked lanes).
fn reject_terminators<'c>(graph: &RegionGraph<'c, '_>, uniformity: &RegionUniformity<'c, '_>) -> Result<(), PredicateError<'c>> {
    let mut any_divergent = false;
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        if graph.graph().successors(b).len() < 2 || !uniformity.info().is_divergent_branch(b) {
            continue;
        }
        any_divergent = true;
        let terminator = graph.terminator(b);
        // SAFETY: plain interface query on a live operation.
        if !unsafe { crate::ffi::spmdIsBranch(terminator.to_raw()) } {
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
        for op in ir_edit::operations(graph.block(b)) {
            if op_name(op).starts_with("spmd.exec.") {
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
fn check_reconverging<'c>(graph: &RegionGraph<'c, '_>, divergent: &[bool]) -> Result<(), PredicateError<'c>> {
    let violations = check_with_exits(graph.graph(), &|b| divergent[b.index()], &|b| {
        prepare::is_function_exit(graph.terminator(b))
    });
    let Some(first) = violations.first() else { return Ok(()) };
    let (block, what) = match first {
        Violation::NotTwoWay { block, successors } => (*block, format!("has {successors} successors, not two")),
        Violation::NoPostDominatingSuccessor { block, .. } => (*block, "has no post-dominating successor".to_string()),
    };
    Err(not_reconverging(graph, block, &what))
}

fn not_reconverging<'c>(graph: &RegionGraph<'c, '_>, block: BlockId, what: &str) -> PredicateError<'c> {
    PredicateError::NotReconverging {
        location: graph.terminator_location(block),
        message: format!(
            "divergent branch in {} {what}: the CFG is not reconverging (Definition 1); run --spmd-reconverge or --spmd-structurize first",
            graph.name(block)
        ),
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
    let post_dominators = ExitPostDominance::new(g, &|b| prepare::is_function_exit(graph.terminator(b)));
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
                    "has no successor that post-dominates it on every path",
                ))
            }
        }
    }
    Ok(lowerings)
}

/// A value kept per lane for the lanes parked for one rejoin point.
struct Parked<'c, 'a> {
    rejoin: BlockId,
    /// `Some(i)`: argument `i` of the rejoin point; `None`: a value live at
    /// the rejoin point.
    argument: Option<usize>,
    value: Value<'c, 'a>,
    /// For an argument: every parking edge passes this value (or poison),
    /// and it is still intact in the parked lanes at the rejoin point, so
    /// the merge reads it directly (no copy at the parking branches).
    direct: Option<Value<'c, 'a>>,
    /// `(parking block, the select made there)`.
    selects: Vec<(BlockId, OperationRef<'c, 'a>)>,
}

/// Applies the plan to the IR.
struct Lowerer<'c, 'g, 'a> {
    context: &'c Context,
    graph: &'g RegionGraph<'c, 'a>,
    location: Location<'c>,
    mask: Type<'c>,
    empty: Value<'c, 'a>,
}

impl<'c, 'g, 'a> Lowerer<'c, 'g, 'a> {
    fn new(context: &'c Context, graph: &'g RegionGraph<'c, 'a>, location: Location<'c>) -> Self {
        let mask = Type::parse(context, "!spmd.mask").expect("spmd dialect loaded");
        let entry = graph.block(graph.graph().entry());
        let empty = ir_edit::insert_at_start(entry, build(context, "spmd.mask.empty", &[], &[mask], location));
        Self {
            context,
            graph,
            location,
            mask,
            empty: empty.result(0).unwrap().into(),
        }
    }

    fn run(&self, lowerings: &[Lowering], divergent: &[bool], stats: &mut PredicateStats) {
        let g = self.graph.graph();
        let uniform: Vec<OperationRef<'c, 'a>> = (0..g.num_blocks())
            .map(BlockId::new)
            .filter(|&b| g.successors(b).len() >= 2 && !divergent[b.index()])
            .map(|b| self.graph.terminator(b))
            .collect();
        let branches: Vec<&DivergentBranch> = lowerings
            .iter()
            .filter_map(|l| if let Lowering::Park(b) = l { Some(b) } else { None })
            .collect();
        let rejoins: BTreeMap<BlockId, i64> = {
            let mut points: Vec<BlockId> = branches.iter().map(|b| b.primary(g)).collect();
            points.sort();
            points.dedup();
            points.into_iter().enumerate().map(|(i, p)| (p, i as i64)).collect()
        };
        let mut parked = self.collect_parked(&branches);
        // Rejoin points: exec |= m_P, then the merges of parked arguments;
        // the values passed around see the merged arguments; then the
        // merges of parked values.
        let mut rejoin_ors = HashMap::new();
        let mut anchors = HashMap::new();
        let mut merges: HashMap<usize, OperationRef<'c, 'a>> = HashMap::new();
        let mut merged_arguments: HashMap<usize, Value<'c, 'a>> = HashMap::new();
        for (&p, &id) in &rejoins {
            let (or, anchor) = self.emit_rejoin(p, id);
            rejoin_ors.insert(p, or);
            anchors.insert(p, anchor);
            for (k, merge) in self.emit_merges(p, anchor, &parked, |item| item.argument.is_some()) {
                merged_arguments.insert(parked[k].value.to_raw().ptr as usize, value(merge));
                merges.insert(k, merge);
            }
        }
        for (k, item) in parked.iter_mut().enumerate() {
            let merged = |v: Value<'c, 'a>| merged_arguments.get(&(v.to_raw().ptr as usize)).copied();
            if item.argument.is_none() {
                item.value = merged(item.value).unwrap_or(item.value);
            } else if let Some(kept) = item.direct.and_then(merged) {
                // A direct merge made before the merge of the argument it reads.
                item.direct = Some(kept);
                ir_edit::set_operand(merges[&k], 1, kept);
            }
        }
        for &p in rejoins.keys() {
            merges.extend(self.emit_merges(p, anchors[&p], &parked, |item| item.argument.is_none()));
        }
        // Divergent branches.
        let mut parks = Vec::new();
        for lowering in lowerings {
            match lowering {
                Lowering::SameTarget(b) => self.emit_same_target(*b),
                Lowering::Park(branch) => {
                    let p = branch.primary(g);
                    parks.push((branch.block, p, self.emit_park(branch, rejoins[&p], &mut parked)));
                    stats.guarded += usize::from(branch.guarded);
                }
            }
        }
        stats.divergent_branches = lowerings.len();
        stats.rejoin_points = rejoins.len();
        stats.parked_values = parked.len();
        self.repair_ssa(&rejoins, &rejoin_ors, &parks, &parked, &merges);
        self.empty_instead_of_poison_masks();
        self.mark_uniform(&uniform);
        self.drop_markers_and_fold();
    }

    /// The per-lane values to keep for parked lanes: the observed block
    /// arguments of every rejoin point, and every value live-in at a rejoin
    /// point `P` and defined in the region of a branch parking for `P`
    /// ([`live`]).
    fn collect_parked(&self, branches: &[&DivergentBranch]) -> Vec<Parked<'c, 'a>> {
        let g = self.graph.graph();
        let (table, values) = self.value_table();
        let mut at = vec![false; g.num_blocks()];
        for branch in branches {
            at[branch.primary(g).index()] = true;
        }
        let live = table.live_in_at(g, &at);
        let observed = table.observed();
        let index: HashMap<usize, usize> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (v.to_raw().ptr as usize, i))
            .collect();
        let dominators = DominatorTree::build(g);
        let mut by_rejoin: BTreeMap<BlockId, Vec<&DivergentBranch>> = BTreeMap::new();
        for &branch in branches {
            by_rejoin.entry(branch.primary(g)).or_default().push(branch);
        }
        let mut parked: Vec<Parked<'c, 'a>> = Vec::new();
        for (&p, parking) in &by_rejoin {
            // The region of each parking branch: what the wave may run
            // while its lanes wait.
            let regions: Vec<Vec<bool>> = parking
                .iter()
                .map(|branch| {
                    plan::reachable_avoiding(g, g.successors(branch.block)[1 - branch.primary_slot], p, false)
                })
                .collect();
            let clobbered = |d: BlockId| regions.iter().any(|region| region[d.index()]);
            let block = self.graph.block(p);
            for i in 0..block.argument_count() {
                let argument: Value<'c, 'a> = block.argument(i).unwrap().into();
                if !index
                    .get(&(argument.to_raw().ptr as usize))
                    .is_some_and(|&k| observed[k])
                {
                    continue;
                }
                let mut passed: Vec<Value<'c, 'a>> = parking
                    .iter()
                    .filter_map(|branch| {
                        ir_edit::successor_operands(self.graph.terminator(branch.block), branch.primary_slot)
                            .and_then(|operands| operands.get(i).copied())
                    })
                    .filter(|&v| !is_poison(v))
                    .collect();
                let mut distinct = std::collections::HashSet::new();
                passed.retain(|v| distinct.insert(v.to_raw().ptr as usize));
                if passed.is_empty() {
                    // Every parking edge passes poison: any value will do.
                    continue;
                }
                let direct = match passed[..] {
                    [u] => {
                        let d = self.graph.id(value_block(u));
                        d.is_none_or(|d| dominators.strictly_dominates(d, p) && !clobbered(d))
                            .then_some(u)
                    }
                    _ => None,
                };
                parked.push(Parked {
                    rejoin: p,
                    argument: Some(i),
                    value: argument,
                    direct,
                    selects: Vec::new(),
                });
            }
            for &v in &live[p.index()] {
                if table.values[v].def.is_some_and(clobbered) {
                    parked.push(Parked {
                        rejoin: p,
                        argument: None,
                        value: values[v],
                        direct: None,
                        selects: Vec::new(),
                    });
                }
            }
        }
        parked
    }

    /// The lane-data values of the region with their uses, for [`live`].
    fn value_table(&self) -> (live::Values, Vec<Value<'c, 'a>>) {
        let g = self.graph.graph();
        let mut values: Vec<Value<'c, 'a>> = Vec::new();
        let mut defs = Vec::new();
        for b in (0..g.num_blocks()).map(BlockId::new) {
            for v in self.defined_values(b) {
                values.push(v);
                defs.push(b);
            }
        }
        let index: HashMap<usize, usize> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (v.to_raw().ptr as usize, i))
            .collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_of: HashMap<usize, usize> = HashMap::new();
        let mut table = live::Values::default();
        for (i, &v) in values.iter().enumerate() {
            let mut uses = Vec::new();
            for (user, operand) in ir_edit::uses(v) {
                let Some(b) = enclosing_block_in(self.graph, user) else {
                    continue;
                };
                let top_level = user.block().is_some_and(|ub| self.graph.id(ub) == Some(b));
                if top_level && user == self.graph.terminator(b) {
                    if let Some(target) = self
                        .forwarded_to(b, user, operand)
                        .and_then(|t| index.get(&(t.to_raw().ptr as usize)))
                    {
                        uses.push(live::Use::Forward(b, *target));
                        continue;
                    }
                } else if top_level && is_pure(user) {
                    let results: Vec<usize> = (0..user.result_count())
                        .filter_map(|r| {
                            index
                                .get(&(Value::from(user.result(r).unwrap()).to_raw().ptr as usize))
                                .copied()
                        })
                        .collect();
                    if results.len() == user.result_count() {
                        let key = user.to_raw().ptr as usize;
                        let group = *group_of.entry(key).or_insert_with(|| {
                            groups.push(results);
                            groups.len() - 1
                        });
                        uses.push(live::Use::Through(b, group));
                        continue;
                    }
                }
                uses.push(live::Use::Plain(b));
            }
            table.values.push(live::ValueInfo {
                def: Some(defs[i]),
                uses,
            });
        }
        table.groups = groups;
        (table, values)
    }

    /// The block argument that operand `operand` of terminator `user` of
    /// `b` is forwarded to, if it is a successor operand.
    fn forwarded_to(&self, b: BlockId, user: OperationRef<'c, 'a>, operand: usize) -> Option<Value<'c, 'a>> {
        let successors = self.graph.graph().successors(b);
        match OperandSite::of(user, operand) {
            OperandSite::Successor { slot, position } => {
                Some(self.graph.block(successors[slot]).argument(position).ok()?.into())
            }
            OperandSite::Plain(_) => None,
        }
    }

    /// Block arguments and op results of `block` that are per-lane data.
    fn defined_values(&self, block: BlockId) -> Vec<Value<'c, 'a>> {
        let block = self.graph.block(block);
        let mut values: Vec<Value<'c, 'a>> = (0..block.argument_count())
            .map(|i| block.argument(i).unwrap().into())
            .collect();
        for op in ir_edit::operations(block) {
            values.extend((0..op.result_count()).map(|i| Value::from(op.result(i).unwrap())));
        }
        values.retain(|v| self.is_lane_data(v.r#type()));
        values
    }

    fn is_lane_data(&self, r#type: Type<'c>) -> bool {
        r#type != self.mask && !r#type.to_string().starts_with("!spmd.")
    }

    /// `exec |= m_P` at the start of `p` (after markers and tokens); the
    /// mask operand is a placeholder until SSA repair. Returns the OR and
    /// the operation the merges go before (`None`: the terminator).
    fn emit_rejoin(&self, p: BlockId, id: i64) -> (OperationRef<'c, 'a>, Option<OperationRef<'c, 'a>>) {
        let block = self.graph.block(p);
        let at = first_non_marker(block);
        let read = self.insert_at(
            p,
            at,
            build(self.context, "spmd.exec.read", &[], &[self.mask], self.location),
        );
        let or = self.insert_at(
            p,
            at,
            build(
                self.context,
                "spmd.mask.or",
                &[value(read), self.empty],
                &[self.mask],
                self.location,
            ),
        );
        let mut write = build(self.context, "spmd.exec.write", &[value(or)], &[], self.location);
        write.set_discardable_attribute(REJOIN_ATTR, self.i64_attr(id));
        self.insert_at(p, at, write);
        (or, at)
    }

    fn insert_at(
        &self,
        p: BlockId,
        at: Option<OperationRef<'c, 'a>>,
        op: melior::ir::Operation<'c>,
    ) -> OperationRef<'c, 'a> {
        let block = self.graph.block(p);
        match at {
            Some(before) => block.insert_operation_before(before, op),
            None => ir_edit::insert_before_terminator(block, op),
        }
    }

    /// One merge `spmd.mask.select m_P, parked, arriving` per parked item
    /// of `p` selected by `which` (operands are placeholders until SSA
    /// repair). Every use of a merged argument but its merge sees the merge.
    fn emit_merges(
        &self,
        p: BlockId,
        at: Option<OperationRef<'c, 'a>>,
        parked: &[Parked<'c, 'a>],
        which: impl Fn(&Parked<'c, 'a>) -> bool,
    ) -> Vec<(usize, OperationRef<'c, 'a>)> {
        let mut merges = Vec::new();
        for (k, item) in parked
            .iter()
            .enumerate()
            .filter(|(_, item)| item.rejoin == p && which(item))
        {
            let r#type = item.value.r#type();
            let kept = item.direct.unwrap_or(item.value);
            let op = build(
                self.context,
                "spmd.mask.select",
                &[self.empty, kept, item.value],
                &[r#type],
                self.location,
            );
            let merge = self.insert_at(p, at, op);
            if item.argument.is_some() {
                let merged = value(merge);
                for (user, operand) in ir_edit::uses(item.value) {
                    if user != merge {
                        ir_edit::set_operand(user, operand, merged);
                    }
                }
            }
            merges.push((k, merge));
        }
        merges
    }

    /// The mask code of a parking branch; returns `(m_P | c)`.
    fn emit_park(&self, branch: &DivergentBranch, id: i64, parked: &mut [Parked<'c, 'a>]) -> OperationRef<'c, 'a> {
        let g = self.graph.graph();
        let block = self.graph.block(branch.block);
        let terminator = self.graph.terminator(branch.block);
        let location = terminator.location();
        let condition: Value<'c, 'a> = terminator.operand(0).unwrap();
        let to_primary = if branch.primary_slot == 0 {
            condition
        } else {
            let one = ir_edit::insert_before_terminator(block, ir_edit::bool_constant(self.context, true, location));
            let i1: Type = IntegerType::new(self.context, 1).into();
            value(ir_edit::insert_before_terminator(
                block,
                build(self.context, "arith.xori", &[condition, value(one)], &[i1], location),
            ))
        };
        let ballot = value(ir_edit::insert_before_terminator(
            block,
            build(self.context, "spmd.ballot", &[to_primary], &[self.mask], location),
        ));
        let p = branch.primary(g);
        let primary_operands = ir_edit::successor_operands(terminator, branch.primary_slot).unwrap_or_default();
        for item in parked
            .iter_mut()
            .filter(|item| item.rejoin == p && item.direct.is_none())
        {
            // Every lane parked for `p` takes its merge from the parked
            // copy, so every branch parking for `p` keeps its lanes' values.
            let parked_value = match item.argument {
                // A lane passing poison may rejoin with any value.
                Some(i) if is_poison(primary_operands[i]) => continue,
                Some(i) => primary_operands[i],
                None => item.value,
            };
            let op = build(
                self.context,
                "spmd.mask.select",
                &[ballot, parked_value, parked_value],
                &[parked_value.r#type()],
                location,
            );
            item.selects
                .push((branch.block, ir_edit::insert_before_terminator(block, op)));
        }
        let pending = ir_edit::insert_before_terminator(
            block,
            build(
                self.context,
                "spmd.mask.or",
                &[self.empty, ballot],
                &[self.mask],
                location,
            ),
        );
        let exec = ir_edit::insert_before_terminator(
            block,
            build(self.context, "spmd.exec.read", &[], &[self.mask], location),
        );
        let rest = ir_edit::insert_before_terminator(
            block,
            build(
                self.context,
                "spmd.mask.andn",
                &[value(exec), ballot],
                &[self.mask],
                location,
            ),
        );
        let mut write = build(self.context, "spmd.exec.write", &[value(rest)], &[], location);
        write.set_discardable_attribute(PARK_ATTR, self.i64_attr(id));
        ir_edit::insert_before_terminator(block, write);
        self.replace_terminator(branch, terminator, primary_operands);
        pending
    }

    /// `spmd.exec.br_zero ^P, ^S` (guarded) or `cf.br ^S`.
    fn replace_terminator(
        &self,
        branch: &DivergentBranch,
        terminator: OperationRef<'c, 'a>,
        primary_operands: Vec<Value<'c, 'a>>,
    ) {
        let g = self.graph.graph();
        let secondary_slot = 1 - branch.primary_slot;
        let secondary_operands = ir_edit::successor_operands(terminator, secondary_slot).unwrap_or_default();
        let primary = self.graph.block(branch.primary(g));
        let secondary = self.graph.block(g.successors(branch.block)[secondary_slot]);
        let location = terminator.location();
        let op = if branch.guarded {
            let sizes = format!("array<i32: {}, {}>", primary_operands.len(), secondary_operands.len());
            let mut operands = primary_operands;
            operands.extend(secondary_operands);
            OperationBuilder::new("spmd.exec.br_zero", location)
                .add_operands(&operands)
                .add_successors(&[&primary, &secondary])
                .add_attributes(&[(
                    Identifier::new(self.context, "operandSegmentSizes"),
                    Attribute::parse(self.context, &sizes).expect("valid segment sizes"),
                )])
                .build()
                .expect("valid spmd.exec.br_zero")
        } else {
            OperationBuilder::new("cf.br", location)
                .add_operands(&secondary_operands)
                .add_successors(&[&secondary])
                .build()
                .expect("valid cf.br")
        };
        let block = self.graph.block(branch.block);
        block.insert_operation_before(terminator, op);
        ir_edit::erase_operation(terminator);
    }

    /// A divergent branch whose slots target one block: `cf.br` with
    /// `arith.select`ed operands.
    fn emit_same_target(&self, b: BlockId) {
        let block = self.graph.block(b);
        let terminator = self.graph.terminator(b);
        let location = terminator.location();
        let condition: Value<'c, 'a> = terminator.operand(0).unwrap();
        let first = ir_edit::successor_operands(terminator, 0).unwrap_or_default();
        let second = ir_edit::successor_operands(terminator, 1).unwrap_or_default();
        let operands: Vec<Value<'c, 'a>> = first
            .iter()
            .zip(&second)
            .map(|(&x, &y)| {
                if x == y {
                    return x;
                }
                value(block.insert_operation_before(
                    terminator,
                    build(
                        self.context,
                        "arith.select",
                        &[condition, x, y],
                        &[x.r#type()],
                        location,
                    ),
                ))
            })
            .collect();
        let target = self.graph.block(self.graph.graph().successors(b)[0]);
        let op = OperationBuilder::new("cf.br", location)
            .add_operands(&operands)
            .add_successors(&[&target])
            .build();
        block.insert_operation_before(terminator, op.expect("valid cf.br"));
        ir_edit::erase_operation(terminator);
    }

    /// SSA construction passes `ub.poison` where a variable has no
    /// definition (edges from unreachable blocks). A mask is never poison:
    /// there it is the empty mask, which every consumer of wave-level code
    /// understands.
    fn empty_instead_of_poison_masks(&self) {
        let entry = self.graph.block(self.graph.graph().entry());
        for op in ir_edit::operations(entry) {
            if op_name(op) == "ub.poison" && op.result(0).is_ok_and(|result| result.r#type() == self.mask) {
                ir_edit::replace_all_uses(value(op), self.empty);
                ir_edit::erase_operation(op);
            }
        }
    }

    /// Places the block arguments of the rejoin masks and parked values and
    /// patches the placeholder operands.
    /// A fresh snapshot of the region being lowered, after the edits so far.
    fn snapshot_now(&self) -> RegionGraph<'c, 'a> {
        let region = self.graph.block(self.graph.graph().entry()).parent_region().expect("block in a region");
        RegionGraph::snapshot(region).expect("the lowered region is well formed")
    }

    fn repair_ssa(
        &self,
        rejoins: &BTreeMap<BlockId, i64>,
        rejoin_ors: &HashMap<BlockId, OperationRef<'c, 'a>>,
        parks: &[(BlockId, BlockId, OperationRef<'c, 'a>)],
        parked: &[Parked<'c, 'a>],
        merges: &HashMap<usize, OperationRef<'c, 'a>>,
    ) {
        let graph = self.snapshot_now();
        let id = |b: BlockId| graph.id(self.graph.block(b)).expect("block kept");
        let entry = graph.graph().entry();
        let mut defs: Vec<Def<'c, 'a>> = vec![Def::Value(self.empty)];
        let mut variables = Vec::new();
        let def = |defs: &mut Vec<Def<'c, 'a>>, v: Value<'c, 'a>| {
            defs.push(Def::Value(v));
            defs.len() - 1
        };
        // One rejoin mask per rejoin point.
        for &p in rejoins.keys() {
            let mut variable = Variable::default();
            variable.block_defs.push((entry, 0));
            let mut reads = vec![id(p)];
            let mut p_def = 0;
            for &(b, _, pending) in parks.iter().filter(|(_, target, _)| *target == p) {
                let k = def(&mut defs, value(pending));
                if b == p {
                    p_def = k;
                    continue;
                }
                variable.block_defs.retain(|&(block, _)| block != id(b));
                variable.block_defs.push((id(b), k));
                if id(b) != entry {
                    reads.push(id(b));
                }
            }
            variable.block_defs.push((id(p), p_def));
            variable.reads = reads;
            variables.push(IrVariable {
                r#type: self.mask,
                variable,
            });
        }
        // One variable per parked value copied at the parking branches.
        let mut variable_of = vec![None; parked.len()];
        for (j, item) in parked.iter().enumerate().filter(|(_, item)| !item.selects.is_empty()) {
            variable_of[j] = Some(variables.len());
            let mut variable = Variable::default();
            variable.reads.push(id(item.rejoin));
            for &(b, select) in &item.selects {
                let k = def(&mut defs, value(select));
                variable.block_defs.push((id(b), k));
                variable.reads.push(id(b));
            }
            variables.push(IrVariable {
                r#type: item.value.r#type(),
                variable,
            });
        }
        let reads = ssa_apply::apply(self.context, &graph, &defs, &variables, self.location);
        let read_at = |k: usize, b: BlockId| reads[k].iter().find(|(block, _)| *block == b).map(|&(_, v)| v);
        // Patch rejoin masks.
        for (k, &p) in rejoins.keys().enumerate() {
            let m = read_at(k, id(p)).expect("rejoin mask read");
            ir_edit::set_operand(rejoin_ors[&p], 1, m);
            for (j, _) in parked.iter().enumerate().filter(|(_, item)| item.rejoin == p) {
                ir_edit::set_operand(merges[&j], 0, m);
            }
            for &(b, _, pending) in parks.iter().filter(|(_, target, _)| *target == p) {
                if b != p && id(b) != entry {
                    ir_edit::set_operand(pending, 0, read_at(k, id(b)).expect("pending mask read"));
                }
            }
        }
        // Patch parked values.
        for (j, item) in parked.iter().enumerate() {
            let Some(k) = variable_of[j] else { continue };
            for &(b, select) in &item.selects {
                ir_edit::set_operand(select, 2, read_at(k, id(b)).expect("parked value read"));
            }
            ir_edit::set_operand(merges[&j], 1, read_at(k, id(item.rejoin)).expect("parked value read"));
        }
        self.repair_values(parked, merges);
    }

    /// A kept value now has several definitions (its own and one merge per
    /// rejoin point keeping it): every use sees the one reaching it. Uses
    /// in the defining block follow the definition; uses in a block holding
    /// a merge follow the merge (merges come first), except the merge's own
    /// `arriving` operand, which reads the value at the start of the block;
    /// every other use reads the value at the start of its block (SSA
    /// repaired on the wave-level CFG).
    fn repair_values(&self, parked: &[Parked<'c, 'a>], merges: &HashMap<usize, OperationRef<'c, 'a>>) {
        // Grouped by value, in the order of `parked` (deterministic output).
        let mut group_of: HashMap<usize, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (j, item) in parked.iter().enumerate() {
            if item.argument.is_none() {
                let g = *group_of.entry(item.value.to_raw().ptr as usize).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
                groups[g].push(j);
            }
        }
        let by_value = groups;
        if by_value.is_empty() {
            return;
        }
        let graph = self.snapshot_now();
        let mut defs = Vec::new();
        let mut variables = Vec::new();
        // Per variable: (user, operand, block to read at).
        let mut users = Vec::new();
        for items in &by_value {
            let original = parked[items[0]].value;
            let def_block = graph.id(value_block(original)).expect("defined in the region");
            let mut variable = Variable::default();
            defs.push(Def::Value(original));
            variable.block_defs.push((def_block, defs.len() - 1));
            let mut merge_in: HashMap<BlockId, OperationRef<'c, 'a>> = HashMap::new();
            for &j in items {
                let merge = merges[&j];
                let block = graph.id(merge.block().unwrap()).unwrap();
                defs.push(Def::Value(value(merge)));
                variable.block_defs.push((block, defs.len() - 1));
                merge_in.insert(block, merge);
            }
            let mut uses = Vec::new();
            for (user, operand) in ir_edit::uses(original) {
                let block = enclosing_block_in(&graph, user).expect("use in the region");
                match merge_in.get(&block) {
                    Some(&merge) if merge == user => {}
                    Some(&merge) => {
                        ir_edit::set_operand(user, operand, value(merge));
                        continue;
                    }
                    None if block == def_block => continue,
                    None => {}
                }
                variable.reads.push(block);
                uses.push((user, OperandSite::of(user, operand), block));
            }
            variables.push(IrVariable {
                r#type: original.r#type(),
                variable,
            });
            users.push(uses);
        }
        let reads = ssa_apply::apply(self.context, &graph, &defs, &variables, self.location);
        for (k, uses) in users.into_iter().enumerate() {
            for (user, site, block) in uses {
                let seen = reads[k]
                    .iter()
                    .find(|(b, _)| *b == block)
                    .map(|&(_, v)| v)
                    .expect("read");
                ir_edit::set_operand(user, site.index(user), seen);
            }
        }
    }

    fn mark_uniform(&self, branches: &[OperationRef<'c, 'a>]) {
        let uniform = Attribute::parse(self.context, "#spmd.uniformity<uniform>").expect("spmd dialect loaded");
        for branch in branches {
            // SAFETY: the branch is live; only a discardable attribute changes.
            let mut op = unsafe { OperationRefMut::from_raw(branch.to_raw()) };
            op.set_discardable_attribute(UNIFORMITY_ATTR, uniform);
        }
    }

    /// Drops reconvergence markers and folds `spmd.mask.or %empty, %x`.
    fn drop_markers_and_fold(&self) {
        let region = self
            .graph
            .block(self.graph.graph().entry())
            .parent_region()
            .expect("block in a region");
        let mut block = region.first_block();
        while let Some(b) = block {
            for op in ir_edit::operations(b) {
                let name = op_name(op);
                if name == "spmd.reconvergence.head" || name == "spmd.reconvergence.tail" {
                    ir_edit::erase_operation(op);
                } else if name == "spmd.mask.or" {
                    let (x, y): (Value, Value) = (op.operand(0).unwrap(), op.operand(1).unwrap());
                    let other = if x == self.empty {
                        Some(y)
                    } else if y == self.empty {
                        Some(x)
                    } else {
                        None
                    };
                    if let Some(other) = other {
                        ir_edit::replace_all_uses(value(op), other);
                        ir_edit::erase_operation(op);
                    }
                }
            }
            block = b.next_in_region();
        }
        if !ir_edit::is_used(self.empty) {
            ir_edit::erase_operation(ir_edit::defining_op(self.empty).expect("mask.empty op"));
        }
    }

    fn i64_attr(&self, id: i64) -> Attribute<'c> {
        IntegerAttribute::new(IntegerType::new(self.context, 64).into(), id).into()
    }
}

/// The first operation of `block` that is not a reconvergence tail marker
/// or a convergence token.
fn first_non_marker<'c, 'a>(block: BlockRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    ir_edit::operations(block).into_iter().find(|op| {
        let name = op_name(*op);
        name != "spmd.reconvergence.tail" && !name.starts_with("spmd.convergence.")
    })
}

/// An operand of an operation, stable across [`ssa_apply::apply`]: that
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
    let (mut begin, mut count) = (0isize, 0isize);
    // SAFETY: query on a live operation.
    let known =
        unsafe { crate::ffi::spmdGetSuccessorOperandRange(user.to_raw(), slot as isize, &mut begin, &mut count) };
    if known {
        (begin as usize, count as usize)
    } else {
        (0, 0)
    }
}

/// Operations whose results are all the operands influence: a use by one
/// is observed only through its results ([`live::Use::Through`]).
fn is_pure(op: OperationRef<'_, '_>) -> bool {
    op_name(op).starts_with("arith.") && op.region_count() == 0
}

/// True if `value` is the result of `ub.poison`.
fn is_poison(value: Value<'_, '_>) -> bool {
    ir_edit::defining_op(value).is_some_and(|op| op_name(op) == "ub.poison")
}

/// The block defining `value` (argument owner or parent of the op).
fn value_block<'c, 'a>(value: Value<'c, 'a>) -> BlockRef<'c, 'a> {
    match ir_edit::defining_op(value) {
        Some(op) => op.block().expect("op in a block"),
        None => {
            // SAFETY: a value that is not an op result is a block argument.
            let raw = unsafe { mlir_sys::mlirBlockArgumentGetOwner(value.to_raw()) };
            unsafe { BlockRef::from_raw(raw) }
        }
    }
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
