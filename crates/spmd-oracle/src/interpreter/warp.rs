//! Lockstep warps: the oracle below the spmd level, for LLVM+NVVM code.
//!
//! [`Executor::run_cta`] runs the threads of one CTA (thread block) as warps
//! of [`GridDims::subgroup_size`] lanes (32 on NVIDIA): lane `l` of warp `w`
//! is the thread with local linear id `32 w + l`; when the CTA size is not a
//! multiple of 32 the last warp has only the existing lanes. Each lane has
//! its own frame (registers); a warp executes one block at a time for all
//! its executing lanes.
//!
//! ## Control flow
//!
//! How a warp may diverge is the executor's [`Reconvergence`] setting
//! ([`Executor::with_reconvergence`]).
//!
//! ### Lane guards ([`Reconvergence::LaneGuards`], the default)
//!
//! Wave-level code lowered to NVVM (`spmd-lower-to-nvvm`) promises that the
//! warp never diverges, except around the per-thread guards of side effects
//! and of collectives with an explicit member mask (`scf.if` on the
//! thread's exec bit, which `convert-scf-to-cf` turns into a branch around
//! the guarded ops) and at lane branches (divergent branches kept over
//! code that needs no converged lanes). So, at a terminator with two or
//! more successors:
//!
//! * if every executing lane picks the same block, the warp goes there
//!   (each lane binds its own block arguments);
//! * otherwise, if the terminator is a *lane guard* (its immediate
//!   post-dominator `p` is a block of the function and the blocks between
//!   them hold no barrier, see `program::lane_guards`; a lane branch of
//!   `--spmd-predicate=lane-branches=true` around a loop is one),
//!   the warp splits: the lanes of each successor run, one group after the
//!   other (in successor order), up to `p`, where the warp is whole again
//!   (a reconvergence stack, as in pre-Volta hardware). A collective inside
//!   runs over the group's lanes;
//! * otherwise the run stops with [`WarpError::WarpDiverged`], naming the
//!   branch and every lane's choice.
//!
//! A return must be taken by every live lane of the warp together.
//!
//! ### SIMT reconvergence ([`Reconvergence::ImmediatePostDominator`])
//!
//! The reference for *thread-level* code with collectives (a `gpu.func`
//! reading `gpu.thread_id`, an `llvm.func ptx_kernelcc` from clang), run
//! as pre-Volta hardware runs it, so that a lowering of the same kernel to
//! wave-level code can be checked against it:
//!
//! * a warp may diverge at any terminator: the top entry of the stack
//!   splits into one entry per chosen successor (the first successor's
//!   lanes run first), which reconverge at the branch's immediate
//!   post-dominator, where the entry below waits (the same stack as for
//!   lane guards);
//! * where the immediate post-dominator is the virtual exit (some path
//!   returns without passing a common block) or there is none (an infinite
//!   loop), the entries have no join: each runs until its lanes return;
//! * lanes may return while diverged: a returning lane is finished (its
//!   results recorded) and leaves the mask of every entry; entries left
//!   without lanes are popped;
//! * a barrier must be reached by every lane of the warp that has not
//!   returned, together ([`WarpError::PartialWarp`] otherwise). Since the
//!   groups of a split run one after the other, a group that reaches a
//!   barrier while a later group would have returned without one is
//!   reported too (`if (tid >= n) return;` before a barrier must list the
//!   return as the first successor);
//! * collectives see the lanes of the top entry: `activemask` is the set of
//!   lanes executing together.
//!
//! Why the immediate post-dominator: it is where the hardware's own
//! reconvergence (the SSY/SYNC stack of pre-Volta GPUs, the compiler's
//! `BSSY`/`BSYNC` on Volta and later) brings a warp back together for
//! structured code: an `if` rejoins after its `else`, a loop after its
//! exit, so a collective after the construct sees the lanes that entered
//! it. Inside divergent code the CUDA programming model does not define
//! which lanes run together (independent thread scheduling may interleave
//! or merge the groups), so `activemask` is only well defined where the
//! warp reconverges; collectives that name their members
//! (`__shfl_sync(mask, ...)` over lanes that provably run together) mean
//! the same under every schedule, and that is what this mode checks.
//!
//! ## Collectives
//!
//! `nvvm.vote.sync` (`ballot`, `any`, `all`, `uni`), `nvvm.shfl.sync`
//! (`idx`, `up`, `down`, `bfly`, with the width in the `c` operand, with or
//! without the validity flag), `nvvm.bar.warp.sync`, `nvvm.redux.sync`
//! (`i32`) and `nvvm.match.sync` (`any`, `all`) compute across the warp
//! under the hardware's member-mask rule (sm_70+): for each executing lane
//! `l` with member mask `M_l`, `l` must be in `M_l`, and every member `m`
//! of `M_l` must execute the same collective with `M_m == M_l`. Each
//! distinct mask is a group that computes the collective on its own (a
//! converged warp may run one `shfl.sync` as two tiles of 16 lanes with
//! masks `0x0000ffff` and `0xffff0000`); a ballot, `any`, `all`, `uni`,
//! `redux` or `match` is over the group, and a shuffle from a lane outside
//! the group gives poison. A violation is [`WarpError::MemberMask`], which
//! says whether a lane outside its mask executes the collective or a
//! member does not (lanes that returned or were never launched count as
//! not executing, stricter than PTX's "non-exited threads"). What a
//! *poison* vote predicate does is the executor's [`VotePoison`] setting:
//! by default the vote's result is poison in every lane of the group, so a
//! program whose votes may see poison (LLVM lets the lane's bit be
//! anything) is reported where it uses the result. `llvm.nvvm.activemask`
//! and `llvm.inline_asm "activemask.b32 $0;"` (clang's `__activemask()`)
//! give the executing lanes. The same operations called as intrinsics
//! (`llvm.call_intrinsic "llvm.nvvm.vote.ballot.sync"`,
//! `"llvm.nvvm.match.all.sync.i32p"`, ...) behave the same.
//!
//! ## AMDGPU waves
//!
//! ROCDL code (the output of `spmd-gpu-to-rocdl`, or an `llvm.func
//! amdgpu_kernelcc` kernel with `llvm.amdgcn.*` intrinsics) runs the same
//! way, with [`GridDims::subgroup_size`] 64 or 32: lane `l` of wave `w` is
//! the thread with local linear id `W w + l`, the last wave may be
//! partial, divergence is allowed at lane guards only (wave-level code
//! keeps its masks in scalar registers and guards each lane's side effects
//! with its bit of the exec mask, a `cf.cond_br` on
//! `llvm.amdgcn.inverse.ballot` once `convert-scf-to-cf` has run). The
//! wave operations have no member masks: the lanes that take part are
//! those executing the operation together (on the hardware, the exec
//! mask), so they are well defined in a diverged group too:
//!
//! * `rocdl.ballot` / `llvm.amdgcn.ballot.{i64,i32}`: bit `l` is set iff
//!   lane `l` executes the ballot and its `i1` is true (truncated to an
//!   `i32` result, zero-extended to an `i64` one); a poison operand of an
//!   executing lane is what [`VotePoison`] says;
//! * `llvm.amdgcn.inverse.ballot.{i64,i32}`: lane `l` gets bit `l` of the
//!   mask, which must be as wide as the wave;
//! * `rocdl.readlane` / `llvm.amdgcn.readlane.*`: the value in lane `%lane`
//!   (poison if that lane does not execute the readlane);
//!   `rocdl.readfirstlane`: the value in the lowest executing lane;
//! * `rocdl.mbcnt.{lo,hi}` are per lane: `mbcnt.hi(-1, mbcnt.lo(-1, 0))` is
//!   the lane id.
//!
//! The mask of an inverse ballot and the lane of a readlane live in scalar
//! registers: they must be the same in every executing lane
//! ([`WarpError::NonUniform`] otherwise; poison in any lane makes the
//! result poison). `rocdl.s.barrier`, `rocdl.barrier` and
//! `llvm.amdgcn.s.barrier` are CTA barriers under the rules below;
//! `llvm.fence` and `rocdl.s.waitcnt` change nothing.
//!
//! ## Barriers
//!
//! `nvvm.barrier0`, `nvvm.barrier` (optionally with an id; a thread count
//! only if it covers the whole CTA) and the `llvm.nvvm.barrier*` intrinsics
//! synchronise the CTA: the warps run round-robin, each until it reaches a
//! barrier or returns; a barrier must be reached by every live lane of the
//! warp (it cannot be inside a diverged region, lane guards included), and
//! once every warp that has not returned waits, they must all wait at the
//! same barrier (same operation and id: [`WarpError::BarrierMismatch`]
//! otherwise), and all resume. Warps that returned do not take part (PTX barriers wait for the
//! non-exited threads).
//!
//! ## What runs per lane
//!
//! Every other operation runs in each executing lane with the thread-level
//! semantics of [`Executor::run_thread`]: memory, arithmetic, poison rules
//! and typed errors are the same. A call (`llvm.call`, `func.call`) of a
//! function without warp operations runs the callee to completion in each
//! lane, one lane after the other.
//!
//! ## Calls in lockstep
//!
//! A function that uses warp operations, itself or through its callees
//! (wave-level code: `spmd-lower-to-nvvm` gives every function an exec
//! mask read with `activemask` on entry), is called by the warp: the
//! executing lanes enter it together as its live lanes, each with a fresh
//! frame, and it runs with its own reconvergence stack under the same
//! rules (lane guards, collectives over the executing lanes; a barrier
//! inside needs the whole warp, in the callee and in every caller). Once
//! its lanes have returned (together, for lane guards; one by one, in SIMT
//! mode) the caller resumes after the call, each lane with its results.
//! Calls nest up to the executor's call depth limit.

