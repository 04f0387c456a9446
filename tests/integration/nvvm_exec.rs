//! The differential below the spmd level: random kernels through the whole
//! `spmd-gpu-to-nvvm` pipeline (reconverge, predicate, lower-to-nvvm,
//! upstream conversions), executed as LLVM+NVVM code in lockstep warps, against
//! the thread-level run of the original `gpu.func`.
//!
//! For each kernel, each launch size (64 threads: two full warps; 48: one
//! full warp and one of 16 lanes) and each `%n`, both programs run on fresh
//! memories with the same `%out` and `%ret` buffers, and:
//! * every thread performs exactly the same stores, in the same order, with
//!   the same values (so every `%ret[tid]` and every `%out` element agree);
//! * the final `%out` and `%ret` buffers are equal;
//! * the lockstep run never diverges outside a lane guard, every `.sync`
//!   collective has the executing lanes as its member mask (checked inside
//!   [`Executor::run_cta`]).
//!
//! `SPMD_NVVM_EXEC_SEEDS=<n>` sets the seeds per shape class (default
//! [`DEFAULT_SEEDS`]); the counts are printed at the end.

use crate::common::{context, parse, run_pipeline};
use melior::ir::operation::OperationLike;
use spmd::exec::{
    Executor, GridDims, KernelShape, MemRefId, Memory, NoTrace, RandomKernel, ThreadId, Value,
    WarpStats,
};

const FUEL: u64 = 200_000;
const LAUNCHES: [u32; 2] = [64, 48];
const INPUTS: [i32; 3] = [0, 9, 40];
const DEFAULT_SEEDS: u64 = 40;
const PIPELINE: &str = "builtin.module(spmd-gpu-to-nvvm)";

fn seeds_per_class() -> u64 {
    std::env::var("SPMD_NVVM_EXEC_SEEDS")
        .ok()
        .and_then(|seeds| seeds.parse().ok())
        .unwrap_or(DEFAULT_SEEDS)
}

/// A fresh memory with `%out` and `%ret`.
fn buffers(kernel: &RandomKernel, threads: u32) -> (Memory, MemRefId, MemRefId) {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; kernel.out_len(threads) as usize]);
    let ret = memory.alloc_i32(&vec![0; threads as usize]);
    (memory, out, ret)
}

/// The thread-level run of the `gpu.func`, thread 0 first.
fn run_threads(executor: &Executor, kernel: &RandomKernel, threads: u32, n: i32) -> Result<(Memory, MemRefId, MemRefId), String> {
    let (mut memory, out, ret) = buffers(kernel, threads);
    let dims = GridDims::linear(threads);
    for t in 0..threads {
        let args = RandomKernel::gpu_arguments(out, n, ret);
        executor
            .run_thread("kernel", &args, ThreadId::from_linear(t, &dims), &dims, &mut memory, &mut NoTrace, FUEL)
            .map_err(|error| format!("thread {t} of the original: {error}"))?;
    }
    Ok((memory, out, ret))
}

/// The lockstep run of the lowered `llvm.func`.
fn run_warps(executor: &Executor, kernel: &RandomKernel, threads: u32, n: i32) -> Result<(Memory, WarpStats), String> {
    let (mut memory, out, ret) = buffers(kernel, threads);
    let args = memory.expand_memrefs(&RandomKernel::gpu_arguments(out, n, ret));
    let dims = GridDims::linear(threads);
    let run = executor
        .run_cta("kernel", &|_| args.clone(), &dims, [0, 0, 0], &mut memory, FUEL)
        .map_err(|error| error.to_string())?;
    Ok((memory, run.stats))
}

/// The first difference between the two runs.
fn compare(threads: u32, expected: &(Memory, MemRefId, MemRefId), actual: &Memory) -> Result<(), String> {
    let (memory, out, ret) = expected;
    for t in 0..threads {
        let theirs: Vec<_> = memory.effects_of_thread(t).collect();
        let ours: Vec<_> = actual.effects_of_thread(t).collect();
        if ours.len() != theirs.len() || ours.iter().zip(&theirs).any(|(a, b)| !a.same_as(b)) {
            return Err(format!("thread {t}: stores {ours:?}, expected {theirs:?}"));
        }
    }
    for (name, buffer) in [("%out", out), ("%ret", ret)] {
        let (want, got) = (memory.read_i64s(*buffer), actual.read_i64s(*buffer));
        if want != got {
            return Err(format!("final {name} differs: {got:?}, expected {want:?}"));
        }
    }
    Ok(())
}

/// The outcome of one kernel: runs compared, or the failure.
fn check_kernel(context: &melior::Context, kernel: &RandomKernel, stats: &mut WarpStats) -> Result<usize, String> {
    // The pipeline's upstream conversions are looked up by name.
    melior::utility::register_all_passes();
    let original = parse(context, &kernel.gpu_text);
    let mut lowered = parse(context, &kernel.gpu_text);
    run_pipeline(context, &mut lowered, PIPELINE);
    assert!(lowered.as_operation().verify(), "invalid NVVM output");
    let (thread_level, warp_level) = (Executor::new(&original), Executor::new(&lowered));
    let mut runs = 0;
    for threads in LAUNCHES {
        for n in INPUTS {
            let expected = run_threads(&thread_level, kernel, threads, n)?;
            let (actual, run_stats) =
                run_warps(&warp_level, kernel, threads, n).map_err(|error| format!("{threads} threads, n={n}: {error}"))?;
            compare(threads, &expected, &actual).map_err(|error| format!("{threads} threads, n={n}: {error}"))?;
            *stats += run_stats;
            runs += 1;
        }
    }
    Ok(runs)
}

#[test]
fn nvvm_lockstep_execution_matches_thread_level_on_random_kernels() {
    let context = context();
    let (mut runs, mut kernels, mut stats) = (0, 0, WarpStats::default());
    let mut failures = Vec::new();
    for seed in 0..seeds_per_class() {
        for (class, shape) in KernelShape::classes(3 + (seed as usize * 7) % 24) {
            let kernel = RandomKernel::build(seed * 37 + 11, &shape);
            match check_kernel(&context, &kernel, &mut stats) {
                Ok(count) => runs += count,
                Err(message) => {
                    if std::env::var_os("SPMD_NVVM_EXEC_DUMP").is_some() {
                        eprintln!("{class} seed {seed}: {message}\n{}", kernel.gpu_text);
                    }
                    failures.push(format!("{class} seed {seed} (kernel seed {}): {message}", kernel.seed));
                }
            }
            kernels += 1;
        }
    }
    eprintln!(
        "nvvm_exec: {kernels} kernels, {runs} lockstep runs, {} mismatches; {stats:?}",
        failures.len()
    );
    assert!(failures.is_empty(), "{} of {kernels} kernels failed:\n{}", failures.len(), failures.join("\n"));
    assert!(stats.collectives > 0 && stats.divergent_guards > 0 && stats.uniform_branches > 0);
}
