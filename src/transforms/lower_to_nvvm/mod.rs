//! Wave-level spmd IR on NVIDIA: one warp runs one wave, every thread runs
//! the wave-level program itself.
//!
//! Wave-level code (the output of `--spmd-predicate`, or Listing 1 of seed
//! 004 written by hand) describes what a whole wave does: per-lane values,
//! a wave-uniform exec mask, and control flow that every lane takes
//! together. A GCN wave executes such code with scalar instructions for the
//! masks and exec-masked vector instructions for the lanes. An NVIDIA warp
//! has no exec register, but it does not need one: if each of its threads
//! runs the wave-level program, the threads never disagree on a branch
//! (all branches are uniform), so the warp stays converged, and each
//! thread keeps *its own bit* of every mask, a predicate. A mask operation
//! is then one predicate operation (`and`, `or`, `select`), and the warp
//! only meets where a decision is warp-wide: whether any lane enters a
//! region (`vote.sync.any`), a kept scalar branch, a loop's back edge.
//! (An earlier design kept the whole `i32` mask in every thread: every
//! divergent branch cost a `vote.sync.ballot` and every guard a test of
//! `exec & (1 << laneid)`.)
//!
//! | wave-level construct | NVVM lowering |
//! |---|---|
//! | `!spmd.mask` | `i1`: the thread's own bit of the mask |
//! | exec mask | my exec bit, an SSA value threaded through the CFG: one new block argument per block, one new operand per branch successor |
//! | initial exec | `true` (every thread that runs is a live lane; the lanes of a partial last warp that do not exist do not run) |
//! | `spmd.exec.read` / `spmd.exec.write %m` | the current exec bit / `%m` becomes the current exec bit |
//! | `spmd.ballot %p` | `my exec bit ? %p : false` |
//! | `spmd.mask.and/or/andn/empty` | `arith.andi/ori`, `andi(xori(.., true))`, `false` |
//! | `spmd.mask.select %m, %a, %b` | `arith.select %m, %a, %b` |
//! | `spmd.mask.to_bits` / `from_bits` (carriers across `llvm` branches) | the bit itself where the carrier only passes masks ([`carriers`]), else a zero-extension / truncation of it |
//! | `spmd.exec.br_zero ^z, ^nz` | `cf.cond_br !vote.sync.any(live, exec), ^z, ^nz`; `cf.br ^nz` when the region is short and acyclic ([`skip`]) |
//! | a kept (uniform) `cond_br %c` / `switch %f` where exec may be partial | `cond_br vote.sync.any(live, my_bit ? %c : false)` / `switch` on `%f` of the lowest active lane (`shfl.sync.idx`); unchanged if `%c`/`%f` is warp-invariant ([`scalar_branch`]) |
//! | an op that must not run in inactive lanes, and a warp collective whose members the program names (`shfl.sync`, `vote.sync`, `redux.sync`, `match.sync`, `bar.warp.sync` with their member mask; `gpu.shuffle`) | `scf.if %my_bit { op } else { poison }` ([`guard`]) |
//! | `activemask` (`llvm.nvvm.activemask`, clang's `activemask.b32`) | the exec mask: `vote.sync.ballot(live, my_bit)` |
//! | convergence tokens, reconvergence markers | erased |
//!
//! Design choices and edge cases:
//!
//! * **Exec as SSA, not as a stack slot.** Threading the exec bit through
//!   block arguments is exact (exec is a state variable of the wave and
//!   the CFG is the wave's CFG) and leaves nothing for `mem2reg` to clean
//!   up, so `llc` alone turns it into a predicate register. Blocks that
//!   never read it get an unused argument, which LLVM removes.
//! * **A mask is never poison.** Every mask bit is computed from the exec
//!   bit with `select`, never `and`, so a lane that never computed a
//!   predicate (its exec bit was clear) contributes `false`, not poison;
//!   the votes the lowering emits therefore never see poison.
//! * **The member mask of `.sync` ops is the live mask**, not exec: every
//!   live thread executes every wave-level instruction, including lanes
//!   whose exec bit is clear, and PTX requires the executing thread to be
//!   in the member mask. Using `0xffffffff` instead would be undefined in
//!   the last, partial warp of a block. It is read with `activemask` at
//!   the function's entry, before anything can diverge: a kernel's warp
//!   starts with every thread that exists, and a device function, which
//!   callers reach through a lane guard, with the caller's active lanes.
//!   (It used to be computed from `tid.*`/`ntid.*`, 14 instructions per
//!   kernel.) A function that emits no vote reads no live mask.
//! * **Which ops are guarded** is asked of MLIR's interfaces
//!   (`spmdNeedsLaneGuard`): reads too, not only writes, because an
//!   inactive lane's address is often out of bounds (that is why the lane
//!   is inactive), and non-speculatable ops such as `arith.divsi`, because
//!   a division by zero in an inactive lane is undefined behaviour in LLVM.
//!   Allocations (`memref.alloca`) are not guarded. Warp collectives follow
//!   the one rule of [`crate::ir::collectives`]: those whose members the
//!   thread-level program names (a member mask) run under the exec bit, so
//!   the lanes that reach them at thread level, and only those, meet at the
//!   `.sync` instruction (the hardware's own convergence does the rest);
//!   whole-warp and whole-block ones (`bar.sync`, subgroup reductions) run
//!   in every live lane. A function that never writes exec
//!   runs with exec = live in every thread and gets no guards; neither do
//!   the ops of the entry block before its first `spmd.exec.write`, and
//!   ballots there are the bare predicate.
//! * **Scalar branches are decided by the active lanes.** A branch that
//!   predication kept is uniform over exec, not over the warp: threads
//!   whose exec bit is clear may hold poison in the condition, and on a
//!   warp each thread branches on its own copy. Where exec may be partial
//!   and the condition is not provably the same in every thread, the
//!   branch votes ([`scalar_branch`]).
//! * **Convergence tokens are erased.** They tell a thread-level compiler
//!   which threads must execute a convergent op together; here the warp is
//!   converged wherever wave-level code runs, and each `.sync` op names its
//!   participants explicitly, so nothing is left for a token to say.
//!   (`llvm.experimental.convergence.*` would be the NVVM counterpart, but
//!   the NVPTX backend gains nothing from it for straight-line uniform
//!   code.)
//! * **What is rejected** is listed in [`check`]; the module is checked
//!   before anything is edited.
//! * Only the body region of each `gpu.func` is lowered: wave-level ops in
//!   nested regions are rejected, ops with nested regions are guarded as a
//!   whole.

