//! `--spmd-branch-fold`: BranchFolding / TailMerge / HoistCommonCode as a
//! cleanup after `--spmd-structurize` or `--spmd-reconverge` that never
//! breaks the properties those passes established.
//!
//! # The story
//!
//! The branch-folding notes describes a structured-CFG GPU target whose branch folder keeps
//! tail merging enabled (upstream LLVM turns it off for such targets) and
//! guards each merge with a safety check instead. This module is the MLIR
//! counterpart. [`fold_function`] repeats four steps until none of them
//! changes anything (each step works in rounds, see [`Round`]: all
//! decisions of a round are taken on one snapshot of the region, every
//! block an edit touches is claimed so that later decisions of the round
//! still read accurate facts, and the round's CFG edits are checked by the
//! gate as a batch before they are applied):
//!
//! 0. **FoldOperations** ([`fold_ops`]): the upstream folders and
//!    canonicalization patterns of the non-control-flow operations, through
//!    MLIR's greedy driver without region simplification. It never touches
//!    the CFG, a convergent operation or a Flow block; constant conditions
//!    it produces are folded by OptimizeBranches, through the gate.
//! 1. **TailMerge** ([`tail_merge`]). Blocks that end in a return (phase A)
//!    or in a `cf.br` to the same block (phase B) are candidates; at most
//!    `tail-merge-threshold` per target. Candidates are bucketed by a hash
//!    of their last operation and compared pairwise within a bucket,
//!    walking backwards from the terminators. A common tail of at least
//!    `tail-merge-size` operations moves into a new block that both
//!    candidates branch to; operand values that differ between the two
//!    tails become arguments of the new block. Only return and
//!    unconditional-branch tails are merged: the branch-folding notes tries them first
//!    because such merges never touch a branch condition; conditional
//!    tails are not attempted at all (open item).
//! 2. **OptimizeBranches** ([`branches`]). Delete unreachable blocks; move
//!    `arith.constant`s to the entry block (merging equal ones), which
//!    empties blocks that only materialized Flow predicates; fold
//!    a two-way branch whose successors and operands are equal, or whose
//!    predicate is known (a constant, or a block argument every
//!    predecessor sets to the same constant), into `cf.br`; redirect an
//!    edge into a block that holds only a terminator to the block that
//!    terminator would take for the edge's operands (a plain `cf.br`, or
//!    a Flow block whose predicate the edge passes as a constant); merge a
//!    block into its only predecessor when that predecessor ends in
//!    `cf.br`. A Flow block is therefore only removed when it is
//!    redundant: equal successors, a known predicate, or a predecessor
//!    that tells which way it goes.
//! 3. **HoistCommonCode** ([`hoist`]). For a `cf.cond_br` whose two
//!    successors have no other predecessor, the identical leading
//!    operations of both successors move in front of the branch.
//!
//! # Safety gates
//!
//! * Convergent operations are never merged or hoisted, and reads of
//!   special registers (thread identity, ...) are never merged, hoisted
//!   or made live into a merged tail ([`safety`]).
//! * Every CFG edit is planned on the IR-independent graph first
//!   ([`gate::PlannedCfg`]) and refused if it adds a violation of any
//!   [`gate::PropertyCheck`]: Definition 1 (reconverging), reducibility,
//!   pure and linear Flow chains, loop convergence tokens in cycle
//!   headers. Uniformity is computed once per round; planned new blocks
//!   end in `cf.br` or a return and are never divergent. The checks run
//!   on a round's whole batch of edits (bisected on refusal, see
//!   `Folder::commit`).
//! * A folded branch in a block holding `spmd.reconvergence.head`
//!   dissolves the divergent region: the head and its tails are erased (the
//!   threads no longer diverge there). A block holding a tail never merges
//!   into its predecessor (the tail must start its block).
//!
//! # Invariants and edge cases
//!
//! * Every edit strictly decreases the number of operations, blocks or
//!   edges, so the loop terminates; a budget proportional to the size of
//!   the region bounds it anyway.
//! * SSA stays valid without repair: redirected edges only forward values
//!   that dominate the predecessor (a value used by a jump-only block
//!   dominates each of its predecessors); merged tails only keep values
//!   defined inside the tail (whose results have no other use) or values
//!   live at the end of both candidates; hoisted operations only use values
//!   defined outside both successors, which dominate the branch.
//! * Cycles of jump-only blocks (an empty infinite loop) are left alone.
//! * Unreachable blocks are deleted first, so every other rule works on
//!   reachable blocks only.

