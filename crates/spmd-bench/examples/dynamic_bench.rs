//! The dynamic cost of wave-level code on NVIDIA (issue #29): warp
//! instructions issued by spmd's lowered kernel against those a SIMT
//! machine issues for the original, per kernel, on the random corpora.
//!
//! For each kernel (the LLVM-dialect rendering, as clang's CUDA output
//! imports) the original runs in lockstep warps that reconverge at
//! immediate post-dominators (`Reconvergence::ImmediatePostDominator`: what
//! the hardware's own reconvergence does for structured code) and the
//! output of the `spmd-gpu-to-nvvm` pipeline runs in the default lane-guard
//! mode; `WarpStats::warp_instructions` counts one instruction per
//! operation a warp (or a diverged group of it) executes, constants aside,
//! plus one per conditional branch. Both count operations of the LLVM and
//! NVVM dialects before `llc`, so the ratio measures what the lowering adds
//! (votes, exec-bit predicates, guards), not instruction selection. Launches
//! of 64, 48 and 100 threads (partial warps), `%n` in {0, 9, 40}, summed
//! per kernel; the outputs are compared too (a mismatch is reported and the
//! kernel left out of the ratios).
//!
//! ```text
//! cargo run --release -p spmd-bench --example dynamic_bench -- [seeds] [--worst N]
//! ```
//!
//! Prints, for the ordinary corpus (every `KernelShape` class, irreducible
//! cycles included) and the corpus with warp collectives, the number of
//! kernels, the geomean, median, 90th percentile and worst ratio, the
//! share of kernels at or under 1.2x, and the worst kernels.

use melior::{ir::operation::OperationLike, pass::PassManager, utility::parse_pass_pipeline};
use melior::{ir::Module, Context};
use spmd_oracle::{
    CollectiveShape, Executor, GridDims, KernelShape, Memory, RandomCollectiveKernel, RandomKernel,
    Reconvergence, VotePoison,
};

const FUEL: u64 = 200_000;
const LAUNCHES: [u32; 3] = [64, 48, 100];
const INPUTS: [i32; 3] = [0, 9, 40];
const PIPELINE: &str = "builtin.module(spmd-gpu-to-nvvm)";

/// One kernel of a corpus: a name, its LLVM-dialect text and its slots.
struct Kernel {
    name: String,
    text: String,
    slots: u32,
}

/// The warp instructions of both sides, summed over every launch.
struct Measured {
    name: String,
    simt: u64,
    spmd: u64,
}

impl Measured {
    fn ratio(&self) -> f64 {
        self.spmd as f64 / self.simt.max(1) as f64
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds: u64 = args.iter().find_map(|arg| arg.parse().ok()).unwrap_or(100);
    let worst = args
        .iter()
        .position(|arg| arg == "--worst")
        .and_then(|at| args.get(at + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let context = spmd::dialect::context_with_all_dialects();
    spmd::register_all_passes();
    melior::utility::register_all_passes();
    let ordinary: Vec<Kernel> = (0..seeds)
        .flat_map(|seed| {
            KernelShape::classes(3 + (seed as usize * 7) % 24)
                .into_iter()
                .map(move |(class, shape)| {
                    let kernel = RandomKernel::build(seed * 37 + 11, &shape);
                    Kernel {
                        name: format!("{class} {seed}"),
                        text: kernel.llvm_text,
                        slots: kernel.slots,
                    }
                })
        })
        .collect();
    let collective: Vec<Kernel> = (0..seeds)
        .map(|seed| {
            let kernel =
                RandomCollectiveKernel::build(seed, &CollectiveShape::of_corpus_seed(seed));
            Kernel {
                name: format!("collective {seed}"),
                text: kernel.llvm_text,
                slots: kernel.slots,
            }
        })
        .collect();
    for (corpus, kernels) in [("ordinary", ordinary), ("collectives", collective)] {
        let measured: Vec<Measured> = kernels
            .iter()
            .filter_map(|kernel| measure(&context, kernel))
            .collect();
        report(corpus, kernels.len(), measured, worst);
    }
}

/// Both runs of every launch of `kernel`; `None` (reported) if a run fails
/// or the outputs differ.
fn measure(context: &Context, kernel: &Kernel) -> Option<Measured> {
    let original = Module::parse(context, &kernel.text)?;
    let mut lowered = Module::parse(context, &kernel.text)?;
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), PIPELINE).ok()?;
    if manager.run(&mut lowered).is_err() || !lowered.as_operation().verify() {
        eprintln!("{}: the pipeline failed", kernel.name);
        return None;
    }
    let simt = Executor::new(&original).with_reconvergence(Reconvergence::ImmediatePostDominator);
    let spmd = Executor::new(&lowered).with_vote_poison(VotePoison::Poison);
    let mut measured = Measured {
        name: kernel.name.clone(),
        simt: 0,
        spmd: 0,
    };
    for threads in LAUNCHES {
        for n in INPUTS {
            let run = |executor: &Executor| run(executor, kernel, threads, n);
            match (run(&simt), run(&spmd)) {
                (Ok((simt_out, simt_count)), Ok((spmd_out, spmd_count))) => {
                    if simt_out != spmd_out {
                        eprintln!("{}: outputs differ ({threads} threads, n={n})", kernel.name);
                        return None;
                    }
                    measured.simt += simt_count;
                    measured.spmd += spmd_count;
                }
                (Err(error), _) | (_, Err(error)) => {
                    eprintln!("{} ({threads} threads, n={n}): {error}", kernel.name);
                    return None;
                }
            }
        }
    }
    Some(measured)
}

/// One lockstep launch: the final `%out` and `%ret`, and the warp
/// instructions issued.
fn run(
    executor: &Executor,
    kernel: &Kernel,
    threads: u32,
    n: i32,
) -> Result<(Vec<i64>, u64), String> {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; (threads * kernel.slots) as usize]);
    let ret = memory.alloc_i32(&vec![0; threads as usize]);
    let pointer = |memref| memory.pointer_to(memref).expect("allocated");
    let args = RandomKernel::llvm_arguments(pointer(out), n, pointer(ret));
    let run = executor
        .run_cta(
            "kernel",
            &|_| args.clone(),
            &GridDims::linear(threads),
            [0, 0, 0],
            &mut memory,
            FUEL,
        )
        .map_err(|error| error.to_string())?;
    let mut values = memory.read_i64s(out);
    values.extend(memory.read_i64s(ret));
    Ok((values, run.stats.warp_instructions))
}

fn report(corpus: &str, total: usize, mut measured: Vec<Measured>, worst: usize) {
    if measured.is_empty() {
        println!("{corpus}: no kernel measured");
        return;
    }
    measured.sort_by(|a, b| a.ratio().total_cmp(&b.ratio()));
    let ratios: Vec<f64> = measured.iter().map(Measured::ratio).collect();
    let geomean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    let at = |fraction: f64| ratios[((ratios.len() - 1) as f64 * fraction).round() as usize];
    let within = ratios.iter().filter(|&&r| r <= 1.2).count();
    println!(
        "{corpus}: {} of {total} kernels measured; spmd/SIMT warp instructions geomean {geomean:.3}, \
         median {:.3}, p90 {:.3}, worst {:.3}; {within} ({:.1}%) at or under 1.2x",
        ratios.len(),
        at(0.5),
        at(0.9),
        at(1.0),
        100.0 * within as f64 / ratios.len() as f64
    );
    for kernel in measured.iter().rev().take(worst) {
        println!(
            "  {:<28} {:>9} / {:>9} = {:.3}",
            kernel.name,
            kernel.spmd,
            kernel.simt,
            kernel.ratio()
        );
    }
}
