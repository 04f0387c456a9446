//! Scalar branches of wave-level code, decided by the active lanes.
//!
//! A branch that `--spmd-predicate` kept (a uniform `cf.cond_br`,
//! `cf.switch`, `llvm.cond_br` or `llvm.switch`) is uniform over the lanes
//! whose exec bit is set: the wave takes it as a whole, on the value of any
//! active lane. The lanes whose exec bit is clear hold whatever their copy
//! of the condition happens to be, and often poison: a block argument
//! merged per lane by a divergent switch, or the result of an op under a
//! lane guard. On a GCN wave that does not matter (the scalar unit reads
//! the active lanes only). On an NVIDIA warp every thread runs the
//! wave-level program and branches on *its own* copy, so one inactive
//! thread with a different copy splits the warp at a branch the lowering
//! takes as warp-uniform, and the next `.sync` op over the live mask is
//! undefined.
//!
//! ```text
//!        ^a: switch %r (divergent) ─┬─ 0, default ──> ^b(%n)
//!                                    └─ 1 ──────────> ^c
//!   (predicated: ^b runs with exec = lanes 0/default, and its argument is
//!    poison in the lanes of case 1)
//!        ^b(%x): cond_br (%x < 2)   <- uniform over exec, not over the warp
//! ```
//!
//! So, where exec may be narrower than the live mask, every thread decides
//! a scalar branch from the active lanes only:
//!
//! * `cond_br %c` branches on `vote.sync.any(live, my_bit ? %c : false)`
//!   (all active lanes agree, so "some active lane says true" is their
//!   common value);
//! * `switch %f` switches on the flag of the lowest active lane, fetched
//!   with `shfl.sync.idx` from lane `cttz(exec) & 31` in 32-bit pieces
//!   (lane 0, live in every warp of a kernel, if exec were ever empty).
//!
//! Neither is needed when the condition is **warp-invariant**: the same
//! in every thread of the warp, whatever exec is. [`WarpInvariant`] finds
//! such values with an optimistic fixpoint: constants, kernel arguments,
//! block and grid ids and sizes, the empty mask (every other mask is each
//! thread's own bit of it), pure unguarded arithmetic of warp-invariant operands,
//! and block arguments that every edge fills with warp-invariant values.
//! This is sound because at NVVM level all threads of the warp walk the
//! same path through the wave-level CFG. A loop counter compared with a
//! kernel argument therefore keeps its plain branch.

use super::{emit::Emitter, guard, ExecState, Lanes, SpmdOp, Target};
use crate::ir::key::ValueKey;
use crate::ir::names;
use crate::{ir::edit, transforms::prepare::op_name};
use melior::ir::{
    block::BlockLike, operation::OperationLike, r#type::IntegerType, BlockRef, OperationRef, Value,
    ValueLike,
};
use std::collections::HashSet;

/// The branch ops whose operand 0 decides the successor.
const CONDITIONAL_BRANCHES: &[&str] = &[names::CF_COND_BR, "llvm.cond_br"];
const SWITCHES: &[&str] = &[names::CF_SWITCH, names::LLVM_SWITCH];

/// Pure LLVM-dialect ops that compute the same result in every thread
/// from the same operands.
const LLVM_PURE_OPS: &[&str] = &[
    names::LLVM_CONSTANT,
    "llvm.add",
    "llvm.sub",
    "llvm.mul",
    "llvm.and",
    "llvm.or",
    "llvm.xor",
    "llvm.shl",
    "llvm.lshr",
    "llvm.ashr",
    "llvm.icmp",
    "llvm.zext",
    "llvm.sext",
    "llvm.trunc",
    "llvm.select",
    "llvm.fadd",
    "llvm.fsub",
    "llvm.fmul",
    "llvm.fcmp",
    "llvm.sitofp",
    "llvm.uitofp",
    "llvm.fptosi",
    "llvm.fptoui",
    "llvm.bitcast",
];