pub(crate) mod branches;
pub(crate) mod fold_ops;
pub(crate) mod gate;
pub(crate) mod hoist;
pub(crate) mod safety;
pub(crate) mod tail_merge;

use self::gate::{BlockLabel, Gate, PlannedCfg};
use super::prepare;
use crate::ir::edit;
use crate::ir::{facts, key::BlockKey, names};
use crate::{
    analysis::{
        cfg::{BlockId, Graph},
        region_uniformity::{is_marked_uniform, RegionUniformity, UniformityOptions},
    },
    ir::region_graph::{RegionGraph, RegionGraphError},
};
use melior::{
    ir::{
        block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionLike, RegionRef,
    },
    Context,
};
use std::collections::HashSet;

/// Options of [`fold_function`] (the pass options of `--spmd-branch-fold`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchFoldOptions {
    /// Run TailMerge.
    pub enable_tail_merge: bool,
    /// Minimum number of non-terminator operations of a merged tail.
    pub tail_merge_size: usize,
    /// Maximum number of candidates considered per merge target.
    pub tail_merge_threshold: usize,
    /// Run HoistCommonCode.
    pub hoist_common_code: bool,
    /// Run FoldOperations (upstream folders and canonicalization patterns
    /// of the non-control-flow operations).
    pub fold_operations: bool,
    /// Uniformity analysis options (for the reconverging gate).
    pub uniformity: UniformityOptions,
}

/// The defaults of `--spmd-branch-fold` (`SpmdPasses.td`).
impl Default for BranchFoldOptions {
    fn default() -> Self {
        use crate::ir::ods::spmd_branch_fold as ods;
        Self {
            enable_tail_merge: ods::ENABLE_TAIL_MERGE,
            tail_merge_size: ods::TAIL_MERGE_SIZE as usize,
            tail_merge_threshold: ods::TAIL_MERGE_THRESHOLD as usize,
            hoist_common_code: ods::HOIST_COMMON_CODE,
            fold_operations: ods::FOLD_OPERATIONS,
            uniformity: UniformityOptions::default(),
        }
    }
}

/// What [`fold_function`] did to one region.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchFoldStats {
    /// Blocks of the region before the fold.
    pub blocks_before: usize,
    /// Blocks of the region after the fold.
    pub blocks_after: usize,
    /// Operations of the region's blocks (not counting nested ones) before
    /// the fold.
    pub ops_before: usize,
    /// Operations of the region's blocks (not counting nested ones) after
    /// the fold.
    pub ops_after: usize,
    /// Operations removed by FoldOperations (net).
    pub ops_folded: usize,
    /// Unreachable blocks deleted.
    pub unreachable_removed: usize,
    /// Constants moved to (or merged into an equal one in) the entry block.
    pub constants_hoisted: usize,
    /// Two-way branches folded into `cf.br`.
    pub branches_folded: usize,
    /// Block arguments replaced by their only incoming value or erased
    /// because unused.
    pub arguments_removed: usize,
    /// `cf.cond_br`s to one block with different operands turned into
    /// `arith.select`s and `cf.br`.
    pub branches_selected: usize,
    /// Divergent regions dissolved (their head's branch folded; head and
    /// tail markers erased).
    pub regions_dissolved: usize,
    /// Edges redirected past a jump-only block.
    pub jumps_redirected: usize,
    /// Blocks merged into their only predecessor.
    pub blocks_merged: usize,
    /// Tail merges performed.
    pub tails_merged: usize,
    /// Operations removed by the tail merges (one copy of each merged op).
    pub tail_ops_merged: usize,
    /// Operations hoisted (one copy removed each).
    pub ops_hoisted: usize,
    /// Candidate pairs whose merge or hoist stopped at a convergent op.
    pub refused_convergent: usize,
    /// Candidate pairs refused because of a special-register read.
    pub refused_special_register: usize,
    /// CFG edits refused by the property gate.
    pub refused_property: usize,
    /// Snapshots taken (uniformity and graph computed): a cost driver.
    pub snapshots: usize,
    /// Property-gate checks run, one per batch of candidate CFG edits tried
    /// (a rejected batch is split and retried): the other cost driver.
    pub gate_checks: usize,
}

