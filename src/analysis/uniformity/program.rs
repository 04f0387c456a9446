//! The program model the uniformity analysis runs on: SSA values, ops,
//! block arguments and terminators, snapshotted from an IR by an adapter.
//!
//! # What is modelled
//!
//! * **Values** ([`ValueId`]) are dense `0..num_values`, created by the
//!   builder in call order. A value is either a *block argument* (bound, in
//!   order, to the operands a predecessor forwards on its edge into the
//!   block; arguments of the entry block are the function arguments) or a
//!   *result* of an op.
//! * **Ops** ([`OpId`]) live in a block and are classified by [`OpKind`];
//!   their operand list and result list are kept. The order of ops inside a
//!   block does not matter to the analysis (it is flow-insensitive inside a
//!   block) and is kept for debugging only.
//! * **Terminators**: at most one per block, set with
//!   [`ProgramBuilder::set_terminator`]: an optional condition value, an
//!   optional trusted [`BranchMark`], and one forwarded-operand list per
//!   *successor slot*. Slot `i` is the `i`-th entry of the CFG's
//!   `successors(block)` slice (the [`Graph`] given to the analysis), so a
//!   `cond_br %c, ^a(%x), ^a(%y)` has two slots to `^a` forwarding `%x`
//!   and `%y`.
//!
//! # Invariants (checked by [`Program::validate`])
//!
//! * Every operand, condition and forwarded operand names a value of this
//!   program (always checked by [`ProgramBuilder::finish`]).
//! * A block's terminator has either exactly as many slots as the block
//!   has successors in the graph, or none at all (shorthand for "no
//!   forwarded operands on any slot"; also the state of a block whose
//!   terminator was never set).
//! * A slot forwards at most as many operands as its target has
//!   arguments. If it forwards *fewer*, the remaining arguments are
//!   "produced by the terminator" on that edge (MLIR's produced successor
//!   operands) and the analysis treats them as divergent.
//! * SSA dominance: the defining block of every value used in a reachable
//!   block dominates the use (for a forwarded operand: dominates the
//!   terminator's block). Checked in debug builds by the analysis.
//!
//! # Storage
//!
//! Everything is dense arrays, with compressed-sparse-row (CSR) layouts for
//! lists: op operands and results (by op, in insertion order), block
//! arguments and block ops (by block, rebuilt by a counting sort in
//! [`ProgramBuilder::finish`]), forwarded operands (per terminator a slot
//! range, per slot a value range) and the use lists of every value (by
//! value). A [`ProgramBuilder`] keeps all buffers between builds, so
//! snapshotting functions of similar size does not allocate.

use crate::analysis::cfg::{BlockId, CfgAnalysis, Graph};
use std::fmt;

crate::support::define_id! {
    /// Dense index of an SSA value of a [`Program`].
    pub struct ValueId;
    /// An optional [`ValueId`] (a branch condition).
    pub struct OptionValueId;
}

impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

crate::support::define_id! {
    /// Dense index of an op of a [`Program`].
    pub struct OpId;
    /// An optional [`OpId`] (the defining op of a value).
    pub struct OptionOpId;
}

/// How an op's results relate to its operands.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub(crate) enum OpKind {
    /// Results are divergent iff some operand is divergent: arithmetic,
    /// casts, `select`, loads (a load depends on its address; memory
    /// written by other threads is not tracked, so adapters must classify
    /// loads of thread-varying memory as [`OpKind::Source`]).
    Pure,
    /// Results are always divergent: thread / lane ids, atomics, unknown
    /// calls, shuffles, anything the adapter cannot classify.
    Source,
    /// Results are always uniform whatever the operands: ballots, subgroup
    /// reductions / broadcasts, block ids and dimensions.
    Uniform,
    /// A uniform constant. The `u64` is an *equality key*: two constant
    /// results with the same key and result index are the same value,
    /// which lets "the same constant on both sides of a divergent branch"
    /// merge into a uniform block argument. Adapters must give equal keys
    /// only to bit-identical constants of the same type.
    Constant(u64),
}