pub mod carriers;
pub mod check;
mod emit;
pub use emit::Target;
pub mod full_exec;
pub mod guard;
pub mod intrinsics;
pub mod scalar_branch;
pub mod skip;

use crate::ir::{collectives, names};
use emit::Emitter;
use melior::{
    dialect::cf,
    ir::{
        block::BlockLike, operation::OperationLike, r#type::IntegerType, BlockRef, OperationRef,
        RegionLike, RegionRef, Type, Value, ValueLike,
    },
    Context,
};
use scalar_branch::WarpInvariant;

use crate::{ir::edit, transforms::prepare::op_name};

/// The spmd operations the lowering knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SpmdOp {
    /// `spmd.exec.read`: the current exec mask.
    ExecRead,
    /// `spmd.exec.write %m`: `%m` becomes the exec mask.
    ExecWrite,
    /// `spmd.ballot %p`: the mask of active lanes where `%p` holds.
    Ballot,
    /// `spmd.mask.and`: lanes in both masks.
    MaskAnd,
    /// `spmd.mask.or`: lanes in either mask.
    MaskOr,
    /// `spmd.mask.andn %a, %b`: lanes in `%a` but not in `%b`.
    MaskAndNot,
    /// `spmd.mask.empty`: the mask with no lane.
    MaskEmpty,
    /// `spmd.mask.select %m, %a, %b`: per lane, `%a` if the lane is in `%m`.
    MaskSelect,
    /// `spmd.mask.to_bits`: a mask carried in an integer across an `llvm`
    /// branch (paired with [`SpmdOp::MaskFromBits`]).
    MaskToBits,
    /// `spmd.mask.from_bits`: the mask back from its integer.
    MaskFromBits,
    /// `spmd.exec.br_zero ^z, ^nz`: branches on whether exec is empty.
    BranchZero,
    /// `spmd.flow_br`: a Flow branch (thread-level; rejected in wave-level
    /// code).
    FlowBranch,
    /// A convergence token op (`spmd.convergence.entry`, `.anchor`,
    /// `.loop`); erased.
    Token,
    /// A reconvergence marker (`spmd.reconvergence.head` / `.tail`); erased.
    Marker,
}