impl BranchFoldStats {
    /// Blocks removed (net).
    pub fn blocks_removed(&self) -> isize {
        self.blocks_before as isize - self.blocks_after as isize
    }

    /// Operations removed (net).
    pub fn ops_removed(&self) -> isize {
        self.ops_before as isize - self.ops_after as isize
    }

    /// The `stats` report of one function.
    pub fn render(&self, label: &str) -> String {
        format!(
            "spmd-branch-fold {label}\n  blocks removed: {} ({} -> {})\n  ops removed: {} ({} -> {})\n  \
             ops folded: {}\n  unreachable blocks deleted: {}\n  constants hoisted to entry: {}\n  block arguments simplified: {}\n  branches folded: {}\n  branches turned into selects: {}\n  reconvergence regions dissolved: {}\n  jumps redirected: {}\n  \
             blocks merged into predecessor: {}\n  tails merged: {} ({} ops)\n  ops hoisted: {}\n  \
             refused (convergent): {}\n  refused (special register): {}\n  refused (property): {}\n  \
             snapshots: {}\n  gate checks: {}\n",
            self.blocks_removed(),
            self.blocks_before,
            self.blocks_after,
            self.ops_removed(),
            self.ops_before,
            self.ops_after,
            self.ops_folded,
            self.unreachable_removed,
            self.constants_hoisted,
            self.arguments_removed,
            self.branches_folded,
            self.branches_selected,
            self.regions_dissolved,
            self.jumps_redirected,
            self.blocks_merged,
            self.tails_merged,
            self.tail_ops_merged,
            self.ops_hoisted,
            self.refused_convergent,
            self.refused_special_register,
            self.refused_property,
            self.snapshots,
            self.gate_checks,
        )
    }
}

/// Why a candidate was refused (for deduplicated refusal counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Refusal {
    Convergent,
    SpecialRegister,
    Property,
}

/// Why [`fold_function`] failed.
#[derive(Debug)]
pub enum BranchFoldError<'c> {
    /// The region is not a CFG the analyses accept.
    Graph(RegionGraphError<'c>),
    /// An internal check failed (the IR may have been changed).
    Internal(&'static str),
}

impl<'c> From<RegionGraphError<'c>> for BranchFoldError<'c> {
    fn from(error: RegionGraphError<'c>) -> Self {
        Self::Graph(error)
    }
}

impl std::error::Error for BranchFoldError<'_> {}

impl std::fmt::Display for BranchFoldError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Graph(error) => error.fmt(f),
            Self::Internal(message) => write!(f, "internal error: {message}"),
        }
    }
}

