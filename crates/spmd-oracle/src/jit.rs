//! # A second semantic oracle: MLIR's own JIT
//!
//! The reference executor ([`super::Executor`]) is our code, so a bug in it
//! can hide a bug in a transform. This module checks transforms of
//! thread-level kernels with an independent implementation of the same
//! semantics: upstream MLIR lowers both functions to LLVM, LLVM's ORC JIT
//! compiles them in-process (`mlirExecutionEngine*`, statically linked
//! through mlir-sys like the rest of MLIR), and the machine code runs one
//! thread at a time.
//!
//! ```text
//!  pairs (original, transformed) ──parse, clone @kernel as @k<i>_orig / @k<i>_xfrm──> one module
//!     ──spmd-lower-to-cf, convert-to-llvm, reconcile-unrealized-casts──> llvm dialect
//!     ──ExecutionEngine (one compile per batch)──> _mlir_k<i>_orig / _mlir_k<i>_xfrm (packed wrappers)
//!     ──for each n, for each tid, call from Rust──> results + buffers ──compare──> JitStats | JitMismatch
//! ```
//!
//! ## Kernels
//!
//! Each module must define `func.func @kernel(%out: memref<?xi32>, %n: i32,
//! %tid: i32) -> i32` (the shape of [`super::RandomKernel::text`]) and
//! nothing `@kernel` calls. Thread `tid` may write `%out[tid * slots + k]`
//! for `k < slots`.
//!
//! ## Compile once, call many times
//!
//! Compiling dominates the cost, so [`compare_batch`] puts every pair of a
//! batch into one module and builds one execution engine. The engine gives
//! every function a packed wrapper `_mlir_<name>(void **args)`; the driver
//! looks each wrapper up once and then calls it directly from Rust for every
//! `(n, tid)`, passing the memref descriptor (allocated and aligned pointer,
//! offset, size, stride), `%n`, `%tid` and a slot for the result. Calling
//! from Rust rather than from a generated MLIR driver keeps the values of
//! every run at hand for the report.
//!
//! ## What is compared
//!
//! For every `%n` of [`JitInputs::n_values`], the original runs threads
//! `0..num_threads` one after the other on one buffer, the transformed
//! function on a second identical buffer, and then
//! * each thread's `i32` result must match;
//! * every element of the buffers must match;
//! * guard elements before and after each buffer must be intact after
//!   every call (an out-of-bounds store is reported with its thread rather
//!   than silently corrupting memory; a store far outside the guards can
//!   still corrupt the test process).
//!
//! Buffers start with distinct non-zero values rather than zeros, so a
//! missing or extra store of `0` is visible (only a store of an element's
//! exact initial value is not). The first difference is returned as a
//! [`JitMismatch`] with the pair's label, `n`, `tid` and both values.
//!
//! ## Hangs
//!
//! A broken transform may loop forever. The compiled code runs on a worker
//! thread; if it does not finish within [`JitInputs::timeout`], the
//! comparison returns [`JitError::Hang`] naming the kernel and `n` being run.
//! The worker cannot be stopped, so its execution engine is leaked.

use super::random_kernel::RandomKernel;
use melior::{
    ir::{
        attribute::StringAttribute, block::BlockLike, operation::OperationLike,
        operation::OperationMutLike, Location, Module, Operation, OperationRef,
    },
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context, StringRef,
};
use mlir_sys::{
    mlirExecutionEngineCreate, mlirExecutionEngineDestroy, mlirExecutionEngineInitialize,
    mlirExecutionEngineLookupPacked, mlirOperationClone, MlirExecutionEngine,
};
use spmd::testing::ir::op_name;
use std::{
    cell::RefCell,
    ffi::c_void,
    fmt,
    rc::Rc,
    sync::{
        atomic::{AtomicUsize, Ordering},
        mpsc, Arc, Once,
    },
    time::{Duration, Instant},
};

/// The function every module of a pair must define.
pub const KERNEL_FUNCTION: &str = "kernel";

/// Its type.
pub const KERNEL_TYPE: &str = "(memref<?xi32>, i32, i32) -> i32";

/// The lowering from thread-level spmd IR to the LLVM dialect.
pub const LOWERING_PIPELINE: &str =
    "builtin.module(spmd-lower-to-cf, convert-to-llvm, reconcile-unrealized-casts)";