impl SpmdOp {
    /// The kind of `name`, or `None` for ops outside the spmd dialect.
    pub fn of(name: &str) -> Option<Self> {
        Some(match name {
            names::EXEC_READ => Self::ExecRead,
            names::EXEC_WRITE => Self::ExecWrite,
            names::BALLOT => Self::Ballot,
            names::MASK_AND => Self::MaskAnd,
            names::MASK_OR => Self::MaskOr,
            names::MASK_ANDN => Self::MaskAndNot,
            names::MASK_EMPTY => Self::MaskEmpty,
            names::MASK_SELECT => Self::MaskSelect,
            names::MASK_TO_BITS => Self::MaskToBits,
            names::MASK_FROM_BITS => Self::MaskFromBits,
            names::EXEC_BR_ZERO => Self::BranchZero,
            names::FLOW_BR => Self::FlowBranch,
            names::CONVERGENCE_ENTRY | names::CONVERGENCE_ANCHOR | names::CONVERGENCE_LOOP => {
                Self::Token
            }
            names::RECONVERGENCE_HEAD | names::RECONVERGENCE_TAIL => Self::Marker,
            _ => return None,
        })
    }

    /// Ops that only make sense for a whole wave.
    pub fn is_wave_level(self) -> bool {
        !matches!(self, Self::FlowBranch | Self::Token | Self::Marker)
    }
}

/// A function (`gpu.func` or `llvm.func`) holding wave-level code.
pub struct WaveFunction<'c, 'a> {
    /// The function operation.
    pub op: OperationRef<'c, 'a>,
}

impl<'c, 'a> WaveFunction<'c, 'a> {
    /// Wraps `op`, which must be a `gpu.func` or `llvm.func` with a body
    /// (see [`check::wave_functions`]).
    pub fn new(op: OperationRef<'c, 'a>) -> Self {
        Self { op }
    }

    /// The function's body region. Panics if the function has no region.
    pub fn body(&self) -> RegionRef<'c, 'a> {
        self.op.region(0).expect("a wave-level function has a body")
    }

    /// The blocks of the body, in order.
    pub fn blocks(&self) -> Vec<BlockRef<'c, 'a>> {
        edit::blocks(self.body())
    }

    fn is_kernel(&self) -> bool {
        crate::analysis::kernels::is_kernel(self.op)
    }

    /// True if some `spmd.exec.write` can narrow exec below the live mask.
    fn writes_exec(&self) -> bool {
        self.blocks()
            .into_iter()
            .flat_map(edit::operations)
            .any(|op| SpmdOp::of(&op_name(op)) == Some(SpmdOp::ExecWrite))
    }
}

/// The per-thread values every lowering step needs.
struct Lanes<'c, 'a> {
    /// The live lanes as a whole-wave mask (`i32` on NVVM: the member mask
    /// of the `.sync` ops the lowering emits).
    live: Value<'c, 'a>,
    target: Target,
    /// `true`: the exec bit of every running thread at function entry.
    running: Value<'c, 'a>,
    guards: bool,
}