use super::{
    check_arguments, read, Executor, Flow, Frame, GridDims, Position, ThreadId, ThreadState,
};
use crate::error::{ExecError, OpSite, PoisonUse};
use crate::memory::Memory;
use crate::program::{Function, Op, OpKind, ReduxKind, ShuffleKind, Slot, VoteKind, WarpOp};
use crate::trace::NoTrace;
use crate::value::Value;
use std::fmt;
use std::ops::AddAssign;

mod amdgpu;

/// What a lockstep warp does with a poison predicate of `nvvm.vote.sync`
/// ([`Executor::with_vote_poison`]).
///
/// LLVM gives a poison predicate no particular value: the lane's vote may
/// come out either way, and an optimizer may pick whichever suits it (for
/// `and i1 %p, false` with `%p` poison, the whole `and` is poison, not
/// false). [`VotePoison::Poison`] reports any use of such a vote;
/// [`VotePoison::False`] and [`VotePoison::True`] fix the lane's vote, which
/// shows what the hardware computes when the predicate register holds a
/// value that the `and` clears (`False`) and what a legal optimization may
/// produce (`True`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VotePoison {
    /// The vote's result is poison in every lane (the default).
    #[default]
    Poison,
    /// The lane votes false.
    False,
    /// The lane votes true.
    True,
}

/// Where a lockstep warp may diverge, and where it reconverges
/// ([`Executor::with_reconvergence`]; see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reconvergence {
    /// Wave-level NVVM code (the default): the warp may diverge only at
    /// lane guards, reconverges at their post-dominator, and returns whole.
    #[default]
    LaneGuards,
    /// Thread-level code run SIMT-style, as pre-Volta hardware does: the
    /// warp may diverge at any terminator and reconverges at the branch's
    /// immediate post-dominator; lanes may return while diverged.
    ImmediatePostDominator,
}

/// How the member masks of a warp collective break the hardware's rule
/// (see [`WarpError::MemberMask`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskViolation {
    /// The lane executes the collective but is not in its own member mask.
    LaneOutsideMask,
    /// `member`, named by the lane's mask, does not execute the collective
    /// with it (it is on another path, waits at a join, has returned or
    /// was never launched).
    MemberNotExecuting {
        /// The missing lane.
        member: u32,
    },
    /// `member`, named by the lane's mask, executes the collective with
    /// another member mask, `mask`.
    MemberMaskDiffers {
        /// The lane with the other mask.
        member: u32,
        /// Its mask.
        mask: u64,
    },
}

/// The outcome of a CTA run in lockstep warps.
#[derive(Clone, Debug, Default)]
pub struct CtaRun {
    /// Per thread (local linear id in the CTA), the returned values.
    pub results: Vec<Vec<Value>>,
    /// What the warps did.
    pub stats: WarpStats,
}

/// Counts of what lockstep warps did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpStats {
    /// Blocks entered, counted once per warp (or per diverged group).
    pub blocks: u64,
    /// Terminators with two or more successors at which every executing
    /// lane agreed.
    pub uniform_branches: u64,
    /// Lane guards at which the lanes disagreed (the warp split and
    /// reconverged).
    pub divergent_guards: u64,
    /// Warp collectives executed (votes, shuffles, activemask, warp syncs),
    /// once per warp.
    pub collectives: u64,
    /// Of those, the ones executed by part of the warp's live lanes (in a
    /// diverged group, or in a lane guard of wave-level code).
    pub partial_collectives: u64,
    /// Warp instructions issued: one per operation a warp (or a diverged
    /// group of it) executes, whatever the number of lanes, constants and
    /// poison aside, plus one per terminator with two or more successors
    /// (a branch the hardware issues; a plain jump usually vanishes in the
    /// block layout). The same count on the thread-level program run with
    /// [`Reconvergence::ImmediatePostDominator`] is what a SIMT machine
    /// reconverging at immediate post-dominators issues, so the ratio of
    /// the two measures the wave-level lowering's dynamic overhead.
    pub warp_instructions: u64,
    /// Barriers completed by a CTA.
    pub barriers: u64,
    /// Operations issued, counted per wave: every operation and every
    /// terminator that a wave (or a diverged group of it) executes counts
    /// once for the group, however many of its lanes are active, constants
    /// and plain jumps included (unlike [`WarpStats::warp_instructions`]).
    /// Summed over the waves of a run; divided by [`WarpStats::waves`], the
    /// operations each wave issued on average.
    pub issued_ops: u64,
    /// Waves (warps) launched, partial ones included.
    pub waves: u64,
}

impl AddAssign for WarpStats {
    fn add_assign(&mut self, other: Self) {
        self.blocks += other.blocks;
        self.uniform_branches += other.uniform_branches;
        self.divergent_guards += other.divergent_guards;
        self.collectives += other.collectives;
        self.partial_collectives += other.partial_collectives;
        self.warp_instructions += other.warp_instructions;
        self.barriers += other.barriers;
        self.issued_ops += other.issued_ops;
        self.waves += other.waves;
    }
}