/// Guard elements on each side of a buffer.
const GUARD: usize = 16;
/// The value of guard elements.
const GUARD_VALUE: i32 = 0x7A7A_7A7A;

/// An original kernel and its transform, as module texts.
#[derive(Clone, Debug)]
pub struct KernelPair {
    /// Names the pair in reports (kernel class, seed, pipeline...).
    pub label: String,
    /// The module before the transform.
    pub original: String,
    /// The module after the transform.
    pub transformed: String,
    /// Output slots per thread (`%out` has `num_threads * slots` elements).
    pub slots: u32,
}

impl KernelPair {
    /// The pair for a random kernel and its transformed module text.
    pub fn of_random(label: String, kernel: &RandomKernel, transformed: String) -> Self {
        Self {
            label,
            original: kernel.text.clone(),
            transformed,
            slots: kernel.slots,
        }
    }
}

/// The runs to compare.
#[derive(Clone, Debug)]
pub struct JitInputs {
    /// Threads `0..num_threads` run for each input.
    pub num_threads: u32,
    /// The values of `%n`.
    pub n_values: Vec<i32>,
    /// LLVM optimization level of the JIT (0 compiles fastest).
    pub opt_level: usize,
    /// How long the compiled code may run before it counts as a hang.
    pub timeout: Duration,
}

impl Default for JitInputs {
    fn default() -> Self {
        Self {
            num_threads: 64,
            n_values: vec![0, 1, 9, 100, -7],
            opt_level: 0,
            timeout: Duration::from_secs(60),
        }
    }
}

/// What a successful comparison did and how long each phase took.
#[derive(Clone, Debug, Default)]
pub struct JitStats {
    /// Pairs compared.
    pub kernels: usize,
    /// Calls of compiled functions (both sides).
    pub calls: usize,
    /// Parsing and merging the modules.
    pub prepare_time: Duration,
    /// Running [`LOWERING_PIPELINE`].
    pub lower_time: Duration,
    /// Building the execution engine (LLVM translation and code generation).
    pub compile_time: Duration,
    /// Running and comparing.
    pub run_time: Duration,
}

impl JitStats {
    /// Adds the counts and times of `other`.
    pub fn absorb(&mut self, other: &JitStats) {
        self.kernels += other.kernels;
        self.calls += other.calls;
        self.prepare_time += other.prepare_time;
        self.lower_time += other.lower_time;
        self.compile_time += other.compile_time;
        self.run_time += other.run_time;
    }

    /// Wall time of all phases.
    pub fn total_time(&self) -> Duration {
        self.prepare_time + self.lower_time + self.compile_time + self.run_time
    }
}

/// A thread whose original and transformed runs differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitMismatch {
    /// The pair's label.
    pub label: String,
    /// The value of `%n`.
    pub n: i32,
    /// The thread (for memory: the owner of the element's slot).
    pub tid: u32,
    /// What differs.
    pub difference: Difference,
}

/// The first difference found between two runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The returned values.
    Result { original: i32, transformed: i32 },
    /// Element `index` of `%out` after all threads ran.
    Memory {
        index: usize,
        original: i32,
        transformed: i32,
    },
    /// A store outside `%out` (`offset` counts elements from its start).
    OutOfBounds {
        transformed_side: bool,
        offset: isize,
    },
}

/// Why a batch could not be compared, or how it differs.
#[derive(Clone, Debug)]
pub enum JitError {
    /// A module does not parse or lacks a `@kernel` of [`KERNEL_TYPE`].
    Input { label: String, message: String },
    /// [`LOWERING_PIPELINE`] failed; `label` names the first pair that
    /// fails alone (if one does).
    Lowering {
        label: Option<String>,
        diagnostics: Vec<String>,
    },
    /// The execution engine could not be built or lacks a function.
    Compile(String),
    /// The compiled code did not finish in time.
    Hang { label: String, n: i32 },
    /// The original and the transform differ.
    Mismatch(JitMismatch),
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Result {
                original,
                transformed,
            } => {
                write!(
                    f,
                    "returned {original} originally but {transformed} after the transform"
                )
            }
            Self::Memory {
                index,
                original,
                transformed,
            } => {
                write!(
                    f,
                    "out[{index}] is {original} originally but {transformed} after the transform"
                )
            }
            Self::OutOfBounds {
                transformed_side,
                offset,
            } => {
                let side = if *transformed_side {
                    "transformed"
                } else {
                    "original"
                };
                write!(
                    f,
                    "the {side} kernel stored outside %out (element offset {offset})"
                )
            }
        }
    }
}

