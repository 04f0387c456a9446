//! Running many threads, and comparing two programs on the same inputs.
//!
//! [`Executor::run_grid`] runs threads `0..num_threads` of a one-block
//! launch one after the other, each to completion, against one shared
//! memory. The order is fixed (thread 0 first), so runs are deterministic;
//! programs whose threads communicate through memory without atomics
//! observe that order.
//!
//! [`compare_runs`] is the semantic oracle for transforms: it runs the
//! original and the transformed module on identical fresh memories and
//! reports the first difference:
//!
//! 1. per thread, in thread order: an error of the original that is not
//!    undefined behaviour (unsupported op, out of fuel, ...) is reported as
//!    [`Mismatch::OriginalFailed`]; after undefined behaviour of the
//!    original, anything the transformed thread does is accepted; otherwise
//!    the transformed thread must succeed, return values that refine the
//!    original's (equal, or anything where the original returned poison)
//!    and perform the same sequence of stores and atomics;
//! 2. if no original thread had undefined behaviour, the final contents of
//!    every harness buffer must be equal.

use super::error::ExecError;
use super::interpreter::{Executor, GridDims, ThreadId};
use super::memory::{BufferId, ElementType, MemRefId, Memory, SideEffect};
use super::trace::{NoTrace, Tracer};
use super::value::Value;
use melior::ir::Module;
use std::fmt;

/// The outcome of every thread of a grid, indexed by linear thread id.
#[derive(Clone, Debug)]
pub struct GridRun {
    /// The launch dimensions used.
    pub dims: GridDims,
    /// Returned values or the error, per thread.
    pub outcomes: Vec<Result<Vec<Value>, ExecError>>,
}

impl GridRun {
    /// The first failing thread and its error.
    pub fn first_error(&self) -> Option<(u32, &ExecError)> {
        self.outcomes
            .iter()
            .enumerate()
            .find_map(|(thread, outcome)| {
                outcome.as_ref().err().map(|error| (thread as u32, error))
            })
    }
}

impl Executor {
    /// Runs `func` for threads `0..num_threads` (one block along x,
    /// subgroups of 32), in order, each with `fuel` blocks and the
    /// arguments `args_per_thread` gives it. The final memory is `memory`.
    pub fn run_grid(
        &self,
        func: &str,
        args_per_thread: &dyn Fn(ThreadId) -> Vec<Value>,
        num_threads: u32,
        memory: &mut Memory,
        fuel: u64,
    ) -> GridRun {
        self.run_grid_traced(
            func,
            &GridDims::linear(num_threads),
            args_per_thread,
            memory,
            &mut NoTrace,
            fuel,
        )
    }

    /// Like [`Executor::run_grid`] with explicit dimensions and a tracer
    /// shared by all threads (events carry the thread id).
    pub fn run_grid_traced(
        &self,
        func: &str,
        dims: &GridDims,
        args_per_thread: &dyn Fn(ThreadId) -> Vec<Value>,
        memory: &mut Memory,
        tracer: &mut dyn Tracer,
        fuel: u64,
    ) -> GridRun {
        let outcomes = (0..dims.num_threads())
            .map(|linear| {
                let thread = ThreadId::from_linear(linear, dims);
                let args = args_per_thread(thread);
                self.run_thread(func, &args, thread, dims, memory, tracer, fuel)
            })
            .collect();
        GridRun {
            dims: *dims,
            outcomes,
        }
    }
}

/// A buffer the harness creates before a run.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    /// Element type.
    pub element: ElementType,
    /// Shape (identity layout).
    pub shape: Vec<u64>,
    /// Initial elements, row-major (missing ones are zero).
    pub init: Vec<i64>,
}

impl BufferSpec {
    /// A zeroed 1-D `i32` buffer of `len` elements.
    pub fn zeroed_i32(len: u64) -> Self {
        Self {
            element: ElementType::Int(32),
            shape: vec![len],
            init: Vec::new(),
        }
    }

    /// A 1-D `i32` buffer holding `values`.
    pub fn i32(values: &[i32]) -> Self {
        Self {
            element: ElementType::Int(32),
            shape: vec![values.len() as u64],
            init: values.iter().map(|&value| i64::from(value)).collect(),
        }
    }
}

