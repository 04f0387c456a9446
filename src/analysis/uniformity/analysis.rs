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
//! join, a sink or the header of a cycle node). Saturation only grows. Keep
//! the highest position of the [`super::order`] that may be unsaturated
//! (the *frontier*): it only moves down, lazily, when asked, so all
//! queries together cost O(blocks). Before propagating branch `b`, if every
//! cycle containing `b` is flagged with a saturated header (effect 3 and
//! the sinks), the propagation stops at the first popped node whose
//! position lies beyond the frontier: keys increase along the edges of
//! `G_B`, so every node it could still reach is saturated and every join it
//! could still find has no effect. The classification of every value,
//! branch and cycle is exactly the reference's; only the join lists are
//! cut (a prefix of the complete list, in discovery order). Complete lists
//! are the default of [`UniformityInfo::new`] and what
//! `--spmd-print-uniformity` prints; the passes use the useful-joins mode.
//!
//! *Why it is near-linear in practice.* Branches are processed from the
//! end of the function backwards (the branch worklist is a heap keyed by
//! position in the order, latest first), and values are propagated to
//! their fixed point before the next branch. Each join makes its arguments divergent, and data dependence
//! then carries that to everything the join reaches, so the suffix after
//! the branches already processed saturates and each propagation stops
//! shortly after its branch. On the long-range family the total
//! propagation work drops from quadratic to a few nodes per branch.
//! *Worst case.* Blocks whose arguments stay uniform forever (incoming
//! values identical, never a join) and are never found as joins keep the
//! frontier high; a shape with many such blocks after many divergent
//! branches is still quadratic, like the reference. The twin tests
//! (`saturating_joins_agree_with_complete_joins_*`) compare both modes on
//! thousands of random programs, including the long-range shape at small
//! sizes; unreachable blocks are not in the order (never joins), and
//! irreducible cycles are covered by effect 2 and by the header check.

use super::order::ForestOrder;
use super::program::{ArgumentKind, BranchMark, OpId, OpKind, Program, Use, ValueDef, ValueId};
use super::sync::{Node, SyncPropagator};
use crate::analysis::cfg::{BlockId, CfgAnalysis, CycleId, Graph};
use std::fmt::Write;

/// Why a block's terminator is (not) divergent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BranchReason {
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
    pub fn is_divergent(self) -> bool {
        matches!(
            self,
            BranchReason::MarkedDivergent
                | BranchReason::Condition
                | BranchReason::TemporalCondition
                | BranchReason::NoCondition
        )
    }
}

/// Counters of the last [`UniformityInfo::compute`].
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
}

/// Uniformity of every value and branch of a [`Program`].
///
/// Lifecycle (Cranelift style): [`UniformityInfo::new`], then
/// [`UniformityInfo::compute`] as often as needed (all buffers are
/// reused), queries, optionally [`UniformityInfo::clear`].
#[derive(Clone, Debug, Default)]
pub struct UniformityInfo {
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
    values: Vec<ValueId>,
    /// Divergent branches to process, latest position of the order first
    /// (the order does not change the fixed point; processing from the end
    /// backwards is what lets saturation stop propagations early).
    branches: std::collections::BinaryHeap<(u32, u32)>,
    join_applied: Vec<bool>,
    pred_stamp: Vec<u32>,
    stamp: u32,
    arg_keys: Vec<ArgKey>,
    joins: Vec<(BlockId, Node)>,
    /// Saturation (useful-joins mode): the block at each position of the
    /// order, per block its arguments still uniform and the irreducible
    /// cycles it heads not yet flagged, and the highest position that may
    /// still be unsaturated.
    at: Vec<u32>,
    uniform_args: Vec<u32>,
    irreducible_unflagged: Vec<u32>,
    frontier: i64,
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
    pub fn new() -> Self {
        Self {
            complete_joins: true,
            ..Self::default()
        }
    }

    /// With `true` (the default of [`UniformityInfo::new`]),
    /// [`UniformityInfo::join_blocks`] lists every join of every divergent
    /// branch: the reference, quadratic when many divergent branches have
    /// long regions. With `false`, each sync propagation stops as soon as
    /// every join it could still find is *saturated* (module docs): the
    /// classification of every value, branch and cycle is the same, and
    /// each join list is a prefix of the complete one.
    pub fn set_complete_joins(&mut self, complete: bool) {
        self.complete_joins = complete;
    }