/// Why a lockstep run failed.
#[derive(Clone, Debug, PartialEq)]
pub enum WarpError {
    /// The thread (local linear id) failed while running an operation of
    /// block `block`.
    Lane {
        /// The thread.
        thread: u32,
        /// The block (of the function run) the warp was in.
        block: usize,
        /// Its error.
        error: ExecError,
    },
    /// The executing lanes of a warp chose different successors at a
    /// terminator that is not a lane guard (or some returned and others
    /// branched).
    WarpDiverged {
        /// The warp (in the CTA).
        warp: u32,
        /// The block of the terminator.
        block: usize,
        /// The terminator.
        site: OpSite,
        /// Per executing lane: the block it chose (`None`: it returned).
        choices: Vec<(u32, Option<usize>)>,
    },
    /// A warp collective whose member masks break the hardware's rule
    /// (see the [module docs](self)): the first executing lane, in lane
    /// order, whose mask is wrong, and how.
    MemberMask {
        /// The warp.
        warp: u32,
        /// The collective.
        site: OpSite,
        /// The executing lanes.
        executing: u64,
        /// The lane (in the warp).
        lane: u32,
        /// Its member mask.
        member: u64,
        /// What is wrong with it.
        violation: MaskViolation,
    },
    /// A warp returned, or reached a barrier, with lanes missing (inside a
    /// diverged region).
    PartialWarp {
        /// The warp.
        warp: u32,
        /// The return or barrier.
        site: OpSite,
        /// The lanes there.
        executing: u64,
        /// The live lanes of the warp.
        live: u64,
    },
    /// Warps waiting at different barriers.
    BarrierMismatch {
        /// The barrier each waiting warp is at: (warp, barrier, id).
        waiting: Vec<(u32, OpSite, i64)>,
    },
    /// An operand that AMDGPU keeps in a scalar register, so that it must
    /// be the same in every executing lane (the mask of
    /// `llvm.amdgcn.inverse.ballot`, the lane of `readlane`), differs.
    NonUniform {
        /// The warp (wave).
        warp: u32,
        /// The operation.
        site: OpSite,
        /// Two executing lanes (in the warp) with different values.
        lanes: [(u32, Value); 2],
    },
    /// A warp entered more blocks than its fuel allowed.
    OutOfFuel {
        /// The warp.
        warp: u32,
        /// The fuel.
        fuel: u64,
    },
    /// The function does not exist.
    UnknownFunction {
        /// The name asked for.
        name: String,
    },
    /// A launch the executor cannot run (no threads, warps wider than 64
    /// lanes).
    BadLaunch {
        /// What is wrong.
        detail: String,
    },
}

impl fmt::Display for WarpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Lane {
                thread,
                block,
                error,
            } => write!(f, "thread {thread} in block {block}: {error}"),
            Self::WarpDiverged {
                warp,
                block,
                site,
                choices,
            } => {
                let choices: Vec<String> = choices
                    .iter()
                    .map(|(lane, choice)| match choice {
                        Some(block) => format!("{lane}->{block}"),
                        None => format!("{lane}->return"),
                    })
                    .collect();
                write!(
                    f,
                    "warp {warp} diverged at {site} (block {block}), which is not a lane guard; lane->block: {}",
                    choices.join(" ")
                )
            }
            Self::MemberMask {
                warp,
                site,
                executing,
                lane,
                member,
                violation,
            } => {
                write!(
                    f,
                    "warp {warp}: lane {lane} runs {site} with member mask {member:#x}, "
                )?;
                match violation {
                    MaskViolation::LaneOutsideMask => write!(f, "which does not name the lane")?,
                    MaskViolation::MemberNotExecuting { member } => {
                        write!(f, "but member lane {member} does not execute it")?
                    }
                    MaskViolation::MemberMaskDiffers { member, mask } => write!(
                        f,
                        "but member lane {member} executes it with mask {mask:#x}"
                    )?,
                }
                write!(f, " (executing lanes {executing:#x})")
            }
            Self::PartialWarp {
                warp,
                site,
                executing,
                live,
            } => write!(
                f,
                "warp {warp} reached {site} with lanes {executing:#x} of its live lanes {live:#x}"
            ),
            Self::BarrierMismatch { waiting } => {
                let waiting: Vec<String> = waiting
                    .iter()
                    .map(|(warp, site, id)| format!("warp {warp} at {site} (barrier {id})"))
                    .collect();
                write!(
                    f,
                    "warps wait at different barriers: {}",
                    waiting.join(", ")
                )
            }
            Self::NonUniform { warp, site, lanes } => {
                let [(a, x), (b, y)] = lanes;
                write!(
                    f,
                    "warp {warp}: {site} needs the same operand in every executing lane, but lane {a} has {x} and lane {b} has {y}"
                )
            }
            Self::OutOfFuel { warp, fuel } => {
                write!(f, "warp {warp} ran out of fuel after {fuel} blocks")
            }
            Self::UnknownFunction { name } => write!(f, "no function @{name} in the module"),
            Self::BadLaunch { detail } => write!(f, "bad launch: {detail}"),
        }
    }
}

impl std::error::Error for WarpError {}

/// A lane: a thread of the warp.
struct Lane {
    id: ThreadId,
    linear: u32,
    frame: Frame,
}

/// An entry of the reconvergence stack: the block the lanes of `mask` run
/// next, and where they wait for the rest of the warp (`None` at the
/// bottom).
#[derive(Clone, Copy, Debug)]
struct Entry {
    block: usize,
    mask: u64,
    join: Option<usize>,
}

/// Where a warp stands between scheduling rounds.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Running,
    /// At a barrier (function, op site, barrier id).
    Waiting {
        function: usize,
        op: u32,
        id: i64,
    },
    Done,
}

struct Warp {
    index: u32,
    lanes: Vec<Lane>,
    /// The function running (the kernel, or a callee in lockstep).
    function: usize,
    /// The lanes in the running function that have not returned.
    live: u64,
    stack: Vec<Entry>,
    /// Next operation of the top entry's block, and whether the block was
    /// entered (counted, visits recorded).
    next_op: usize,
    entered: bool,
    blocks: u64,
    status: Status,
    /// Per lane, what it returned from the running function.
    results: Vec<Vec<Value>>,
    /// The callers of the running function, innermost last.
    calls: Vec<Suspended>,
}

/// A caller waiting for a call made in lockstep (see the
/// [module docs](self)): its state, restored when the callee returns.
struct Suspended {
    function: usize,
    /// The lanes that made the call.
    mask: u64,
    /// Their frames in the caller.
    frames: Vec<(usize, Frame)>,
    live: u64,
    stack: Vec<Entry>,
    /// The operation after the call.
    next_op: usize,
    /// Where each lane's results go.
    result_slots: Vec<Slot>,
    results: Vec<Vec<Value>>,
    /// The call, for errors.
    site: OpSite,
}