impl fmt::Display for JitMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: n={} tid={}: {}",
            self.label, self.n, self.tid, self.difference
        )
    }
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Input { label, message } => write!(f, "{label}: {message}"),
            Self::Lowering { label, diagnostics } => {
                let which = label.as_deref().unwrap_or("the batch");
                write!(
                    f,
                    "lowering {which} to LLVM failed: {}",
                    diagnostics.join("; ")
                )
            }
            Self::Compile(message) => write!(f, "JIT compilation failed: {message}"),
            Self::Hang { label, n } => write!(
                f,
                "{label}: n={n}: the compiled code did not finish in time"
            ),
            Self::Mismatch(mismatch) => write!(f, "{mismatch}"),
        }
    }
}

impl std::error::Error for JitError {}

/// Compiles every pair of `pairs` into one module and compares the original
/// and transformed functions on `inputs` (see the module documentation).
/// `context` must have the upstream and spmd dialects loaded.
pub fn compare_batch(
    context: &Context,
    pairs: &[KernelPair],
    inputs: &JitInputs,
) -> Result<JitStats, JitError> {
    let mut stats = JitStats {
        kernels: pairs.len(),
        ..JitStats::default()
    };
    let started = Instant::now();
    let mut module = merge_pairs(context, pairs)?;
    stats.prepare_time = started.elapsed();

    let started = Instant::now();
    if let Err(diagnostics) = lower_to_llvm(context, &mut module) {
        return Err(JitError::Lowering {
            label: first_pair_failing_alone(context, pairs),
            diagnostics,
        });
    }
    stats.lower_time = started.elapsed();

    let started = Instant::now();
    let engine = Engine::compile(context, &module, inputs.opt_level)?;
    let jobs = pairs
        .iter()
        .enumerate()
        .map(|(index, pair)| {
            Ok(Job {
                pair: index,
                original: engine.packed(&function_name(index, Side::Original))?,
                transformed: engine.packed(&function_name(index, Side::Transformed))?,
                slots: pair.slots,
            })
        })
        .collect::<Result<Vec<_>, JitError>>()?;
    stats.compile_time = started.elapsed();

    let started = Instant::now();
    let outcome = run_with_timeout(engine, jobs, inputs);
    stats.run_time = started.elapsed();
    match outcome {
        RunOutcome::Done { calls } => {
            stats.calls = calls;
            Ok(stats)
        }
        RunOutcome::Differs {
            pair,
            n,
            tid,
            difference,
        } => Err(JitError::Mismatch(JitMismatch {
            label: pairs[pair].label.clone(),
            n,
            tid,
            difference,
        })),
        RunOutcome::Hung { pair, n } => Err(JitError::Hang {
            label: pairs[pair].label.clone(),
            n,
        }),
    }
}

// ---------------------------------------------------------------------------
// Building the module
// ---------------------------------------------------------------------------

#[derive(Clone, Copy)]
enum Side {
    Original,
    Transformed,
}

/// `k<index>_orig` or `k<index>_xfrm`.
fn function_name(index: usize, side: Side) -> String {
    match side {
        Side::Original => format!("k{index}_orig"),
        Side::Transformed => format!("k{index}_xfrm"),
    }
}

/// One module holding `@k<i>_orig` and `@k<i>_xfrm` for every pair.
fn merge_pairs<'c>(context: &'c Context, pairs: &[KernelPair]) -> Result<Module<'c>, JitError> {
    let merged = Module::new(Location::unknown(context));
    for (index, pair) in pairs.iter().enumerate() {
        for (side, text) in [
            (Side::Original, &pair.original),
            (Side::Transformed, &pair.transformed),
        ] {
            let mut function = kernel_copy(context, text).map_err(|message| JitError::Input {
                label: pair.label.clone(),
                message,
            })?;
            let name = function_name(index, side);
            function.set_attribute("sym_name", StringAttribute::new(context, &name).into());
            merged.body().append_operation(function);
        }
    }
    Ok(merged)
}