    /// Analyzes `program`, whose control flow is `graph` (block ids and
    /// successor slots shared with the program), with `cfg` computed on
    /// that same graph.
    ///
    /// Panics if the program does not fit the graph (see
    /// [`Program::validate`]); in debug builds also if it violates SSA
    /// dominance.
    pub fn compute<G: Graph + ?Sized>(&mut self, program: &Program, graph: &G, cfg: &CfgAnalysis) {
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
        let n = graph.num_blocks();
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
        let s = &mut self.scratch;
        s.order.compute(graph, cfg);
        s.sync.reset(n);
        s.values.clear();
        s.branches.clear();
        s.join_applied.clear();
        s.join_applied.resize(n, false);
        s.pred_stamp.clear();
        s.pred_stamp.resize(n, 0);
        s.stamp = 0;
        s.at.clear();
        s.uniform_args.clear();
        s.irreducible_unflagged.clear();
        s.frontier = -1;
        if !self.complete_joins {
            let reachable = (0..n)
                .filter(|&b| cfg.traversal().is_reachable(BlockId::new(b)))
                .count();
            s.at.resize(reachable, 0);
            for b in 0..n {
                let block = BlockId::new(b);
                if cfg.traversal().is_reachable(block) {
                    s.at[s.order.index(block) as usize] = b as u32;
                }
            }
            s.uniform_args
                .extend((0..n).map(|b| program.block_arguments(BlockId::new(b)).len() as u32));
            s.irreducible_unflagged.resize(n, 0);
            let forest = cfg.cycles();
            for c in forest.cycles() {
                if !forest.is_reducible(c) {
                    s.irreducible_unflagged[forest.header(c).index()] += 1;
                }
            }
            s.frontier = reachable as i64 - 1;
        }
        let mut run = Run {
            p: program,
            g: graph,
            cfg,
            info: self,
        };
        run.initialize();
        run.solve();
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
        self.stats = UniformityStats {
            divergent_values: self.num_divergent,
            divergent_branches: self.reason.iter().filter(|r| r.is_divergent()).count(),
            joins: self.join_list.len(),
            temporal_cycles: self.temporal.iter().filter(|&&t| t).count(),
            irreducible_cycles: self.irreducible.iter().filter(|&&t| t).count(),
            propagation_work: self.scratch.sync.work,
        };
    }

    /// Forgets all results (keeps capacity).
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
    pub fn is_divergent(&self, v: ValueId) -> bool {
        self.state[v.index()] == DIVERGENT
    }

    /// `!is_divergent(v)`.
    pub fn is_uniform(&self, v: ValueId) -> bool {
        !self.is_divergent(v)
    }

    /// True if `v` may differ between the threads executing `user` (a use
    /// in block `user`): `v` is divergent, or it is a non-constant value
    /// defined in a temporally divergent cycle that does not contain
    /// `user`. For a forwarded operand on an edge `t -> s`, the use is
    /// divergent if it is for `t` or for `s`.
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
    pub fn is_divergent_branch(&self, b: BlockId) -> bool {
        self.reason[b.index()].is_divergent()
    }

    /// Classification of `b`'s terminator.
    pub fn branch_reason(&self, b: BlockId) -> BranchReason {
        self.reason[b.index()]
    }

    /// Join blocks of the divergent branch at `b`, in discovery order
    /// (empty for other blocks). A join reached through a whole cycle not
    /// containing `b` is reported by that cycle's header.
    pub fn join_blocks(&self, b: BlockId) -> &[BlockId] {
        let (start, len) = self.join_range[b.index()];
        &self.join_list[start as usize..(start + len) as usize]
    }

    /// True if threads may leave cycle `c` in different iterations: values
    /// defined in `c` are divergent at uses outside it.
    pub fn has_temporal_divergence(&self, c: CycleId) -> bool {
        self.temporal[c.index()]
    }

    /// True if the conservative irreducible rule was applied to cycle `c`
    /// (all its block arguments are divergent).
    pub fn has_irreducible_divergence(&self, c: CycleId) -> bool {
        self.irreducible[c.index()]
    }

    /// Number of divergent values.
    pub fn num_divergent_values(&self) -> usize {
        self.num_divergent
    }

    /// All divergent values, in increasing id order.
    pub fn divergent_values(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.state
            .iter()
            .enumerate()
            .filter(|(_, &s)| s == DIVERGENT)
            .map(|(i, _)| ValueId::new(i))
    }