/// Lowers one wave-level function (already checked). Masks become one bit
/// per thread whatever the wave size; carriers keep their integer type.
pub fn lower_function<'c>(context: &'c Context, function: &WaveFunction<'c, '_>, target: Target) {
    let blocks = function.blocks();
    let entry = blocks[0];
    let invariant = WarpInvariant::compute(&blocks, function.is_kernel());
    let short_skips = skip::short_regions(&blocks);
    let lanes = entry_values(context, function, target);
    let location = function.op.location();
    // The one typing rule: every mask value (block arguments and the
    // results of spmd ops alike) is the thread's own bit, an `i1`, before
    // anything is emitted, so that emitted ops, which take their result
    // type from their operands, never see `!spmd.mask`, whatever order the
    // blocks are visited in.
    carriers::narrow(&blocks, crate::ir::facts::mask_type(context));
    let bit = IntegerType::new(context, 1).into();
    retype_mask_values(&blocks, bit);
    for block in &blocks[1..] {
        block.add_argument(bit, location);
    }
    let full = full_exec::full_at_start(&blocks);
    // Every thread in a lane region is active (its entries are gated).
    let lane_regions = full_exec::lane_regions(&blocks, &full);
    let all_active = full.iter().zip(&lane_regions.inside).map(|(&f, &l)| f || l);
    for (block, all_active) in blocks.iter().zip(all_active.collect::<Vec<_>>()) {
        let exec_in = if *block == entry || all_active {
            lanes.running
        } else {
            block.argument(block.argument_count() - 1).unwrap().into()
        };
        lower_block(context, &lanes, &invariant, &short_skips, *block, exec_in);
    }
    // Only votes read the live mask: a function without any keeps no
    // activemask read (LLVM may not remove one: it is convergent).
    if !edit::is_used(lanes.live) {
        if let Some(read) = edit::defining_op(lanes.live) {
            edit::erase_operation(read);
        }
    }
}

/// Emits the live mask and the initial exec bit at the top of the entry
/// block.
fn entry_values<'c, 'a>(
    context: &'c Context,
    function: &WaveFunction<'c, 'a>,
    target: Target,
) -> Lanes<'c, 'a> {
    let entry = function
        .body()
        .first_block()
        .expect("checked: the body has a block");
    let emit = Emitter {
        context,
        target,
        anchor: entry
            .first_operation()
            .expect("a block ends with a terminator"),
        location: function.op.location(),
    };
    // At the entry every thread of the warp that exists runs, converged
    // (a kernel starts so; a device function runs in the lanes its caller's
    // guard let in): `activemask` there is the live mask.
    let live = emit.live_mask();
    Lanes {
        live,
        target,
        running: emit.constant(1, 1),
        guards: function.writes_exec(),
    }
}

/// The thread's exec bit flowing through one block, and whether it is
/// still the initial `true` (the entry block before its first
/// `spmd.exec.write`: every running thread is active, so nothing needs a
/// guard).
struct ExecState<'c, 'a> {
    exec: Value<'c, 'a>,
    is_live: bool,
}

impl<'c, 'a> ExecState<'c, 'a> {
    fn set(&mut self, exec: Value<'c, 'a>) {
        self.exec = exec;
        self.is_live = false;
    }

    /// The exec mask of the wave (an `i32` on NVVM): a ballot of the exec
    /// bits (the live mask while exec is still the initial one).
    fn wave_mask(&self, emit: &Emitter<'c, 'a>, lanes: &Lanes<'c, 'a>) -> Value<'c, 'a> {
        if self.is_live {
            lanes.live
        } else {
            emit.ballot(lanes.live, self.exec)
        }
    }
}

