//! The wave-level executor: runs a function once per wave of lanes with a
//! real execution mask, the oracle for `--spmd-predicate`.
//!
//! ## Semantics (the wave-level contract)
//!
//! * Every lane has its own frame; lane `l` is thread `first + l` (same
//!   `gpu` ids, same arguments as the thread-level run).
//! * `exec` starts with every lane. An ordinary operation runs only in the
//!   active lanes; in the others its results become poison, so a lane that
//!   later reads a value computed while it was inactive fails loudly.
//!   Stores, atomics and calls therefore only happen in active lanes.
//! * Masks are `i64` values, equal in every lane. `spmd.exec.*`,
//!   `spmd.ballot`, `spmd.mask.*` are computed once for the wave and their
//!   result is written to every lane. `spmd.mask.select` is computed in
//!   every lane, whatever the exec mask (it merges register contents).
//! * Branch operands are copied in every lane (renaming, not computation).
//! * Terminators are wave-uniform: `spmd.exec.br_zero` tests exec; a scalar
//!   `cf.cond_br`/`cf.switch` takes its condition from the active lanes,
//!   which must all agree (an error otherwise, or if no lane is active);
//!   `spmd.flow_br` is an error; a return must be taken with every lane.
//! * A *lane branch* (a conditional branch marked
//!   `#spmd.uniformity<divergent>`, kept by
//!   `--spmd-predicate=lane-branches=true` over code that needs no
//!   converged lanes) is taken by each lane on its own: if the lanes
//!   disagree, each runs alone, with thread-level semantics, up to the
//!   branch's immediate post-dominator, where the wave goes on. A lane
//!   that is not active must go straight to the join (predication gates
//!   the condition with exec where exec may be partial), and no
//!   wave-level operation may run before the join.
//!
//! ## Checks
//!
//! * **Full exec**: an `spmd.exec.write {spmd.exec_full}` must make every
//!   lane of the wave active ([`WaveError::NotFull`]).
//! * **Reconvergence**: an `spmd.exec.write {spmd.park = N}` records the
//!   lanes active at the parking branch; the next `spmd.exec.write
//!   {spmd.rejoin = N}` must leave every one of them active
//!   ([`WaveError::NotReconverged`]).
//! * [`WaveRun::blocks`] lists, per lane, the blocks the wave executed with
//!   the lane active: comparing it with the thread's own block trace
//!   ([`BlockLog`]) shows that a lane is on exactly when its thread is in
//!   the block, which, with the per-thread side-effect logs of
//!   [`Memory`], shows that no lane runs a side effect
//!   with its exec bit off.

use super::{Executor, Flow, Frame, GridDims, Position, ThreadId, ThreadState};
use crate::error::ExecError;
use crate::memory::Memory;
use crate::program::{Function, OpKind, TerminatorKind, WaveOp};
use crate::trace::{BlockSite, NoTrace, Tracer};
use crate::value::{IntValue, Value};
use std::collections::HashMap;
use std::fmt;

/// The outcome of a wave.
#[derive(Clone, Debug, Default)]
pub struct WaveRun {
    /// Per lane, the returned values.
    pub results: Vec<Vec<Value>>,
    /// Per lane, the blocks executed while the lane was active, in order (a
    /// lane that rejoins at a block counts from its rejoin write on).
    pub blocks: Vec<Vec<usize>>,
    /// Rejoin points checked.
    pub rejoins_checked: usize,
}