/// How the uniformity analysis starts a block argument (for function
/// arguments without a mark:
/// [`UniformityOptions::default_arguments`](crate::UniformityOptions::default_arguments)).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum ArgumentKind {
    /// No constraint: for an entry-block argument, the function argument is
    /// uniform; for any argument, the analysis derives it from the values
    /// forwarded on incoming edges and from the control flow.
    Uniform,
    /// Always divergent (a thread-varying function argument, or anything
    /// the adapter wants to force).
    Divergent,
}

/// An explicit, *trusted* uniformity annotation on a terminator with two
/// or more successor slots, overriding the analysis for that branch in
/// both directions (like LLVM's `structurizecfg.uniform` metadata; in MLIR
/// the `spmd.uniformity` attribute). A wrong `Uniform` mark is a
/// miscompile the analysis cannot detect: marks are the user's promise.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub(crate) enum BranchMark {
    /// All threads reaching this terminator take the same slot.
    Uniform,
    /// Treat the branch as divergent even if its condition is uniform.
    Divergent,
}

/// Where a value comes from.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub(crate) enum ValueDef {
    /// Argument number `index` of `block`.
    Argument {
        /// The block the argument belongs to.
        block: BlockId,
        /// Position among the block's arguments.
        index: u32,
        /// Its initial classification.
        kind: ArgumentKind,
    },
    /// Result number `index` of `op`.
    Result {
        /// The defining op.
        op: OpId,
        /// Position among the op's results.
        index: u32,
    },
}

/// One use of a value.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub(crate) enum Use {
    /// Operand number `index` of `op`.
    Operand {
        /// The using op.
        op: OpId,
        /// Operand position.
        index: u32,
    },
    /// The condition of `block`'s terminator.
    Condition {
        /// The block whose terminator uses the value.
        block: BlockId,
    },
    /// Forwarded operand number `index` on successor slot `slot` of
    /// `block`'s terminator (bound to argument `index` of the target).
    Forwarded {
        /// The block whose terminator forwards the value.
        block: BlockId,
        /// Successor slot.
        slot: u32,
        /// Position among the slot's forwarded operands.
        index: u32,
    },
}

#[derive(Copy, Clone, Debug)]
struct ValueRecord {
    block: u32,
    /// Defining op; none for a block argument.
    op: OptionOpId,
    index: u32,
    arg_kind: ArgumentKind,
}

#[derive(Copy, Clone, Debug)]
struct Terminator {
    set: bool,
    condition: OptionValueId,
    mark: Option<BranchMark>,
    first_slot: u32,
    num_slots: u32,
}

const NO_TERMINATOR: Terminator = Terminator {
    set: false,
    condition: OptionValueId::NONE,
    mark: None,
    first_slot: 0,
    num_slots: 0,
};

/// A function body in the form the analysis consumes (see module docs).
/// Build it with a [`ProgramBuilder`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Program {
    num_blocks: usize,
    values: Vec<ValueRecord>,
    op_block: Vec<u32>,
    op_kind: Vec<OpKind>,
    /// CSR by op (`num_ops + 1` offsets) into `operands`.
    op_operand_start: Vec<u32>,
    operands: Vec<ValueId>,
    /// CSR by op into `results`.
    op_result_start: Vec<u32>,
    results: Vec<ValueId>,
    /// CSR by block into `block_args` / `block_ops`.
    block_arg_start: Vec<u32>,
    block_args: Vec<ValueId>,
    block_op_start: Vec<u32>,
    block_ops: Vec<OpId>,
    terminators: Vec<Terminator>,
    /// Per slot: `(start, len)` into `forwarded`.
    slots: Vec<(u32, u32)>,
    forwarded: Vec<ValueId>,
    /// CSR by value into `uses`.
    use_start: Vec<u32>,
    uses: Vec<Use>,
}

fn row<'a, T>(start: &[u32], items: &'a [T], r: usize) -> &'a [T] {
    &items[start[r] as usize..start[r + 1] as usize]
}

impl Program {
    /// Number of blocks (must equal the graph's).
    pub(crate) fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// Number of values; ids are `0..num_values()`.
    pub(crate) fn num_values(&self) -> usize {
        self.values.len()
    }

