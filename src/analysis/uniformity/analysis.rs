//! [`UniformityInfo`]: the global fixed point of the uniformity rules (see
//! the module docs of [`super`] for the rules and their justification).
//!
//! # Algorithm
//!
//! One worklist of newly divergent values and one of newly divergent
//! branches. Every value enters its worklist at most once (when it turns
//! divergent), every branch at most once, every cycle is flagged
//! temporally divergent at most once and every join block has its
//! arguments examined at most once, so apart from the per-branch sync
//! propagation ([`super::sync`]) the whole analysis is linear in the size
//! of the program plus, for each flagged cycle, the size of that cycle
//! (a value nested `d` cycles deep is rescanned at most `d` times).
//!
//! * A divergent value makes its users divergent: results of `Pure` users,
//!   the terminator it is the condition of, and the block argument it is
//!   forwarded to.
//! * A divergent branch runs the sync propagation once; each join found
//!   gets its arguments examined ("all incoming values identical?"), each
//!   cycle the branch can leave divergently is flagged, and irreducible
//!   cycles are handled conservatively.
//! * Flagging a cycle treats its exit blocks as joins and marks every use
//!   outside the cycle of a (non-constant) value defined inside it.
//!
//! # Saturation: near-linear sync dependence (useful-joins mode)
//!
//! The complete join lists are quadratic by nature: on CFGs whose edges
//! reach far (the `long-range` family of `structurize_bench`), a divergent
//! branch has hundreds of joins, and the sum over all branches grows with
//! the square of the function (1.4 million join entries at 3k blocks).
//! But the fixed point consumes a join only through three effects, each of
//! which happens at most once per block or cycle:
//!
//! 1. `apply_join(j)` examines `j`'s arguments — a no-op once `j` was
//!    examined, or when all its arguments are already divergent;
//! 2. `irreducible(d)` for a cycle node `d` — a no-op once `d` is flagged;
//! 3. `flag_cycles_leaving(b, j)` flags cycles containing `b` — a no-op
//!    once they are all flagged (or have no exits).
//!
//! Call a block *saturated* when effects 1 and 2 are no-ops for it (as a
//! join, a sink or the header of a cycle node):
//!
//! * effect 1 is a no-op once `j` was examined, or when every argument
//!   whose incoming values are *mixed* is divergent (arguments that always
//!   receive one value or one constant are never changed by `apply_join`);
//! * effect 2 is a no-op once the cycle is flagged, or when it is *moot*:
//!   every argument inside it is divergent (one range query over a layout
//!   in which every cycle's blocks are contiguous), the op results inside
//!   it are made divergent (*assumed*: see below) and `temporal` would do
//!   nothing (flagged, no exits, or every exit saturated for effect 1 and
//!   every non-constant value defined inside with a use outside divergent).
//!
//! Saturation only grows, counted per block and per cycle. A node of any
//! branch's sync graph is *live* while it can reach an unsaturated node in
//! one union DAG of all sync graphs (module `liveness`, decremental: each
//! node dies once, O(blocks + edges) in total). A propagation ignores dead
//! nodes: no live node is reachable from a dead one, so the labels of live
//! nodes, and every join that can still matter, are those of the
//! reference. Effect 3 is handled after the fact: if some cycle around `b`
//! is still not moot once the pruned joins and the conservative exit rules
//! are applied, a dead join might flag it, so `b` is propagated again in
//! full (this happens once per cycle at most in practice: the full run
//! flags the cycle as soon as a join lies outside it).
//!
//! The classification of every value and branch is exactly the
//! reference's, and so is [`UniformityInfo::is_divergent_use`] for every
//! actual use, with one exception that errs on the divergent side. The
//! irreducible rule also makes the op results of its cycle divergent, even
//! those computed from uniform values only; keeping a cycle open until
//! they are all divergent would keep every block before it alive (the
//! long-range family went quadratic: 3.4 million popped nodes at 4k
//! blocks). So once an irreducible cycle is moot except for its op
//! results, the useful-joins mode *assumes* it is entered divergently and
//! makes them divergent ([`UniformityStats::irreducible_values_assumed`]
//! counts such cycles). Where the reference finds the cycle entered only
//! uniformly, those results (and what they decide) are more divergent than
//! the reference's: sound, and rare (the cycle's arguments must all be
//! divergent already). Join lists are subsequences of the complete ones
//! (the live joins, in discovery order), and a moot cycle may stay
//! unflagged (`has_temporal_divergence`, `has_irreducible_divergence`)
//! where the reference flags it. Complete lists are the default of
//! [`UniformityInfo::new`] and what `--spmd-print-uniformity` prints; the
//! passes use the useful-joins mode.
//!
//! *Why it is near-linear in practice.* Every divergent branch first
//! takes its *local* rules, the ones that need no propagation: the
//! conservative cycle-exit rules (a divergent exiting branch, or one whose
//! post-dominator lies outside the cycle, flags the cycles it leaves) and
//! the irreducible-split rule. All of them run, for every branch known to
//! be divergent, before any sync propagation (`solve`: values to their
//! fixed point, then pending local rules, then one propagation). Flagged
//! cycles mark their escaping values and exits, and a flagged or moot
//! cycle saturates its header, so most of the graph is dead before the
//! first propagation starts. Branches are then propagated in the order of
//! [`super::order`] (a heap keyed by position, earliest first); the first
//! joins make their arguments divergent, data dependence carries that to
//! everything they reach, and later propagations meet dead nodes right
//! after their branch.
//!
//! The order of the local rules matters for the cost, not the result:
//! with the exit rules run only after each branch's own propagation, an
//! irreducible header far down the order stayed unsaturated until the
//! branch that exits its cycle was reached, and every earlier branch
//! walked up to it (9.8 million popped nodes at 10k long-range blocks);
//! with the split rule after the propagation too, deep irreducible nests
//! stayed open (over 150 s at 300k blocks). Run first, the long-range
//! family pops no node at all at 1k to 300k blocks. *Worst case.* Unsaturated blocks reachable
//! from everything (arguments that stay uniform although their incoming
//! values differ, in a block no divergent branch joins) keep nodes live,
//! and branches in cycles that never become moot are propagated in full:
//! quadratic, like the reference. The twin tests
//! (`saturating_joins_agree_with_complete_joins_*`) compare both modes on
//! thousands of random programs, including the long-range shape at small
//! sizes, and module `liveness` has its own twin (recomputation after
//! every saturation). Unreachable blocks are in no sync graph.

use super::liveness::JoinLiveness;
use super::order::ForestOrder;
use super::program::{ArgumentKind, BranchMark, OpId, OpKind, Program, Use, ValueDef, ValueId};
use super::skip::SkipLinks;
use super::sync::{Node, SyncPropagator};
use crate::analysis::cfg::{BlockId, CfgAnalysis, CycleId, Graph};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
#[cfg(test)]
use std::fmt::Write;