/// Branch folding and tail merging (`--spmd-branch-fold`) on `region`, the
/// body of `function`: folds, merges and hoists until nothing changes, a
/// cleanup after `--spmd-reconverge` or `--spmd-structurize` that never
/// breaks the properties those passes established.
pub fn fold_function<'c, 'a>(
    context: &'c Context,
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &BranchFoldOptions,
) -> Result<BranchFoldStats, BranchFoldError<'c>> {
    let mut folder = Folder {
        context,
        function,
        region,
        options,
        stats: BranchFoldStats::default(),
        refusals: HashSet::new(),
        edits: 0,
        budget: 0,
        thorough: false,
    };
    let (blocks, ops) = count(region);
    folder.stats.blocks_before = blocks;
    folder.stats.ops_before = ops;
    folder.budget = 4 * (blocks + ops) + 64;
    loop {
        let mut changed = false;
        if options.fold_operations && folder.has_budget() {
            // Its changes only matter through the rules below: no round of its own.
            fold_ops::fold_operations(&mut folder).map_err(BranchFoldError::Internal)?;
        }
        if options.enable_tail_merge {
            while folder.has_budget() && tail_merge::merge_round(&mut folder)? {
                changed = true;
            }
        }
        while folder.has_budget() && branches::optimize_round(&mut folder)? {
            changed = true;
        }
        if options.hoist_common_code {
            while folder.has_budget() && hoist::hoist_round(&mut folder)? {
                changed = true;
            }
        }
        if !folder.has_budget() {
            break;
        }
        if !changed {
            if folder.thorough {
                break;
            }
            // Edits refused before were only re-checked as one batch: give
            // each its own check once more before stopping.
            folder.thorough = true;
        } else {
            folder.thorough = false;
        }
    }
    let (blocks, ops) = count(region);
    folder.stats.blocks_after = blocks;
    folder.stats.ops_after = ops;
    for (_, reason) in &folder.refusals {
        match reason {
            Refusal::Convergent => folder.stats.refused_convergent += 1,
            Refusal::SpecialRegister => folder.stats.refused_special_register += 1,
            Refusal::Property => folder.stats.refused_property += 1,
        }
    }
    Ok(folder.stats)
}

/// Number of blocks and of operations directly in them.
pub fn count(region: RegionRef<'_, '_>) -> (usize, usize) {
    let (mut blocks, mut ops) = (0, 0);
    let mut next = region.first_block();
    while let Some(block) = next {
        blocks += 1;
        ops += edit::operations(block).len();
        next = block.next_in_region();
    }
    (blocks, ops)
}

/// The state of one [`fold_function`] run, shared by the steps.
pub(crate) struct Folder<'c, 'a, 'o> {
    context: &'c Context,
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &'o BranchFoldOptions,
    stats: BranchFoldStats,
    refusals: HashSet<(EditKey, Refusal)>,
    edits: usize,
    budget: usize,
    /// Bisect batches of edits refused in earlier rounds too (see
    /// [`Folder::commit`]).
    thorough: bool,
}