    /// Number of ops; ids are `0..num_ops()`.
    pub(crate) fn num_ops(&self) -> usize {
        self.op_block.len()
    }

    /// Arguments of `b`, in binding order.
    pub(crate) fn block_arguments(&self, b: BlockId) -> &[ValueId] {
        row(&self.block_arg_start, &self.block_args, b.index())
    }

    /// Ops of `b`, in insertion order.
    pub(crate) fn block_ops(&self, b: BlockId) -> &[OpId] {
        row(&self.block_op_start, &self.block_ops, b.index())
    }

    /// The block containing `op`.
    pub(crate) fn op_block(&self, op: OpId) -> BlockId {
        BlockId::new(self.op_block[op.index()] as usize)
    }

    /// The kind of `op`.
    pub(crate) fn op_kind(&self, op: OpId) -> OpKind {
        self.op_kind[op.index()]
    }

    /// Operands of `op`.
    pub(crate) fn op_operands(&self, op: OpId) -> &[ValueId] {
        row(&self.op_operand_start, &self.operands, op.index())
    }

    /// Results of `op`.
    pub(crate) fn op_results(&self, op: OpId) -> &[ValueId] {
        row(&self.op_result_start, &self.results, op.index())
    }

    /// Definition of `v`.
    pub(crate) fn value_def(&self, v: ValueId) -> ValueDef {
        let r = self.values[v.index()];
        match r.op.get() {
            None => ValueDef::Argument {
                block: BlockId::new(r.block as usize),
                index: r.index,
                kind: r.arg_kind,
            },
            Some(op) => ValueDef::Result { op, index: r.index },
        }
    }

    /// The block defining `v` (its argument's block or its op's block).
    pub(crate) fn value_block(&self, v: ValueId) -> BlockId {
        BlockId::new(self.values[v.index()].block as usize)
    }

    /// If `v` is a result of a [`OpKind::Constant`] op: its equality key
    /// `(constant key, result index)`.
    pub(crate) fn constant_key(&self, v: ValueId) -> Option<(u64, u32)> {
        let r = self.values[v.index()];
        match self.op_kind[r.op.get()?.index()] {
            OpKind::Constant(k) => Some((k, r.index)),
            _ => None,
        }
    }

    /// The terminator's condition, if any.
    pub(crate) fn condition(&self, b: BlockId) -> Option<ValueId> {
        self.terminators[b.index()].condition.get()
    }

    /// The terminator's trusted mark, if any.
    pub(crate) fn mark(&self, b: BlockId) -> Option<BranchMark> {
        self.terminators[b.index()].mark
    }

    /// Number of successor slots given to [`ProgramBuilder::set_terminator`]
    /// (0 if none were given).
    pub(crate) fn num_slots(&self, b: BlockId) -> usize {
        self.terminators[b.index()].num_slots as usize
    }

    /// Operands forwarded on successor slot `slot` of `b`; empty if the
    /// terminator lists no slots.
    pub(crate) fn forwarded(&self, b: BlockId, slot: usize) -> &[ValueId] {
        let t = self.terminators[b.index()];
        if slot >= t.num_slots as usize {
            return &[];
        }
        let (start, len) = self.slots[t.first_slot as usize + slot];
        &self.forwarded[start as usize..(start + len) as usize]
    }

    /// Every use of `v`: op operands, terminator conditions, forwarded
    /// operands (grouped by kind in that order, then by user).
    pub(crate) fn uses(&self, v: ValueId) -> &[Use] {
        row(&self.use_start, &self.uses, v.index())
    }