/// Why a block's terminator is (not) divergent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BranchReason {
    /// Fewer than two successor slots (return, unconditional branch).
    NotABranch,
    /// The block is unreachable from the entry: it never executes.
    Unreachable,
    /// Two or more slots and a uniform condition.
    Uniform,
    /// Marked [`BranchMark::Uniform`]: trusted, whatever the condition.
    MarkedUniform,
    /// Marked [`BranchMark::Divergent`].
    MarkedDivergent,
    /// The condition (or selector) is divergent.
    Condition,
    /// The condition is defined inside a temporally divergent cycle that
    /// this block is outside of: threads left that cycle in different
    /// iterations, so they see different values of a per-iteration-uniform
    /// condition.
    TemporalCondition,
    /// Two or more slots and no condition (unknown selector).
    NoCondition,
}

impl BranchReason {
    /// True for the reasons that make a branch divergent.
    pub(crate) fn is_divergent(self) -> bool {
        matches!(
            self,
            BranchReason::MarkedDivergent
                | BranchReason::Condition
                | BranchReason::TemporalCondition
                | BranchReason::NoCondition
        )
    }
}

/// Counters of the uniformity analysis: what it found and the work it did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct UniformityStats {
    /// Divergent values.
    pub divergent_values: usize,
    /// Divergent branches (reachable blocks).
    pub divergent_branches: usize,
    /// Join blocks summed over divergent branches.
    pub joins: usize,
    /// Cycles with temporal divergence.
    pub temporal_cycles: usize,
    /// Irreducible cycles handled by the conservative rule.
    pub irreducible_cycles: usize,
    /// Nodes popped by all sync propagations.
    pub propagation_work: u64,
    /// Propagations re-run in full after a pruned one (useful-joins mode:
    /// a cycle around the branch was still open).
    pub full_propagations: usize,
    /// Irreducible cycles whose values the useful-joins mode made
    /// divergent without knowing whether they are entered divergently
    /// (a saturation rule of the analysis); 0 in the reference mode.
    pub irreducible_values_assumed: usize,
}

/// Uniformity of every value and branch of a [`Program`].
///
/// Lifecycle (Cranelift style): [`UniformityInfo::new`], then
/// [`UniformityInfo::compute`] as often as needed (all buffers are
/// reused), queries, optionally [`UniformityInfo::clear`].
#[derive(Clone, Debug, Default)]
pub(crate) struct UniformityInfo {
    /// Per value: `UNIFORM`, `DIVERGENT`, or `DEAD` (defined in an
    /// unreachable block: uniform, never marked).
    state: Vec<u8>,
    num_divergent: usize,
    reason: Vec<BranchReason>,
    join_range: Vec<(u32, u32)>,
    join_list: Vec<BlockId>,
    temporal: Vec<bool>,
    irreducible: Vec<bool>,
    stats: UniformityStats,
    /// Report every join of every divergent branch (the reference), or
    /// stop each propagation once nothing it could still find matters
    /// (see "Saturation" in the module docs).
    complete_joins: bool,
    scratch: Scratch,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    order: ForestOrder,
    sync: SyncPropagator,
    /// Full re-runs after pruned propagations (stats).
    full_propagations: usize,
    values: Vec<ValueId>,
    /// Divergent branches to process, earliest position of the order
    /// first (the order does not change the fixed point; processing from
    /// the start lets the data dependence of the first joins saturate what
    /// follows them, see "Saturation").
    branches: BinaryHeap<Reverse<(u32, u32)>>,
    join_applied: Vec<bool>,
    pred_stamp: Vec<u32>,
    stamp: u32,
    arg_keys: Vec<ArgKey>,
    joins: Vec<(BlockId, Node)>,
    /// Per cycle: the blocks whose innermost cycle it is (CSR).
    own_start: Vec<u32>,
    own_blocks: Vec<BlockId>,
    cycle_stack: Vec<CycleId>,
    /// Skips cycles `temporal` is done with (flagged or exitless).
    temporal_skip: SkipLinks,
    /// Skips cycles the irreducible rule is done with (reducible or
    /// flagged).
    irreducible_skip: SkipLinks,
    /// Skips cycles whose temporal rule is moot (useful-joins mode).
    moot_skip: SkipLinks,
    /// Newly divergent branches whose local rules (`apply_local_rules`)
    /// have not run yet; drained before any sync propagation (see `solve`).
    local_rules: Vec<BlockId>,
    /// Useful-joins mode: irreducible cycles closed without their rule
    /// firing, whose values are still to be made divergent (drained by
    /// `solve`), and all such cycles so far.
    assume_pending: Vec<CycleId>,
    assumed: Vec<CycleId>,
    /// Per cycle: every result of its blocks (nested cycles included) is
    /// marked divergent (`mark_cycle_results` is done with it).
    results_marked: Vec<bool>,
    /// Saturation (useful-joins mode, see the module docs).
    sat: Saturation,
}

/// Bookkeeping of the useful-joins mode: which blocks and cycles can still
/// be changed by a join, and the liveness of [`JoinLiveness`] built on it.
#[derive(Clone, Debug, Default)]
struct Saturation {
    /// Per block: arguments with mixed incoming values still uniform.
    mixed_uniform_args: Vec<u32>,
    /// Per value: an argument whose incoming edges forward a mix (the
    /// only ones `apply_join` can mark).
    mixed_arg: Vec<bool>,
    /// Per block: irreducible cycles it heads whose rule is still open.
    irreducible_open_headed: Vec<u32>,
    /// Per cycle: non-constant values defined inside it and used outside
    /// it, still uniform.
    uniform_values: Vec<u32>,
    /// Per value: how many cycles around its definition, innermost first,
    /// it has a use outside of (it counts in their `uniform_values`).
    escapes: Vec<u32>,
    /// Per cycle: exit blocks not yet join-saturated.
    open_exits: Vec<u32>,
    /// Per cycle: `temporal` could change nothing any more.
    temporal_moot: Vec<bool>,
    /// Per cycle: irreducible and its rule could still change something.
    irreducible_open: Vec<bool>,
    /// Per block: the cycles it is an exit block of (CSR).
    exit_of_start: Vec<u32>,
    exit_of: Vec<CycleId>,
    /// Per block: already reported join-saturated / saturated.
    join_saturated: Vec<bool>,
    saturated: Vec<bool>,
    liveness: JoinLiveness,
    /// Blocks laid out so that every cycle's blocks (nested ones
    /// included) form one range `cycle_range[c]`: the own blocks of the
    /// cycles in id order (a preorder of the forest), then the blocks in
    /// no cycle. `uniform_args_at` counts the uniform arguments per
    /// position (a Fenwick tree), so "are all arguments of `c` divergent"
    /// is one range query, however deeply `c` nests.
    position: Vec<u32>,
    cycle_range: Vec<(u32, u32)>,
    uniform_args_at: Fenwick,
}

/// Prefix sums with point updates (Fenwick / binary indexed tree).
#[derive(Clone, Debug, Default)]
struct Fenwick {
    tree: Vec<i64>,
}

impl Fenwick {
    fn reset(&mut self, n: usize) {
        self.tree.clear();
        self.tree.resize(n + 1, 0);
    }

    fn add(&mut self, at: usize, delta: i64) {
        let mut i = at + 1;
        while i < self.tree.len() {
            self.tree[i] += delta;
            i += i & i.wrapping_neg();
        }
    }

    /// Sum over positions `..end`.
    fn prefix(&self, end: usize) -> i64 {
        let (mut i, mut sum) = (end, 0);
        while i > 0 {
            sum += self.tree[i];
            i &= i - 1;
        }
        sum
    }