/// A detached copy of `@kernel` from module `text`.
fn kernel_copy<'c>(context: &'c Context, text: &str) -> Result<Operation<'c>, String> {
    let (module, diagnostics) = collecting_diagnostics(context, || Module::parse(context, text));
    let module =
        module.ok_or_else(|| format!("the module does not parse: {}", diagnostics.join("; ")))?;
    let kernel = find_kernel(&module).ok_or(format!("no func.func @{KERNEL_FUNCTION}"))?;
    let actual_type = kernel
        .attribute("function_type")
        .map(|t| t.to_string())
        .unwrap_or_default();
    if actual_type != KERNEL_TYPE {
        return Err(format!(
            "@{KERNEL_FUNCTION} has type {actual_type}, expected {KERNEL_TYPE}"
        ));
    }
    // SAFETY: cloning a live operation gives a new, detached operation that
    // the returned `Operation` owns.
    Ok(unsafe { Operation::from_raw(mlirOperationClone(kernel.to_raw())) })
}

fn find_kernel<'c, 'm>(module: &'m Module<'c>) -> Option<OperationRef<'c, 'm>> {
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        let name = current
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok());
        if op_name(current) == "func.func" && name.is_some_and(|n| n.value() == KERNEL_FUNCTION) {
            return Some(current);
        }
        op = current.next_in_block();
    }
    None
}

/// Runs [`LOWERING_PIPELINE`] on `module`; the diagnostics on failure.
fn lower_to_llvm(context: &Context, module: &mut Module) -> Result<(), Vec<String>> {
    register_passes();
    let manager = PassManager::new(context);
    let (result, diagnostics) = collecting_diagnostics(context, || {
        parse_pass_pipeline(manager.as_operation_pass_manager(), LOWERING_PIPELINE)
            .map_err(|error| format!("invalid pipeline: {error}"))
            .and_then(|()| manager.run(module).map_err(|_| String::new()))
    });
    result.map_err(|error| {
        std::iter::once(error)
            .filter(|e| !e.is_empty())
            .chain(diagnostics)
            .collect()
    })
}

/// Runs `body`, capturing the diagnostics it emits instead of printing them.
fn collecting_diagnostics<T>(context: &Context, body: impl FnOnce() -> T) -> (T, Vec<String>) {
    let messages = Rc::new(RefCell::new(Vec::new()));
    let sink = messages.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(diagnostic.to_string());
        true
    });
    let result = body();
    context.detach_diagnostic_handler(handler);
    let diagnostics = messages.take();
    (result, diagnostics)
}

/// The label of the first pair whose module fails to lower on its own.
fn first_pair_failing_alone(context: &Context, pairs: &[KernelPair]) -> Option<String> {
    pairs.iter().find_map(|pair| {
        let mut module = merge_pairs(context, std::slice::from_ref(pair)).ok()?;
        lower_to_llvm(context, &mut module)
            .is_err()
            .then(|| pair.label.clone())
    })
}

/// Registers the spmd passes and the upstream conversions by name.
fn register_passes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        spmd::register_all_passes();
        melior::utility::register_all_passes();
    });
}

// ---------------------------------------------------------------------------
// The execution engine
// ---------------------------------------------------------------------------

/// A packed wrapper: `args` points to one pointer per argument, then one
/// per result.
type PackedFn = unsafe extern "C" fn(*mut *mut c_void);

/// An owned `mlirExecutionEngine` (melior's wrapper does not report a
/// failed creation).
struct Engine(MlirExecutionEngine);

// SAFETY: the engine is only destroyed (never used concurrently) once the
// worker thread running its code has finished.
unsafe impl Send for Engine {}

impl Engine {
    fn compile(context: &Context, module: &Module, opt_level: usize) -> Result<Self, JitError> {
        melior::utility::register_all_llvm_translations(context);
        // SAFETY: the module is live and fully in the LLVM dialect; no shared
        // libraries are passed.
        let raw = unsafe {
            mlirExecutionEngineCreate(
                module.to_raw(),
                opt_level as i32,
                0,
                std::ptr::null(),
                false,
                false,
            )
        };
        if raw.ptr.is_null() {
            return Err(JitError::Compile(
                "mlirExecutionEngineCreate returned null".into(),
            ));
        }
        // SAFETY: a freshly created engine.
        unsafe { mlirExecutionEngineInitialize(raw) };
        Ok(Self(raw))
    }

