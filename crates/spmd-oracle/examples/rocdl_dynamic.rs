//! The dynamic head-to-head of issue #32: operations issued per wave by
//! spmd's AMDGPU lowering and by MLIR's own route, in the lockstep
//! executor.
//!
//! `cargo run --release --example rocdl_dynamic -p spmd-oracle -- [--seeds N]`
//!
//! For `N` seeds (default 25) of each shape class of the random corpus
//! (kernels derived as `dump_kernel` derives them, so `reducible-7` here is
//! `dump_kernel reducible 7 --gpu` and the bench's `reducible-7`), for
//! waves of 64 (gfx90a, 128 threads: two waves) and of 32 (gfx1100, 64
//! threads) and for `%n` in {0, 9, 40}:
//!
//! 1. the original `gpu.func` kernel runs thread by thread: the reference;
//! 2. **spmd**: the kernel after `canonicalize,cse` (as the bench hands it
//!    over) through `spmd-gpu-to-rocdl{wave-size=W chipset=C}` (lane
//!    branches, its default), run in lockstep waves that split only at
//!    lane guards and lane branches;
//! 3. **llvm**: the same canonicalized kernel through MLIR's own route
//!    (`convert-scf-to-cf`, `convert-gpu-to-rocdl`,
//!    `reconcile-unrealized-casts`, what `spmd-compile --reference` runs),
//!    run in lockstep waves that split at every divergent branch and
//!    reconverge at its immediate post-dominator
//!    ([`Reconvergence::ImmediatePostDominator`]).
//!
//! Each lockstep run must perform the reference's stores, thread by
//! thread, and leave the same `%out` and `%ret`. The measure is
//! [`WarpStats::issued_ops`]: every MLIR operation and terminator a wave
//! (or a diverged group of it) executes counts once, however many lanes
//! are active. A Markdown table goes to stdout: per chip and class, the
//! operations issued per wave on each route, the geometric mean of the
//! per-kernel ratios spmd / llvm (each kernel's operations summed over the
//! inputs) and the shares of kernels where spmd issues fewer and as many.
//! Mismatches are listed on stderr and make the exit status non-zero;
//! kernels a route fails to lower are counted and listed.
//!
//! Limits: these are MLIR-level operations, not ISA instructions: no
//! instruction selection, register allocation, `v_cndmask` expansion or
//! backend folds, and a constant costs as much as a load. The llvm
//! column is an idealized exec-mask machine: LLVM's backend first
//! structurizes the CFG (Flow blocks, duplicated irreducible cycles,
//! returns unified so that groups rejoin), which the IPDOM run does not
//! model; groups whose paths only meet at the exit run to their returns
//! independently here.

use melior::{
    ir::{operation::OperationLike, Module},
    Context,
};
use spmd_oracle::{
    Executor, GridDims, KernelShape, MemRefId, Memory, NoTrace, RandomKernel, Reconvergence,
    ThreadId, VotePoison, WarpStats,
};
use std::fmt::Write as _;

/// Blocks each thread or wave may enter.
const FUEL: u64 = 200_000;
/// The `%n` of each run.
const INPUTS: [i32; 3] = [0, 9, 40];
/// The shape classes, in the bench's order.
const CLASSES: [&str; 4] = ["reducible", "irreducible", "multi_exit_switch", "uniform"];
/// Failures printed to stderr per kind.
const SHOWN: usize = 5;

/// An AMD chip, its wave size and the launch measured on it.
struct Chip {
    name: &'static str,
    wave: u32,
    threads: u32,
}

const CHIPS: [Chip; 2] = [
    Chip {
        name: "gfx90a",
        wave: 64,
        threads: 128,
    },
    Chip {
        name: "gfx1100",
        wave: 32,
        threads: 64,
    },
];

impl Chip {
    fn dims(&self) -> GridDims {
        GridDims {
            subgroup_size: self.wave,
            ..GridDims::linear(self.threads)
        }
    }
}

/// The two lowerings compared.
#[derive(Clone, Copy)]
enum Route {
    Spmd,
    Llvm,
}