    fn range(&self, start: usize, end: usize) -> i64 {
        self.prefix(end) - self.prefix(start)
    }
}

const UNIFORM: u8 = 0;
const DIVERGENT: u8 = 1;
const DEAD: u8 = 2;

/// State of one block argument while comparing its incoming values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum ArgKey {
    Unset,
    Value(ValueId),
    Constant(u64, u32),
    Mixed,
}

impl UniformityInfo {
    /// An empty result; call [`UniformityInfo::compute`]. Reports complete
    /// join lists (see [`UniformityInfo::set_complete_joins`]).
    pub(crate) fn new() -> Self {
        Self {
            complete_joins: true,
            ..Self::default()
        }
    }

    /// With `true` (the default of [`UniformityInfo::new`]),
    /// [`UniformityInfo::join_blocks`] lists every join of every divergent
    /// branch: the reference, quadratic when many divergent branches have
    /// long regions. With `false`, each sync propagation ignores the nodes
    /// from which no join that can still change anything is reachable
    /// ("Saturation" in the module docs): the classification of every value
    /// and branch, and of every actual use, is the same; each join list is
    /// a subsequence of the complete one, and a cycle whose rule could
    /// change nothing may stay unflagged.
    pub(crate) fn set_complete_joins(&mut self, complete: bool) {
        self.complete_joins = complete;
    }

    /// Analyzes `program`, whose control flow is `graph` (block ids and
    /// successor slots shared with the program), with `cfg` computed on
    /// that same graph.
    ///
    /// Panics if the program does not fit the graph (see
    /// [`Program::validate`]); in debug builds also if it violates SSA
    /// dominance.
    pub(crate) fn compute<G: Graph + ?Sized>(
        &mut self,
        program: &Program,
        graph: &G,
        cfg: &CfgAnalysis,
    ) {
        check_inputs(program, graph, cfg);
        let n = graph.num_blocks();
        self.reset_results(program, n, cfg);
        self.scratch.reset(graph, cfg);
        let mut run = Run {
            p: program,
            g: graph,
            cfg,
            info: self,
        };
        run.initialize();
        run.solve();
        self.prefer_plain_conditions(program, n);
        self.record_stats();
    }

    /// Resets the per-value, per-block and per-cycle results for a program
    /// of `n` blocks: every reachable value uniform, every other dead.
    fn reset_results(&mut self, program: &Program, n: usize, cfg: &CfgAnalysis) {
        let num_cycles = cfg.cycles().num_cycles();
        self.state.clear();
        self.state.extend((0..program.num_values()).map(|v| {
            if cfg
                .traversal()
                .is_reachable(program.value_block(ValueId::new(v)))
            {
                UNIFORM
            } else {
                DEAD
            }
        }));
        self.num_divergent = 0;
        self.reason.clear();
        self.reason.resize(n, BranchReason::NotABranch);
        self.join_range.clear();
        self.join_range.resize(n, (0, 0));
        self.join_list.clear();
        self.temporal.clear();
        self.temporal.resize(num_cycles, false);
        self.irreducible.clear();
        self.irreducible.resize(num_cycles, false);
    }

    /// Reports [`BranchReason::Condition`] rather than
    /// [`BranchReason::TemporalCondition`] where both hold.
    fn prefer_plain_conditions(&mut self, program: &Program, n: usize) {
        // The worklist order decides which cause is seen first; report the
        // plain one when both hold, so reasons do not depend on numbering.
        for b in 0..n {
            if self.reason[b] == BranchReason::TemporalCondition
                && program
                    .condition(BlockId::new(b))
                    .is_some_and(|c| self.state[c.index()] == DIVERGENT)
            {
                self.reason[b] = BranchReason::Condition;
            }
        }
    }

    /// Fills [`UniformityInfo::stats`] from the results of the last run.
    fn record_stats(&mut self) {
        self.stats = UniformityStats {
            divergent_values: self.num_divergent,
            divergent_branches: self.reason.iter().filter(|r| r.is_divergent()).count(),
            joins: self.join_list.len(),
            temporal_cycles: self.temporal.iter().filter(|&&t| t).count(),
            irreducible_cycles: self.irreducible.iter().filter(|&&t| t).count(),
            propagation_work: self.scratch.sync.work,
            full_propagations: self.scratch.full_propagations,
            irreducible_values_assumed: self.scratch.assumed.len(),
        };
    }