fn lower_block<'c, 'a>(
    context: &'c Context,
    lanes: &Lanes<'c, 'a>,
    invariant: &WarpInvariant,
    short_skips: &skip::ShortRegions,
    block: BlockRef<'c, 'a>,
    exec_in: Value<'c, 'a>,
) {
    let mut state = ExecState {
        exec: exec_in,
        is_live: exec_in == lanes.running,
    };
    let mut run = guard::Run::default();
    for op in edit::operations(block) {
        if lanes.guards && !state.is_live && guard::needs_guard(op) {
            run.push_guarded(op);
            continue;
        }
        if run.try_push_pure(op) {
            continue;
        }
        run.close(context, state.exec);
        let emit = Emitter {
            context,
            target: lanes.target,
            anchor: op,
            location: op.location(),
        };
        match SpmdOp::of(&op_name(op)) {
            Some(SpmdOp::ExecWrite) if full_exec::write_kind(op) == Some(true) => {
                state = ExecState {
                    exec: lanes.running,
                    is_live: true,
                };
                edit::erase_operation(op);
            }
            Some(SpmdOp::BranchZero) => {
                lower_branch_zero(&emit, lanes, state.exec, short_skips.contains(op));
                edit::erase_operation(op);
            }
            Some(kind) if kind.is_wave_level() => lower_wave_op(&emit, &mut state, kind),
            Some(_) => {}
            None if op.next_in_block().is_none() => {
                // A lane branch is each thread's own decision (threads that
                // are not active were sent to the rejoin point by its
                // gated condition), never a vote.
                if lanes.guards && !state.is_live && !full_exec::is_lane_branch(op) {
                    scalar_branch::decide_by_active_lanes(&emit, lanes, &state, invariant);
                }
                forward_exec(op, state.exec)
            }
            // The live mask of a non-kernel function is itself an
            // activemask read (at the top of the entry block).
            None if reads_active_mask(op) && Value::from(op.result(0).unwrap()) != lanes.live => {
                let mask = emit.resize(
                    state.wave_mask(&emit, lanes),
                    op.result(0).unwrap().r#type(),
                );
                edit::replace_all_uses(op.result(0).unwrap().into(), mask);
                edit::erase_operation(op);
            }
            None => {}
        }
    }
}

/// True for a read of the active mask (`llvm.nvvm.activemask`, clang's
/// `activemask.b32` inline assembly): the lanes that execute it together,
/// which in wave-level code is the exec mask ([`collectives`]).
fn reads_active_mask(op: OperationRef<'_, '_>) -> bool {
    collectives::members(op).map(collectives::Members::lowering)
        == Some(collectives::Lowering::ExecMask)
        && op.result_count() == 1
}

/// Replaces one wave-level op (the emitter's anchor) by its NVVM form:
/// every mask is the thread's own bit of it.
fn lower_wave_op<'c, 'a>(emit: &Emitter<'c, 'a>, state: &mut ExecState<'c, 'a>, kind: SpmdOp) {
    let op = emit.anchor;
    let operand = |index: usize| op.operand(index).expect("checked by the op verifier");
    let replacement = match kind {
        SpmdOp::ExecRead => Some(state.exec),
        SpmdOp::ExecWrite => {
            state.set(operand(0));
            None
        }
        // My bit of the ballot: I am active and my predicate holds.
        // `select`, not `and`: the predicate is often poison in lanes
        // whose exec bit is clear (they never computed it), and
        // `and poison, false` is poison in LLVM, while the select picks
        // the constant false there.
        SpmdOp::Ballot if state.is_live => Some(operand(0)),
        SpmdOp::Ballot => Some(emit.select(state.exec, operand(0), emit.constant(1, 0))),
        SpmdOp::MaskAnd => Some(emit.and(operand(0), operand(1))),
        SpmdOp::MaskOr => Some(emit.or(operand(0), operand(1))),
        SpmdOp::MaskAndNot => Some(emit.and_not(1, operand(0), operand(1))),
        SpmdOp::MaskEmpty => Some(emit.constant(1, 0)),
        SpmdOp::MaskSelect => Some(emit.select(operand(0), operand(1), operand(2))),
        // A carrier holds my bit in its lowest bit (0 or 1).
        SpmdOp::MaskToBits | SpmdOp::MaskFromBits => {
            let target = op.result(0).unwrap().r#type();
            Some(emit.resize(operand(0), target))
        }
        SpmdOp::BranchZero => unreachable!("lowered with its skip decision"),
        SpmdOp::FlowBranch | SpmdOp::Token | SpmdOp::Marker => unreachable!("not wave-level"),
    };
    if let Some(value) = replacement {
        edit::replace_all_uses(op.result(0).unwrap().into(), value);
    }
    edit::erase_operation(op);
}

