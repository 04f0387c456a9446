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
//! Wave-level code lowered to NVVM (`spmd-lower-to-nvvm`) promises that the
//! warp never diverges, except around the per-thread guards of side effects
//! (`scf.if` on the thread's exec bit, which `convert-scf-to-cf` turns into
//! a branch around the guarded ops). So, at a terminator with two or more
//! successors:
//!
//! * if every executing lane picks the same block, the warp goes there
//!   (each lane binds its own block arguments);
//! * otherwise, if the terminator is a *lane guard* (its immediate
//!   post-dominator `p` is a block of the function and the blocks between
//!   them form no cycle and hold no warp collective or barrier, see
//!   `program::lane_guards`), the warp splits: the lanes of each successor
//!   run, one group after the other (in successor order), up to `p`, where
//!   the warp is whole again (a reconvergence stack, as in pre-Volta
//!   hardware);
//! * otherwise the run stops with [`WarpError::WarpDiverged`], naming the
//!   branch and every lane's choice.
//!
//! A return must be taken by every live lane of the warp together.
//!
//! ## Collectives
//!
//! `nvvm.vote.sync` (`ballot`, `any`, `all`, `uni`), `nvvm.shfl.sync`
//! (`idx`, `up`, `down`, `bfly`, with or without the validity flag) and
//! `nvvm.bar.warp.sync` and `nvvm.redux.sync` (on `i32`) compute across the warp: every executing lane must
//! pass the same member mask, and it must be exactly the set of executing
//! lanes (each executing lane is a member, each member executes it);
//! otherwise [`WarpError::MemberMask`]. A shuffle from a lane that is not a
//! member gives poison. What a *poison* vote predicate does is the
//! executor's [`VotePoison`] setting: by default the vote's result is poison
//! in every lane, so a program whose votes may see poison (LLVM lets the
//! lane's bit be anything) is reported where it uses the result.
//! `llvm.nvvm.activemask` gives the executing lanes. The same operations
//! called as intrinsics (`llvm.call_intrinsic "llvm.nvvm.vote.ballot.sync"`,
//! ...) behave the same.
//!
//! ## Barriers
//!
//! `nvvm.barrier0`, `nvvm.barrier` (optionally with an id; a thread count
//! only if it covers the whole CTA) and the `llvm.nvvm.barrier*` intrinsics
//! synchronise the CTA: the warps run round-robin, each until it reaches a
//! barrier or returns; a barrier must be reached by every live lane of the
//! warp (it cannot be inside a diverged region), and once every warp that
//! has not returned waits, they must all wait at the same barrier (same
//! operation and id: [`WarpError::BarrierMismatch`] otherwise), and all
//! resume. Warps that returned do not take part (PTX barriers wait for the
//! non-exited threads).
//!
//! ## What runs per lane
//!
//! Every other operation runs in each executing lane with the thread-level
//! semantics of [`Executor::run_thread`]: memory, arithmetic, poison rules
//! and typed errors are the same. A call (`llvm.call`, `func.call`) runs the
//! callee to completion in each lane, one lane after the other, so a callee
//! must not use warp collectives ([`ExecError::WarpCollective`]).

use super::{Executor, Flow, Frame, GridDims, Position, ThreadId, ThreadState};
use crate::error::{ExecError, OpSite, PoisonUse};
use crate::memory::Memory;
use crate::program::{Function, Op, OpKind, ShuffleKind, VoteKind, WarpOp};
use crate::trace::NoTrace;
use crate::value::Value;
use std::fmt;
use std::ops::AddAssign;

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
    /// Barriers completed by a CTA.
    pub barriers: u64,
}