/// What [`compare_runs`] runs: a one-block launch of `num_threads`
/// threads, with fresh buffers and per-thread arguments.
pub struct RunInputs<'a> {
    /// Threads `0..num_threads`.
    pub num_threads: u32,
    /// Buffers created (in order) in each fresh memory.
    pub buffers: Vec<BufferSpec>,
    /// The arguments of each thread, given the memrefs of `buffers`.
    pub args: &'a dyn Fn(ThreadId, &[MemRefId]) -> Vec<Value>,
    /// Blocks each thread may enter.
    pub fuel: u64,
}

/// One complete run on a fresh memory.
pub struct RunRecord {
    /// Per-thread outcomes.
    pub run: GridRun,
    /// The final memory (with its side-effect log).
    pub memory: Memory,
}

/// Runs `func` on a fresh memory built from `inputs`.
pub fn run_fresh(executor: &Executor, func: &str, inputs: &RunInputs) -> RunRecord {
    let mut memory = Memory::new();
    let memrefs: Vec<MemRefId> = inputs
        .buffers
        .iter()
        .map(|spec| memory.alloc_init(spec.element, &spec.shape, &spec.init))
        .collect();
    let args = |thread: ThreadId| (inputs.args)(thread, &memrefs);
    let run = executor.run_grid(func, &args, inputs.num_threads, &mut memory, inputs.fuel);
    RunRecord { run, memory }
}

/// The first observable difference between two runs.
#[derive(Clone, Debug)]
pub enum Mismatch {
    /// The original failed without undefined behaviour.
    OriginalFailed {
        /// The thread.
        thread: u32,
        /// Its error.
        error: ExecError,
    },
    /// The transformed program failed where the original succeeded.
    TransformedFailed {
        /// The thread.
        thread: u32,
        /// Its error.
        error: ExecError,
    },
    /// Different returned values.
    ReturnValues {
        /// The thread.
        thread: u32,
        /// Returned by the original.
        original: Vec<Value>,
        /// Returned by the transformed program.
        transformed: Vec<Value>,
    },
    /// The threads' sequences of stores and atomics differ at `position`.
    SideEffects {
        /// The thread.
        thread: u32,
        /// Position in the thread's sequence.
        position: usize,
        /// The original's effect there (`None`: the sequence ended).
        original: Option<SideEffect>,
        /// The transformed program's effect there.
        transformed: Option<SideEffect>,
    },
    /// A buffer element differs at the end.
    FinalMemory {
        /// The buffer.
        buffer: BufferId,
        /// The element index.
        index: usize,
        /// The original's value.
        original: Value,
        /// The transformed program's value.
        transformed: Value,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let optional = |effect: &Option<SideEffect>| {
            effect
                .as_ref()
                .map_or_else(|| "(no more effects)".to_string(), ToString::to_string)
        };
        match self {
            Self::OriginalFailed { thread, error } => write!(f, "thread {thread}: the original failed: {error}"),
            Self::TransformedFailed { thread, error } => {
                write!(f, "thread {thread}: the transformed program failed: {error}")
            }
            Self::ReturnValues { thread, original, transformed } => write!(
                f,
                "thread {thread}: returned values differ\n- original:    {}\n+ transformed: {}",
                list(original),
                list(transformed)
            ),
            Self::SideEffects { thread, position, original, transformed } => write!(
                f,
                "thread {thread}: side effect #{position} differs\n- original:    {}\n+ transformed: {}",
                optional(original),
                optional(transformed)
            ),
            Self::FinalMemory { buffer, index, original, transformed } => write!(
                f,
                "final memory differs at buffer#{}[{index}]\n- original:    {original}\n+ transformed: {transformed}",
                buffer.0
            ),
        }
    }
}

fn list(values: &[Value]) -> String {
    let items: Vec<String> = values.iter().map(ToString::to_string).collect();
    format!("({})", items.join(", "))
}

/// Runs `func` of both modules on identical fresh memories and returns the
/// first mismatch (see the module docs for the rules).
pub fn compare_runs(
    original: &Module,
    transformed: &Module,
    func: &str,
    inputs: &RunInputs,
) -> Result<(), Mismatch> {
    compare_executors(
        &Executor::new(original),
        &Executor::new(transformed),
        func,
        inputs,
    )
}