impl Warp {
    /// The running function's lanes have all returned: the caller resumes
    /// (each lane of the call with its results), or, at the kernel, the
    /// warp is done.
    fn complete(&mut self, dims: GridDims) -> Result<Option<Status>, WarpError> {
        let Some(call) = self.calls.pop() else {
            return Ok(Some(Status::Done));
        };
        let results = std::mem::replace(&mut self.results, call.results);
        for (lane, mut frame) in call.frames {
            let values = &results[lane];
            if values.len() != call.result_slots.len() {
                let block = call.stack.last().map_or(0, |entry| entry.block);
                let error = ExecError::TypeMismatch {
                    site: call.site.clone(),
                    detail: format!(
                        "callee returned {} values, the call has {} results",
                        values.len(),
                        call.result_slots.len()
                    ),
                };
                return Err(lane_error(self.index, lane, block, dims, error));
            }
            for (&slot, &value) in call.result_slots.iter().zip(values) {
                frame.slots[slot as usize] = Some(value);
            }
            self.lanes[lane].frame = frame;
        }
        self.function = call.function;
        self.live = call.live;
        self.stack = call.stack;
        self.next_op = call.next_op;
        self.entered = true;
        Ok(None)
    }

    /// The live lanes of the kernel (the warp's, not a callee's).
    fn root_live(&self) -> u64 {
        self.calls.first().map_or(self.live, |call| call.live)
    }

    /// Whether a caller waits with part of its lanes (in a diverged
    /// group, or, with `lane_guards`, inside a lane guard).
    fn called_diverged(&self, lane_guards: bool) -> bool {
        self.calls
            .iter()
            .any(|call| call.mask != call.live || (lane_guards && call.stack.len() > 1))
    }

    fn goto(&mut self, block: usize) {
        if let Some(top) = self.stack.last_mut() {
            top.block = block;
        }
        self.next_op = 0;
        self.entered = false;
    }

    /// Lane `lane` returned `values`: it leaves the live lanes and every
    /// stack entry; entries left without lanes are popped.
    fn finish(&mut self, lane: usize, values: Vec<Value>) {
        self.results[lane] = values;
        let bit = !(1u64 << lane);
        self.live &= bit;
        for entry in &mut self.stack {
            entry.mask &= bit;
        }
        self.stack.retain(|entry| entry.mask != 0);
    }
}

/// The lanes set in `mask`, in ascending order.
fn lanes_of(mask: u64) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        let lane = (rest != 0).then(|| rest.trailing_zeros() as usize)?;
        rest &= rest - 1;
        Some(lane)
    })
}

/// What a warp operation asks of the scheduler.
enum Step {
    Continue,
    Barrier(i64),
}

/// Shared state of a CTA run.
struct Cta<'m> {
    dims: GridDims,
    memory: &'m mut Memory,
    stats: WarpStats,
    fuel: u64,
}

impl Executor {
    /// Runs `func` for every thread of CTA `cta` of a launch with `dims`,
    /// in lockstep warps (see the [module docs](self)); thread `t` gets
    /// `args(t)`. `fuel` bounds the blocks each warp enters.
    pub fn run_cta(
        &self,
        func: &str,
        args: &dyn Fn(ThreadId) -> Vec<Value>,
        dims: &GridDims,
        cta: [u32; 3],
        memory: &mut Memory,
        fuel: u64,
    ) -> Result<CtaRun, WarpError> {
        let index = self
            .function_index(func)
            .ok_or_else(|| WarpError::UnknownFunction {
                name: func.to_string(),
            })?;
        let function = &self.program.functions[index];
        let (threads, width) = (dims.threads_per_block(), dims.subgroup_size);
        if threads == 0 || width == 0 || width > 64 {
            return Err(WarpError::BadLaunch {
                detail: format!("{threads} threads per CTA in warps of {width}"),
            });
        }
        let [gx, gy, _] = dims.grid_dim;
        let cta_linear = cta[0] + gx * (cta[1] + gy * cta[2]);
        let first = cta_linear * threads;
        let mut warps = Vec::new();
        for (warp_index, start) in (0..threads).step_by(width as usize).enumerate() {
            let count = width.min(threads - start);
            let mut lanes = Vec::new();
            for local in start..start + count {
                let id = ThreadId::from_linear(first + local, dims);
                let mut frame = Frame::new(function);
                let lane_args = args(id);
                super::check_arguments(function, &lane_args, memory).map_err(|error| {
                    WarpError::Lane {
                        thread: local,
                        block: 0,
                        error,
                    }
                })?;
                for ((slot, _), value) in function.parameters.iter().zip(&lane_args) {
                    frame.slots[*slot as usize] = Some(*value);
                }
                lanes.push(Lane {
                    id,
                    linear: id.global_linear(dims),
                    frame,
                });
            }
            let live = if count == 64 {
                u64::MAX
            } else {
                (1u64 << count) - 1
            };
            warps.push(Warp {
                index: warp_index as u32,
                lanes,
                function: index,
                live,
                stack: vec![Entry {
                    block: 0,
                    mask: live,
                    join: None,
                }],
                next_op: 0,
                entered: false,
                blocks: 0,
                status: Status::Running,
                results: vec![Vec::new(); count as usize],
                calls: Vec::new(),
            });
        }
        let mut state = Cta {
            dims: *dims,
            memory,
            stats: WarpStats {
                waves: warps.len() as u64,
                ..WarpStats::default()
            },
            fuel,
        };
        loop {
            for warp in &mut warps {
                if warp.status == Status::Running {
                    warp.status = self.run_warp(warp, &mut state)?;
                }
            }
            let waiting: Vec<&Warp> = warps
                .iter()
                .filter(|warp| warp.status != Status::Done)
                .collect();
            if waiting.is_empty() {
                break;
            }
            let first_wait = &waiting[0].status;
            if waiting.iter().any(|warp| warp.status != *first_wait) {
                return Err(WarpError::BarrierMismatch {
                    waiting: waiting
                        .iter()
                        .filter_map(|warp| match warp.status {
                            Status::Waiting { function, op, id } => Some((
                                warp.index,
                                site_of(&self.program.functions[function], op),
                                id,
                            )),
                            _ => None,
                        })
                        .collect(),
                });
            }
            state.stats.barriers += 1;
            for warp in &mut warps {
                if warp.status != Status::Done {
                    warp.status = Status::Running;
                }
            }
        }
        let results = warps.into_iter().flat_map(|warp| warp.results).collect();
        Ok(CtaRun {
            results,
            stats: state.stats,
        })
    }