impl AddAssign for WarpStats {
    fn add_assign(&mut self, other: Self) {
        self.blocks += other.blocks;
        self.uniform_branches += other.uniform_branches;
        self.divergent_guards += other.divergent_guards;
        self.collectives += other.collectives;
        self.barriers += other.barriers;
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
    /// A warp collective whose member masks are not all equal to the set of
    /// executing lanes.
    MemberMask {
        /// The warp.
        warp: u32,
        /// The collective.
        site: OpSite,
        /// The executing lanes.
        executing: u64,
        /// The first member mask that differs from `executing`.
        member: u64,
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
            Self::Lane { thread, block, error } => write!(f, "thread {thread} in block {block}: {error}"),
            Self::WarpDiverged { warp, block, site, choices } => {
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
            Self::MemberMask { warp, site, executing, member } => write!(
                f,
                "warp {warp}: {site} has member mask {member:#x} but lanes {executing:#x} execute it"
            ),
            Self::PartialWarp { warp, site, executing, live } => write!(
                f,
                "warp {warp} reached {site} with lanes {executing:#x} of its live lanes {live:#x}"
            ),
            Self::BarrierMismatch { waiting } => {
                let waiting: Vec<String> =
                    waiting.iter().map(|(warp, site, id)| format!("warp {warp} at {site} (barrier {id})")).collect();
                write!(f, "warps wait at different barriers: {}", waiting.join(", "))
            }
            Self::OutOfFuel { warp, fuel } => write!(f, "warp {warp} ran out of fuel after {fuel} blocks"),
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
    /// At a barrier (op site, barrier id).
    Waiting {
        op: u32,
        id: i64,
    },
    Done,
}

struct Warp {
    index: u32,
    lanes: Vec<Lane>,
    live: u64,
    stack: Vec<Entry>,
    /// Next operation of the top entry's block, and whether the block was
    /// entered (counted, visits recorded).
    next_op: usize,
    entered: bool,
    blocks: u64,
    status: Status,
    results: Vec<Vec<Value>>,
}

impl Warp {
    fn goto(&mut self, block: usize) {
        if let Some(top) = self.stack.last_mut() {
            top.block = block;
        }
        self.next_op = 0;
        self.entered = false;
    }
}

/// The lanes set in `mask`.
fn lanes_of(mask: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |lane| mask & (1u64 << lane) != 0)
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
            });
        }
        let mut state = Cta {
            dims: *dims,
            memory,
            stats: WarpStats::default(),
            fuel,
        };
        loop {
            for warp in &mut warps {
                if warp.status == Status::Running {
                    warp.status = self.run_warp(index, function, warp, &mut state)?;
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
                            Status::Waiting { op, id } => {
                                Some((warp.index, site_of(function, op), id))
                            }
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
    fn run_warp(
        &self,
        index: usize,
        function: &Function,
        warp: &mut Warp,
        cta: &mut Cta,
    ) -> Result<Status, WarpError> {
        loop {
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
                return Ok(Status::Done);
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
                if let OpKind::Warp(kind) = op.kind {
                    match self.warp_op(kind, op, function, top, warp, cta)? {
                        Step::Continue => {}
                        Step::Barrier(id) => return Ok(Status::Waiting { op: op.site, id }),
                    }
                    continue;
                }
                for lane in lanes_of(top.mask) {
                    let at = position(index, function, top.block, &warp.lanes[lane].frame);
                    let Lane { id, linear, frame } = &mut warp.lanes[lane];
                    let mut tracer = NoTrace;
                    let mut state = lane_state(*id, *linear, cta, &mut tracer);
                    self.execute(op, at, frame, &mut state).map_err(|error| {
                        lane_error(warp.index, lane, top.block, cta.dims, error)
                    })?;
                }
            }
            if let Some(status) = self.warp_terminator(index, function, top, warp, cta)? {
                return Ok(status);
            }
        }
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
        let terminator = &function.blocks[top.block].terminator;
        let mut flows = Vec::new();
        for lane in lanes_of(top.mask) {
            let at = position(index, function, top.block, &warp.lanes[lane].frame);
            let Lane { id, linear, frame } = &mut warp.lanes[lane];
            let mut tracer = NoTrace;
            let mut state = lane_state(*id, *linear, cta, &mut tracer);
            let flow = self
                .terminate(at, frame, &mut state)
                .map_err(|error| lane_error(warp.index, lane, top.block, cta.dims, error))?;
            flows.push((lane, flow));
        }
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
            return Ok(Some(Status::Done));
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
        // The current entry waits at the join; one entry per other target,
        // pushed so that the first successor's lanes run first.
        warp.goto(join);
        let mut targets: Vec<(usize, u64)> = Vec::new();
        for successor in &terminator.successors {
            let mask = choices
                .iter()
                .filter(|(_, choice)| *choice == Some(successor.block))
                .fold(0u64, |mask, (lane, _)| mask | (1u64 << lane));
            if mask != 0
                && successor.block != join
                && !targets.iter().any(|(block, _)| *block == successor.block)
            {
                targets.push((successor.block, mask));
            }
        }
        for &(block, mask) in targets.iter().rev() {
            warp.stack.push(Entry {
                block,
                mask,
                join: Some(join),
            });
        }
        Ok(None)
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
        let site = || site_of(function, op.site);
        let executing = top.mask;
        let dims = cta.dims;
        let warp_index = warp.index;
        let lane_fail =
            |lane: usize, error: ExecError| lane_error(warp_index, lane, top.block, dims, error);
        let read = |warp: &Warp, lane: usize, operand: usize| -> Result<Value, WarpError> {
            warp.lanes[lane].frame.slots[op.operands[operand] as usize]
                .ok_or_else(|| lane_fail(lane, ExecError::UndefinedValue { site: site() }))
        };
        let read_u32 = |warp: &Warp, lane: usize, operand: usize| -> Result<u32, WarpError> {
            match read(warp, lane, operand)? {
                Value::Int(value) => Ok(value.unsigned() as u32),
                Value::Poison => Err(lane_fail(
                    lane,
                    ExecError::PoisonUsed {
                        site: site(),
                        usage: PoisonUse::Collective,
                    },
                )),
                other => Err(lane_fail(
                    lane,
                    ExecError::TypeMismatch {
                        site: site(),
                        detail: format!("expected an i32, found {other}"),
                    },
                )),
            }
        };
        let check_members_at = |warp: &Warp, operand: usize| -> Result<(), WarpError> {
            for lane in lanes_of(executing) {
                let member = u64::from(read_u32(warp, lane, operand)?);
                if member != executing {
                    return Err(WarpError::MemberMask {
                        warp: warp.index,
                        site: site(),
                        executing,
                        member,
                    });
                }
            }
            Ok(())
        };
        let check_members = |warp: &Warp| check_members_at(warp, 0);
        let results: Vec<(usize, Value)> = match kind {
            WarpOp::ActiveMask => lanes_of(executing)
                .map(|lane| (lane, Value::i32(executing as u32 as i32)))
                .collect(),
            WarpOp::WarpSync => {
                check_members(warp)?;
                Vec::new()
            }
            WarpOp::Redux(redux) => {
                check_members_at(warp, 1)?;
                let mut total = None;
                for lane in lanes_of(executing) {
                    let value = read_u32(warp, lane, 0)?;
                    total = Some(total.map_or(value, |total| redux.combine(total, value)));
                }
                let value = Value::i32(total.unwrap_or(0) as i32);
                lanes_of(executing).map(|lane| (lane, value)).collect()
            }
            WarpOp::Vote(vote) => {
                check_members(warp)?;
                let mut predicates = Vec::new();
                for lane in lanes_of(executing) {
                    predicates.push(match read(warp, lane, 1)? {
                        Value::Int(flag) if flag.width() == 1 => Some(flag.is_true()),
                        Value::Poison => match self.vote_poison {
                            VotePoison::Poison => None,
                            VotePoison::False => Some(false),
                            VotePoison::True => Some(true),
                        },
                        other => {
                            return Err(lane_fail(
                                lane,
                                ExecError::TypeMismatch {
                                    site: site(),
                                    detail: format!("expected an i1, found {other}"),
                                },
                            ))
                        }
                    });
                }
                let value = if predicates.iter().any(Option::is_none) {
                    Value::Poison
                } else {
                    let bits: Vec<bool> = predicates.into_iter().flatten().collect();
                    match vote {
                        VoteKind::Ballot => Value::i32(
                            lanes_of(executing)
                                .zip(&bits)
                                .fold(0u32, |mask, (lane, &bit)| mask | (u32::from(bit) << lane))
                                as i32,
                        ),
                        VoteKind::Any => Value::bool(bits.iter().any(|&bit| bit)),
                        VoteKind::All => Value::bool(bits.iter().all(|&bit| bit)),
                        VoteKind::Uni => Value::bool(bits.iter().all(|&bit| bit == bits[0])),
                    }
                };
                lanes_of(executing).map(|lane| (lane, value)).collect()
            }
            WarpOp::Shuffle { kind, with_flag } => {
                check_members(warp)?;
                let mut results = Vec::new();
                for lane in lanes_of(executing) {
                    let (offset, clamp) = (read_u32(warp, lane, 2)?, read_u32(warp, lane, 3)?);
                    let (source, valid) = shuffle_source(kind, lane as u32, offset, clamp);
                    let value = if executing & (1u64 << source) != 0 {
                        read(warp, source as usize, 1)?
                    } else {
                        Value::Poison
                    };
                    let value = if with_flag {
                        Value::Aggregate(cta.memory.make_aggregate(vec![value, Value::bool(valid)]))
                    } else {
                        value
                    };
                    results.push((lane, value));
                }
                results
            }
            WarpOp::Barrier { has_id, has_count } => {
                if warp.stack.len() > 1 || executing != warp.live {
                    return Err(WarpError::PartialWarp {
                        warp: warp.index,
                        site: site(),
                        executing,
                        live: warp.live,
                    });
                }
                let mut id = None;
                for lane in lanes_of(executing) {
                    let this = if has_id {
                        i64::from(read_u32(warp, lane, 0)?)
                    } else {
                        0
                    };
                    if has_count {
                        let count = read_u32(warp, lane, usize::from(has_id))?;
                        let whole = dims.threads_per_block().div_ceil(dims.subgroup_size)
                            * dims.subgroup_size;
                        if count != whole && count != dims.threads_per_block() {
                            return Err(lane_fail(lane, ExecError::Unsupported { site: site() }));
                        }
                    }
                    if id.is_some_and(|id| id != this) {
                        return Err(lane_fail(
                            lane,
                            ExecError::PoisonUsed {
                                site: site(),
                                usage: PoisonUse::Collective,
                            },
                        ));
                    }
                    id = Some(this);
                }
                return Ok(Step::Barrier(id.unwrap_or(0)));
            }
        };
        cta.stats.collectives += 1;
        if let Some(&slot) = op.results.first() {
            for (lane, value) in results {
                warp.lanes[lane].frame.slots[slot as usize] = Some(value);
            }
        }
        Ok(Step::Continue)
    }
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

fn lane_state<'r>(
    id: ThreadId,
    linear: u32,
    cta: &'r mut Cta,
    tracer: &'r mut NoTrace,
) -> ThreadState<'r> {
    ThreadState {
        id,
        linear,
        dims: cta.dims,
        memory: cta.memory,
        tracer,
        fuel: u64::MAX,
        blocks_executed: 0,
        call_stack: Vec::new(),
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

    #[test]
    fn warp_stats_add_up() {
        let mut total = WarpStats {
            blocks: 1,
            uniform_branches: 2,
            divergent_guards: 3,
            collectives: 4,
            barriers: 5,
        };
        total += total;
        assert_eq!(
            total,
            WarpStats {
                blocks: 2,
                uniform_branches: 4,
                divergent_guards: 6,
                collectives: 8,
                barriers: 10
            }
        );
    }
}