impl<'c, 'a> Folder<'c, 'a, '_> {
    fn has_budget(&self) -> bool {
        self.edits < self.budget
    }

    /// Fresh analyses of the current IR.
    fn view(&mut self) -> Result<View<'c, 'a>, RegionGraphError<'c>> {
        self.stats.snapshots += 1;
        view_of(self.function, self.region, &self.options.uniformity)
    }

    /// Queues a CFG edit of the round: `edits` on the planned graph,
    /// `apply` on the IR once the gate accepted it, `key` for the refusal
    /// count otherwise. The edit's blocks must already be claimed
    /// ([`Round::write`], [`Round::change_predecessors`]).
    fn propose(
        &mut self,
        round: &mut Round<'c, 'a>,
        edits: Vec<PlanEdit>,
        key: EditKey,
        apply: Apply<'c, 'a>,
    ) {
        round.pending.push(Pending { edits, key, apply });
    }

    /// Checks the round's queued edits against the gate and applies the
    /// accepted ones to the IR; true if one was applied.
    ///
    /// The whole batch is checked at once: its planned graph (the snapshot
    /// plus every queued edit) must have no more violations of any check
    /// than the baseline. A batch that fails is split in halves, each
    /// checked on top of what was accepted before it, down to single
    /// edits, which are refused. Accepting a batch makes its violation
    /// counts the new baseline. So a round costs one gate check when
    /// nothing is refused and O(r log k) checks for r refusals among k
    /// edits, instead of one check per edit. Edits refused in an earlier
    /// round (the same rule on the same blocks) come last and, unless the
    /// driver is in its final `thorough` pass, are checked as one batch
    /// and all refused again if it fails, so a refusal that persists costs
    /// no bisection in every round; the output of the round never
    /// has more violations than its input, as with one check per edit (an
    /// accepted batch may contain an edit that would have been refused
    /// alone because another edit of the batch removed a violation of the
    /// same check: counts, not individual violations, are compared).
    fn commit(&mut self, round: &mut Round<'c, 'a>) -> bool {
        let mut pending = std::mem::take(&mut round.pending);
        if pending.is_empty() {
            return false;
        }
        // Fresh edits first, then those refused in an earlier round.
        let refused_before = |p: &Pending| self.refusals.contains(&(p.key, Refusal::Property));
        pending.sort_by_key(|p| refused_before(p));
        let fresh = pending.iter().filter(|p| !refused_before(p)).count();
        let mut accepted = vec![false; pending.len()];
        let mut stack = Vec::new();
        if fresh < pending.len() {
            stack.push((fresh, pending.len(), !self.thorough));
        }
        if fresh > 0 {
            stack.push((0, fresh, false));
        }
        while let Some((lo, hi, whole)) = stack.pop() {
            let mut planned = round.planned.clone();
            for edit in pending[lo..hi].iter().flat_map(|p| &p.edits) {
                edit.apply(&mut planned);
            }
            self.stats.gate_checks += 1;
            match round.view.gate.allows(&planned) {
                Ok(counts) => {
                    round.view.gate.accept(counts);
                    round.planned = planned;
                    accepted[lo..hi].iter_mut().for_each(|a| *a = true);
                }
                Err(_) if hi - lo == 1 || whole => {
                    for p in &pending[lo..hi] {
                        self.refuse(p.key, Refusal::Property);
                    }
                }
                Err(_) => {
                    let mid = (lo + hi) / 2;
                    // Left half first: push it last.
                    stack.push((mid, hi, false));
                    stack.push((lo, mid, false));
                }
            }
        }
        let mut applied = false;
        for (pending, accepted) in pending.into_iter().zip(accepted) {
            if accepted {
                (pending.apply)(self);
                self.edits += 1;
                applied = true;
            }
        }
        applied
    }

    fn refuse(&mut self, key: EditKey, reason: Refusal) {
        self.refusals.insert((key, reason));
    }
}

/// Fresh analyses of `region`, the body of `function`.
fn view_of<'c, 'a>(
    function: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
    options: &UniformityOptions,
) -> Result<View<'c, 'a>, RegionGraphError<'c>> {
    let uniformity = RegionUniformity::compute(function, region, options)?;
    let graph = uniformity.graph();
    let labels = (0..graph.num_blocks())
        .map(|index| {
            let id = BlockId::new(index);
            let terminator = graph.terminator(id);
            let flow = prepare::op_name(terminator) == names::FLOW_BR;
            BlockLabel {
                divergent: uniformity.info().is_divergent_branch(id),
                exit: prepare::is_function_exit(terminator),
                flow,
                flow_impure: flow && has_non_flow_ops(graph.block(id)),
                loop_token: edit::operations(graph.block(id))
                    .iter()
                    .any(|op| prepare::op_name(*op) == names::CONVERGENCE_LOOP),
                unmarked_branch: {
                    let s = graph.graph().successors(id);
                    s.iter().any(|&t| t != s[0]) && !is_marked_uniform(terminator)
                },
            }
        })
        .collect();
    let planned = PlannedCfg::new(graph.graph(), labels);
    let gate = Gate::new(Gate::checks_for(&planned), &planned);
    Ok(View {
        uniformity,
        planned,
        gate,
    })
}