impl Route {
    fn pipeline(self, chip: &Chip) -> String {
        match self {
            Self::Spmd => format!(
                "builtin.module(spmd-gpu-to-rocdl{{wave-size={} chipset={}}})",
                chip.wave, chip.name
            ),
            Self::Llvm => format!(
                "builtin.module(convert-scf-to-cf,gpu.module(convert-gpu-to-rocdl{{chipset={}}}),\
                 reconcile-unrealized-casts)",
                chip.name
            ),
        }
    }

    fn reconvergence(self) -> Reconvergence {
        match self {
            Self::Spmd => Reconvergence::LaneGuards,
            Self::Llvm => Reconvergence::ImmediatePostDominator,
        }
    }
}

/// The kernel `dump_kernel <class> <seed> --gpu` prints.
fn kernel(class: &str, seed: u64) -> RandomKernel {
    let shape_of = match class {
        "irreducible" => KernelShape::irreducible,
        "multi_exit_switch" => KernelShape::multi_exit_switch,
        "uniform" => KernelShape::uniform,
        _ => KernelShape::reducible,
    };
    RandomKernel::build(seed * 13 + 5, &shape_of(3 + seed as usize % 25))
}

/// `text` parsed, verified and run through `pipeline`; `Err` with the
/// diagnostics.
fn lower<'c>(context: &'c Context, text: &str, pipeline: &str) -> Result<Module<'c>, String> {
    let mut module = Module::parse(context, text).ok_or("does not parse")?;
    let messages = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let handler = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(d.to_string());
        true
    });
    let manager = melior::pass::PassManager::new(context);
    melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .map_err(|error| format!("{pipeline}: {error}"))?;
    let result = manager.run(&mut module);
    context.detach_diagnostic_handler(handler);
    let verified = module.as_operation().verify();
    match result {
        Ok(()) if verified => Ok(module),
        Ok(()) => Err("output does not verify".into()),
        Err(_) => Err(messages.borrow().join("; ")),
    }
}

/// A fresh memory with `%out` and `%ret`, allocated in the same order for
/// every run so that their ids agree.
fn buffers(kernel: &RandomKernel, threads: u32) -> (Memory, MemRefId, MemRefId) {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; kernel.out_len(threads) as usize]);
    let ret = memory.alloc_i32(&vec![0; threads as usize]);
    (memory, out, ret)
}

/// A finished run: its memory and the `%out` and `%ret` buffers.
type Finished = (Memory, MemRefId, MemRefId);

/// The thread-level run of the original kernel, thread 0 first.
fn reference(
    executor: &Executor,
    kernel: &RandomKernel,
    chip: &Chip,
    n: i32,
) -> Result<Finished, String> {
    let dims = chip.dims();
    let (mut memory, out, ret) = buffers(kernel, chip.threads);
    let args = RandomKernel::gpu_arguments(out, n, ret);
    for t in 0..chip.threads {
        let id = ThreadId::from_linear(t, &dims);
        executor
            .run_thread("kernel", &args, id, &dims, &mut memory, &mut NoTrace, FUEL)
            .map_err(|error| format!("n={n}: thread {t} of the original: {error}"))?;
    }
    Ok((memory, out, ret))
}

/// The lockstep run of a lowered kernel: its memory and what its waves did.
fn lockstep(
    executor: &Executor,
    kernel: &RandomKernel,
    chip: &Chip,
    n: i32,
) -> Result<(Memory, WarpStats), String> {
    let (mut memory, out, ret) = buffers(kernel, chip.threads);
    let args = memory.expand_memrefs(&RandomKernel::gpu_arguments(out, n, ret));
    let run = executor
        .run_cta(
            "kernel",
            &|_| args.clone(),
            &chip.dims(),
            [0, 0, 0],
            &mut memory,
            FUEL,
        )
        .map_err(|error| format!("n={n}: {error}"))?;
    Ok((memory, run.stats))
}

/// The first difference between the reference and a lockstep run: each
/// thread's stores, then the final buffers.
fn first_difference(threads: u32, expected: &Finished, actual: &Memory) -> Result<(), String> {
    spmd_oracle::compare_memories_after(threads, &expected.0, actual).map_err(|m| m.to_string())
}