    /// Runs every CTA of the grid `dims` in lockstep warps, one CTA after
    /// the other (CTA 0 first), on one memory; the runs in CTA order.
    pub fn run_grid_in_warps(
        &self,
        func: &str,
        args: &dyn Fn(ThreadId) -> Vec<Value>,
        dims: &GridDims,
        memory: &mut Memory,
        fuel: u64,
    ) -> Result<Vec<CtaRun>, WarpError> {
        let [gx, gy, gz] = dims.grid_dim;
        let mut runs = Vec::new();
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    runs.push(self.run_cta(func, args, dims, [x, y, z], memory, fuel)?);
                }
            }
        }
        Ok(runs)
    }

    /// Runs `warp` until it returns or waits at a barrier.
    fn run_warp(&self, warp: &mut Warp, cta: &mut Cta) -> Result<Status, WarpError> {
        'blocks: loop {
            let index = warp.function;
            let function = &self.program.functions[index];
            while let Some(top) = warp.stack.last() {
                if top.join == Some(top.block) {
                    warp.stack.pop();
                    warp.next_op = 0;
                    warp.entered = false;
                } else {
                    break;
                }
            }
            let Some(&top) = warp.stack.last() else {
                match warp.complete(cta.dims)? {
                    Some(status) => return Ok(status),
                    None => continue,
                }
            };
            if !warp.entered {
                if warp.blocks >= cta.fuel {
                    return Err(WarpError::OutOfFuel {
                        warp: warp.index,
                        fuel: cta.fuel,
                    });
                }
                warp.blocks += 1;
                cta.stats.blocks += 1;
                for lane in lanes_of(top.mask) {
                    warp.lanes[lane].frame.enter(top.block);
                }
                warp.entered = true;
            }
            let ops = &function.blocks[top.block].ops;
            while warp.next_op < ops.len() {
                let op = &ops[warp.next_op];
                warp.next_op += 1;
                cta.stats.issued_ops += 1;
                if !matches!(op.kind, OpKind::Constant(_) | OpKind::Poison) {
                    cta.stats.warp_instructions += 1;
                }
                if let OpKind::Warp(kind) = op.kind {
                    match self.warp_op(kind, op, function, top, warp, cta)? {
                        Step::Continue => {}
                        Step::Barrier(id) => {
                            return Ok(Status::Waiting {
                                function: index,
                                op: op.site,
                                id,
                            })
                        }
                    }
                    continue;
                }
                if let OpKind::Call {
                    target: Some(callee),
                    ..
                } = op.kind
                {
                    if self.program.functions[callee].uses_warp {
                        self.enter_call(op, callee, top, warp, cta)?;
                        continue 'blocks;
                    }
                }
                for lane in lanes_of(top.mask) {
                    let at = position(index, function, top.block, &warp.lanes[lane].frame);
                    let Lane { id, linear, frame } = &mut warp.lanes[lane];
                    let mut tracer = NoTrace;
                    let mut state =
                        ThreadState::for_lane(*id, *linear, cta.dims, cta.memory, &mut tracer);
                    self.execute(op, at, frame, &mut state).map_err(|error| {
                        lane_error(warp.index, lane, top.block, cta.dims, error)
                    })?;
                }
            }
            cta.stats.issued_ops += 1;
            if function.blocks[top.block].terminator.successors.len() >= 2 {
                cta.stats.warp_instructions += 1;
            }
            if let Some(status) = self.warp_terminator(index, function, top, warp, cta)? {
                return Ok(status);
            }
        }
    }

    /// The lanes of `top` call `callee` in lockstep (see the
    /// [module docs](self)): the warp runs the callee from its entry, the
    /// caller waits.
    fn enter_call(
        &self,
        op: &Op,
        callee: usize,
        top: Entry,
        warp: &mut Warp,
        cta: &mut Cta,
    ) -> Result<(), WarpError> {
        let caller = &self.program.functions[warp.function];
        let site = site_of(caller, op.site);
        let fail = |lane: usize, error: ExecError| {
            lane_error(warp.index, lane, top.block, cta.dims, error)
        };
        if warp.calls.len() >= self.call_depth_limit {
            return Err(fail(
                lanes_of(top.mask).next().unwrap_or(0),
                ExecError::CallDepthExceeded {
                    site,
                    limit: self.call_depth_limit,
                },
            ));
        }
        let function = &self.program.functions[callee];
        let mut frames = Vec::new();
        for lane in lanes_of(top.mask) {
            let frame = &warp.lanes[lane].frame;
            let args = op
                .operands
                .iter()
                .map(|&slot| read(frame, slot, &site))
                .collect::<Result<Vec<_>, _>>()
                .and_then(|args| check_arguments(function, &args, cta.memory).map(|()| args))
                .map_err(|error| fail(lane, error))?;
            let mut entered = Frame::new(function);
            for ((slot, _), value) in function.parameters.iter().zip(args) {
                entered.slots[*slot as usize] = Some(value);
            }
            frames.push((
                lane,
                std::mem::replace(&mut warp.lanes[lane].frame, entered),
            ));
        }
        let lanes = warp.results.len();
        warp.calls.push(Suspended {
            function: warp.function,
            mask: top.mask,
            frames,
            live: std::mem::replace(&mut warp.live, top.mask),
            stack: std::mem::replace(
                &mut warp.stack,
                vec![Entry {
                    block: 0,
                    mask: top.mask,
                    join: None,
                }],
            ),
            next_op: warp.next_op,
            result_slots: op.results.clone(),
            results: std::mem::replace(&mut warp.results, vec![Vec::new(); lanes]),
            site,
        });
        warp.function = callee;
        warp.next_op = 0;
        warp.entered = false;
        Ok(())
    }

    /// The terminator of the top entry's block; `Some(Done)` if the warp
    /// returned.
    fn warp_terminator(
        &self,
        index: usize,
        function: &Function,
        top: Entry,
        warp: &mut Warp,
        cta: &mut Cta,
    ) -> Result<Option<Status>, WarpError> {
        let mut flows = Vec::new();
        for lane in lanes_of(top.mask) {
            let at = position(index, function, top.block, &warp.lanes[lane].frame);
            let Lane { id, linear, frame } = &mut warp.lanes[lane];
            let mut tracer = NoTrace;
            let mut state = ThreadState::for_lane(*id, *linear, cta.dims, cta.memory, &mut tracer);
            let flow = self
                .terminate(at, frame, &mut state)
                .map_err(|error| lane_error(warp.index, lane, top.block, cta.dims, error))?;
            flows.push((lane, flow));
        }
        match self.reconvergence {
            Reconvergence::LaneGuards => guarded_terminator(function, top, warp, cta, flows),
            Reconvergence::ImmediatePostDominator => {
                simt_terminator(function, top, warp, cta, flows)
            }
        }
    }

    /// A warp collective or barrier for the executing lanes of `top`.
    fn warp_op(
        &self,
        kind: WarpOp,
        op: &Op,
        function: &Function,
        top: Entry,
        warp: &mut Warp,
        cta: &mut Cta,
    ) -> Result<Step, WarpError> {
        let operands = Operands {
            op,
            function,
            warp,
            block: top.block,
            dims: cta.dims,
        };
        let executing = top.mask;
        let results = match kind {
            WarpOp::ActiveMask => lanes_of(executing)
                .map(|lane| (lane, Value::i32(executing as u32 as i32)))
                .collect(),
            WarpOp::WarpSync => {
                operands.groups(executing, 0)?;
                Vec::new()
            }
            WarpOp::Redux(redux) => operands.redux(redux, executing)?,
            WarpOp::Vote(vote) => operands.vote(vote, executing, self.vote_poison)?,
            WarpOp::Match { all } => operands.matching(all, executing, cta.memory)?,
            WarpOp::Shuffle { kind, with_flag } => {
                operands.shuffle(kind, with_flag, executing, cta.memory)?
            }
            WarpOp::WaveBallot => operands.wave_ballot(executing, self.vote_poison)?,
            WarpOp::InverseBallot => operands.inverse_ballot(executing)?,
            WarpOp::ReadLane => operands.read_lane(executing)?,
            WarpOp::ReadFirstLane => operands.read_first_lane(executing)?,
            WarpOp::Barrier { has_id, has_count } => {
                let lane_guards = self.reconvergence == Reconvergence::LaneGuards;
                let diverged =
                    (lane_guards && warp.stack.len() > 1) || warp.called_diverged(lane_guards);
                if diverged || executing != warp.live {
                    return Err(WarpError::PartialWarp {
                        warp: warp.index,
                        site: operands.site(),
                        executing,
                        live: warp.live,
                    });
                }
                return operands
                    .barrier(has_id, has_count, executing)
                    .map(Step::Barrier);
            }
        };
        cta.stats.collectives += 1;
        if executing != warp.root_live() {
            cta.stats.partial_collectives += 1;
        }
        if let Some(&slot) = op.results.first() {
            for (lane, value) in results {
                warp.lanes[lane].frame.slots[slot as usize] = Some(value);
            }
        }
        Ok(Step::Continue)
    }
}