/// Why a wave failed.
#[derive(Clone, Debug)]
pub enum WaveError {
    /// A lane failed while running an operation.
    Lane { lane: usize, error: ExecError },
    /// Lanes parked for rejoin point `id` are not active after it.
    NotReconverged { id: i64, block: usize, missing: u64 },
    /// A scalar branch whose active lanes disagree, or with no active lane.
    NotUniform {
        block: usize,
        op: String,
        active: u64,
    },
    /// A terminator outside the wave-level contract.
    NotWaveLevel { block: usize, op: String },
    /// The wave returned with lanes missing.
    ReturnedPartially { exec: u64, all: u64 },
    /// An `spmd.exec.write {spmd.exec_full}` left lanes inactive.
    NotFull { block: usize, exec: u64, all: u64 },
    /// A lane branch (`#spmd.uniformity<divergent>`) split a wave whose
    /// exec is partial, or whose lanes do not meet again at a block.
    LaneBranch { block: usize, reason: &'static str },
    /// Too many blocks.
    OutOfFuel,
    /// A wave of `lanes` lanes: none, more than the 64 an exec mask holds,
    /// or more than the function's `spmd.wave_size`.
    BadWaveSize {
        lanes: usize,
        wave_size: Option<u64>,
    },
    /// `spmd.mask.to_bits`/`from_bits` with mask bits that do not fit the
    /// integer, or that name lanes beyond the wave.
    MaskCarrier { block: usize, bits: u64, lanes: u32 },
}

impl fmt::Display for WaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Lane { lane, error } => write!(f, "lane {lane}: {error}"),
            Self::NotReconverged { id, block, missing } => {
                write!(f, "rejoin point {id} (block {block}): lanes {missing:#x} diverged there but are not active again")
            }
            Self::NotUniform { block, op, active } => {
                write!(f, "scalar branch {op} in block {block} is not uniform over the active lanes {active:#x}")
            }
            Self::NotWaveLevel { block, op } => {
                write!(f, "{op} in block {block} is not wave-level control flow")
            }
            Self::ReturnedPartially { exec, all } => write!(
                f,
                "the wave returned with exec {exec:#x} instead of {all:#x}"
            ),
            Self::NotFull { block, exec, all } => write!(
                f,
                "spmd.exec_full in block {block} with exec {exec:#x} instead of {all:#x}"
            ),
            Self::LaneBranch { block, reason } => {
                write!(f, "lane branch in block {block}: {reason}")
            }
            Self::OutOfFuel => write!(f, "the wave ran out of fuel"),
            Self::BadWaveSize {
                lanes,
                wave_size: Some(size),
            } => {
                write!(
                    f,
                    "a wave of {lanes} lanes for a function lowered for waves of {size}"
                )
            }
            Self::BadWaveSize {
                lanes,
                wave_size: None,
            } => write!(f, "a wave of {lanes} lanes (1 to 64 are supported)"),
            Self::MaskCarrier { block, bits, lanes } => {
                write!(
                    f,
                    "mask bits {bits:#x} in block {block} do not fit a carrier of {lanes} lanes"
                )
            }
        }
    }
}

/// A tracer that records, per thread, the blocks of one function it enters.
#[derive(Clone, Debug, Default)]
pub struct BlockLog {
    pub function: usize,
    pub blocks: HashMap<u32, Vec<usize>>,
}

impl Tracer for BlockLog {
    fn on_block(&mut self, site: &BlockSite<'_>) {
        if site.call_stack.is_empty() && site.function == self.function {
            self.blocks.entry(site.thread).or_default().push(site.block);
        }
    }
}

/// The state of one wave.
struct Wave<'m> {
    frames: Vec<Frame>,
    ids: Vec<ThreadId>,
    dims: GridDims,
    memory: &'m mut Memory,
    exec: u64,
    all: u64,
    parked: HashMap<i64, u64>,
    run: WaveRun,
}