/// What one route did with one kernel on one chip.
enum Outcome {
    /// The route failed to lower it.
    NotLowered(String),
    /// A run failed or differed from the reference.
    Mismatch(String),
    /// Operations issued and waves run, over every input.
    Issued(WarpStats),
}

/// One route of one kernel on one chip, against the `references` (one per
/// input).
fn measure(
    context: &Context,
    canonical: &str,
    kernel: &RandomKernel,
    chip: &Chip,
    route: Route,
    references: &[Finished],
) -> Outcome {
    let module = match lower(context, canonical, &route.pipeline(chip)) {
        Ok(module) => module,
        Err(message) => return Outcome::NotLowered(message),
    };
    let executor = Executor::new(&module)
        .with_vote_poison(VotePoison::Poison)
        .with_reconvergence(route.reconvergence());
    let mut stats = WarpStats::default();
    for (&n, expected) in INPUTS.iter().zip(references) {
        let checked = lockstep(&executor, kernel, chip, n).and_then(|(memory, run)| {
            first_difference(chip.threads, expected, &memory).map_err(|e| format!("n={n}: {e}"))?;
            Ok(run)
        });
        match checked {
            Ok(run) => stats += run,
            Err(message) => return Outcome::Mismatch(message),
        }
    }
    Outcome::Issued(stats)
}

/// One kernel on one chip, both routes.
struct Measured {
    chip: usize,
    class: &'static str,
    name: String,
    spmd: Outcome,
    llvm: Outcome,
}

/// `kernel` on every chip; `Err` when the original kernel does not run or
/// does not canonicalize.
fn measure_kernel(
    context: &Context,
    class: &'static str,
    seed: u64,
) -> Result<Vec<Measured>, String> {
    let kernel = kernel(class, seed);
    let original = Module::parse(context, &kernel.gpu_text).ok_or("does not parse")?;
    let canonical = lower(
        context,
        &kernel.gpu_text,
        "builtin.module(canonicalize,cse)",
    )?;
    let canonical = canonical.as_operation().to_string();
    let thread_level = Executor::new(&original);
    let mut measured = Vec::new();
    for (index, chip) in CHIPS.iter().enumerate() {
        let references = INPUTS
            .iter()
            .map(|&n| reference(&thread_level, &kernel, chip, n))
            .collect::<Result<Vec<_>, _>>()?;
        let [spmd, llvm] = [Route::Spmd, Route::Llvm]
            .map(|route| measure(context, &canonical, &kernel, chip, route, &references));
        measured.push(Measured {
            chip: index,
            class,
            name: format!("{class}-{seed}"),
            spmd,
            llvm,
        });
    }
    Ok(measured)
}

/// A row of the table: counts over some kernels, `[spmd, llvm]` pairs.
#[derive(Default)]
struct Row {
    kernels: usize,
    not_lowered: [usize; 2],
    mismatches: [usize; 2],
    issued: [WarpStats; 2],
    log_ratios: Vec<f64>,
    fewer: usize,
    same: usize,
}

impl Row {
    fn add(&mut self, measured: &Measured) {
        self.kernels += 1;
        let mut issued = [None; 2];
        for (side, outcome) in [&measured.spmd, &measured.llvm].into_iter().enumerate() {
            match outcome {
                Outcome::NotLowered(_) => self.not_lowered[side] += 1,
                Outcome::Mismatch(_) => self.mismatches[side] += 1,
                Outcome::Issued(stats) => issued[side] = Some(*stats),
            }
        }
        if let [Some(spmd), Some(llvm)] = issued {
            self.issued[0] += spmd;
            self.issued[1] += llvm;
            let ratio = spmd.issued_ops as f64 / llvm.issued_ops.max(1) as f64;
            self.log_ratios.push(ratio.ln());
            self.fewer += usize::from(spmd.issued_ops < llvm.issued_ops);
            self.same += usize::from(spmd.issued_ops == llvm.issued_ops);
        }
    }