/// The operands of a warp operation, read lane by lane.
struct Operands<'a> {
    op: &'a Op,
    function: &'a Function,
    warp: &'a Warp,
    block: usize,
    dims: GridDims,
}

impl Operands<'_> {
    fn site(&self) -> OpSite {
        site_of(self.function, self.op.site)
    }

    fn fail(&self, lane: usize, error: ExecError) -> WarpError {
        lane_error(self.warp.index, lane, self.block, self.dims, error)
    }

    fn read(&self, lane: usize, operand: usize) -> Result<Value, WarpError> {
        self.warp.lanes[lane].frame.slots[self.op.operands[operand] as usize]
            .ok_or_else(|| self.fail(lane, ExecError::UndefinedValue { site: self.site() }))
    }

    /// An `i32` operand (zero-extended); poison is an error.
    fn read_u32(&self, lane: usize, operand: usize) -> Result<u32, WarpError> {
        match self.read(lane, operand)? {
            Value::Int(value) => Ok(value.unsigned() as u32),
            Value::Poison => Err(self.fail(
                lane,
                ExecError::PoisonUsed {
                    site: self.site(),
                    usage: PoisonUse::Collective,
                },
            )),
            other => Err(self.fail(
                lane,
                ExecError::TypeMismatch {
                    site: self.site(),
                    detail: format!("expected an i32, found {other}"),
                },
            )),
        }
    }

    /// The groups of lanes that compute the collective together, from the
    /// member masks in operand `operand` (see [`member_groups`]).
    fn groups(&self, executing: u64, operand: usize) -> Result<Vec<u64>, WarpError> {
        let mut masks = Vec::new();
        for lane in lanes_of(executing) {
            masks.push((lane, u64::from(self.read_u32(lane, operand)?)));
        }
        member_groups(executing, &masks).map_err(|(lane, member, violation)| {
            WarpError::MemberMask {
                warp: self.warp.index,
                site: self.site(),
                executing,
                lane: lane as u32,
                member,
                violation,
            }
        })
    }

    /// `redux.sync`: operands value, member mask.
    fn redux(&self, redux: ReduxKind, executing: u64) -> Result<Vec<(usize, Value)>, WarpError> {
        let mut results = Vec::new();
        for group in self.groups(executing, 1)? {
            let mut total = None;
            for lane in lanes_of(group) {
                let value = self.read_u32(lane, 0)?;
                total = Some(total.map_or(value, |total| redux.combine(total, value)));
            }
            let value = Value::i32(total.unwrap_or(0) as i32);
            results.extend(lanes_of(group).map(|lane| (lane, value)));
        }
        Ok(results)
    }

    /// A lane's vote: `None` for poison (under [`VotePoison::Poison`]).
    fn predicate(&self, lane: usize, poison: VotePoison) -> Result<Option<bool>, WarpError> {
        self.predicate_at(lane, 1, poison)
    }

    /// [`Operands::predicate`] in operand `operand`.
    fn predicate_at(
        &self,
        lane: usize,
        operand: usize,
        poison: VotePoison,
    ) -> Result<Option<bool>, WarpError> {
        match self.read(lane, operand)? {
            Value::Int(flag) if flag.width() == 1 => Ok(Some(flag.is_true())),
            Value::Poison => Ok(match poison {
                VotePoison::Poison => None,
                VotePoison::False => Some(false),
                VotePoison::True => Some(true),
            }),
            other => Err(self.fail(
                lane,
                ExecError::TypeMismatch {
                    site: self.site(),
                    detail: format!("expected an i1, found {other}"),
                },
            )),
        }
    }

    /// `vote.sync`: operands member mask, predicate.
    fn vote(
        &self,
        vote: VoteKind,
        executing: u64,
        poison: VotePoison,
    ) -> Result<Vec<(usize, Value)>, WarpError> {
        let mut results = Vec::new();
        for group in self.groups(executing, 0)? {
            let mut bits = Vec::new();
            for lane in lanes_of(group) {
                bits.push((lane, self.predicate(lane, poison)?));
            }
            let value = if bits.iter().any(|(_, bit)| bit.is_none()) {
                Value::Poison
            } else {
                let bits: Vec<(usize, bool)> = bits
                    .into_iter()
                    .map(|(lane, bit)| (lane, bit == Some(true)))
                    .collect();
                match vote {
                    VoteKind::Ballot => Value::i32(
                        bits.iter()
                            .fold(0u32, |mask, &(lane, bit)| mask | (u32::from(bit) << lane))
                            as i32,
                    ),
                    VoteKind::Any => Value::bool(bits.iter().any(|&(_, bit)| bit)),
                    VoteKind::All => Value::bool(bits.iter().all(|&(_, bit)| bit)),
                    VoteKind::Uni => Value::bool(bits.iter().all(|&(_, bit)| bit == bits[0].1)),
                }
            };
            results.extend(lanes_of(group).map(|lane| (lane, value)));
        }
        Ok(results)
    }

    /// `match.sync`: operands member mask, value. A poison value in the
    /// group makes every result of the group poison (each lane's mask may
    /// depend on it).
    fn matching(
        &self,
        all: bool,
        executing: u64,
        memory: &mut Memory,
    ) -> Result<Vec<(usize, Value)>, WarpError> {
        let mut results = Vec::new();
        for group in self.groups(executing, 0)? {
            let mut values = Vec::new();
            for lane in lanes_of(group) {
                values.push((lane, self.read(lane, 1)?));
            }
            let poison = values.iter().any(|(_, value)| *value == Value::Poison);
            let same = |value: &Value| {
                values
                    .iter()
                    .filter(|(_, other)| other == value)
                    .fold(0u32, |mask, &(lane, _)| mask | (1 << lane))
            };
            let uniform = values.iter().all(|(_, value)| *value == values[0].1);
            for (lane, value) in &values {
                let result =
                    match (poison, all) {
                        (true, false) => Value::Poison,
                        (true, true) => Value::Aggregate(
                            memory.make_aggregate(vec![Value::Poison, Value::Poison]),
                        ),
                        (false, false) => Value::i32(same(value) as i32),
                        (false, true) => {
                            let mask = if uniform { group as u32 } else { 0 };
                            Value::Aggregate(memory.make_aggregate(vec![
                                Value::i32(mask as i32),
                                Value::bool(uniform),
                            ]))
                        }
                    };
                results.push((*lane, result));
            }
        }
        Ok(results)
    }

    /// `shfl.sync`: operands member mask, value, lane or offset,
    /// mask-and-clamp. A source lane outside the lane's group gives poison.
    fn shuffle(
        &self,
        kind: ShuffleKind,
        with_flag: bool,
        executing: u64,
        memory: &mut Memory,
    ) -> Result<Vec<(usize, Value)>, WarpError> {
        let mut results = Vec::new();
        for group in self.groups(executing, 0)? {
            for lane in lanes_of(group) {
                let (offset, clamp) = (self.read_u32(lane, 2)?, self.read_u32(lane, 3)?);
                let (source, valid) = shuffle_source(kind, lane as u32, offset, clamp);
                let value = if group & (1u64 << source) != 0 {
                    self.read(source as usize, 1)?
                } else {
                    Value::Poison
                };
                let value = if with_flag {
                    Value::Aggregate(memory.make_aggregate(vec![value, Value::bool(valid)]))
                } else {
                    value
                };
                results.push((lane, value));
            }
        }
        Ok(results)
    }

    /// A CTA barrier's id (every lane must pass the same); its thread
    /// count, if any, must cover the CTA.
    fn barrier(&self, has_id: bool, has_count: bool, executing: u64) -> Result<i64, WarpError> {
        let mut id = None;
        for lane in lanes_of(executing) {
            let this = if has_id {
                i64::from(self.read_u32(lane, 0)?)
            } else {
                0
            };
            if has_count {
                let count = self.read_u32(lane, usize::from(has_id))?;
                let threads = self.dims.threads_per_block();
                let whole = threads.div_ceil(self.dims.subgroup_size) * self.dims.subgroup_size;
                if count != whole && count != threads {
                    return Err(self.fail(lane, ExecError::Unsupported { site: self.site() }));
                }
            }
            if id.is_some_and(|id| id != this) {
                return Err(self.fail(
                    lane,
                    ExecError::PoisonUsed {
                        site: self.site(),
                        usage: PoisonUse::Collective,
                    },
                ));
            }
            id = Some(this);
        }
        Ok(id.unwrap_or(0))
    }
}