    /// Calls `f(value index, use)` for every use, grouped by kind (op
    /// operands in op order, conditions and forwarded operands in block
    /// order).
    fn for_each_use(&self, mut f: impl FnMut(usize, Use)) {
        for op in 0..self.op_block.len() {
            let operands = row(&self.op_operand_start, &self.operands, op);
            for (i, &v) in operands.iter().enumerate() {
                f(
                    v.index(),
                    Use::Operand {
                        op: OpId(op as u32),
                        index: i as u32,
                    },
                );
            }
        }
        for (b, t) in self.terminators.iter().enumerate() {
            if let Some(c) = t.condition.get() {
                f(
                    c.index(),
                    Use::Condition {
                        block: BlockId::new(b),
                    },
                );
            }
        }
        for (b, t) in self.terminators.iter().enumerate() {
            for slot in 0..t.num_slots {
                let (start, len) = self.slots[(t.first_slot + slot) as usize];
                for (i, &v) in self.forwarded[start as usize..(start + len) as usize]
                    .iter()
                    .enumerate()
                {
                    f(
                        v.index(),
                        Use::Forwarded {
                            block: BlockId::new(b),
                            slot,
                            index: i as u32,
                        },
                    );
                }
            }
        }
    }

    /// Checks the invariants of the module docs against `g` (and, with
    /// `cfg`, SSA dominance for every use in a reachable block). Returns a
    /// description of the first violation.
    pub(crate) fn validate<G: Graph + ?Sized>(
        &self,
        g: &G,
        cfg: Option<&CfgAnalysis>,
    ) -> Result<(), String> {
        self.validate_shape(g)?;
        if let Some(cfg) = cfg {
            self.validate_dominance(g, cfg)?;
        }
        Ok(())
    }

    /// The cheap structural part of [`Program::validate`] (`O(slots)`).
    pub(super) fn validate_shape<G: Graph + ?Sized>(&self, g: &G) -> Result<(), String> {
        if g.num_blocks() != self.num_blocks {
            return Err(format!(
                "program has {} blocks, graph has {}",
                self.num_blocks,
                g.num_blocks()
            ));
        }
        for i in 0..self.num_blocks {
            let b = BlockId::new(i);
            let succs = g.successors(b);
            let slots = self.num_slots(b);
            if slots != 0 && slots != succs.len() {
                return Err(format!(
                    "{b}: terminator has {slots} slots, graph has {} successors",
                    succs.len()
                ));
            }
            for (slot, &s) in succs.iter().enumerate() {
                let given = self.forwarded(b, slot).len();
                let wanted = self.block_arguments(s).len();
                if given > wanted {
                    return Err(format!("{b} slot {slot}: forwards {given} operands to {s}, which has {wanted} arguments"));
                }
            }
        }
        Ok(())
    }

    fn validate_dominance<G: Graph + ?Sized>(
        &self,
        g: &G,
        cfg: &CfgAnalysis,
    ) -> Result<(), String> {
        let dom = cfg.dominators();
        let check = |v: ValueId, user: BlockId, what: &str| -> Result<(), String> {
            let def = self.value_block(v);
            if dom.is_reachable(user) && !dom.dominates(def, user) {
                return Err(format!(
                    "{v} defined in {def} does not dominate its use as {what} in {user}"
                ));
            }
            Ok(())
        };
        for op in 0..self.num_ops() {
            let op = OpId::new(op);
            for &v in self.op_operands(op) {
                check(v, self.op_block(op), "an operand")?;
            }
        }
        for i in 0..self.num_blocks {
            let b = BlockId::new(i);
            if let Some(c) = self.condition(b) {
                check(c, b, "a condition")?;
            }
            for slot in 0..g.successors(b).len() {
                for &v in self.forwarded(b, slot) {
                    check(v, b, "a forwarded operand")?;
                }
            }
        }
        Ok(())
    }
}

/// Reusable builder of a [`Program`].
///
/// Lifecycle: [`ProgramBuilder::begin`] (or [`ProgramBuilder::clear`]
/// then `begin`), any interleaving of [`ProgramBuilder::add_argument`],
/// [`ProgramBuilder::add_op`] and [`ProgramBuilder::set_terminator`] on
/// any blocks, then [`ProgramBuilder::finish`]. All buffers are kept
/// between builds.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProgramBuilder {
    program: Program,
    /// Arguments added so far, per block.
    arg_counts: Vec<u32>,
    /// Scratch of the counting sorts in `finish`.
    counts: Vec<u32>,
}