    /// All blocks with a divergent branch, in increasing id order.
    pub fn divergent_branches(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.reason
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_divergent())
            .map(|(i, _)| BlockId::new(i))
    }

    /// Counters of the last computation.
    pub fn stats(&self) -> UniformityStats {
        self.stats
    }

    /// A human-readable listing: per block, its divergent arguments and
    /// op results, its branch classification and joins; then the flagged
    /// cycles.
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
            if let ValueDef::Argument { block, .. } = self.p.value_def(v) {
                self.info.scratch.uniform_args[block.index()] -= 1;
            }
        }
    }

    /// True if finding `b` as a join (or as the header of a cycle node or
    /// sink) can change nothing: its arguments are all divergent or were
    /// already examined, and every irreducible cycle it heads is flagged.
    fn saturated(&self, b: usize) -> bool {
        let s = &self.info.scratch;
        (s.join_applied[b] || s.uniform_args[b] == 0) && s.irreducible_unflagged[b] == 0
    }

    /// The first position from which every block of the order is
    /// saturated, if the propagation of the divergent branch at `b` may
    /// stop there: every cycle containing `b` must already be temporally
    /// divergent (or exitless) with a saturated header, since a join beyond
    /// the stop would flag those cycles and its sink would apply their
    /// header. `None` in complete-joins mode.
    fn stop_position(&mut self, b: BlockId) -> Option<u32> {
        if self.info.complete_joins {
            return None;
        }
        let forest = self.cfg.cycles();
        let mut c = forest.innermost_cycle(b);
        while let Some(cc) = c {
            let flagged = self.info.temporal[cc.index()] || forest.exit_blocks(cc).is_empty();
            if !flagged || !self.saturated(forest.header(cc).index()) {
                return None;
            }
            c = forest.parent(cc);
        }
        loop {
            let f = self.info.scratch.frontier;
            if f < 0 || !self.saturated(self.info.scratch.at[f as usize] as usize) {
                return Some((f + 1) as u32);
            }
            self.info.scratch.frontier -= 1;
        }
    }

    /// A divergent operand reaches `op`.
    fn mark_results(&mut self, op: OpId) {
        if matches!(self.p.op_kind(op), OpKind::Pure | OpKind::Source) {
            let p = self.p;
            for &r in p.op_results(op) {
                self.mark(r);
            }
        }
    }

    fn push_branch(&mut self, b: BlockId) {
        let s = &mut self.info.scratch;
        s.branches.push((s.order.index(b), b.as_u32()));
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
            match self.info.scratch.branches.pop() {
                Some((_, b)) => self.process_branch(BlockId::new(b as usize)),
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

    fn process_branch(&mut self, b: BlockId) {
        let (g, cfg) = (self.g, self.cfg);
        let forest = cfg.cycles();
        let stop = self.stop_position(b);
        {
            let s = &mut self.info.scratch;
            s.sync.propagate(g, cfg, &s.order, b, stop);
            std::mem::swap(&mut s.joins, &mut s.sync.joins);
        }
        let joins = std::mem::take(&mut self.info.scratch.joins);
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
        // Conservative cycle-exit rules: a divergent exiting branch, or one
        // whose post-dominator lies outside the cycle (or is the virtual
        // exit).
        for &s in g.successors(b) {
            self.flag_cycles_leaving(b, Some(s));
        }
        self.flag_cycles_leaving(b, cfg.post_dominators().ipdom(b));
        // A divergent branch inside an irreducible cycle that splits
        // threads *within* it: two successor slots lead to different
        // blocks of the cycle. With at most one successor inside, the
        // threads still in the cycle all took the same edge and stay in
        // phase; the others left it (the cycle is temporally divergent,
        // flagged above), so the cycle's arguments keep the normal rules.
        let mut c = forest.innermost_cycle(b);
        while let Some(cc) = c {
            if !forest.is_reducible(cc) && self.splits_within(b, cc) {
                self.irreducible(cc);
            }
            c = forest.parent(cc);
        }
    }

    /// True if two successor slots of `b` lead to different blocks of
    /// cycle `c`.
    fn splits_within(&self, b: BlockId, c: CycleId) -> bool {
        let forest = self.cfg.cycles();
        let mut inside = self
            .g
            .successors(b)
            .iter()
            .copied()
            .filter(|&s| forest.contains(c, s));
        let Some(first) = inside.next() else {
            return false;
        };
        inside.any(|s| s != first)
    }

    /// Flags every cycle containing `b` but not `target` (all cycles
    /// containing `b` if `target` is `None`, the virtual exit).
    fn flag_cycles_leaving(&mut self, b: BlockId, target: Option<BlockId>) {
        let forest = self.cfg.cycles();
        let mut c = forest.innermost_cycle(b);
        while let Some(cc) = c {
            if target.is_some_and(|t| forest.contains(cc, t)) {
                break;
            }
            self.temporal(cc);
            c = forest.parent(cc);
        }
    }

    /// Rule for join blocks: an argument is divergent unless every
    /// incoming edge (from a reachable block) forwards the same value, or
    /// constants with the same key.
    fn apply_join(&mut self, j: BlockId) {
        let p = self.p;
        let args = p.block_arguments(j);
        let s = &mut self.info.scratch;
        if s.join_applied[j.index()] || args.is_empty() {
            return;
        }
        s.join_applied[j.index()] = true;
        if j == self.g.entry() {
            // The caller is an extra incoming edge with unknown values.
            for &a in args {
                self.mark(a);
            }
            return;
        }
        s.stamp += 1;
        s.arg_keys.clear();
        s.arg_keys.resize(args.len(), ArgKey::Unset);
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
        for (k, &a) in args.iter().enumerate() {
            if self.info.scratch.arg_keys[k] == ArgKey::Mixed {
                self.mark(a);
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
        for &x in forest.exit_blocks(c) {
            self.apply_join(x);
        }
        let p = self.p;
        for &blk in forest.blocks(c) {
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
        if !self.info.complete_joins {
            self.info.scratch.irreducible_unflagged[forest.header(c).index()] -= 1;
        }
        for &blk in forest.blocks(c) {
            for &a in p.block_arguments(blk) {
                self.mark(a);
            }
        }
        self.temporal(c);
    }
}