/// The hardware's member-mask rule (sm_70+) for a collective run by the
/// lanes `executing`, each with its mask (`masks`: lane, mask, in lane
/// order): every executing lane is in its own mask, and every member of
/// its mask executes the collective with the same mask. The lanes then
/// fall into groups (the distinct masks), each computing the collective on
/// its own: one group of the whole warp in a converged warp, or e.g. two
/// halves of 16 lanes with masks `0x0000ffff` and `0xffff0000`
/// (cooperative groups' `tiled_partition<16>`). The groups, in the order
/// of their first lane, or the first lane (in lane order) that breaks the
/// rule with its mask and how.
fn member_groups(
    executing: u64,
    masks: &[(usize, u64)],
) -> Result<Vec<u64>, (usize, u64, MaskViolation)> {
    let mut by_lane = [None; 64];
    for &(lane, mask) in masks {
        by_lane[lane] = Some(mask);
    }
    let mask_of = |lane: usize| by_lane[lane];
    let mut groups = Vec::new();
    for &(lane, mask) in masks {
        if mask & (1u64 << lane) == 0 {
            return Err((lane, mask, MaskViolation::LaneOutsideMask));
        }
        for member in lanes_of(mask) {
            let member_mask = mask_of(member).filter(|_| executing & (1u64 << member) != 0);
            match member_mask {
                None => {
                    let member = member as u32;
                    return Err((lane, mask, MaskViolation::MemberNotExecuting { member }));
                }
                Some(other) if other != mask => {
                    let violation = MaskViolation::MemberMaskDiffers {
                        member: member as u32,
                        mask: other,
                    };
                    return Err((lane, mask, violation));
                }
                Some(_) => {}
            }
        }
        if !groups.contains(&mask) {
            groups.push(mask);
        }
    }
    Ok(groups)
}

/// [`Reconvergence::LaneGuards`]: the lanes' `flows` at the terminator of
/// `top`'s block. Lanes may disagree only at a lane guard, and return only
/// all together with the whole warp.
fn guarded_terminator(
    function: &Function,
    top: Entry,
    warp: &mut Warp,
    cta: &mut Cta,
    flows: Vec<(usize, Flow)>,
) -> Result<Option<Status>, WarpError> {
    let terminator = &function.blocks[top.block].terminator;
    let site = || site_of(function, terminator.site);
    if flows
        .iter()
        .all(|(_, flow)| matches!(flow, Flow::Return(_)))
    {
        if warp.stack.len() > 1 || top.mask != warp.live {
            return Err(WarpError::PartialWarp {
                warp: warp.index,
                site: site(),
                executing: top.mask,
                live: warp.live,
            });
        }
        for (lane, flow) in flows {
            if let Flow::Return(values) = flow {
                warp.results[lane] = values;
            }
        }
        warp.stack.clear();
        return warp.complete(cta.dims);
    }
    let choices: Vec<(usize, Option<usize>)> = flows
        .iter()
        .map(|(lane, flow)| match flow {
            Flow::Goto(block) => (*lane, Some(*block)),
            Flow::Return(_) => (*lane, None),
        })
        .collect();
    let first = choices[0].1;
    if choices.iter().all(|(_, choice)| *choice == first) {
        if terminator.successors.len() >= 2 {
            cta.stats.uniform_branches += 1;
        }
        warp.goto(first.expect("all lanes branch"));
        return Ok(None);
    }
    let join = function.lane_guards[top.block]
        .filter(|_| choices.iter().all(|(_, choice)| choice.is_some()));
    let Some(join) = join else {
        return Err(WarpError::WarpDiverged {
            warp: warp.index,
            block: top.block,
            site: site(),
            choices: choices
                .iter()
                .map(|&(lane, choice)| (lane as u32, choice))
                .collect(),
        });
    };
    cta.stats.divergent_guards += 1;
    let choices: Vec<(usize, usize)> = choices
        .into_iter()
        .filter_map(|(lane, choice)| Some((lane, choice?)))
        .collect();
    split(warp, function, top.block, &choices, Some(join));
    Ok(None)
}

/// [`Reconvergence::ImmediatePostDominator`]: the lanes' `flows` at the
/// terminator of `top`'s block. Returning lanes finish; the others go on
/// together, or split and reconverge at the block's immediate
/// post-dominator (nowhere when that is the virtual exit).
fn simt_terminator(
    function: &Function,
    top: Entry,
    warp: &mut Warp,
    cta: &mut Cta,
    flows: Vec<(usize, Flow)>,
) -> Result<Option<Status>, WarpError> {
    let mut choices = Vec::new();
    for (lane, flow) in flows {
        match flow {
            Flow::Return(values) => warp.finish(lane, values),
            Flow::Goto(block) => choices.push((lane, block)),
        }
    }
    if warp.stack.is_empty() {
        return warp.complete(cta.dims);
    }
    let Some(&(_, first)) = choices.first() else {
        // The top entry's lanes all returned: the entry below resumes.
        warp.next_op = 0;
        warp.entered = false;
        return Ok(None);
    };
    let terminator = &function.blocks[top.block].terminator;
    if choices.iter().all(|&(_, block)| block == first) {
        if terminator.successors.len() >= 2 {
            cta.stats.uniform_branches += 1;
        }
        warp.goto(first);
        return Ok(None);
    }
    cta.stats.divergent_guards += 1;
    split(
        warp,
        function,
        top.block,
        &choices,
        function.post_dominators[top.block],
    );
    Ok(None)
}