/// The violation count of every property the gate knows (the default
/// checks and the structured-branches check) on `region`, the body of
/// `function`, with a fresh uniformity analysis: what a cleanup must not
/// increase. For measuring other cleanups against the same contract (the
/// quality driver and the oracle's tests, through `spmd::testing`).
#[cfg(feature = "testing")]
pub fn property_violations<'c>(
    function: OperationRef<'c, '_>,
    region: RegionRef<'c, '_>,
    options: UniformityOptions,
) -> Result<Vec<(&'static str, usize)>, RegionGraphError<'c>> {
    let view = view_of(function, region, &options)?;
    let graph = view.planned.graph();
    let mut checks = Gate::default_checks();
    checks.push(Box::new(gate::StructuredBranches));
    Ok(checks
        .iter()
        .map(|c| (c.name(), c.violations(&graph, &view.planned)))
        .collect())
}

/// One batch of edits planned on one snapshot of the region.
///
/// Rules look at the snapshot ([`View`]) for every decision, so a block the
/// round already edited must not be looked at again: `written` marks blocks
/// whose operations or terminator changed (or that were removed), and
/// `preds_changed` blocks whose incoming edges changed. A candidate that
/// reads such a block waits for the next round. Every accepted CFG edit is
/// added to `planned`, the cumulative plan, and each further edit of the
/// round is checked against the gate on top of it: the round is the same
/// sequence of edits the one-edit-per-snapshot driver would make, without
/// recomputing uniformity and the graph after each one. Rules only queue
/// their CFG edits (`Folder::propose`); `Folder::commit` checks them
/// in batches and applies the accepted ones.
pub(crate) struct Round<'c, 'a> {
    view: View<'c, 'a>,
    planned: PlannedCfg,
    written: Vec<bool>,
    preds_changed: Vec<bool>,
    pending: Vec<Pending<'c, 'a>>,
}

/// The IR half of a queued edit.
type Apply<'c, 'a> = Box<dyn for<'o> FnOnce(&mut Folder<'c, 'a, 'o>) + 'a>;

/// A CFG edit waiting for [`Folder::commit`].
struct Pending<'c, 'a> {
    edits: Vec<PlanEdit>,
    key: EditKey,
    apply: Apply<'c, 'a>,
}

/// One change of the planned graph.
#[derive(Clone, Debug)]
enum PlanEdit {
    /// [`PlannedCfg::set_terminator`].
    SetTerminator(BlockId, Vec<BlockId>, BlockLabel),
    /// [`PlannedCfg::redirect`].
    Redirect(BlockId, usize, BlockId),
    /// [`PlannedCfg::remove`].
    Remove(BlockId),
    /// A new block with these successors and label that both blocks jump to.
    Shared(Vec<BlockId>, BlockLabel, [BlockId; 2]),
}

impl PlanEdit {
    fn apply(&self, planned: &mut PlannedCfg) {
        match self {
            Self::SetTerminator(block, successors, label) => {
                planned.set_terminator(*block, successors.clone(), *label)
            }
            Self::Redirect(block, slot, target) => planned.redirect(*block, *slot, *target),
            Self::Remove(block) => planned.remove(*block),
            Self::Shared(successors, label, blocks) => {
                let shared = planned.add_block(successors.clone(), *label);
                for &block in blocks {
                    planned.set_terminator(block, vec![shared], BlockLabel::default());
                }
            }
        }
    }
}

impl<'c, 'a> Round<'c, 'a> {
    fn new(view: View<'c, 'a>) -> Self {
        let n = view.num_blocks();
        let planned = view.planned.clone();
        Self {
            view,
            planned,
            written: vec![false; n],
            preds_changed: vec![false; n],
            pending: Vec::new(),
        }
    }

    /// True if none of `blocks` was edited in this round.
    fn untouched(&self, blocks: &[BlockId]) -> bool {
        blocks.iter().all(|b| !self.written[b.index()])
    }

    /// True if the incoming edges of `block` are still those of the snapshot.
    fn same_predecessors(&self, block: BlockId) -> bool {
        !self.preds_changed[block.index()]
    }

    fn write(&mut self, blocks: &[BlockId]) {
        for b in blocks {
            self.written[b.index()] = true;
        }
    }

    fn change_predecessors(&mut self, blocks: &[BlockId]) {
        for b in blocks {
            self.preds_changed[b.index()] = true;
        }
    }
}

/// The current IR's graph, labels and gate.
pub(crate) struct View<'c, 'a> {
    uniformity: RegionUniformity<'c, 'a>,
    planned: PlannedCfg,
    gate: Gate,
}