impl Executor {
    /// Runs `func_name` once for a wave: lane `l` gets `args[l]` and is
    /// thread `first_thread + l`. `fuel` bounds the blocks the wave enters.
    pub fn run_wave(
        &self,
        func_name: &str,
        args: &[Vec<Value>],
        first_thread: u32,
        dims: &GridDims,
        memory: &mut Memory,
        fuel: u64,
    ) -> Result<WaveRun, WaveError> {
        let index = self
            .function_index(func_name)
            .ok_or_else(|| WaveError::Lane {
                lane: 0,
                error: ExecError::UnknownFunction {
                    name: func_name.to_string(),
                },
            })?;
        let function = &self.program.functions[index];
        let lanes = args.len();
        if lanes == 0 || lanes > 64 || function.wave_size.is_some_and(|size| lanes as u64 > size) {
            return Err(WaveError::BadWaveSize {
                lanes,
                wave_size: function.wave_size,
            });
        }
        let all = if lanes == 64 {
            u64::MAX
        } else {
            (1u64 << lanes) - 1
        };
        let mut wave = Wave {
            frames: (0..lanes).map(|_| Frame::new(function)).collect(),
            ids: (0..lanes)
                .map(|l| ThreadId::from_linear(first_thread + l as u32, dims))
                .collect(),
            dims: *dims,
            memory,
            exec: all,
            all,
            parked: HashMap::new(),
            run: WaveRun {
                results: vec![Vec::new(); lanes],
                blocks: vec![Vec::new(); lanes],
                rejoins_checked: 0,
            },
        };
        for (frame, lane_args) in wave.frames.iter_mut().zip(args) {
            for ((slot, _), value) in function.parameters.iter().zip(lane_args) {
                frame.slots[*slot as usize] = Some(*value);
            }
        }
        let mut block = 0;
        let mut fuel = fuel;
        while fuel > 0 {
            fuel -= 1;
            let visit = wave.frames[0].enter(block);
            for frame in &mut wave.frames[1..] {
                frame.enter(block);
            }
            let at = Position {
                index,
                function,
                block,
                visit,
            };
            for lane in lanes_of(wave.exec) {
                wave.run.blocks[lane].push(block);
            }
            for op in &function.blocks[block].ops {
                self.wave_op(op, at, &mut wave)?;
            }
            if let Some(join) = self.split_at_lane_branch(at, &mut wave, &mut fuel)? {
                block = join;
                continue;
            }
            match wave_terminator(function, block, &mut wave)? {
                Some(next) => block = next,
                None => return Ok(wave.run),
            }
        }
        Err(WaveError::OutOfFuel)
    }

    /// A lane branch: each lane runs on its own, as its thread would, from
    /// its successor up to the branch's immediate post-dominator, where the
    /// wave goes on (`Some(join)`); `None` when the terminator is no lane
    /// branch. A lane branch needs a defined
    /// condition in every lane, a join block, no wave-level operation
    /// before the join, and lanes that are not active must go straight to
    /// the join (`--spmd-predicate` gates the condition with exec where
    /// exec may be partial).
    fn split_at_lane_branch(
        &self,
        at: Position,
        wave: &mut Wave,
        fuel: &mut u64,
    ) -> Result<Option<usize>, WaveError> {
        let terminator = &at.function.blocks[at.block].terminator;
        if !terminator.lane_branch {
            return Ok(None);
        }
        let choices = lane_choices(terminator, at.block, wave)?;
        let fail = |reason| WaveError::LaneBranch {
            block: at.block,
            reason,
        };
        let join = at.function.post_dominators[at.block]
            .filter(|&join| join < at.function.blocks.len())
            .ok_or_else(|| fail("its lanes never meet again at one block"))?;
        for (lane, &choice) in choices.iter().enumerate() {
            let inactive = wave.exec & (1 << lane) == 0;
            if inactive && terminator.successors[choice].block != join {
                return Err(fail("a lane that is not active enters the lane region"));
            }
            self.run_lane_until(at, lane, join, wave, fuel)?;
        }
        Ok(Some(join))
    }

    /// Runs lane `lane` alone from the terminator of `at`'s block up to
    /// block `join` (its own block arguments bound on the way), recording
    /// the blocks it enters.
    fn run_lane_until(
        &self,
        at: Position,
        lane: usize,
        join: usize,
        wave: &mut Wave,
        fuel: &mut u64,
    ) -> Result<(), WaveError> {
        let mut tracer = NoTrace;
        let mut state = ThreadState::for_lane(
            wave.ids[lane],
            wave.ids[lane].global_linear(&wave.dims),
            wave.dims,
            wave.memory,
            &mut tracer,
        );
        let frame = &mut wave.frames[lane];
        let lane_error = |error| WaveError::Lane { lane, error };
        let mut here = at;
        loop {
            let next = match self
                .terminate(here, frame, &mut state)
                .map_err(lane_error)?
            {
                Flow::Goto(next) => next,
                Flow::Return(_) => {
                    return Err(WaveError::LaneBranch {
                        block: here.block,
                        reason: "a lane returned before the join",
                    })
                }
            };
            if next == join {
                return Ok(());
            }
            *fuel = fuel.checked_sub(1).ok_or(WaveError::OutOfFuel)?;
            wave.run.blocks[lane].push(next);
            here = Position {
                block: next,
                visit: frame.enter(next),
                ..here
            };
            for op in &here.function.blocks[next].ops {
                if matches!(op.kind, OpKind::Wave(_)) {
                    return Err(WaveError::LaneBranch {
                        block: next,
                        reason: "a wave-level operation before the join",
                    });
                }
                self.execute(op, here, frame, &mut state)
                    .map_err(lane_error)?;
            }
        }
    }