    /// The packed wrapper of function `name`.
    fn packed(&self, name: &str) -> Result<PackedFn, JitError> {
        // SAFETY: lookup in a live engine; the name is copied.
        let address =
            unsafe { mlirExecutionEngineLookupPacked(self.0, StringRef::new(name).to_raw()) };
        if address.is_null() {
            return Err(JitError::Compile(format!("no packed wrapper for @{name}")));
        }
        // SAFETY: the engine generates `void _mlir_<name>(void **)` for
        // every function it compiled.
        Ok(unsafe { std::mem::transmute::<*mut c_void, PackedFn>(address) })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: created by mlirExecutionEngineCreate, destroyed once.
        unsafe { mlirExecutionEngineDestroy(self.0) }
    }
}

// ---------------------------------------------------------------------------
// Running and comparing
// ---------------------------------------------------------------------------

/// The compiled functions of one pair.
#[derive(Clone, Copy)]
struct Job {
    pair: usize,
    original: PackedFn,
    transformed: PackedFn,
    slots: u32,
}

enum RunOutcome {
    Done {
        calls: usize,
    },
    Differs {
        pair: usize,
        n: i32,
        tid: u32,
        difference: Difference,
    },
    Hung {
        pair: usize,
        n: i32,
    },
}

/// Runs every job on a worker thread, giving up after `inputs.timeout`.
fn run_with_timeout(engine: Engine, jobs: Vec<Job>, inputs: &JitInputs) -> RunOutcome {
    let progress = Arc::new(Progress::default());
    let (sender, receiver) = mpsc::channel();
    let worker_inputs = inputs.clone();
    let worker_progress = progress.clone();
    std::thread::spawn(move || {
        let outcome = run_jobs(&jobs, &worker_inputs, &worker_progress);
        let _ = sender.send(outcome);
    });
    match receiver.recv_timeout(inputs.timeout) {
        Ok(outcome) => outcome,
        Err(_) => {
            // The worker may still be executing the engine's code.
            std::mem::forget(engine);
            let (pair, n_index) = progress.get();
            RunOutcome::Hung {
                pair,
                n: inputs.n_values.get(n_index).copied().unwrap_or_default(),
            }
        }
    }
}

/// The job and input being run (for hang reports).
#[derive(Default)]
struct Progress {
    pair: AtomicUsize,
    n_index: AtomicUsize,
}

impl Progress {
    fn set(&self, pair: usize, n_index: usize) {
        self.pair.store(pair, Ordering::Relaxed);
        self.n_index.store(n_index, Ordering::Relaxed);
    }

    fn get(&self) -> (usize, usize) {
        (
            self.pair.load(Ordering::Relaxed),
            self.n_index.load(Ordering::Relaxed),
        )
    }
}

fn run_jobs(jobs: &[Job], inputs: &JitInputs, progress: &Progress) -> RunOutcome {
    let mut calls = 0;
    for job in jobs {
        for (n_index, &n) in inputs.n_values.iter().enumerate() {
            progress.set(job.pair, n_index);
            if let Err((tid, difference)) = compare_job(job, n, inputs.num_threads) {
                return RunOutcome::Differs {
                    pair: job.pair,
                    n,
                    tid,
                    difference,
                };
            }
            calls += 2 * inputs.num_threads as usize;
        }
    }
    RunOutcome::Done { calls }
}