/// `spmd.exec.br_zero ^z(a), ^nz(b)` becomes
/// `cf.cond_br !vote.sync.any(live, exec), ^z(a, exec), ^nz(b, exec)`: the
/// one warp-level decision of a divergent region, whether any lane enters
/// it. Where the region is short and acyclic ([`skip`]), running it with
/// no active lane costs less than the vote and the branch: `cf.br ^nz(b,
/// exec)`.
fn lower_branch_zero<'c, 'a>(
    emit: &Emitter<'c, 'a>,
    lanes: &Lanes<'c, 'a>,
    exec: Value<'c, 'a>,
    fall_through: bool,
) {
    let op = emit.anchor;
    let operands = |slot: usize| {
        let mut values =
            edit::successor_operands(op, slot).expect("spmd.exec.br_zero forwards its operands");
        values.push(exec);
        values
    };
    let (on_zero, on_nonzero) = (op.successor(0).unwrap(), op.successor(1).unwrap());
    let branch = if fall_through {
        cf::br(&on_nonzero, &operands(1), emit.location)
    } else {
        let any = emit.vote_any(lanes.live, exec);
        let none = emit.insert(melior::dialect::arith::xori(
            any,
            emit.constant(1, 1),
            emit.location,
        ));
        cf::cond_br(
            emit.context,
            none,
            &on_zero,
            &on_nonzero,
            &operands(0),
            &operands(1),
            emit.location,
        )
    };
    op.block().unwrap().insert_operation_before(op, branch);
}

/// Every edge into each block of `blocks` (by position): the terminator and
/// its successor slot; edges from or to blocks outside `blocks` are left
/// out.
fn incoming_edges<'c, 'a>(blocks: &[BlockRef<'c, 'a>]) -> Vec<Vec<(OperationRef<'c, 'a>, usize)>> {
    let address = |block: BlockRef<'_, '_>| block.to_raw().ptr as usize;
    let position: std::collections::HashMap<usize, usize> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| (address(*block), index))
        .collect();
    let mut edges = vec![Vec::new(); blocks.len()];
    for block in blocks {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        for slot in 0..terminator.successor_count() {
            let target = terminator.successor(slot).expect("counted successor");
            if let Some(&index) = position.get(&address(target)) {
                edges[index].push((terminator, slot));
            }
        }
    }
    edges
}

/// Appends the block's final exec value to every successor's operands.
fn forward_exec(terminator: OperationRef<'_, '_>, exec: Value<'_, '_>) {
    for slot in 0..terminator.successor_count() {
        let mut values =
            edit::successor_operands(terminator, slot).expect("checked: forwarded operands");
        values.push(exec);
        edit::set_successor_operands(terminator, slot, &values);
    }
}

/// Every `!spmd.mask` value of the blocks (rejoin and loop masks in block
/// arguments, results of spmd ops) becomes an integer. The spmd ops are
/// replaced right after, so their transiently integer results never reach
/// the verifier.
fn retype_mask_values<'c>(blocks: &[BlockRef<'c, '_>], mask_type: Type<'c>) {
    for block in blocks {
        for index in 0..block.argument_count() {
            let argument = block.argument(index).unwrap();
            if check::is_mask(argument.r#type()) {
                argument.set_type(mask_type);
            }
        }
        for op in edit::operations(*block) {
            for result in op.results() {
                if check::is_mask(result.r#type()) {
                    result.set_type(mask_type);
                }
            }
        }
    }
}

/// Removes `spmd.*` entries from the argument and result attributes of a
/// function (`{spmd.uniform}`, `{spmd.divergent}`): after the lowering no
/// analysis reads them, and the output should not mention the dialect.
pub fn strip_spmd_argument_attributes(function: OperationRef<'_, '_>) {
    edit::strip_argument_attributes(function, crate::ir::names::SPMD_PREFIX);
}