/// Reads of values that are the same in every thread of a warp.
const WARP_INVARIANT_READS: &[&str] = &[
    "gpu.block_id",
    "gpu.block_dim",
    "gpu.grid_dim",
    "nvvm.read.ptx.sreg.ctaid.x",
    "nvvm.read.ptx.sreg.ctaid.y",
    "nvvm.read.ptx.sreg.ctaid.z",
    "nvvm.read.ptx.sreg.ntid.x",
    "nvvm.read.ptx.sreg.ntid.y",
    "nvvm.read.ptx.sreg.ntid.z",
    "nvvm.read.ptx.sreg.nctaid.x",
    "nvvm.read.ptx.sreg.nctaid.y",
    "nvvm.read.ptx.sreg.nctaid.z",
];

/// The values of one wave-level function that every thread of the warp
/// holds alike. Computed on the function before it is lowered; values
/// created by the lowering are not in it (they are taken as varying).
pub(crate) struct WarpInvariant {
    values: HashSet<ValueKey>,
}

fn key(value: Value<'_, '_>) -> ValueKey {
    ValueKey::of(&value)
}

impl WarpInvariant {
    /// The optimistic fixpoint over `blocks` (the body of a function; its
    /// arguments are warp-invariant if it is a kernel).
    pub(crate) fn compute(blocks: &[BlockRef<'_, '_>], kernel: bool) -> Self {
        let incoming = incoming_edges(blocks);
        let mut varying = HashSet::new();
        let mut changed = true;
        while changed {
            changed = false;
            for (index, block) in blocks.iter().enumerate() {
                for argument in 0..block.argument_count() {
                    let value: Value = block.argument(argument).unwrap().into();
                    let invariant = if index == 0 {
                        kernel
                    } else {
                        incoming_invariant(&incoming[index], argument, &varying)
                    };
                    if !invariant {
                        changed |= varying.insert(key(value));
                    }
                }
                for op in edit::operations(*block) {
                    if !op_is_invariant(op, &varying) {
                        for result in op.results() {
                            changed |= varying.insert(key(result.into()));
                        }
                    }
                }
            }
        }
        let values = blocks
            .iter()
            .flat_map(|block| {
                let arguments: Vec<ValueKey> = (0..block.argument_count())
                    .map(|i| key(block.argument(i).unwrap().into()))
                    .collect();
                let results: Vec<ValueKey> = edit::operations(*block)
                    .into_iter()
                    .flat_map(|op| op.results().map(|r| key(r.into())).collect::<Vec<_>>())
                    .collect();
                arguments.into_iter().chain(results)
            })
            .filter(|value| !varying.contains(value))
            .collect();
        Self { values }
    }

    /// True if every thread of the warp holds the same `value`; false for
    /// values varying across lanes and for values not in the function
    /// (e.g. created by the lowering).
    pub(crate) fn contains(&self, value: Value<'_, '_>) -> bool {
        self.values.contains(&key(value))
    }
}

/// For each block (by position), the values each incoming edge forwards,
/// or `None` for an edge whose forwarding is unknown. Built once, so the
/// fixpoint is linear in the edges per round.
fn incoming_edges<'c, 'a>(blocks: &[BlockRef<'c, 'a>]) -> Vec<Vec<Option<Vec<Value<'c, 'a>>>>> {
    super::incoming_edges(blocks)
        .into_iter()
        .map(|edges| {
            edges
                .into_iter()
                .map(|(terminator, slot)| edit::successor_operands(terminator, slot))
                .collect()
        })
        .collect()
}

/// True if every incoming edge forwards a warp-invariant value into
/// argument `index` (false if some edge's forwarding is unknown).
fn incoming_invariant(
    edges: &[Option<Vec<Value<'_, '_>>>],
    index: usize,
    varying: &HashSet<ValueKey>,
) -> bool {
    edges.iter().all(|edge| {
        edge.as_ref()
            .and_then(|values| values.get(index))
            .is_some_and(|value| !varying.contains(&key(*value)))
    })
}