    fn line(&self, chip: &str, class: &str) -> String {
        let per_wave = |s: &WarpStats| s.issued_ops as f64 / s.waves.max(1) as f64;
        let both = self.log_ratios.len();
        let share = |count: usize| {
            format!(
                "{count} ({:.0}%)",
                100.0 * count as f64 / both.max(1) as f64
            )
        };
        let geomean = (self.log_ratios.iter().sum::<f64>() / both.max(1) as f64).exp();
        let [spmd, llvm] = self.issued.map(|stats| per_wave(&stats));
        format!(
            "| {chip} | {class} | {} | {}, {} | {}, {} | {both} | {spmd:.1} / {llvm:.1} | \
             {geomean:.3} | {} | {} |",
            self.kernels,
            self.not_lowered[0],
            self.not_lowered[1],
            self.mismatches[0],
            self.mismatches[1],
            share(self.fewer),
            share(self.same),
        )
    }
}

/// The Markdown table: a row per chip and class, one per chip overall,
/// and an overall one.
fn table(results: &[Measured]) -> String {
    let mut out = String::from(
        "| chip | class | kernels | not lowered (spmd, llvm) | mismatches (spmd, llvm) | \
         measured on both | issued ops per wave spmd / llvm | spmd / llvm, geomean | \
         spmd issues fewer | as many |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut total = Row::default();
    for (index, chip) in CHIPS.iter().enumerate() {
        let mut all = Row::default();
        for class in CLASSES {
            let mut row = Row::default();
            for measured in results
                .iter()
                .filter(|m| m.chip == index && m.class == class)
            {
                row.add(measured);
                all.add(measured);
                total.add(measured);
            }
            writeln!(out, "{}", row.line(chip.name, class)).unwrap();
        }
        writeln!(
            out,
            "{}",
            all.line(&format!("**{}**", chip.name), "**all**")
        )
        .unwrap();
    }
    writeln!(out, "{}", total.line("**both**", "**all**")).unwrap();
    out
}

/// `(kernel on chip, message)` of the outcomes `pick` selects.
fn failures(results: &[Measured], pick: fn(&Outcome) -> Option<&String>) -> Vec<String> {
    let mut found = Vec::new();
    for measured in results {
        for (route, outcome) in [("spmd", &measured.spmd), ("llvm", &measured.llvm)] {
            if let Some(message) = pick(outcome) {
                let chip = CHIPS[measured.chip].name;
                found.push(format!("{} on {chip}, {route}: {message}", measured.name));
            }
        }
    }
    found
}

/// The `--seeds N` argument, 25 without it.
fn seeds() -> u64 {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|arg| arg == "--seeds") {
        None => 25,
        Some(at) => args
            .get(at + 1)
            .and_then(|seeds| seeds.parse().ok())
            .expect("--seeds takes a number"),
    }
}

fn main() {
    let seeds = seeds();
    let context = spmd::dialect::context_with_all_dialects();
    melior::utility::register_all_passes();
    spmd::register_all_passes();
    let (mut results, mut unmeasured) = (Vec::new(), Vec::new());
    for class in CLASSES {
        for seed in 0..seeds {
            match measure_kernel(&context, class, seed) {
                Ok(measured) => results.extend(measured),
                Err(message) => unmeasured.push(format!("{class}-{seed}: {message}")),
            }
        }
    }
    print!("{}", table(&results));
    let not_lowered = failures(&results, |o| match o {
        Outcome::NotLowered(message) => Some(message),
        _ => None,
    });
    for line in unmeasured.iter().chain(&not_lowered) {
        println!("\nNot measured: {line}");
    }
    let mismatches = failures(&results, |o| match o {
        Outcome::Mismatch(message) => Some(message),
        _ => None,
    });
    for line in mismatches.iter().take(SHOWN) {
        eprintln!("rocdl_dynamic: mismatch: {line}");
    }
    if !mismatches.is_empty() || !unmeasured.is_empty() {
        eprintln!(
            "rocdl_dynamic: {} mismatches, {} kernels not run",
            mismatches.len(),
            unmeasured.len()
        );
        std::process::exit(1);
    }
}
