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
//! ## AMD waves (ROCDL)
//!
//! The same lowering serves `--spmd-lower-to-rocdl` ([`Target::Rocdl`]),
//! where exec masks are the machine's own model. There a mask is not one
//! bit per thread but the wave's whole mask, a uniform `i64` (wave64) or
//! `i32` (wave32) that the backend keeps in scalar registers:
//!
//! | wave-level construct | ROCDL lowering |
//! |---|---|
//! | `!spmd.mask`, exec | `iW`, W the wave size, threaded through the blocks like the NVVM bit |
//! | initial exec, live mask | `rocdl.ballot true` at the entry (the lanes the hardware runs) |
//! | `spmd.ballot %p` | `rocdl.ballot (llvm.freeze %p) & exec` (`rocdl.ballot %p` while exec is the initial one) |
//! | `spmd.mask.and/or/andn/empty` | `arith.andi/ori`, `andi(xori(.., -1))`, `0` on `iW` |
//! | `spmd.mask.select %m, %a, %b` | `arith.select (inverse_ballot %m), %a, %b` |
//! | a lane's own bit (guards, selects) | `llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.iW"`, which costs nothing: a uniform mask in scalar registers *is* a per-lane condition |
//! | `spmd.exec.br_zero` | `cf.cond_br (exec == 0)`: no vote, the mask is at hand |
//! | a kept scalar branch where exec may be partial | `cond_br (rocdl.ballot (freeze %c) & exec) != 0`; a switch reads the flag of the lowest lane of exec (`rocdl.readlane`) |
//!
//! In the exec-mask code every branch that reaches the backend is then
//! uniform except the lane guards (`scf.if` on a lane's bit, single-block
//! if-then regions), and `spmd-compile --target amdgcn` tells the
//! backend's StructurizeCFG to leave uniform regions alone
//! (`-structurizecfg-skip-uniform-regions` for `llc` users). Lane branches
//! (`--spmd-predicate=lane-branches=true`, the `spmd-gpu-to-rocdl`
//! default) pass through unchanged, as on NVIDIA: the backend lowers them
//! with its own exec-mask code, which keeps the registers of the lanes
//! that are off, where predicated code pays a `v_cndmask` per merged
//! value. The freeze matters: lanes outside exec never computed the
//! predicate, and a ballot of poison is poison.
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

pub(crate) mod carriers;
pub(crate) mod check;
mod emit;
pub(crate) use emit::Target;
pub(crate) mod full_exec;
pub(crate) mod guard;
pub(crate) mod intrinsics;
pub(crate) mod scalar_branch;
pub(crate) mod skip;

use crate::ir::{collectives, key::BlockKey, names};
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
pub(crate) enum SpmdOp {
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
    pub(crate) fn of(name: &str) -> Option<Self> {
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
    pub(crate) fn is_wave_level(self) -> bool {
        !matches!(self, Self::FlowBranch | Self::Token | Self::Marker)
    }
}

/// A function (`gpu.func` or `llvm.func`) holding wave-level code.
pub(crate) struct WaveFunction<'c, 'a> {
    /// The function operation.
    pub(crate) op: OperationRef<'c, 'a>,
}

impl<'c, 'a> WaveFunction<'c, 'a> {
    /// Wraps `op`, which must be a `gpu.func` or `llvm.func` with a body
    /// (see [`check::wave_functions`]).
    pub(crate) fn new(op: OperationRef<'c, 'a>) -> Self {
        Self { op }
    }

    /// The function's body region. Panics if the function has no region.
    pub(crate) fn body(&self) -> RegionRef<'c, 'a> {
        self.op.region(0).expect("a wave-level function has a body")
    }