/// [`compare_runs`] on already compiled executors.
pub fn compare_executors(
    original: &Executor,
    transformed: &Executor,
    func: &str,
    inputs: &RunInputs,
) -> Result<(), Mismatch> {
    let before = run_fresh(original, func, inputs);
    let after = run_fresh(transformed, func, inputs);
    compare_records(&before, &after)
}

/// Compares two runs of the same inputs.
pub fn compare_records(original: &RunRecord, transformed: &RunRecord) -> Result<(), Mismatch> {
    let original_effects = effects_by_thread(&original.memory, original.run.outcomes.len());
    let transformed_effects =
        effects_by_thread(&transformed.memory, transformed.run.outcomes.len());
    let mut original_had_ub = false;
    for (thread, outcomes) in original
        .run
        .outcomes
        .iter()
        .zip(&transformed.run.outcomes)
        .enumerate()
    {
        let thread = thread as u32;
        let (expected, actual) = match outcomes {
            (Err(error), _) if error.is_undefined_behavior() => {
                original_had_ub = true;
                continue;
            }
            (Err(error), _) => {
                return Err(Mismatch::OriginalFailed {
                    thread,
                    error: error.clone(),
                })
            }
            (Ok(_), Err(error)) => {
                return Err(Mismatch::TransformedFailed {
                    thread,
                    error: error.clone(),
                })
            }
            (Ok(expected), Ok(actual)) => (expected, actual),
        };
        compare_values(thread, expected, actual)?;
        let empty = Vec::new();
        let before = original_effects.get(thread as usize).unwrap_or(&empty);
        let after = transformed_effects.get(thread as usize).unwrap_or(&empty);
        compare_effects(thread, before, after)?;
    }
    if original_had_ub {
        return Ok(());
    }
    compare_memories(&original.memory, &transformed.memory)
}

fn compare_values(thread: u32, expected: &[Value], actual: &[Value]) -> Result<(), Mismatch> {
    let refines = expected.len() == actual.len()
        && expected
            .iter()
            .zip(actual)
            .all(|(original, new)| new.refines(*original));
    if refines {
        Ok(())
    } else {
        Err(Mismatch::ReturnValues {
            thread,
            original: expected.to_vec(),
            transformed: actual.to_vec(),
        })
    }
}

/// The first difference between two memories after runs of the same
/// `threads` threads (an original and a transformed or lowered program,
/// each run on its own fresh memory with the same buffers): each thread's
/// sequence of stores and atomics, then the final contents of every
/// buffer. For runs made outside [`run_fresh`], such as lockstep CTAs.
pub fn compare_memories_after(
    threads: u32,
    original: &Memory,
    transformed: &Memory,
) -> Result<(), Mismatch> {
    let before = effects_by_thread(original, threads as usize);
    let after = effects_by_thread(transformed, threads as usize);
    for (thread, (before, after)) in before.iter().zip(&after).enumerate() {
        compare_effects(thread as u32, before, after)?;
    }
    compare_memories(original, transformed)
}

fn effects_by_thread(memory: &Memory, num_threads: usize) -> Vec<Vec<SideEffect>> {
    let mut grouped = vec![Vec::new(); num_threads];
    for effect in memory.side_effects() {
        if let Some(list) = grouped.get_mut(effect.thread as usize) {
            list.push(*effect);
        }
    }
    grouped
}

fn compare_effects(
    thread: u32,
    before: &[SideEffect],
    after: &[SideEffect],
) -> Result<(), Mismatch> {
    let length = before.len().max(after.len());
    for position in 0..length {
        let (original, transformed) = (before.get(position), after.get(position));
        let same = matches!((original, transformed), (Some(a), Some(b)) if a.same_as(b));
        if !same {
            return Err(Mismatch::SideEffects {
                thread,
                position,
                original: original.copied(),
                transformed: transformed.copied(),
            });
        }
    }
    Ok(())
}

fn compare_memories(original: &Memory, transformed: &Memory) -> Result<(), Mismatch> {
    for (before, after) in original.public_buffers().zip(transformed.public_buffers()) {
        let (old, new) = (original.contents(before), transformed.contents(after));
        for (index, (original, transformed)) in old.iter().zip(&new).enumerate() {
            if !transformed.same_as(*original) {
                return Err(Mismatch::FinalMemory {
                    buffer: before,
                    index,
                    original: *original,
                    transformed: *transformed,
                });
            }
        }
    }
    Ok(())
}