/// Runs both functions of `job` on every thread for one `n`; the first
/// difference and the thread it belongs to.
fn compare_job(job: &Job, n: i32, num_threads: u32) -> Result<(), (u32, Difference)> {
    let len = num_threads as usize * job.slots as usize;
    let mut original_out = GuardedBuffer::new(len);
    let mut transformed_out = GuardedBuffer::new(len);
    let mut results = Vec::with_capacity(num_threads as usize);
    for tid in 0..num_threads {
        // SAFETY: both functions have type KERNEL_TYPE (checked when the
        // module was built) and the buffers hold `len` elements.
        let original = unsafe { call_kernel(job.original, &mut original_out, n, tid) };
        // SAFETY: as above.
        let transformed = unsafe { call_kernel(job.transformed, &mut transformed_out, n, tid) };
        for (transformed_side, buffer) in [(false, &original_out), (true, &transformed_out)] {
            if let Some(offset) = buffer.damaged_guard() {
                return Err((
                    tid,
                    Difference::OutOfBounds {
                        transformed_side,
                        offset,
                    },
                ));
            }
        }
        results.push((original, transformed));
    }
    let owner = |index: usize| (index / job.slots.max(1) as usize) as u32;
    for (tid, &(original, transformed)) in results.iter().enumerate() {
        if original != transformed {
            return Err((
                tid as u32,
                Difference::Result {
                    original,
                    transformed,
                },
            ));
        }
    }
    let (before, after) = (original_out.contents(), transformed_out.contents());
    match before.iter().zip(after).position(|(a, b)| a != b) {
        Some(index) => Err((
            owner(index),
            Difference::Memory {
                index,
                original: before[index],
                transformed: after[index],
            },
        )),
        None => Ok(()),
    }
}

/// Calls `kernel(%out, %n, %tid)` through its packed wrapper.
///
/// # Safety
/// `kernel` must be the packed wrapper of a function of type [`KERNEL_TYPE`]
/// lowered by `convert-to-llvm` (a memref argument becomes allocated pointer,
/// aligned pointer, offset, size and stride), and must only access `out`.
unsafe fn call_kernel(kernel: PackedFn, out: &mut GuardedBuffer, n: i32, tid: u32) -> i32 {
    let mut allocated = out.kernel_pointer();
    let mut aligned = allocated;
    let (mut offset, mut size, mut stride) = (0i64, out.len as i64, 1i64);
    let (mut n, mut tid, mut result) = (n, tid as i32, 0i32);
    let mut arguments: [*mut c_void; 8] = [
        (&mut allocated as *mut *mut i32).cast(),
        (&mut aligned as *mut *mut i32).cast(),
        (&mut offset as *mut i64).cast(),
        (&mut size as *mut i64).cast(),
        (&mut stride as *mut i64).cast(),
        (&mut n as *mut i32).cast(),
        (&mut tid as *mut i32).cast(),
        (&mut result as *mut i32).cast(),
    ];
    // SAFETY: see the function's contract; every pointer outlives the call.
    unsafe { kernel(arguments.as_mut_ptr()) };
    result
}

/// `%out` with guard elements on both sides.
struct GuardedBuffer {
    elements: Vec<i32>,
    len: usize,
}

impl GuardedBuffer {
    /// `len` elements holding a recognisable pattern, between guards.
    fn new(len: usize) -> Self {
        let mut elements = vec![GUARD_VALUE; len + 2 * GUARD];
        for (index, element) in elements[GUARD..GUARD + len].iter_mut().enumerate() {
            *element = 0x0BAD_0000 | index as i32;
        }
        Self { elements, len }
    }

    fn kernel_pointer(&mut self) -> *mut i32 {
        self.elements[GUARD..].as_mut_ptr()
    }

    fn contents(&self) -> &[i32] {
        &self.elements[GUARD..GUARD + self.len]
    }

    /// The offset (relative to element 0 of `%out`) of a changed guard.
    fn damaged_guard(&self) -> Option<isize> {
        let guards = (0..GUARD).chain(GUARD + self.len..self.elements.len());
        guards
            .filter(|&index| self.elements[index] != GUARD_VALUE)
            .map(|index| index as isize - GUARD as isize)
            .next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_damage_is_reported_with_its_offset() {
        let mut buffer = GuardedBuffer::new(4);
        assert_eq!(buffer.damaged_guard(), None);
        buffer.elements[GUARD + 4] = 1;
        assert_eq!(buffer.damaged_guard(), Some(4));
        buffer.elements[GUARD - 1] = 1;
        assert_eq!(buffer.damaged_guard(), Some(-1));
    }

    #[test]
    fn buffers_start_with_distinct_non_zero_elements() {
        let buffer = GuardedBuffer::new(8);
        let contents = buffer.contents();
        assert!(contents
            .iter()
            .all(|&value| value != 0 && value != GUARD_VALUE));
        let distinct: std::collections::HashSet<_> = contents.iter().collect();
        assert_eq!(distinct.len(), 8);
    }
}
