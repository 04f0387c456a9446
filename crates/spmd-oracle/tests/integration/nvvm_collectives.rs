//! The NVVM differential with warp collectives inside divergent code
//! (issue #28): random structured kernels
//! ([`RandomCollectiveKernel`]: nested divergent `if`s, loops with per-lane
//! trip counts, divergent `break`s and early returns, and shuffles, votes,
//! ballots, `redux.sync`, `match.sync`, `bar.warp.sync` and `activemask`
//! with explicit member masks inside them) through the whole
//! `spmd-gpu-to-nvvm` pipeline, in both front doors (`gpu.func` and the
//! LLVM dialect as clang's CUDA output imports).
//!
//! The reference is the *original* thread-level kernel run SIMT-style in
//! lockstep warps that reconverge at immediate post-dominators
//! ([`Reconvergence::ImmediatePostDominator`]): the lanes that execute a
//! collective together are the lanes that meet there, and the member-mask
//! rule is checked. A failing reference run is a generator bug (the
//! generator builds its masks to be right by construction), so the test
//! asserts it never happens. The lowered kernel runs in the default
//! lane-guard mode with [`VotePoison::Poison`]. For 64, 48 and 100 threads
//! (partial last warps) and a few `%n`, every thread's stores and the final
//! `%out` and `%ret` buffers must agree; member-mask violations of the
//! lowered kernel (illegal collectives: the `.sync` op executed by lanes
//! outside its mask, as on the H100 before the fix) are counted apart.
//!
//! `SPMD_NVVM_COLLECTIVE_SEEDS=<n>` sets the number of seeds (default
//! [`DEFAULT_SEEDS`]); `SPMD_NVVM_COLLECTIVE_DUMP` prints failing kernels;
//! `SPMD_NVVM_COLLECTIVE_OPT=<spmd-opt>` lowers with another build of
//! `spmd-opt` instead of the library linked in (with a build from before
//! the issue #28 fix, 2d185b7^, most kernels fail with illegal
//! collectives).

use crate::common::{context, lower_to_nvvm, parse, Form, NVVM_PIPELINE};
use spmd_oracle::{
    CollectiveShape, Executor, GridDims, MemRefId, Memory, RandomCollectiveKernel, Reconvergence,
    VotePoison, WarpError, WarpStats,
};

const FUEL: u64 = 200_000;
const LAUNCHES: [u32; 3] = [64, 48, 100];
const INPUTS: [i32; 3] = [0, 7, 50];
const DEFAULT_SEEDS: u64 = 32;

/// A CTA run of `executor`'s `@kernel` on fresh `%out` and `%ret`.
fn run(
    executor: &Executor,
    kernel: &RandomCollectiveKernel,
    form: Form,
    threads: u32,
    n: i32,
    lowered: bool,
) -> Result<(Memory, MemRefId, MemRefId, WarpStats), WarpError> {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; kernel.out_len(threads) as usize]);
    let ret = memory.alloc_i32(&vec![0; threads as usize]);
    let args = form.arguments(&memory, out, n, ret, lowered);
    let run = executor.run_cta(
        "kernel",
        &|_| args.clone(),
        &GridDims::linear(threads),
        [0, 0, 0],
        &mut memory,
        FUEL,
    )?;
    Ok((memory, out, ret, run.stats))
}

/// The first difference between the reference and the lowered run.
fn compare(
    threads: u32,
    expected: &Memory,
    actual: &Memory,
    buffers: [MemRefId; 2],
) -> Result<(), String> {
    for t in 0..threads {
        let theirs: Vec<_> = expected.effects_of_thread(t).collect();
        let ours: Vec<_> = actual.effects_of_thread(t).collect();
        if ours.len() != theirs.len() || ours.iter().zip(&theirs).any(|(a, b)| !a.same_as(b)) {
            return Err(format!("thread {t}: stores {ours:?}, expected {theirs:?}"));
        }
    }
    for (name, buffer) in ["%out", "%ret"].into_iter().zip(buffers) {
        let (want, got) = (expected.read_i64s(buffer), actual.read_i64s(buffer));
        if want != got {
            return Err(format!("final {name} differs: {got:?}, expected {want:?}"));
        }
    }
    Ok(())
}

/// `text` through the pipeline, or through `SPMD_NVVM_COLLECTIVE_OPT`'s
/// `spmd-opt` if set.
fn lower<'c>(context: &'c melior::Context, text: &str) -> melior::ir::Module<'c> {
    match std::env::var_os("SPMD_NVVM_COLLECTIVE_OPT") {
        Some(opt) => lower_with(context, text, std::path::Path::new(&opt)),
        None => lower_to_nvvm(context, text),
    }
}