    /// Forgets all results (keeps capacity).
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.state.clear();
        self.num_divergent = 0;
        self.reason.clear();
        self.join_range.clear();
        self.join_list.clear();
        self.temporal.clear();
        self.irreducible.clear();
        self.stats = UniformityStats::default();
    }

    /// True if threads of a wave may see different values of `v` at the
    /// same dynamic instance of its definition. Values in unreachable
    /// blocks are never divergent. For a use outside a temporally
    /// divergent cycle defining `v`, ask [`UniformityInfo::is_divergent_use`].
    pub(crate) fn is_divergent(&self, v: ValueId) -> bool {
        self.state[v.index()] == DIVERGENT
    }

    /// `!is_divergent(v)`.
    #[cfg(test)]
    pub fn is_uniform(&self, v: ValueId) -> bool {
        !self.is_divergent(v)
    }

    /// True if `v` may differ between the threads executing `user` (a use
    /// in block `user`): `v` is divergent, or it is a non-constant value
    /// defined in a temporally divergent cycle that does not contain
    /// `user`. For a forwarded operand on an edge `t -> s`, the use is
    /// divergent if it is for `t` or for `s`. In useful-joins mode
    /// ([`UniformityInfo::set_complete_joins`] with `false`) the answer is
    /// exact for the program's actual uses; for a block where `v` is not
    /// used, a moot cycle left unflagged may answer `false`.
    #[cfg(test)]
    pub fn is_divergent_use(
        &self,
        program: &Program,
        cfg: &CfgAnalysis,
        v: ValueId,
        user: BlockId,
    ) -> bool {
        if self.is_divergent(v) {
            return true;
        }
        if program.constant_key(v).is_some() {
            return false;
        }
        let forest = cfg.cycles();
        let mut c = forest.innermost_cycle(program.value_block(v));
        while let Some(cc) = c {
            if forest.contains(cc, user) {
                return false;
            }
            if self.temporal[cc.index()] {
                return true;
            }
            c = forest.parent(cc);
        }
        false
    }

    /// True if `b`'s terminator sends threads of one wave to different
    /// successor slots.
    pub(crate) fn is_divergent_branch(&self, b: BlockId) -> bool {
        self.reason[b.index()].is_divergent()
    }

    /// Classification of `b`'s terminator.
    #[cfg(test)]
    pub fn branch_reason(&self, b: BlockId) -> BranchReason {
        self.reason[b.index()]
    }

    /// Join blocks of the divergent branch at `b`, in discovery order
    /// (empty for other blocks). A join reached through a whole cycle not
    /// containing `b` is reported by that cycle's header.
    pub(crate) fn join_blocks(&self, b: BlockId) -> &[BlockId] {
        let (start, len) = self.join_range[b.index()];
        &self.join_list[start as usize..(start + len) as usize]
    }

    /// True if threads may leave cycle `c` in different iterations: values
    /// defined in `c` are divergent at uses outside it.
    pub(crate) fn has_temporal_divergence(&self, c: CycleId) -> bool {
        self.temporal[c.index()]
    }

    /// True if the conservative irreducible rule was applied to cycle `c`
    /// (all its block arguments are divergent).
    #[cfg(test)]
    pub fn has_irreducible_divergence(&self, c: CycleId) -> bool {
        self.irreducible[c.index()]
    }

    /// Number of divergent values.
    #[cfg(test)]
    pub fn num_divergent_values(&self) -> usize {
        self.num_divergent
    }

    /// All divergent values, in increasing id order.
    #[cfg(test)]
    pub fn divergent_values(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.state
            .iter()
            .enumerate()
            .filter(|(_, &s)| s == DIVERGENT)
            .map(|(i, _)| ValueId::new(i))
    }

    /// All blocks with a divergent branch, in increasing id order.
    #[cfg(test)]
    pub fn divergent_branches(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.reason
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_divergent())
            .map(|(i, _)| BlockId::new(i))
    }

    /// Counters of the last computation.
    pub(crate) fn stats(&self) -> UniformityStats {
        self.stats
    }

    /// A human-readable listing: per block, its divergent arguments and
    /// op results, its branch classification and joins; then the flagged
    /// cycles.
    #[cfg(test)]
    pub fn dump(&self, program: &Program, cfg: &CfgAnalysis) -> String {
        let mut out = String::new();
        let list = |vs: &mut dyn Iterator<Item = &ValueId>| -> String {
            vs.filter(|&&v| self.is_divergent(v))
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        for i in 0..program.num_blocks() {
            let b = BlockId::new(i);
            let args = list(&mut program.block_arguments(b).iter());
            let results = list(
                &mut program
                    .block_ops(b)
                    .iter()
                    .flat_map(|&op| program.op_results(op)),
            );
            let _ = write!(out, "{b}: {:?}", self.branch_reason(b));
            if !args.is_empty() {
                let _ = write!(out, " divergent-args [{args}]");
            }
            if !results.is_empty() {
                let _ = write!(out, " divergent-results [{results}]");
            }
            let joins = self.join_blocks(b);
            if !joins.is_empty() {
                let j = joins
                    .iter()
                    .map(|j| j.to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                let _ = write!(out, " joins [{j}]");
            }
            out.push('\n');
        }
        for c in cfg.cycles().cycles() {
            if self.has_temporal_divergence(c) || self.has_irreducible_divergence(c) {
                let _ = writeln!(
                    out,
                    "cycle {} (header {}): temporal{}",
                    c.index(),
                    cfg.cycles().header(c),
                    if self.has_irreducible_divergence(c) {
                        ", irreducible"
                    } else {
                        ""
                    }
                );
            }
        }
        out
    }
}

/// Panics if `program` does not fit `graph` or `cfg` was computed on
/// another graph; in debug builds also if `program` is invalid.
fn check_inputs<G: Graph + ?Sized>(program: &Program, graph: &G, cfg: &CfgAnalysis) {
    if let Err(e) = program.validate_shape(graph) {
        panic!("uniformity: program does not match the graph: {e}");
    }
    assert_eq!(
        cfg.num_blocks(),
        graph.num_blocks(),
        "uniformity: CfgAnalysis of another graph"
    );
    #[cfg(debug_assertions)]
    if let Err(e) = program.validate(graph, Some(cfg)) {
        panic!("uniformity: invalid program: {e}");
    }
}

impl Scratch {
    /// Resets the worklists, stamps and skip links for `graph` and
    /// computes the branch order and the own blocks of every cycle.
    fn reset<G: Graph + ?Sized>(&mut self, graph: &G, cfg: &CfgAnalysis) {
        let n = graph.num_blocks();
        let num_cycles = cfg.cycles().num_cycles();
        self.order.compute(graph, cfg);
        self.sync.reset(n);
        self.full_propagations = 0;
        self.values.clear();
        self.branches.clear();
        self.join_applied.clear();
        self.join_applied.resize(n, false);
        self.pred_stamp.clear();
        self.pred_stamp.resize(n, 0);
        self.stamp = 0;
        self.temporal_skip.reset(num_cycles);
        self.irreducible_skip.reset(num_cycles);
        self.moot_skip.reset(num_cycles);
        self.local_rules.clear();
        self.assume_pending.clear();
        self.assumed.clear();
        self.results_marked.clear();
        self.results_marked.resize(num_cycles, false);
        self.index_own_blocks(n, cfg);
    }

    /// Builds the CSR `own_start` / `own_blocks`: per cycle, the blocks
    /// whose innermost cycle it is, in block order.
    fn index_own_blocks(&mut self, n: usize, cfg: &CfgAnalysis) {
        let forest = cfg.cycles();
        let num_cycles = forest.num_cycles();
        self.own_start.clear();
        self.own_start.resize(num_cycles + 1, 0);
        for b in 0..n {
            if let Some(c) = forest.innermost_cycle(BlockId::new(b)) {
                self.own_start[c.index() + 1] += 1;
            }
        }
        for c in 0..num_cycles {
            self.own_start[c + 1] += self.own_start[c];
        }
        self.own_blocks.clear();
        self.own_blocks
            .resize(self.own_start[num_cycles] as usize, BlockId::new(0));
        let mut fill = self.own_start.clone();
        for b in 0..n {
            let block = BlockId::new(b);
            if let Some(c) = forest.innermost_cycle(block) {
                self.own_blocks[fill[c.index()] as usize] = block;
                fill[c.index()] += 1;
            }
        }
    }
}

/// One computation: the inputs plus the result being filled.
struct Run<'a, G: Graph + ?Sized> {
    p: &'a Program,
    g: &'a G,
    cfg: &'a CfgAnalysis,
    info: &'a mut UniformityInfo,
}