    /// One operation for the whole wave.
    fn wave_op(
        &self,
        op: &crate::program::Op,
        at: Position,
        wave: &mut Wave,
    ) -> Result<(), WaveError> {
        if let OpKind::Wave(kind) = &op.kind {
            return wave_mask_op(kind, op, at, wave);
        }
        for lane in 0..wave.frames.len() {
            if wave.exec & (1 << lane) == 0 {
                for &slot in &op.results {
                    wave.frames[lane].slots[slot as usize] = Some(Value::Poison);
                }
                continue;
            }
            let mut tracer = NoTrace;
            let mut state = ThreadState::for_lane(
                wave.ids[lane],
                wave.ids[lane].global_linear(&wave.dims),
                wave.dims,
                wave.memory,
                &mut tracer,
            );
            self.execute(op, at, &mut wave.frames[lane], &mut state)
                .map_err(|error| WaveError::Lane { lane, error })?;
        }
        Ok(())
    }
}

/// The lanes set in `mask`.
fn lanes_of(mask: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |l| mask & (1u64 << l) != 0)
}

/// The mask held by `slot` (the same in every lane; lane 0's copy).
fn mask_operand(wave: &Wave, slot: u32) -> u64 {
    match wave.frames[0].slots[slot as usize] {
        Some(Value::Int(bits)) => bits.unsigned(),
        _ => 0,
    }
}

/// `spmd.exec.*`, `spmd.ballot`, `spmd.mask.*`.
fn wave_mask_op(
    kind: &WaveOp,
    op: &crate::program::Op,
    at: Position,
    wave: &mut Wave,
) -> Result<(), WaveError> {
    let operand = |wave: &Wave, i: usize| mask_operand(wave, op.operands[i]);
    let (block, site) = (at.block, at.site(op.site));
    let result = match kind {
        WaveOp::ExecRead => wave.exec,
        WaveOp::Empty => 0,
        WaveOp::And => operand(wave, 0) & operand(wave, 1),
        WaveOp::AndNot => operand(wave, 0) & !operand(wave, 1),
        WaveOp::Or => operand(wave, 0) | operand(wave, 1),
        WaveOp::Ballot => ballot(op, site, wave)?,
        WaveOp::ExecWrite { park, rejoin, full } => {
            let new = operand(wave, 0) & wave.all;
            if *full && new != wave.all {
                return Err(WaveError::NotFull {
                    block,
                    exec: new,
                    all: wave.all,
                });
            }
            if let Some(id) = park {
                *wave.parked.entry(*id).or_default() |= wave.exec;
            }
            if let Some(id) = rejoin {
                let diverged = wave.parked.remove(id).unwrap_or(0);
                if diverged & !new != 0 {
                    return Err(WaveError::NotReconverged {
                        id: *id,
                        block,
                        missing: diverged & !new,
                    });
                }
                wave.run.rejoins_checked += 1;
                // The rejoining lanes enter the rejoin block now.
                for lane in lanes_of(new & !wave.exec) {
                    wave.run.blocks[lane].push(block);
                }
            }
            wave.exec = new;
            return Ok(());
        }
        WaveOp::ToBits => {
            let bits = operand(wave, 0);
            let width = op.result_type.int_width().unwrap_or(64);
            let value = IntValue::new(width, bits).ok_or(WaveError::MaskCarrier {
                block,
                bits,
                lanes: width,
            })?;
            for frame in &mut wave.frames {
                frame.slots[op.results[0] as usize] = Some(Value::Int(value));
            }
            return Ok(());
        }
        WaveOp::FromBits => {
            let bits = operand(wave, 0);
            if bits & !wave.all != 0 {
                return Err(WaveError::MaskCarrier {
                    block,
                    bits,
                    lanes: wave.frames.len() as u32,
                });
            }
            bits
        }
        WaveOp::Select => {
            let mask = operand(wave, 0);
            for (lane, frame) in wave.frames.iter_mut().enumerate() {
                let pick = if mask & (1 << lane) != 0 {
                    op.operands[1]
                } else {
                    op.operands[2]
                };
                frame.slots[op.results[0] as usize] = frame.slots[pick as usize];
            }
            return Ok(());
        }
    };
    for frame in &mut wave.frames {
        frame.slots[op.results[0] as usize] = Some(Value::i64(result as i64));
    }
    Ok(())
}