/// Splits the top entry of `warp`, at the terminator of `block`, by the
/// lanes' `choices` (lane, successor block). With a `join`, the entry
/// waits there (it is dropped when it would wait at its own join, where it
/// is popped anyway) and each other target gets an entry that runs up to
/// `join`; without, the entry is replaced by one per target, which keep
/// its join (none, unless the branch cannot reach a return). The first
/// successor's lanes run first.
fn split(
    warp: &mut Warp,
    function: &Function,
    block: usize,
    choices: &[(usize, usize)],
    join: Option<usize>,
) {
    let outer = warp.stack.pop().expect("the warp runs an entry");
    if let Some(join) = join.filter(|&join| outer.join != Some(join)) {
        warp.stack.push(Entry {
            block: join,
            mask: outer.mask,
            join: outer.join,
        });
    }
    let inner_join = join.or(outer.join);
    let mut targets: Vec<(usize, u64)> = Vec::new();
    for successor in &function.blocks[block].terminator.successors {
        let mask = choices
            .iter()
            .filter(|&&(_, choice)| choice == successor.block)
            .fold(0u64, |mask, &(lane, _)| mask | (1u64 << lane));
        if mask != 0
            && Some(successor.block) != join
            && !targets.iter().any(|&(target, _)| target == successor.block)
        {
            targets.push((successor.block, mask));
        }
    }
    for &(target, mask) in targets.iter().rev() {
        warp.stack.push(Entry {
            block: target,
            mask,
            join: inner_join,
        });
    }
    warp.next_op = 0;
    warp.entered = false;
}

/// The source lane of `shfl.sync` for `lane`, and whether it is in range
/// (PTX ISA, `shfl.sync`: `clamp` packs the segment mask in bits 8..13 and
/// the clamp value in bits 0..5; out of range, a lane reads its own value).
fn shuffle_source(kind: ShuffleKind, lane: u32, offset: u32, clamp: u32) -> (u32, bool) {
    let (b, c, segment) = (offset & 31, clamp & 31, (clamp >> 8) & 31);
    let max_lane = (lane & segment) | (c & !segment);
    let min_lane = lane & segment;
    let (source, valid) = match kind {
        ShuffleKind::Up => {
            let source = lane as i64 - i64::from(b);
            (source, source >= i64::from(max_lane))
        }
        ShuffleKind::Down => {
            let source = i64::from(lane + b);
            (source, source <= i64::from(max_lane))
        }
        ShuffleKind::Bfly => {
            let source = i64::from(lane ^ b);
            (source, source <= i64::from(max_lane))
        }
        ShuffleKind::Idx => {
            let source = i64::from(min_lane | (b & !segment));
            (source, source <= i64::from(max_lane))
        }
    };
    if valid {
        (source as u32, true)
    } else {
        (lane, false)
    }
}

fn site_of(function: &Function, op: u32) -> OpSite {
    function.sites.get(op as usize).cloned().unwrap_or(OpSite {
        op_name: String::new(),
        location: String::new(),
    })
}

/// The position of a lane that has entered `block` (its last visit).
fn position<'p>(index: usize, function: &'p Function, block: usize, frame: &Frame) -> Position<'p> {
    Position {
        index,
        function,
        block,
        visit: frame.visits[block].saturating_sub(1),
    }
}

fn lane_error(warp: u32, lane: usize, block: usize, dims: GridDims, error: ExecError) -> WarpError {
    WarpError::Lane {
        thread: warp * dims.subgroup_size + lane as u32,
        block,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_sources_follow_the_ptx_pseudocode() {
        // Whole warp: clamp 31 for idx/down/bfly, 0 for up.
        assert_eq!(shuffle_source(ShuffleKind::Idx, 3, 17, 31), (17, true));
        assert_eq!(shuffle_source(ShuffleKind::Bfly, 5, 1, 31), (4, true));
        assert_eq!(shuffle_source(ShuffleKind::Down, 30, 2, 31), (30, false));
        assert_eq!(shuffle_source(ShuffleKind::Down, 29, 2, 31), (31, true));
        assert_eq!(shuffle_source(ShuffleKind::Up, 1, 2, 0), (1, false));
        assert_eq!(shuffle_source(ShuffleKind::Up, 2, 2, 0), (0, true));
        // Segments of 4 lanes: segment mask 0b11100, clamp 3.
        let clamp = (0b11100 << 8) | 3;
        assert_eq!(shuffle_source(ShuffleKind::Idx, 13, 1, clamp), (13, true));
        assert_eq!(shuffle_source(ShuffleKind::Idx, 14, 1, clamp), (13, true));
        assert_eq!(shuffle_source(ShuffleKind::Down, 14, 1, clamp), (15, true));
        assert_eq!(shuffle_source(ShuffleKind::Down, 15, 1, clamp), (15, false));
        assert_eq!(shuffle_source(ShuffleKind::Bfly, 14, 2, clamp), (12, true));
    }

    /// The same mask for every lane of `executing`.
    fn uniform(executing: u64, mask: u64) -> Vec<(usize, u64)> {
        lanes_of(executing).map(|lane| (lane, mask)).collect()
    }

    #[test]
    fn member_masks_of_a_converged_warp_form_one_group() {
        let full = 0xFFFF_FFFF;
        assert_eq!(member_groups(full, &uniform(full, full)), Ok(vec![full]));
        // The eight lanes of a diverged group, with their own mask.
        assert_eq!(member_groups(0xFF, &uniform(0xFF, 0xFF)), Ok(vec![0xFF]));
    }

    #[test]
    fn tiled_partitions_run_one_collective_per_tile() {
        let full = 0xFFFF_FFFF;
        let masks: Vec<(usize, u64)> = lanes_of(full)
            .map(|lane| (lane, if lane < 16 { 0xFFFF } else { 0xFFFF_0000 }))
            .collect();
        assert_eq!(member_groups(full, &masks), Ok(vec![0xFFFF, 0xFFFF_0000]));
    }

    #[test]
    fn lanes_outside_their_mask_and_missing_members_are_violations() {
        // shfl_scan before the fix: the whole warp runs a shuffle over 0xff.
        assert_eq!(
            member_groups(0xFFFF_FFFF, &uniform(0xFFFF_FFFF, 0xFF)),
            Err((8, 0xFF, MaskViolation::LaneOutsideMask))
        );
        // A full mask where only 16 lanes execute (a partial warp).
        assert_eq!(
            member_groups(0xFFFF, &uniform(0xFFFF, 0xFFFF_FFFF)),
            Err((
                0,
                0xFFFF_FFFF,
                MaskViolation::MemberNotExecuting { member: 16 }
            ))
        );
        // Lane 1 names lane 0, which passes another mask.
        assert_eq!(
            member_groups(0b11, &[(0, 0b01), (1, 0b11)]),
            Err((
                1,
                0b11,
                MaskViolation::MemberMaskDiffers {
                    member: 0,
                    mask: 0b01
                }
            ))
        );
    }

    #[test]
    fn warp_stats_add_up() {
        let mut total = WarpStats {
            blocks: 1,
            uniform_branches: 2,
            divergent_guards: 3,
            collectives: 4,
            partial_collectives: 5,
            barriers: 6,
            warp_instructions: 7,
            issued_ops: 8,
            waves: 9,
        };
        total += total;
        assert_eq!(
            total,
            WarpStats {
                blocks: 2,
                uniform_branches: 4,
                divergent_guards: 6,
                collectives: 8,
                partial_collectives: 10,
                barriers: 12,
                warp_instructions: 14,
                issued_ops: 16,
                waves: 18,
            }
        );
    }
}