impl ProgramBuilder {
    /// An empty builder.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Forgets everything (keeps capacity); the program has no blocks.
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.begin(0);
    }

    /// Starts a new program with blocks `0..num_blocks` and nothing else.
    pub(crate) fn begin(&mut self, num_blocks: usize) {
        assert!(num_blocks < u32::MAX as usize, "too many blocks");
        let p = &mut self.program;
        p.num_blocks = num_blocks;
        p.values.clear();
        p.op_block.clear();
        p.op_kind.clear();
        p.op_operand_start.clear();
        p.op_operand_start.push(0);
        p.operands.clear();
        p.op_result_start.clear();
        p.op_result_start.push(0);
        p.results.clear();
        p.terminators.clear();
        p.terminators.resize(num_blocks, NO_TERMINATOR);
        p.slots.clear();
        p.forwarded.clear();
        // Per-block and per-value CSRs are rebuilt by `finish`; until then
        // they describe an empty program.
        for v in [
            &mut p.block_arg_start,
            &mut p.block_op_start,
            &mut p.use_start,
        ] {
            v.clear();
            v.resize(num_blocks + 1, 0);
        }
        p.use_start.truncate(1);
        p.block_args.clear();
        p.block_ops.clear();
        p.uses.clear();
        self.arg_counts.clear();
        self.arg_counts.resize(num_blocks, 0);
    }

    fn check_block(&self, b: BlockId) {
        assert!(
            b.index() < self.program.num_blocks,
            "{b} out of range ({} blocks)",
            self.program.num_blocks
        );
    }

    fn check_value(&self, v: ValueId) {
        debug_assert!(
            v.index() < self.program.values.len(),
            "{v} is not defined (yet) in this program"
        );
    }

    fn new_value(
        &mut self,
        block: BlockId,
        op: OptionOpId,
        index: u32,
        arg_kind: ArgumentKind,
    ) -> ValueId {
        let id = ValueId::new(self.program.values.len());
        self.program.values.push(ValueRecord {
            block: block.as_u32(),
            op,
            index,
            arg_kind,
        });
        id
    }

    /// Appends an argument to `block` and returns its value. Arguments
    /// of a block are bound in the order they are added.
    pub(crate) fn add_argument(&mut self, block: BlockId, kind: ArgumentKind) -> ValueId {
        self.check_block(block);
        let position = self.arg_counts[block.index()];
        self.arg_counts[block.index()] += 1;
        self.new_value(block, OptionOpId::NONE, position, kind)
    }

    /// Number of arguments added to `block` so far.
    #[cfg(any(test, feature = "testing"))]
    pub(crate) fn num_arguments(&self, block: BlockId) -> usize {
        self.arg_counts[block.index()] as usize
    }

    /// Appends an op of `kind` to `block` with the given operands and
    /// `num_results` fresh result values (see [`ProgramBuilder::op_results`]).
    pub(crate) fn add_op(
        &mut self,
        block: BlockId,
        kind: OpKind,
        operands: &[ValueId],
        num_results: usize,
    ) -> OpId {
        self.check_block(block);
        for &v in operands {
            self.check_value(v);
        }
        let op = OpId::new(self.program.op_block.len());
        self.program.op_block.push(block.as_u32());
        self.program.op_kind.push(kind);
        self.program.operands.extend_from_slice(operands);
        self.program
            .op_operand_start
            .push(self.program.operands.len() as u32);
        for i in 0..num_results {
            let v = self.new_value(block, op.into(), i as u32, ArgumentKind::Uniform);
            self.program.results.push(v);
        }
        self.program
            .op_result_start
            .push(self.program.results.len() as u32);
        op
    }

    /// Results of an op added to the current program.
    pub(crate) fn op_results(&self, op: OpId) -> &[ValueId] {
        self.program.op_results(op)
    }

    /// Sets `block`'s terminator: its condition (a selector for multi-way
    /// terminators; `None` if unknown or absent), an optional trusted mark,
    /// and the operands forwarded on each successor slot, in the graph's
    /// successor order (`&[]` = no operands on any slot). Panics if the
    /// block's terminator was already set.
    pub(crate) fn set_terminator(
        &mut self,
        block: BlockId,
        condition: Option<ValueId>,
        mark: Option<BranchMark>,
        forwarded: &[&[ValueId]],
    ) {
        self.check_block(block);
        assert!(
            !self.program.terminators[block.index()].set,
            "terminator of {block} set twice"
        );
        if let Some(c) = condition {
            self.check_value(c);
        }
        let p = &mut self.program;
        let first_slot = p.slots.len() as u32;
        for values in forwarded {
            for &v in *values {
                debug_assert!(
                    v.index() < p.values.len(),
                    "{v} is not defined (yet) in this program"
                );
            }
            p.slots
                .push((p.forwarded.len() as u32, values.len() as u32));
            p.forwarded.extend_from_slice(values);
        }
        p.terminators[block.index()] = Terminator {
            set: true,
            condition: condition.into(),
            mark,
            first_slot,
            num_slots: forwarded.len() as u32,
        };
    }

    /// Finalizes the per-block and per-value tables and returns the
    /// program. Panics if some operand, condition or forwarded operand is
    /// not a value of this program.
    pub(crate) fn finish(&mut self) -> &Program {
        let p = &mut self.program;
        let num_values = p.values.len();
        let in_range = |v: &ValueId| v.index() < num_values;
        assert!(
            p.operands.iter().all(in_range),
            "an op uses an undefined value"
        );
        assert!(
            p.forwarded.iter().all(in_range),
            "a terminator forwards an undefined value"
        );
        assert!(
            p.terminators
                .iter()
                .all(|t| t.condition.get().is_none_or(|c| c.index() < num_values)),
            "a terminator's condition is undefined"
        );
        let n = p.num_blocks;
        // Block arguments, by block, in creation order.
        build_csr(
            &mut self.counts,
            n,
            &mut p.block_arg_start,
            &mut p.block_args,
            p.values
                .iter()
                .enumerate()
                .filter(|(_, r)| r.op.is_none())
                .map(|(i, r)| (r.block as usize, ValueId(i as u32))),
        );
        // Ops, by block, in insertion order.
        build_csr(
            &mut self.counts,
            n,
            &mut p.block_op_start,
            &mut p.block_ops,
            p.op_block
                .iter()
                .enumerate()
                .map(|(i, &b)| (b as usize, OpId(i as u32))),
        );
        // Uses, by value: count, then fill (a stable counting sort).
        let mut start = std::mem::take(&mut p.use_start);
        let mut uses = std::mem::take(&mut p.uses);
        let counts = &mut self.counts;
        counts.clear();
        counts.resize(num_values + 1, 0);
        p.for_each_use(|v, _| counts[v + 1] += 1);
        for i in 0..num_values {
            counts[i + 1] += counts[i];
        }
        start.clear();
        start.extend_from_slice(counts);
        uses.clear();
        uses.resize(
            counts[num_values] as usize,
            Use::Condition {
                block: BlockId::new(0),
            },
        );
        p.for_each_use(|v, u| {
            uses[counts[v] as usize] = u;
            counts[v] += 1;
        });
        p.use_start = start;
        p.uses = uses;
        &self.program
    }

    /// The program produced by the last [`ProgramBuilder::finish`].
    pub(crate) fn program(&self) -> &Program {
        &self.program
    }
}

/// Builds a CSR with `rows` rows from `(row, item)` pairs (a stable
/// counting sort: items of a row keep their iteration order).
fn build_csr<T: Copy>(
    counts: &mut Vec<u32>,
    rows: usize,
    start: &mut Vec<u32>,
    items: &mut Vec<T>,
    pairs: impl Iterator<Item = (usize, T)> + Clone,
) {
    counts.clear();
    counts.resize(rows + 1, 0);
    for (r, _) in pairs.clone() {
        counts[r + 1] += 1;
    }
    for r in 0..rows {
        counts[r + 1] += counts[r];
    }
    start.clear();
    start.extend_from_slice(counts);
    items.clear();
    let total = counts[rows] as usize;
    let Some((_, first)) = pairs.clone().next() else {
        return;
    };
    items.resize(total, first);
    for (r, item) in pairs {
        items[counts[r] as usize] = item;
        counts[r] += 1;
    }
}