/// The active lanes whose `i1` operand is true; poison in an active lane
/// is an error.
fn ballot(
    op: &crate::program::Op,
    site: &crate::error::OpSite,
    wave: &Wave,
) -> Result<u64, WaveError> {
    let mut bits = 0;
    for lane in lanes_of(wave.exec) {
        match wave.frames[lane].slots[op.operands[0] as usize] {
            Some(Value::Int(flag)) if flag.width() == 1 => {
                bits |= u64::from(flag.is_true()) << lane
            }
            _ => {
                return Err(WaveError::Lane {
                    lane,
                    error: ExecError::UndefinedValue { site: site.clone() },
                })
            }
        }
    }
    Ok(bits)
}

/// Runs the terminator of `block`; `None` when the wave returned.
fn wave_terminator(
    function: &Function,
    block: usize,
    wave: &mut Wave,
) -> Result<Option<usize>, WaveError> {
    let terminator = &function.blocks[block].terminator;
    let name = function
        .sites
        .get(terminator.site as usize)
        .map(|s| s.op_name.clone())
        .unwrap_or_default();
    let chosen = match &terminator.kind {
        TerminatorKind::Return => {
            if wave.exec != wave.all {
                return Err(WaveError::ReturnedPartially {
                    exec: wave.exec,
                    all: wave.all,
                });
            }
            for lane in 0..wave.frames.len() {
                let values = terminator
                    .operands
                    .iter()
                    .map(|&s| wave.frames[lane].slots[s as usize].unwrap_or(Value::Poison));
                wave.run.results[lane] = values.collect();
            }
            return Ok(None);
        }
        TerminatorKind::Branch => 0,
        TerminatorKind::ExecBranchZero => usize::from(wave.exec != 0),
        TerminatorKind::CondBranch | TerminatorKind::Switch { .. } if name != "spmd.flow_br" => {
            uniform_choice(terminator, block, &name, wave)?
        }
        _ => return Err(WaveError::NotWaveLevel { block, op: name }),
    };
    let successor = &terminator.successors[chosen];
    let parameters = &function.blocks[successor.block].arguments;
    for frame in &mut wave.frames {
        let values: Vec<Option<Value>> = successor
            .arguments
            .iter()
            .map(|&s| frame.slots[s as usize])
            .collect();
        for (&slot, value) in parameters.iter().zip(values) {
            frame.slots[slot as usize] = value;
        }
    }
    Ok(Some(successor.block))
}

/// Each lane's successor slot at a lane branch.
fn lane_choices(
    terminator: &crate::program::Terminator,
    block: usize,
    wave: &Wave,
) -> Result<Vec<usize>, WaveError> {
    (0..wave.frames.len())
        .map(
            |lane| match wave.frames[lane].slots[terminator.operands[0] as usize] {
                Some(Value::Int(bit)) if bit.width() == 1 => Ok(usize::from(!bit.is_true())),
                _ => Err(WaveError::LaneBranch {
                    block,
                    reason: "a lane's condition is not a defined i1",
                }),
            },
        )
        .collect()
}

/// The successor every active lane of a scalar branch agrees on.
fn uniform_choice(
    terminator: &crate::program::Terminator,
    block: usize,
    name: &str,
    wave: &Wave,
) -> Result<usize, WaveError> {
    let not_uniform = || WaveError::NotUniform {
        block,
        op: name.to_string(),
        active: wave.exec,
    };
    let mut choice = None;
    for lane in lanes_of(wave.exec) {
        let flag = wave.frames[lane].slots[terminator.operands[0] as usize];
        let this = match (&terminator.kind, flag) {
            (TerminatorKind::CondBranch, Some(Value::Int(bit))) if bit.width() == 1 => {
                usize::from(!bit.is_true())
            }
            (TerminatorKind::Switch { cases }, Some(Value::Int(value))) => {
                cases.iter().position(|c| *c == value).map_or(0, |i| i + 1)
            }
            _ => return Err(not_uniform()),
        };
        if choice.is_some_and(|c| c != this) {
            return Err(not_uniform());
        }
        choice = Some(this);
    }
    choice.ok_or_else(not_uniform)
}