fn op_is_invariant(op: OperationRef<'_, '_>, varying: &HashSet<ValueKey>) -> bool {
    let name = op_name(op);
    let operands_invariant = || {
        op.operands()
            .all(|operand| !varying.contains(&key(operand)))
    };
    if let Some(kind) = SpmdOp::of(&name) {
        // A mask is each thread's own bit of it: only the empty one is the
        // same everywhere.
        return kind == SpmdOp::MaskEmpty;
    }
    if WARP_INVARIANT_READS.contains(&name.as_str()) {
        return true;
    }
    let pure = name.starts_with(names::ARITH_PREFIX)
        || name.starts_with(names::MATH_PREFIX)
        || LLVM_PURE_OPS.contains(&name.as_str());
    pure && op.region_count() == 0 && !guard::needs_guard(op) && operands_invariant()
}

/// If `terminator` is a scalar branch whose condition may differ in
/// threads whose exec bit is clear, makes it branch on the active lanes'
/// common value ([module docs](self)); `state` holds the current exec.
pub(super) fn decide_by_active_lanes<'c, 'a>(
    emit: &Emitter<'c, 'a>,
    lanes: &Lanes<'c, 'a>,
    state: &ExecState<'c, 'a>,
    invariant: &WarpInvariant,
) {
    let terminator = emit.anchor;
    let name = op_name(terminator);
    let Some(condition) = terminator.operand(0).ok() else {
        return;
    };
    let is_branch =
        CONDITIONAL_BRANCHES.contains(&name.as_str()) || SWITCHES.contains(&name.as_str());
    if !is_branch || invariant.contains(condition) {
        return;
    }
    let (active, live) = (state.bit, lanes.live);
    let decided = if let (true, Target::Rocdl { .. }) =
        (CONDITIONAL_BRANCHES.contains(&name.as_str()), emit.target)
    {
        let taken = emit.ballot_in(state.exec, condition);
        emit.insert(melior::dialect::arith::cmpi(
            emit.context,
            melior::dialect::arith::CmpiPredicate::Ne,
            taken,
            emit.zero_of(taken.r#type()),
            emit.location,
        ))
    } else if CONDITIONAL_BRANCHES.contains(&name.as_str()) {
        let mine = emit.select(active, condition, emit.constant(1, 0));
        emit.vote_any(live, mine)
    } else {
        let mine = emit.select(active, condition, emit.zero_of(condition.r#type()));
        let lowest = emit.lowest_set_bit(state.wave_mask(emit, lanes));
        let source = emit.and(
            emit.resize(lowest, emit.int_type(32)),
            emit.constant(32, i64::from(emit.target.mask_width() - 1)),
        );
        shuffle_pieces(emit, live, mine, source)
    };
    edit::set_operand(terminator, 0, decided);
}

/// `value` (an integer of any width) as seen in lane `source`: one
/// `shfl.sync.idx` per 32-bit piece.
fn shuffle_pieces<'c, 'a>(
    emit: &Emitter<'c, 'a>,
    live: Value<'c, 'a>,
    value: Value<'c, 'a>,
    source: Value<'c, 'a>,
) -> Value<'c, 'a> {
    let r#type = value.r#type();
    let width = IntegerType::try_from(r#type)
        .map(|t| t.width())
        .expect("checked: switch flags are integers");
    if width <= 32 {
        let fetched = emit.shuffle_index(live, emit.resize(value, emit.int_type(32)), source);
        return emit.resize(fetched, r#type);
    }
    let mut result = emit.zero_of(r#type);
    for piece in 0..width.div_ceil(32) {
        let shift = emit.constant(width, i64::from(piece * 32));
        let bits = emit.resize(emit.shr(value, shift), emit.int_type(32));
        let fetched = emit.resize(emit.shuffle_index(live, bits, source), r#type);
        result = emit.or(result, emit.shl(fetched, shift));
    }
    result
}