/// Lowers `text` with another build of `spmd-opt` (`SPMD_NVVM_COLLECTIVE_OPT`),
/// e.g. one from before the issue #28 fix, to see the differential fail.
fn lower_with<'c>(
    context: &'c melior::Context,
    text: &str,
    opt: &std::path::Path,
) -> melior::ir::Module<'c> {
    use std::io::Write as _;
    let mut child = std::process::Command::new(opt)
        .arg(format!("--pass-pipeline={NVVM_PIPELINE}"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{}: {error}", opt.display()));
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(text.as_bytes())
        .expect("writing the kernel");
    let output = child.wait_with_output().expect("spmd-opt runs");
    assert!(
        output.status.success(),
        "{} failed on\n{text}",
        opt.display()
    );
    parse(context, &String::from_utf8(output.stdout).expect("UTF-8"))
}

/// What the runs of all kernels did.
#[derive(Debug, Default)]
struct Counts {
    kernels: usize,
    runs: usize,
    mismatches: Vec<String>,
    illegal: Vec<String>,
    reference_failures: Vec<String>,
    reference: WarpStats,
    lowered: WarpStats,
    divergent_collectives: usize,
}

fn check_kernel(
    context: &melior::Context,
    kernel: &RandomCollectiveKernel,
    form: Form,
    counts: &mut Counts,
) {
    let original = parse(context, form.text(kernel));
    let lowered = lower(context, form.text(kernel));
    let reference =
        Executor::new(&original).with_reconvergence(Reconvergence::ImmediatePostDominator);
    let warp_level = Executor::new(&lowered).with_vote_poison(VotePoison::Poison);
    let dump = std::env::var_os("SPMD_NVVM_COLLECTIVE_DUMP").is_some();
    counts.kernels += 1;
    for threads in LAUNCHES {
        for n in INPUTS {
            let what = format!("seed {} {form:?}, {threads} threads, n={n}", kernel.seed);
            let (expected, out, ret, stats) = match run(&reference, kernel, form, threads, n, false)
            {
                Ok(run) => run,
                Err(error) => {
                    if dump {
                        eprintln!("{what}: reference: {error}\n{}", form.text(kernel));
                    }
                    counts
                        .reference_failures
                        .push(format!("{what}: reference: {error}"));
                    return;
                }
            };
            counts.reference += stats;
            counts.runs += 1;
            let failure = match run(&warp_level, kernel, form, threads, n, true) {
                Ok((actual, _, _, stats)) => {
                    counts.lowered += stats;
                    compare(threads, &expected, &actual, [out, ret])
                        .err()
                        .map(|message| (false, message))
                }
                Err(error @ WarpError::MemberMask { .. }) => Some((true, error.to_string())),
                Err(error) => Some((false, error.to_string())),
            };
            if let Some((illegal, message)) = failure {
                if dump {
                    eprintln!("{what}: {message}\n{}", form.text(kernel));
                }
                let list = if illegal {
                    &mut counts.illegal
                } else {
                    &mut counts.mismatches
                };
                list.push(format!("{what}: {message}"));
                // One failure per kernel and form.
                return;
            }
        }
    }
}

#[test]
fn nvvm_lockstep_execution_matches_simt_reference_on_random_collective_kernels() {
    let context = context();
    let seeds = spmd::testing::seed_count("SPMD_NVVM_COLLECTIVE_SEEDS", DEFAULT_SEEDS);
    let mut counts = Counts::default();
    for seed in 0..seeds {
        let kernel = RandomCollectiveKernel::build(seed, &CollectiveShape::of_corpus_seed(seed));
        counts.divergent_collectives += kernel.num_divergent_collectives;
        for form in [Form::Gpu, Form::Llvm] {
            check_kernel(&context, &kernel, form, &mut counts);
        }
    }
    eprintln!(
        "nvvm_collectives: {} kernels, {} runs, {} mismatches, {} illegal collectives, \
         {} invalid references; {} collectives executed by the reference, {} by the lowered \
         kernels ({} divergent guards); {} collectives placed in divergent code",
        counts.kernels,
        counts.runs,
        counts.mismatches.len(),
        counts.illegal.len(),
        counts.reference_failures.len(),
        counts.reference.collectives,
        counts.lowered.collectives,
        counts.lowered.divergent_guards,
        counts.divergent_collectives,
    );
    assert!(
        counts.reference_failures.is_empty(),
        "generator bug: {} reference runs failed:\n{}",
        counts.reference_failures.len(),
        counts.reference_failures.join("\n")
    );
    let failures: Vec<&String> = counts.mismatches.iter().chain(&counts.illegal).collect();
    assert!(
        failures.is_empty(),
        "{} of {} kernels failed ({} illegal collectives):\n{}",
        failures.len(),
        counts.kernels,
        counts.illegal.len(),
        failures
            .iter()
            .map(|failure| failure.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(counts.divergent_collectives > 0 && counts.reference.collectives > 0);
    assert!(counts.lowered.collectives > 0 && counts.lowered.divergent_guards > 0);
    // Collectives really ran in part of a warp, on both sides.
    assert!(counts.reference.partial_collectives > 0 && counts.lowered.partial_collectives > 0);
}

/// Both renderings parse, verify and go through the pipeline; every kernel
/// has collectives, most of them in divergent code.
#[test]
fn random_collective_kernels_parse_and_lower() {
    let context = context();
    for seed in 0..20 {
        let kernel = RandomCollectiveKernel::build(seed, &CollectiveShape::default());
        assert!(kernel.num_collectives > 0, "seed {seed}");
        for text in [&kernel.gpu_text, &kernel.llvm_text] {
            lower(&context, text);
        }
    }
}