    /// The blocks of the body, in order.
    pub(crate) fn blocks(&self) -> Vec<BlockRef<'c, 'a>> {
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
    /// The exec mask of every running thread at function entry, in the
    /// lowered mask type: `true` (the thread's bit) on NVVM, the live mask
    /// on ROCDL.
    running: Value<'c, 'a>,
    /// `true`: the thread's bit of `running`.
    running_bit: Value<'c, 'a>,
    guards: bool,
}

/// Lowers one wave-level function (already checked). Masks become the
/// target's lowered mask ([`Target::lowered_mask_width`]): one bit per
/// thread on NVVM, the whole wave's mask on ROCDL; carriers keep their
/// integer type.
pub(crate) fn lower_function<'c>(
    context: &'c Context,
    function: &WaveFunction<'c, '_>,
    target: Target,
) {
    let blocks = function.blocks();
    let entry = blocks[0];
    let invariant = WarpInvariant::compute(&blocks, function.is_kernel());
    let short_skips = skip::short_regions(&blocks);
    let lanes = entry_values(context, function, target);
    let location = function.op.location();
    // The one typing rule: every mask value (block arguments and the
    // results of spmd ops alike) has the lowered mask type before anything
    // is emitted, so that emitted ops, which take their result type from
    // their operands, never see `!spmd.mask`, whatever order the blocks
    // are visited in.
    carriers::narrow(&blocks, crate::ir::facts::mask_type(context));
    let mask = IntegerType::new(context, target.lowered_mask_width()).into();
    retype_mask_values(&blocks, mask);
    for block in &blocks[1..] {
        block.add_argument(mask, location);
    }
    let full = full_exec::full_at_start(&blocks);
    // Every thread in a lane region is active (its entries are gated).
    let lane_regions = full_exec::lane_regions(&blocks, &full);
    let all_active = full.iter().zip(&lane_regions.inside).map(|(&f, &l)| f || l);
    let mut lane_bits = Vec::new();
    for (block, all_active) in blocks.iter().zip(all_active.collect::<Vec<_>>()) {
        let exec_in = if *block == entry || all_active {
            lanes.running
        } else {
            block.argument(block.argument_count() - 1).unwrap().into()
        };
        let state = ExecState::at_block_start(context, &lanes, *block, exec_in);
        lane_bits.extend(state.emitted_bit);
        lower_block(
            context,
            &lanes,
            &invariant,
            &short_skips,
            *block,
            state,
            &mut lane_bits,
        );
    }
    if let Target::Rocdl { .. } = target {
        define_poison_edges(context, target, &blocks);
    }
    // Only votes read the live mask: a function without any keeps no
    // activemask read (LLVM may not remove one: it is convergent). Lane
    // bits computed for a mask nobody tests go too.
    for value in lane_bits.into_iter().chain([lanes.live]) {
        if !edit::is_used(value) {
            if let Some(read) = edit::defining_op(value) {
                // SAFETY: an unused op this lowering emitted (a lane bit or
                // the live mask), each a distinct new op, so erased once;
                // `lower_block` skips lane bits and never erases the live
                // mask's read, and no other handle to it outlives `lanes`
                // and `lane_bits`, which end with this loop.
                unsafe { edit::erase_operation(read) };
            }
        }
    }
}

/// Makes every integer `ub.poison` that a branch passes to a block argument
/// a zero (ROCDL). Poison may become any value, and LLVM 22's AMDGPU
/// backend crashes in its register coalescer on some `phi`s of poison
/// feeding the selects of predicated code (a random multi-exit kernel of
/// the amdgcn gate showed it); a defined value costs at most a move.
fn define_poison_edges<'c>(context: &'c Context, target: Target, blocks: &[BlockRef<'c, '_>]) {
    let entry = blocks[0];
    let anchor = entry
        .first_operation()
        .expect("a block ends with a terminator");
    let mut zeros: Vec<(Type<'c>, Value<'c, '_>)> = Vec::new();
    for block in blocks {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        for slot in 0..terminator.successor_count() {
            let Some(mut values) = edit::successor_operands(terminator, slot) else {
                continue;
            };
            let mut changed = false;
            for value in values.iter_mut() {
                let is_poison =
                    edit::defining_op(*value).is_some_and(|op| edit::is_op(op, names::UB_POISON));
                let r#type = value.r#type();
                if !is_poison || IntegerType::try_from(r#type).is_err() {
                    continue;
                }
                let zero = match zeros.iter().find(|(t, _)| *t == r#type) {
                    Some(&(_, zero)) => zero,
                    None => {
                        let emit = Emitter {
                            context,
                            target,
                            anchor,
                            location: anchor.location(),
                        };
                        let zero = emit.zero_of(r#type);
                        zeros.push((r#type, zero));
                        zero
                    }
                };
                *value = zero;
                changed = true;
            }
            if changed {
                edit::set_successor_operands(terminator, slot, &values);
            }
        }
    }
}

/// Emits the live mask and the initial exec at the top of the entry block.
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
    let running_bit = emit.constant(1, 1);
    let running = match target {
        Target::Nvvm => running_bit,
        Target::Rocdl { .. } => live,
    };
    Lanes {
        live,
        target,
        running,
        running_bit,
        guards: function.writes_exec(),
    }
}

/// The exec mask flowing through one block, and whether it is still the
/// initial one (the entry block before its first `spmd.exec.write`: every
/// running thread is active, so nothing needs a guard).
struct ExecState<'c, 'a> {
    /// The exec mask in the lowered mask type.
    exec: Value<'c, 'a>,
    /// The thread's own bit of `exec` (`exec` itself on NVVM).
    bit: Value<'c, 'a>,
    /// A lane bit this state emitted (ROCDL), erased at the end if unused.
    emitted_bit: Option<Value<'c, 'a>>,
    is_live: bool,
}

impl<'c, 'a> ExecState<'c, 'a> {
    /// The state for `exec`, whose lane bit, when one must be computed, is
    /// emitted before `emit`'s anchor.
    fn new(emit: &Emitter<'c, 'a>, lanes: &Lanes<'c, 'a>, exec: Value<'c, 'a>) -> Self {
        let is_live = exec == lanes.running;
        let (bit, emitted_bit) = match lanes.target {
            Target::Nvvm => (exec, None),
            Target::Rocdl { .. } if is_live => (lanes.running_bit, None),
            Target::Rocdl { .. } => {
                let bit = emit.inverse_ballot(exec);
                (bit, Some(bit))
            }
        };
        Self {
            exec,
            bit,
            emitted_bit,
            is_live,
        }
    }

    fn at_block_start(
        context: &'c Context,
        lanes: &Lanes<'c, 'a>,
        block: BlockRef<'c, 'a>,
        exec: Value<'c, 'a>,
    ) -> Self {
        let anchor = block
            .first_operation()
            .expect("a block ends with a terminator");
        let emit = Emitter {
            context,
            target: lanes.target,
            anchor,
            location: anchor.location(),
        };
        Self::new(&emit, lanes, exec)
    }

    /// The exec mask of the wave (an `i32` on NVVM: a ballot of the exec
    /// bits, or the live mask while exec is still the initial one).
    fn wave_mask(&self, emit: &Emitter<'c, 'a>, lanes: &Lanes<'c, 'a>) -> Value<'c, 'a> {
        match lanes.target {
            Target::Rocdl { .. } => self.exec,
            Target::Nvvm if self.is_live => lanes.live,
            Target::Nvvm => emit.ballot(lanes.live, self.exec),
        }
    }
}

fn lower_block<'c, 'a>(
    context: &'c Context,
    lanes: &Lanes<'c, 'a>,
    invariant: &WarpInvariant,
    short_skips: &skip::ShortRegions,
    block: BlockRef<'c, 'a>,
    mut state: ExecState<'c, 'a>,
    lane_bits: &mut Vec<Value<'c, 'a>>,
) {
    let mut run = guard::Run::default();
    for op in edit::operations(block) {
        // The lane bit emitted for the block's exec is no program op.
        if state.emitted_bit.is_some() && state.emitted_bit == op.result(0).ok().map(Value::from) {
            continue;
        }
        if lanes.guards && !state.is_live && guard::needs_guard(op) {
            run.push_guarded(op);
            continue;
        }
        if run.try_push_pure(op) {
            continue;
        }
        run.close(context, state.bit);
        let emit = Emitter {
            context,
            target: lanes.target,
            anchor: op,
            location: op.location(),
        };
        match SpmdOp::of(&op_name(op)) {
            Some(SpmdOp::ExecWrite) => {
                let exec = if full_exec::write_kind(op) == Some(true) {
                    lanes.running
                } else {
                    op.operand(0).expect("checked by the op verifier")
                };
                state = ExecState::new(&emit, lanes, exec);
                lane_bits.extend(state.emitted_bit);
                // SAFETY: `spmd.exec.write` has no results or regions; `op`
                // is the current op of a snapshot visited once, and the new
                // state and emitter hold no handle to it (only its operand).
                unsafe { edit::erase_operation(op) };
            }
            Some(SpmdOp::BranchZero) => {
                lower_branch_zero(&emit, lanes, state.exec, short_skips.contains(op));
                // SAFETY: the branch has no results or regions and was just
                // replaced by its lowering; `op` is the current op of a
                // snapshot visited once, and `emit` is not used again.
                unsafe { edit::erase_operation(op) };
            }
            Some(kind) if kind.is_wave_level() => lower_wave_op(&emit, lanes, &state, kind),
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
                // SAFETY: its only result was just replaced and it has no
                // regions (an intrinsic call or inline assembly); `op` is
                // the current op of a snapshot visited once, not the live
                // mask (checked above), and `emit` is not used again.
                unsafe { edit::erase_operation(op) };
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

/// Replaces one wave-level op (the emitter's anchor) by its lowered form
/// (`spmd.exec.write` is handled by the caller).
fn lower_wave_op<'c, 'a>(
    emit: &Emitter<'c, 'a>,
    lanes: &Lanes<'c, 'a>,
    state: &ExecState<'c, 'a>,
    kind: SpmdOp,
) {
    let op = emit.anchor;
    let operand = |index: usize| op.operand(index).expect("checked by the op verifier");
    let width = lanes.target.lowered_mask_width();
    let whole_wave = matches!(lanes.target, Target::Rocdl { .. });
    let replacement = match kind {
        SpmdOp::ExecRead => Some(state.exec),
        // My bit of the ballot: I am active and my predicate holds.
        // `select`, not `and`: the predicate is often poison in lanes
        // whose exec bit is clear (they never computed it), and
        // `and poison, false` is poison in LLVM, while the select picks
        // the constant false there.
        SpmdOp::Ballot if whole_wave && !state.is_live => {
            Some(emit.ballot_in(state.exec, operand(0)))
        }
        SpmdOp::Ballot if whole_wave => Some(emit.ballot(lanes.live, operand(0))),
        SpmdOp::Ballot if state.is_live => Some(operand(0)),
        SpmdOp::Ballot => Some(emit.select(state.bit, operand(0), emit.constant(1, 0))),
        SpmdOp::MaskAnd => Some(emit.and(operand(0), operand(1))),
        SpmdOp::MaskOr => Some(emit.or(operand(0), operand(1))),
        SpmdOp::MaskAndNot => Some(emit.and_not(width, operand(0), operand(1))),
        SpmdOp::MaskEmpty => Some(emit.constant(width, 0)),
        SpmdOp::MaskSelect => {
            let lanes_in = if whole_wave {
                emit.inverse_ballot(operand(0))
            } else {
                operand(0)
            };
            Some(emit.select(lanes_in, operand(1), operand(2)))
        }
        // A carrier holds the lowered mask in its low bits.
        SpmdOp::MaskToBits | SpmdOp::MaskFromBits => {
            let target = op.result(0).unwrap().r#type();
            Some(emit.resize(operand(0), target))
        }
        SpmdOp::ExecWrite | SpmdOp::BranchZero => unreachable!("lowered by lower_block"),
        SpmdOp::FlowBranch | SpmdOp::Token | SpmdOp::Marker => unreachable!("not wave-level"),
    };
    if let Some(value) = replacement {
        edit::replace_all_uses(op.result(0).unwrap().into(), value);
    }
    // SAFETY: a wave-level spmd op (no regions) whose result, if any, was
    // just replaced (the replacement is a new op or an operand, never its
    // own result); `op` is `emit`'s anchor, the current op of
    // `lower_block`'s snapshot, which moves on to the next op.
    unsafe { edit::erase_operation(op) };
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
        let none = match lanes.target {
            // The whole mask is at hand: no vote.
            Target::Rocdl { .. } => emit.insert(melior::dialect::arith::cmpi(
                emit.context,
                melior::dialect::arith::CmpiPredicate::Eq,
                exec,
                emit.zero_of(exec.r#type()),
                emit.location,
            )),
            Target::Nvvm => {
                let any = emit.vote_any(lanes.live, exec);
                emit.insert(melior::dialect::arith::xori(
                    any,
                    emit.constant(1, 1),
                    emit.location,
                ))
            }
        };
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
    let position: std::collections::HashMap<BlockKey, usize> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| (BlockKey::of(block), index))
        .collect();
    let mut edges = vec![Vec::new(); blocks.len()];
    for block in blocks {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        for slot in 0..terminator.successor_count() {
            let target = terminator.successor(slot).expect("counted successor");
            if let Some(&index) = position.get(&BlockKey::of(&target)) {
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
pub(crate) fn strip_spmd_argument_attributes(function: OperationRef<'_, '_>) {
    edit::strip_argument_attributes(function, crate::ir::names::SPMD_PREFIX);
}