impl<'c, 'a> View<'c, 'a> {
    fn graph(&self) -> &RegionGraph<'c, 'a> {
        self.uniformity.graph()
    }

    fn block(&self, id: BlockId) -> BlockRef<'c, 'a> {
        self.graph().block(id)
    }

    fn terminator(&self, id: BlockId) -> OperationRef<'c, 'a> {
        self.graph().terminator(id)
    }

    fn id(&self, block: BlockRef<'c, 'a>) -> Option<BlockId> {
        self.graph().id(block)
    }

    fn num_blocks(&self) -> usize {
        self.graph().num_blocks()
    }

    fn predecessors(&self, id: BlockId) -> &[BlockId] {
        self.graph().graph().predecessors(id)
    }
}

/// Identity of a block, for identity comparisons and refusal keys.
fn block_key(block: BlockRef<'_, '_>) -> BlockKey {
    BlockKey::of(&block)
}

/// What a queued or refused edit is about, for the refusal count: the
/// block it starts from and, where the rule involves one, a second block
/// (and the slot of the edge through it). Rules on the same blocks share a
/// key, so a refusal of one rule is remembered for another on those blocks.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct EditKey(BlockKey, Partner);

/// The second half of an [`EditKey`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Partner {
    /// The edit concerns its first block alone.
    None,
    /// A second block of the edit.
    Block(BlockKey),
    /// A block the edit jumps through, and the slot of the edge into it.
    Through(BlockKey, usize),
}

impl EditKey {
    fn block(block: BlockRef<'_, '_>) -> Self {
        Self(block_key(block), Partner::None)
    }

    fn pair(first: BlockRef<'_, '_>, second: BlockRef<'_, '_>) -> Self {
        Self(block_key(first), Partner::Block(block_key(second)))
    }

    fn through(first: BlockRef<'_, '_>, middle: BlockRef<'_, '_>, slot: usize) -> Self {
        Self(block_key(first), Partner::Through(block_key(middle), slot))
    }
}

/// True if `o1` and `o2` are the same operation up to operands: name,
/// attributes, result types, operand count; neither has regions or
/// successors.
fn same_shape(o1: OperationRef<'_, '_>, o2: OperationRef<'_, '_>) -> bool {
    if o1.name() != o2.name()
        || o1.operand_count() != o2.operand_count()
        || o1.result_count() != o2.result_count()
        || o1.region_count() != 0
        || o2.region_count() != 0
        || o1.successor_count() != 0
        || o2.successor_count() != 0
        || o1.attribute_count() != o2.attribute_count()
    {
        return false;
    }
    let types_equal = o1.results().zip(o2.results()).all(|(a, b)| {
        use melior::ir::ValueLike;
        a.r#type() == b.r#type()
    });
    types_equal
        && o1
            .attributes()
            .zip(o2.attributes())
            .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
}

/// True if `block` ends in `spmd.flow_br`.
fn is_flow_block(block: BlockRef<'_, '_>) -> bool {
    block
        .terminator()
        .is_some_and(|t| prepare::op_name(t) == names::FLOW_BR)
}

/// True if `block` holds an operation besides its terminator that the
/// structured contract does not allow in a Flow block. The rule is decided
/// on the C++ side only ([`facts::holds_non_flow_ops`], the same one
/// [`crate::transforms::structurize::flow_shapes`] reads).
fn has_non_flow_ops(block: BlockRef<'_, '_>) -> bool {
    facts::holds_non_flow_ops(block)
}

/// True if `op` is not the first operation of its block.
fn has_ops_before(op: OperationRef<'_, '_>) -> bool {
    op.block()
        .and_then(|b| b.first_operation())
        .is_some_and(|first| first != op)
}

/// The value of an `i1` constant, if `value` is one.
fn constant_bool(value: melior::ir::Value<'_, '_>) -> Option<bool> {
    let op = edit::defining_op(value)?;
    if !edit::is_op(op, names::ARITH_CONSTANT) && !edit::is_op(op, names::LLVM_CONSTANT) {
        return None;
    }
    facts::bool_constant(op)
}