impl<G: Graph + ?Sized> Run<'_, G> {
    fn reachable(&self, b: BlockId) -> bool {
        self.cfg.traversal().is_reachable(b)
    }

    /// Makes `v` divergent (unless it lives in an unreachable block).
    fn mark(&mut self, v: ValueId) {
        let s = &mut self.info.state[v.index()];
        if *s != UNIFORM {
            return;
        }
        *s = DIVERGENT;
        self.info.num_divergent += 1;
        self.info.scratch.values.push(v);
        if !self.info.complete_joins {
            self.saturation_after_mark(v);
        }
    }

    /// The block or op defining `v`, and whether `v` counts among the
    /// values of a cycle that `temporal` examines (non-constant values).
    fn definition(&self, v: ValueId) -> (BlockId, bool) {
        match self.p.value_def(v) {
            ValueDef::Argument { block, .. } => (block, true),
            ValueDef::Result { op, .. } => (
                self.p.op_block(op),
                !matches!(self.p.op_kind(op), OpKind::Constant(_)),
            ),
        }
    }

    /// Useful-joins mode: sets up the saturation counters and the
    /// liveness of [`JoinLiveness`] before any value is marked.
    fn prepare_saturation(&mut self) {
        self.reset_saturation_scratch();
        self.lay_out_cycles();
        self.count_mixed_arguments();
        self.count_escapes();
        self.mark_saturation();
    }

    /// Sizes the saturation scratch for this program and fills the per-block
    /// lists of the cycles each block exits, and which cycles are
    /// irreducible (still open).
    fn reset_saturation_scratch(&mut self) {
        let (p, g, cfg) = (self.p, self.g, self.cfg);
        let forest = cfg.cycles();
        let (n, num_cycles) = (g.num_blocks(), forest.num_cycles());
        let sat = &mut self.info.scratch.sat;
        sat.mixed_uniform_args.clear();
        sat.mixed_uniform_args.resize(n, 0);
        sat.mixed_arg.clear();
        sat.mixed_arg.resize(p.num_values(), false);
        sat.irreducible_open_headed.clear();
        sat.irreducible_open_headed.resize(n, 0);
        sat.uniform_values.clear();
        sat.uniform_values.resize(num_cycles, 0);
        sat.open_exits.clear();
        sat.open_exits.resize(num_cycles, 0);
        sat.temporal_moot.clear();
        sat.temporal_moot.resize(num_cycles, false);
        sat.irreducible_open.clear();
        sat.irreducible_open.resize(num_cycles, false);
        sat.join_saturated.clear();
        sat.join_saturated.resize(n, false);
        sat.saturated.clear();
        sat.saturated.resize(n, false);
        sat.exit_of_start.clear();
        sat.exit_of_start.resize(n + 1, 0);
        for c in forest.cycles() {
            for &x in forest.exit_blocks(c) {
                sat.exit_of_start[x.index() + 1] += 1;
            }
            if !forest.is_reducible(c) {
                sat.irreducible_open[c.index()] = true;
                sat.irreducible_open_headed[forest.header(c).index()] += 1;
            }
        }
        for i in 0..n {
            sat.exit_of_start[i + 1] += sat.exit_of_start[i];
        }
        sat.exit_of.clear();
        sat.exit_of
            .resize(sat.exit_of_start[n] as usize, CycleId::new(0));
        let mut fill = sat.exit_of_start.clone();
        for c in forest.cycles() {
            for &x in forest.exit_blocks(c) {
                sat.exit_of[fill[x.index()] as usize] = c;
                fill[x.index()] += 1;
            }
        }
    }

    /// Only arguments with mixed incoming values can be changed by
    /// `apply_join`: the others never keep a block unsaturated.
    fn count_mixed_arguments(&mut self) {
        let (p, n) = (self.p, self.g.num_blocks());
        for i in 0..n {
            let b = BlockId::new(i);
            if !self.reachable(b) {
                continue;
            }
            self.incoming_keys(b);
            let s = &mut self.info.scratch;
            for (k, &a) in p.block_arguments(b).iter().enumerate() {
                if s.arg_keys[k] == ArgKey::Mixed {
                    s.sat.mixed_arg[a.index()] = true;
                    s.sat.mixed_uniform_args[i] += 1;
                }
            }
        }
    }

    /// Per value, how many cycles around its definition it escapes, and per
    /// cycle, how many values escape it.
    fn count_escapes(&mut self) {
        let (p, forest) = (self.p, self.cfg.cycles());
        self.info.scratch.sat.escapes.clear();
        self.info.scratch.sat.escapes.resize(p.num_values(), 0);
        for v in 0..p.num_values() {
            let v = ValueId::new(v);
            let (block, counts) = self.definition(v);
            if counts && self.reachable(block) {
                let escapes = self.cycles_escaped(v, block);
                let sat = &mut self.info.scratch.sat;
                sat.escapes[v.index()] = escapes;
                let mut c = forest.innermost_cycle(block);
                for _ in 0..escapes {
                    let cc = c.expect("escapes at most the cycles around");
                    sat.uniform_values[cc.index()] += 1;
                    c = forest.parent(cc);
                }
            }
        }
    }

    /// The join-saturated and saturated blocks, the open exits of each
    /// cycle, the liveness of unsaturated blocks, and each cycle settled.
    fn mark_saturation(&mut self) {
        let (g, cfg) = (self.g, self.cfg);
        let forest = cfg.cycles();
        let n = g.num_blocks();
        for i in 0..n {
            let b = BlockId::new(i);
            if self.reachable(b) && self.is_join_saturated(b) {
                self.info.scratch.sat.join_saturated[i] = true;
            }
        }
        for c in forest.cycles() {
            let open = forest
                .exit_blocks(c)
                .iter()
                .filter(|x| !self.info.scratch.sat.join_saturated[x.index()])
                .count();
            self.info.scratch.sat.open_exits[c.index()] = open as u32;
        }
        for i in 0..n {
            let b = BlockId::new(i);
            if self.reachable(b) && self.saturated(b) {
                self.info.scratch.sat.saturated[i] = true;
            }
        }
        let sat = &mut self.info.scratch.sat;
        let saturated = std::mem::take(&mut sat.saturated);
        sat.liveness.compute(g, cfg, |b| !saturated[b.index()]);
        sat.saturated = saturated;
        for c in forest.cycles() {
            self.settle_cycle(c);
        }
    }

    /// How many cycles around `block` (innermost first) `v`, defined in
    /// `block`, has a use outside of: the cycles whose `temporal` would
    /// mark one of its uses. Cycles nest, so they form a chain.
    fn cycles_escaped(&self, v: ValueId, block: BlockId) -> u32 {
        let (p, forest) = (self.p, self.cfg.cycles());
        let mut most = 0;
        let inner = forest.innermost_cycle(block);
        let mut escaped = |users: [BlockId; 2]| {
            let Some(inner) = inner else { return };
            let left = |c: CycleId| users.iter().any(|&u| !forest.contains(c, u));
            if let Some(outer) = forest.outermost_ancestor_where(inner, left) {
                most = most.max(forest.depth(inner) - forest.depth(outer) + 1);
            }
        };
        for &u in p.uses(v) {
            match u {
                Use::Operand { op, .. } => escaped([p.op_block(op); 2]),
                Use::Condition { block } => escaped([block; 2]),
                Use::Forwarded { block, slot, .. } => {
                    if self.reachable(block) {
                        escaped([block, self.g.successors(block)[slot as usize]]);
                    }
                }
            }
        }
        most
    }

    /// Fills `position`, `cycle_range` and `uniform_args_at` (see
    /// [`Saturation`]).
    fn lay_out_cycles(&mut self) {
        let (p, g, cfg) = (self.p, self.g, self.cfg);
        let forest = cfg.cycles();
        let (n, num_cycles) = (g.num_blocks(), forest.num_cycles());
        let s = &mut self.info.scratch;
        let sat = &mut s.sat;
        sat.position.clear();
        sat.position.resize(n, 0);
        sat.cycle_range.clear();
        sat.cycle_range.resize(num_cycles, (0, 0));
        let mut next = 0u32;
        for c in 0..num_cycles {
            sat.cycle_range[c].0 = next;
            for k in s.own_start[c]..s.own_start[c + 1] {
                sat.position[s.own_blocks[k as usize].index()] = next;
                next += 1;
            }
        }
        // Children have larger ids than their parent: sizes bottom-up.
        for c in (0..num_cycles).rev() {
            let own = s.own_start[c + 1] - s.own_start[c];
            let nested: u32 = forest
                .children(CycleId::new(c))
                .iter()
                .map(|d| sat.cycle_range[d.index()].1 - sat.cycle_range[d.index()].0)
                .sum();
            sat.cycle_range[c].1 = sat.cycle_range[c].0 + own + nested;
        }
        for b in 0..n {
            if forest.innermost_cycle(BlockId::new(b)).is_none() {
                sat.position[b] = next;
                next += 1;
            }
        }
        sat.uniform_args_at.reset(n);
        for b in 0..n {
            let block = BlockId::new(b);
            if forest.innermost_cycle(block).is_some() && cfg.traversal().is_reachable(block) {
                let args = p.block_arguments(block).len() as i64;
                sat.uniform_args_at.add(sat.position[b] as usize, args);
            }
        }
    }

    /// Useful-joins mode: `v` just turned divergent.
    fn saturation_after_mark(&mut self, v: ValueId) {
        let (block, counts) = self.definition(v);
        if matches!(self.p.value_def(v), ValueDef::Argument { .. })
            && self.cfg.cycles().innermost_cycle(block).is_some()
        {
            let sat = &mut self.info.scratch.sat;
            sat.uniform_args_at
                .add(sat.position[block.index()] as usize, -1);
        }
        let sat = &mut self.info.scratch.sat;
        if sat.mixed_arg[v.index()] {
            sat.mixed_uniform_args[block.index()] -= 1;
            self.note_block(block);
        }
        if counts {
            let forest = self.cfg.cycles();
            let mut c = forest.innermost_cycle(block);
            for _ in 0..self.info.scratch.sat.escapes[v.index()] {
                let cc = c.expect("escapes at most the cycles around");
                self.info.scratch.sat.uniform_values[cc.index()] -= 1;
                self.settle_cycle(cc);
                c = forest.parent(cc);
            }
        }
    }

    /// True if `apply_join(b)` can change nothing.
    fn is_join_saturated(&self, b: BlockId) -> bool {
        let s = &self.info.scratch;
        s.join_applied[b.index()] || s.sat.mixed_uniform_args[b.index()] == 0
    }

    /// True if finding `b` as a join (or as the header of a cycle node or
    /// sink) can change nothing: `apply_join(b)` is a no-op and every
    /// irreducible cycle it heads is flagged or moot.
    fn saturated(&self, b: BlockId) -> bool {
        self.is_join_saturated(b) && self.info.scratch.sat.irreducible_open_headed[b.index()] == 0
    }

    /// Useful-joins mode: propagates a change of `b`'s counters to the
    /// cycles it exits and to the liveness.
    fn note_block(&mut self, b: BlockId) {
        if self.info.complete_joins {
            return;
        }
        if !self.info.scratch.sat.join_saturated[b.index()] && self.is_join_saturated(b) {
            self.info.scratch.sat.join_saturated[b.index()] = true;
            let (start, end) = {
                let sat = &self.info.scratch.sat;
                (
                    sat.exit_of_start[b.index()],
                    sat.exit_of_start[b.index() + 1],
                )
            };
            for k in start..end {
                let c = self.info.scratch.sat.exit_of[k as usize];
                self.info.scratch.sat.open_exits[c.index()] -= 1;
                self.settle_cycle(c);
            }
        }
        if !self.info.scratch.sat.saturated[b.index()] && self.saturated(b) {
            let sat = &mut self.info.scratch.sat;
            sat.saturated[b.index()] = true;
            sat.liveness.saturate(self.cfg, b);
        }
    }

    /// Useful-joins mode: records that `temporal(c)`, or the irreducible
    /// rule of `c`, can change nothing any more. A moot cycle may stay
    /// unflagged although the reference flags it (see "Saturation").
    fn settle_cycle(&mut self, c: CycleId) {
        if self.info.complete_joins {
            return;
        }
        let forest = self.cfg.cycles();
        let i = c.index();
        let sat = &mut self.info.scratch.sat;
        let values_divergent = sat.uniform_values[i] == 0;
        if !sat.temporal_moot[i]
            && (self.info.temporal[i]
                || forest.exit_blocks(c).is_empty()
                || (values_divergent && sat.open_exits[i] == 0))
        {
            sat.temporal_moot[i] = true;
        }
        let args_divergent = || {
            let (lo, hi) = sat.cycle_range[i];
            sat.uniform_args_at.range(lo as usize, hi as usize) == 0
        };
        let flagged = self.info.irreducible[i];
        if sat.irreducible_open[i]
            && (flagged || (values_divergent && sat.temporal_moot[i] && args_divergent()))
        {
            if !flagged {
                // Only the op results inside could still change. Whether a
                // later propagation would find the cycle entered
                // divergently is not worth keeping everything before it
                // alive: assume it is (see "Saturation").
                self.info.scratch.assume_pending.push(c);
                self.info.scratch.assumed.push(c);
            }
            let sat = &mut self.info.scratch.sat;
            sat.irreducible_open[i] = false;
            let h = forest.header(c);
            sat.irreducible_open_headed[h.index()] -= 1;
            self.note_block(h);
        }
    }

    /// True if the propagation of the divergent branch at `b` may ignore
    /// dead nodes: a join outside a cycle containing `b` flags that cycle
    /// temporally divergent, so every such cycle must already be moot.
    fn may_prune(&mut self, b: BlockId) -> bool {
        if self.info.complete_joins {
            return false;
        }
        let forest = self.cfg.cycles();
        let s = &mut self.info.scratch;
        let moot = &s.sat.temporal_moot;
        s.moot_skip
            .first_open(forest, forest.innermost_cycle(b), |d| moot[d.index()])
            .is_none()
    }

    /// A divergent operand reaches `op`.
    fn mark_results(&mut self, op: OpId) {
        if can_diverge(self.p.op_kind(op)) {
            let p = self.p;
            for &r in p.op_results(op) {
                self.mark(r);
            }
        }
    }

    fn push_branch(&mut self, b: BlockId) {
        let s = &mut self.info.scratch;
        s.branches.push(Reverse((s.order.index(b), b.as_u32())));
        s.local_rules.push(b);
    }

    fn diverge_branch(&mut self, b: BlockId, reason: BranchReason) {
        let r = &mut self.info.reason[b.index()];
        if *r == BranchReason::Uniform {
            *r = reason;
            self.push_branch(b);
        }
    }

    fn initialize(&mut self) {
        let p = self.p;
        if !self.info.complete_joins {
            self.prepare_saturation();
        }
        for i in 0..p.num_values() {
            let v = ValueId::new(i);
            if let ValueDef::Argument {
                kind: ArgumentKind::Divergent,
                ..
            } = p.value_def(v)
            {
                self.mark(v);
            }
        }
        for i in 0..p.num_ops() {
            let op = OpId::new(i);
            if p.op_kind(op) == OpKind::Source {
                self.mark_results(op);
            }
        }
        for i in 0..p.num_blocks() {
            let b = BlockId::new(i);
            if !self.reachable(b) {
                self.info.reason[i] = BranchReason::Unreachable;
                continue;
            }
            let succs = self.g.successors(b);
            self.info.reason[i] = if succs.len() < 2 {
                BranchReason::NotABranch
            } else {
                match (p.mark(b), p.condition(b)) {
                    (Some(BranchMark::Uniform), _) => BranchReason::MarkedUniform,
                    (Some(BranchMark::Divergent), _) => BranchReason::MarkedDivergent,
                    (None, None) => BranchReason::NoCondition,
                    (None, Some(_)) => BranchReason::Uniform,
                }
            };
            if self.info.reason[i].is_divergent() {
                self.push_branch(b);
            }
            // Arguments the terminator produces itself (fewer forwarded
            // operands than target arguments) are unknown: divergent.
            for (slot, &s) in succs.iter().enumerate() {
                let given = p.forwarded(b, slot).len();
                for &a in &p.block_arguments(s)[given..] {
                    self.mark(a);
                }
            }
        }
    }

    fn solve(&mut self) {
        loop {
            while let Some(v) = self.info.scratch.values.pop() {
                self.process_value(v);
            }
            // The local rules of every known divergent branch run before
            // any propagation: they flag cycles early, which saturates
            // their headers and exits, so propagations of earlier branches
            // need not stay alive to reach them.
            if let Some(b) = self.info.scratch.local_rules.pop() {
                self.apply_local_rules(b);
                continue;
            }
            if let Some(c) = self.info.scratch.assume_pending.pop() {
                self.mark_cycle_results(c);
                continue;
            }
            match self.info.scratch.branches.pop() {
                Some(Reverse((_, b))) => self.process_branch(BlockId::new(b as usize)),
                None => break,
            }
        }
    }

    fn process_value(&mut self, v: ValueId) {
        let p = self.p;
        for &u in p.uses(v) {
            match u {
                Use::Operand { op, .. } => self.mark_results(op),
                Use::Condition { block } => self.diverge_branch(block, BranchReason::Condition),
                Use::Forwarded { block, slot, index } => {
                    if self.reachable(block) {
                        let s = self.g.successors(block)[slot as usize];
                        self.mark(p.block_arguments(s)[index as usize]);
                    }
                }
            }
        }
    }

    /// The rules of the divergent branch at `b` that need no sync
    /// propagation: the conservative cycle-exit rules (a divergent exiting
    /// branch, or one whose post-dominator lies outside the cycle or is
    /// the virtual exit, flags the cycles it leaves) and the
    /// irreducible-split rule.
    fn apply_local_rules(&mut self, b: BlockId) {
        let (g, cfg) = (self.g, self.cfg);
        for &s in g.successors(b) {
            self.flag_cycles_leaving(b, Some(s));
        }
        self.flag_cycles_leaving(b, cfg.post_dominators().ipdom(b));
        self.flag_irreducible_splits(b);
    }

    fn process_branch(&mut self, b: BlockId) {
        // Useful-joins mode: first ignore the dead nodes. Their joins could
        // only flag cycles around `b` (a join outside a cycle flags it);
        // if any of those cycles is still open after everything else this
        // branch implies, propagate again in full.
        let prune = !self.info.complete_joins;
        self.propagate_and_apply(b, prune);
        if prune && !self.may_prune(b) {
            self.info.scratch.full_propagations += 1;
            self.propagate_and_apply(b, false);
        }
    }

    /// Runs the sync propagation of the divergent branch at `b` (ignoring
    /// dead nodes with `prune`), records its joins and applies them.
    fn propagate_and_apply(&mut self, b: BlockId, prune: bool) {
        let (g, cfg) = (self.g, self.cfg);
        let forest = cfg.cycles();
        {
            let s = &mut self.info.scratch;
            s.sync
                .propagate(g, cfg, &s.order, b, prune.then_some(&s.sat.liveness));
            std::mem::swap(&mut s.joins, &mut s.sync.joins);
        }
        let joins = std::mem::take(&mut self.info.scratch.joins);
        // A second run replaces the list of the first.
        let (old_start, old_len) = self.info.join_range[b.index()];
        if old_len > 0 && (old_start + old_len) as usize == self.info.join_list.len() {
            self.info.join_list.truncate(old_start as usize);
        }
        let start = self.info.join_list.len() as u32;
        self.info.join_list.extend(joins.iter().map(|&(j, _)| j));
        self.info.join_range[b.index()] = (start, joins.len() as u32);
        for &(j, node) in &joins {
            self.apply_join(j);
            if let Node::Cycle(d) = node {
                if !forest.is_reducible(d) {
                    self.irreducible(d);
                }
            }
            // A join outside a cycle containing `b`: threads of that cycle
            // arrive there from different iterations or exits.
            self.flag_cycles_leaving(b, Some(j));
        }
        self.info.scratch.joins = joins;
    }

    /// A divergent branch inside an irreducible cycle that splits threads
    /// *within* it (two successor slots lead to different blocks of the
    /// cycle) takes the conservative irreducible rule there. With at most
    /// one successor inside, the threads still in the cycle all took the
    /// same edge and stay in phase; the others left it (the cycle is
    /// temporally divergent, flagged by `process_branch`), so the cycle's
    /// arguments keep the normal rules.
    ///
    /// The cycles around `b` that hold two different successors are those
    /// around-or-equal the lowest one that does (containment only grows
    /// outwards): each successor's lowest cycle around `b` is found with
    /// [`CycleForest::outermost_without`], the second deepest of them is
    /// where the split starts, and the irreducible ones from there up are
    /// visited through [`SkipLinks`].
    fn flag_irreducible_splits(&mut self, b: BlockId) {
        let forest = self.cfg.cycles();
        let Some(inner) = forest.innermost_cycle(b) else {
            return;
        };
        let succs = self.g.successors(b);
        // Lowest cycle around `b` containing each distinct successor.
        let lowest = |s: BlockId| match forest.outermost_without(inner, s) {
            None => Some(inner),
            Some(outer) => forest.parent(outer),
        };
        let (mut deepest, mut second): (Option<(BlockId, CycleId)>, Option<CycleId>) = (None, None);
        for &s in succs {
            let Some(c) = lowest(s) else { continue };
            match deepest {
                Some((first, _)) if first == s => {}
                Some((_, d)) if forest.depth(c) > forest.depth(d) => {
                    second = Some(d);
                    deepest = Some((s, c));
                }
                Some(_) => {
                    if second.is_none_or(|x| forest.depth(c) > forest.depth(x)) {
                        second = Some(c);
                    }
                }
                None => deepest = Some((s, c)),
            }
        }
        let mut c = second;
        loop {
            let irreducible = &self.info.irreducible;
            c = self
                .info
                .scratch
                .irreducible_skip
                .first_open(forest, c, |d| {
                    forest.is_reducible(d) || irreducible[d.index()]
                });
            let Some(cc) = c else { break };
            self.irreducible(cc);
            c = forest.parent(cc);
        }
    }

    /// Flags every cycle containing `b` but not `target` (all cycles
    /// containing `b` if `target` is `None`, the virtual exit).
    ///
    /// Cycles already flagged (or without exits) are skipped through
    /// path-compressed links ([`SkipLinks`]), so deep nests are not walked
    /// again for every join.
    fn flag_cycles_leaving(&mut self, b: BlockId, target: Option<BlockId>) {
        let forest = self.cfg.cycles();
        let mut c = self.open_cycle_from(forest.innermost_cycle(b));
        while let Some(cc) = c {
            if target.is_some_and(|t| forest.contains(cc, t)) {
                break;
            }
            self.temporal(cc);
            c = self.open_cycle_from(forest.parent(cc));
        }
    }

    /// The innermost cycle around-or-equal `c` that is neither flagged
    /// temporally divergent nor exitless (`temporal` would do something).
    fn open_cycle_from(&mut self, c: Option<CycleId>) -> Option<CycleId> {
        let forest = self.cfg.cycles();
        let temporal = &self.info.temporal;
        self.info.scratch.temporal_skip.first_open(forest, c, |d| {
            temporal[d.index()] || forest.exit_blocks(d).is_empty()
        })
    }

    /// Rule for join blocks: an argument is divergent unless every
    /// incoming edge (from a reachable block) forwards the same value, or
    /// constants with the same key.
    fn apply_join(&mut self, j: BlockId) {
        let args = self.p.block_arguments(j);
        let s = &mut self.info.scratch;
        if s.join_applied[j.index()] || args.is_empty() {
            return;
        }
        s.join_applied[j.index()] = true;
        self.incoming_keys(j);
        self.note_block(j);
        for (k, &a) in args.iter().enumerate() {
            if self.info.scratch.arg_keys[k] == ArgKey::Mixed {
                self.mark(a);
            }
        }
    }

    /// Fills `scratch.arg_keys` with, per argument of `j`, what its
    /// incoming edges (from reachable blocks) forward: one value, one
    /// constant key, or a mix. The entry's caller is an extra edge with
    /// unknown values, so every entry argument is mixed.
    fn incoming_keys(&mut self, j: BlockId) {
        let p = self.p;
        let s = &mut self.info.scratch;
        let num_args = p.block_arguments(j).len();
        s.arg_keys.clear();
        if j == self.g.entry() {
            s.arg_keys.resize(num_args, ArgKey::Mixed);
            return;
        }
        s.arg_keys.resize(num_args, ArgKey::Unset);
        s.stamp += 1;
        for &pred in self.g.predecessors(j) {
            if !self.cfg.traversal().is_reachable(pred) || s.pred_stamp[pred.index()] == s.stamp {
                continue;
            }
            s.pred_stamp[pred.index()] = s.stamp;
            for (slot, &succ) in self.g.successors(pred).iter().enumerate() {
                if succ != j {
                    continue;
                }
                let forwarded = p.forwarded(pred, slot);
                for (k, key) in s.arg_keys.iter_mut().enumerate() {
                    let incoming = match forwarded.get(k) {
                        None => ArgKey::Mixed,
                        Some(&v) => match p.constant_key(v) {
                            Some((c, i)) => ArgKey::Constant(c, i),
                            None => ArgKey::Value(v),
                        },
                    };
                    *key = match *key {
                        ArgKey::Unset => incoming,
                        k if k == incoming => k,
                        _ => ArgKey::Mixed,
                    };
                }
            }
        }
    }

    /// Temporal divergence of cycle `c` (see module docs).
    fn temporal(&mut self, c: CycleId) {
        let forest = self.cfg.cycles();
        if self.info.temporal[c.index()] || forest.exit_blocks(c).is_empty() {
            // Without exits nothing outside `c` is reachable from it.
            return;
        }
        self.info.temporal[c.index()] = true;
        self.settle_cycle(c);
        for &x in forest.exit_blocks(c) {
            self.apply_join(x);
        }
        // The blocks of `c` outside its child cycles already flagged: a
        // flagged child marked every use outside itself, a superset of the
        // uses outside `c`, of each value that was uniform then (values
        // divergent since had all their uses handled). This keeps nested
        // cycles from rescanning their blocks once per level.
        let p = self.p;
        let mut pending = std::mem::take(&mut self.info.scratch.cycle_stack);
        pending.clear();
        pending.push(c);
        while let Some(d) = pending.pop() {
            let (start, end) = {
                let s = &self.info.scratch;
                (s.own_start[d.index()], s.own_start[d.index() + 1])
            };
            for k in start..end {
                let blk = self.info.scratch.own_blocks[k as usize];
                for &a in p.block_arguments(blk) {
                    self.temporal_value(a, c);
                }
                for &op in p.block_ops(blk) {
                    if !matches!(p.op_kind(op), OpKind::Constant(_)) {
                        for &r in p.op_results(op) {
                            self.temporal_value(r, c);
                        }
                    }
                }
            }
            pending.extend(
                forest
                    .children(d)
                    .iter()
                    .filter(|child| !self.info.temporal[child.index()]),
            );
        }
        self.info.scratch.cycle_stack = pending;
    }

    /// Marks the uses outside `c` of `v` (defined in `c`) as divergent.
    fn temporal_value(&mut self, v: ValueId, c: CycleId) {
        if self.info.state[v.index()] != UNIFORM {
            return; // divergent: every use is (or will be) handled; dead: no use runs
        }
        let (p, forest) = (self.p, self.cfg.cycles());
        for &u in p.uses(v) {
            match u {
                Use::Operand { op, .. } => {
                    if !forest.contains(c, p.op_block(op)) {
                        self.mark_results(op);
                    }
                }
                Use::Condition { block } => {
                    if !forest.contains(c, block) {
                        self.diverge_branch(block, BranchReason::TemporalCondition);
                    }
                }
                Use::Forwarded { block, slot, index } => {
                    if !self.reachable(block) {
                        continue;
                    }
                    let s = self.g.successors(block)[slot as usize];
                    if !forest.contains(c, block) || !forest.contains(c, s) {
                        self.mark(p.block_arguments(s)[index as usize]);
                    }
                }
            }
        }
    }

    /// Conservative rule for an irreducible cycle that contains a divergent
    /// branch or is entered divergently.
    fn irreducible(&mut self, c: CycleId) {
        if self.info.irreducible[c.index()] {
            return;
        }
        self.info.irreducible[c.index()] = true;
        let (p, forest) = (self.p, self.cfg.cycles());
        self.settle_cycle(c);
        for &blk in forest.blocks(c) {
            for &a in p.block_arguments(blk) {
                self.mark(a);
            }
        }
        self.mark_cycle_results(c);
        self.temporal(c);
    }

    /// Makes every result of a `Pure` or `Source` op inside `c` divergent.
    /// A cycle whose results are all marked already is skipped, nested
    /// ones included: each cycle's own blocks are visited once per run,
    /// however deeply the cycles nest (marking is monotone).
    fn mark_cycle_results(&mut self, c: CycleId) {
        let (p, forest) = (self.p, self.cfg.cycles());
        let mut stack = vec![c];
        while let Some(c) = stack.pop() {
            if std::mem::replace(&mut self.info.scratch.results_marked[c.index()], true) {
                continue;
            }
            let s = &self.info.scratch;
            let own = s.own_start[c.index()] as usize..s.own_start[c.index() + 1] as usize;
            for index in own {
                let blk = self.info.scratch.own_blocks[index];
                for &op in p.block_ops(blk) {
                    self.mark_results(op);
                }
            }
            stack.extend_from_slice(forest.children(c));
        }
    }
}

/// True for the ops whose results can be divergent: everything but
/// constants and always-uniform ops (ballots, reductions, block ids),
/// which are uniform wherever they run. A divergent operand, and the
/// irreducible rule, make exactly these divergent.
fn can_diverge(kind: OpKind) -> bool {
    matches!(kind, OpKind::Pure | OpKind::Source)
}
