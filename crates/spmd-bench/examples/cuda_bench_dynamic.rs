//! The dynamic cost of spmd's lowering on the CUDA benchmark corpus
//! (issue #29's "dynamic proxy"): per kernel of
//! `examples/cuda/bench/recipes.json`, the warp instructions issued by
//! spmd's lowered kernel against those a SIMT machine that reconverges at
//! immediate post-dominators issues for clang's kernel, on the same inputs,
//! with every output buffer compared. It is the dynamic half of
//! `scripts/bench-cuda.sh` (docs/cuda-bench.md), which runs it; the static
//! half counts PTX and SASS instructions.
//!
//! ```text
//! cargo run --release -p spmd-bench --example cuda_bench_dynamic -- \
//!     [--ctas N] [--mcpu SM] [-O N] [--tsv FILE] [--root DIR] [--fuel N] [--canonicalize] \
//!     [--llvm-opt] [--llvm-opt-simt] [KERNEL|FILE.cu ...]
//! ```
//!
//! Per kernel, as `dynamic_bench` does for random kernels:
//!
//! 1. **clang and import.** `scripts/cuda-to-ptx.sh --emit import` compiles
//!    the `.cu` file with the flags and header of the static comparison
//!    (clang `-O2` for `--mcpu sm_90` by default) and imports clang's LLVM
//!    IR with `mlir-translate --import-llvm`: the kernels as
//!    `llvm.func`s.
//! 2. **Both sides.** The imported module runs in
//!    [`Reconvergence::ImmediatePostDominator`] mode (lockstep warps of 32
//!    lanes that may diverge at any branch and reconverge at its immediate
//!    post-dominator: the *SIMT* side); the same module through the
//!    `spmd-gpu-to-nvvm` pipeline (what `scripts/kernel-to-ptx.sh` runs
//!    before `llc`) runs in the default lane-guard mode (the *spmd* side).
//!    `WarpStats::warp_instructions` counts one instruction per operation a
//!    warp, or a diverged group of it, executes (constants aside) plus one
//!    per conditional branch, on LLVM+NVVM dialect operations before
//!    instruction selection; the ratio spmd / SIMT measures what the
//!    wave-level lowering adds (votes, exec-mask predicates, guards).
//!    Being counted before `llc`, it also counts what the backend folds
//!    away: dead `zext`s of exec bits, `xor`/`select` chains on constant
//!    masks (`layer_forward` gets the very same PTX as clang's and a
//!    dynamic ratio of about 1.6). `--canonicalize` runs MLIR's
//!    `canonicalize` (without region simplification) and `cse` on both
//!    modules first, which removes part of it: a sensitivity check, not
//!    the default.
//!
//!    `--llvm-opt` instead sends the spmd side through LLVM's own
//!    optimizer, the way it goes to the GPU: the module after the pipeline
//!    (already the whole device module, in the LLVM dialect: the CUDA front
//!    door has no `gpu.module` to extract) through `mlir-translate
//!    --mlir-to-llvmir`, `opt -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=SM`
//!    (the target `llc` compiles for, with `-mattr=+ptx62` before sm_75 as
//!    `scripts/kernel-to-ptx.sh` passes to `llc`, so that NVPTX's
//!    target-specific passes and cost model apply) and `mlir-translate
//!    --import-llvm`, and runs that module in lane-guard mode: the count
//!    then leaves out what LLVM's middle end folds away (dead exec-mask
//!    bookkeeping), though not what `llc`'s instruction selection folds.
//!    The SIMT side stays clang's `-O2` output, already optimized;
//!    `--llvm-opt-simt` sends it through the same `opt -O3` too (a
//!    symmetry check: `-O3` over clang's `-O2` changes the SIMT count of 11
//!    of the 51 kernels, most of all `stencil1d_shared`'s, by a third; on
//!    the corpus when this was written, the geomean spmd / SIMT is 1.314
//!    with `--llvm-opt` and 1.339 with both, against 1.752 without and
//!    1.636 with `--canonicalize`). Lane-guard mode still requires that the
//!    warp diverge only at lane guards; a kernel whose optimized module
//!    breaks that (LLVM may restructure the wave-level control flow) or uses
//!    an operation the executor lacks is reported as one that cannot run
//!    (none on the corpus when this was written).
//! 3. **Inputs.** The recipe's buffers, at their full sizes, with their
//!    `fill`, `range` (`a + b i`), `randint` (`[lo, hi)`) and `randfloat`
//!    (`[lo, hi)`, rounded to the dtype) contents; the random ones from a
//!    SplitMix64 generator seeded by the file, kernel and buffer index (not
//!    numpy's stream: deterministic, not the GPU runner's values). The
//!    recipe's arguments, grid and block.
//! 4. **Scaling: a sample of the CTAs.** The recipes are sized for a GPU
//!    (up to 32768 CTAs of 256 threads). Both sides run only `--ctas N`
//!    (default 4) CTAs of the recipe's launch, evenly spread over its linear
//!    CTA order: CTA `round(i (G - 1) / (N - 1))` for `i` in `0..N` of the
//!    `G` CTAs (all of them when `G <= N`; CTA 0 alone for `N = 1`), one
//!    after the other in that order on one memory. Grid and block sizes,
//!    arguments and buffers are the recipe's, so every sampled thread sees
//!    what it sees on the GPU (its `gridDim`, grid-stride trip counts,
//!    data), partial warps included; the first and last CTAs cover both
//!    ends of the index space (boundary branches), the others its
//!    interior. What a sample cannot show: effects of the CTAs left out
//!    (a last-block reduction never sees its last block), which are the
//!    same on both sides.
//! 5. **Outputs.** After the run, every buffer of the recipe is compared
//!    between the two sides: integers exactly; floats exactly, else within
//!    the recipe's `float_rtol`/`float_atol` (numpy's `isclose`, defaults
//!    1e-5 and 1e-6), which is reported. A mismatch is reported loudly,
//!    with the first differing element, and the kernel is left out of the
//!    ratios; so is a kernel that either side cannot run (an operation the
//!    executor lacks, a warp that diverges where the lowering promised it
//!    would not, running out of `--fuel` blocks per warp).
//!
//! Prints one line per kernel (SIMT and spmd warp instructions, the ratio,
//! how the outputs compared) and the summary (geomean, worst, how many
//! kernels are over 1.2x); `--tsv FILE` writes the same per kernel for
//! `scripts/bench-cuda.sh`. Kernel names or `.cu` file names as arguments
//! select part of the corpus. Exits non-zero if a kernel cannot run or its
//! outputs differ.

use melior::{
    ir::{operation::OperationLike, Module},
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};
use spmd_oracle::{
    ElementType, Executor, GridDims, MemRefId, Memory, Reconvergence, Value, VotePoison, WarpStats,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The pipeline of `scripts/kernel-to-ptx.sh` (thread-level input, warps of
/// 32).
const PIPELINE: &str = "builtin.module(spmd-gpu-to-nvvm{predicate=true wave-size=32})";

/// `--canonicalize`: MLIR's folding and dead-code removal on both sides.
const CANONICALIZE: &str = "builtin.module(llvm.func(canonicalize{region-simplify=disabled}, cse))";

struct Options {
    root: PathBuf,
    mcpu: String,
    opt: String,
    ctas: u32,
    fuel: u64,
    tsv: Option<PathBuf>,
    canonicalize: bool,
    llvm_opt: bool,
    llvm_opt_simt: bool,
    select: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: cuda_bench_dynamic [--ctas N] [--mcpu SM] [-O N] [--tsv FILE] [--root DIR] \
         [--fuel N] [--canonicalize] [--llvm-opt] [--llvm-opt-simt] [KERNEL|FILE.cu ...]"
    );
    std::process::exit(2)
}

fn options() -> Options {
    let mut options = Options {
        root: Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        mcpu: "sm_90".into(),
        opt: "2".into(),
        ctas: 4,
        fuel: 50_000_000,
        tsv: None,
        canonicalize: false,
        llvm_opt: false,
        llvm_opt_simt: false,
        select: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--ctas" => options.ctas = value().parse().unwrap_or_else(|_| usage()),
            "--fuel" => options.fuel = value().parse().unwrap_or_else(|_| usage()),
            "--mcpu" => options.mcpu = value(),
            "-O" => options.opt = value(),
            "--tsv" => options.tsv = Some(value().into()),
            "--root" => options.root = value().into(),
            "--canonicalize" => options.canonicalize = true,
            "--llvm-opt" => options.llvm_opt = true,
            "--llvm-opt-simt" => options.llvm_opt_simt = true,
            "-h" | "--help" => usage(),
            _ if arg.starts_with("-O") && arg.len() == 3 => options.opt = arg[2..].to_string(),
            _ if arg.starts_with('-') => usage(),
            _ => options.select.push(arg),
        }
    }
    if options.ctas == 0 {
        usage();
    }
    options
}

fn main() {
    let options = options();
    let recipes_path = options.root.join("examples/cuda/bench/recipes.json");
    let text = std::fs::read_to_string(&recipes_path)
        .unwrap_or_else(|error| fail(&format!("{}: {error}", recipes_path.display())));
    let recipes = Json::parse(&text)
        .and_then(|json| Recipe::all(&json))
        .unwrap_or_else(|error| fail(&format!("{}: {error}", recipes_path.display())));
    let recipes: Vec<Recipe> = recipes
        .into_iter()
        .filter(|recipe| {
            options.select.is_empty()
                || options
                    .select
                    .iter()
                    .any(|name| *name == recipe.kernel || *name == recipe.file)
        })
        .collect();
    if recipes.is_empty() {
        fail("no recipe selected");
    }
    let context = spmd::dialect::context_with_all_dialects();
    spmd::register_all_passes();
    melior::utility::register_all_passes();

    // Files in recipe order, each compiled once.
    let mut files: Vec<&str> = Vec::new();
    for recipe in &recipes {
        if !files.contains(&recipe.file.as_str()) {
            files.push(&recipe.file);
        }
    }
    println!(
        "spmd / SIMT warp instructions on the CUDA corpus ({} kernels; --mcpu {}, -O{}, \
         {} sampled CTAs per launch{}{}{})",
        recipes.len(),
        options.mcpu,
        options.opt,
        options.ctas,
        if options.canonicalize {
            "; MLIR canonicalize+cse on both sides"
        } else {
            ""
        },
        if options.llvm_opt {
            "; spmd side through LLVM opt -O3"
        } else {
            ""
        },
        if options.llvm_opt_simt {
            "; SIMT side through LLVM opt -O3"
        } else {
            ""
        },
    );
    let mut results: Vec<Outcome> = Vec::new();
    for file in files {
        let modules = compile(&context, &options, file);
        for recipe in recipes.iter().filter(|recipe| recipe.file == file) {
            let started = Instant::now();
            let outcome = match &modules {
                Ok((original, lowered)) => measure(&options, recipe, original, lowered),
                Err(error) => Outcome::failed(recipe, error.clone()),
            };
            print_row(&outcome, started.elapsed().as_secs_f64());
            results.push(outcome);
        }
    }
    summary(&results);
    if let Some(path) = &options.tsv {
        std::fs::write(path, tsv(&results))
            .unwrap_or_else(|error| fail(&format!("{}: {error}", path.display())));
    }
    if results
        .iter()
        .any(|outcome| !matches!(outcome.status, Status::Measured { .. }))
    {
        std::process::exit(1);
    }
}

fn fail(message: &str) -> ! {
    eprintln!("cuda_bench_dynamic: {message}");
    std::process::exit(2)
}

/// The executors of both sides of one `.cu` file: clang's module, and the
/// same through spmd's pipeline.
fn compile(
    context: &Context,
    options: &Options,
    file: &str,
) -> Result<(Executor, Executor), String> {
    let source = options.root.join("examples/cuda/bench").join(file);
    let output = Command::new(options.root.join("scripts/cuda-to-ptx.sh"))
        .args([
            "--emit",
            "import",
            "--mcpu",
            &options.mcpu,
            "-O",
            &options.opt,
        ])
        .arg(&source)
        .output()
        .map_err(|error| format!("cannot run scripts/cuda-to-ptx.sh: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "cuda-to-ptx.sh --emit import failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut original =
        Module::parse(context, &text).ok_or("the imported module does not parse".to_string())?;
    let mut lowered =
        Module::parse(context, &text).ok_or("the imported module does not parse".to_string())?;
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), PIPELINE)
        .map_err(|error| format!("pipeline: {error}"))?;
    if manager.run(&mut lowered).is_err() || !lowered.as_operation().verify() {
        return Err("spmd's pipeline failed".into());
    }
    if options.canonicalize {
        for module in [&mut original, &mut lowered] {
            let manager = PassManager::new(context);
            parse_pass_pipeline(manager.as_operation_pass_manager(), CANONICALIZE)
                .map_err(|error| format!("canonicalize: {error}"))?;
            if manager.run(module).is_err() || !module.as_operation().verify() {
                return Err("canonicalize failed".into());
            }
        }
    }
    if options.llvm_opt {
        lowered = llvm_round_trip(context, options, &lowered, file, "spmd")?;
    }
    if options.llvm_opt_simt {
        original = llvm_round_trip(context, options, &original, file, "SIMT")?;
    }
    let simt = Executor::new(&original).with_reconvergence(Reconvergence::ImmediatePostDominator);
    let spmd = Executor::new(&lowered).with_vote_poison(VotePoison::Poison);
    Ok((simt, spmd))
}

/// `--llvm-opt`: `module` (LLVM dialect) through `mlir-translate
/// --mlir-to-llvmir`, `opt -O3` for the NVPTX target and `mlir-translate
/// --import-llvm`, as a new module.
fn llvm_round_trip<'c>(
    context: &'c Context,
    options: &Options,
    module: &Module<'c>,
    file: &str,
    side: &str,
) -> Result<Module<'c>, String> {
    let tools = PathBuf::from(
        std::env::var("LLVM_TOOLS_DIR").unwrap_or_else(|_| "/usr/lib/llvm-22/bin".into()),
    );
    let run = |tool: &str, args: &[&str], input: &[u8]| -> Result<Vec<u8>, String> {
        let mut child = Command::new(tools.join(tool))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|error| format!("cannot run {tool}: {error}"))?;
        let mut stdin = child.stdin.take().expect("piped");
        let input = input.to_vec();
        let writer = std::thread::spawn(move || {
            use std::io::Write as _;
            stdin.write_all(&input)
        });
        let output = child
            .wait_with_output()
            .map_err(|error| format!("{tool}: {error}"))?;
        let _ = writer.join();
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr.lines().take(3).collect::<Vec<_>>().join(" / ");
            return Err(format!(
                "LLVM -O3 round trip of the {side} side of {file}: {tool} {} failed: {first}",
                args.join(" ")
            ));
        }
        Ok(output.stdout)
    };
    let text = module.as_operation().to_string();
    let llvm_ir = run(
        "mlir-translate",
        &["--mlir-to-llvmir", "-"],
        text.as_bytes(),
    )?;
    let mcpu = format!("-mcpu={}", options.mcpu);
    let mut opt_args = vec![
        "-O3",
        "-mtriple=nvptx64-nvidia-cuda",
        mcpu.as_str(),
        "-S",
        "-",
    ];
    // As scripts/kernel-to-ptx.sh gives llc: PTX 6.2 (activemask) before sm_75.
    let sm: u32 = options
        .mcpu
        .trim_start_matches("sm_")
        .trim_end_matches('a')
        .parse()
        .unwrap_or(90);
    if sm < 75 {
        opt_args.push("-mattr=+ptx62");
    }
    let optimized = run("opt", &opt_args, &llvm_ir)?;
    let imported = run("mlir-translate", &["--import-llvm", "-"], &optimized)?;
    let imported = String::from_utf8_lossy(&imported);
    let module = Module::parse(context, &imported).ok_or_else(|| {
        format!("LLVM -O3 round trip of the {side} side of {file}: the result does not parse")
    })?;
    if !module.as_operation().verify() {
        return Err(format!(
            "LLVM -O3 round trip of the {side} side of {file}: the result does not verify"
        ));
    }
    Ok(module)
}

/// How one kernel went.
struct Outcome {
    file: String,
    kernel: String,
    ctas: Vec<u32>,
    status: Status,
}

enum Status {
    Measured {
        simt: WarpStats,
        spmd: WarpStats,
        /// How the outputs compared: `None` if bit for bit, else the
        /// number of float elements that differ within the tolerance.
        within_tolerance: Option<usize>,
    },
    /// A side could not run the kernel.
    Failed(String),
    /// The outputs differ.
    Mismatch(String),
}

impl Outcome {
    fn failed(recipe: &Recipe, error: String) -> Self {
        Self {
            file: recipe.file.clone(),
            kernel: recipe.kernel.clone(),
            ctas: Vec::new(),
            status: Status::Failed(error),
        }
    }

    fn ratio(&self) -> Option<f64> {
        match &self.status {
            Status::Measured { simt, spmd, .. } => {
                Some(spmd.warp_instructions as f64 / simt.warp_instructions.max(1) as f64)
            }
            _ => None,
        }
    }
}

/// The CTAs (linear indices) of a launch of `grid` CTAs that the sample
/// runs (see the module docs).
fn sampled_ctas(grid: u32, ctas: u32) -> Vec<u32> {
    if grid <= ctas {
        return (0..grid).collect();
    }
    if ctas == 1 {
        return vec![0];
    }
    let mut sample: Vec<u32> = (0..ctas)
        .map(|i| {
            ((u64::from(i) * u64::from(grid - 1) + u64::from(ctas - 1) / 2) / u64::from(ctas - 1))
                as u32
        })
        .collect();
    sample.dedup();
    sample
}

fn measure(options: &Options, recipe: &Recipe, simt: &Executor, spmd: &Executor) -> Outcome {
    let dims = GridDims {
        block_dim: recipe.block,
        grid_dim: recipe.grid,
        subgroup_size: 32,
    };
    let ctas = sampled_ctas(recipe.grid.iter().product(), options.ctas);
    let mut outcome = Outcome {
        file: recipe.file.clone(),
        kernel: recipe.kernel.clone(),
        ctas: ctas.clone(),
        status: Status::Failed(String::new()),
    };
    let run =
        |executor: &Executor, side: &str| -> Result<(Memory, Vec<MemRefId>, WarpStats), String> {
            let (mut memory, buffers, args) = recipe.inputs()?;
            let mut stats = WarpStats::default();
            for &cta in &ctas {
                let [gx, gy, _] = recipe.grid;
                let position = [cta % gx, (cta / gx) % gy, cta / (gx * gy)];
                let run = executor
                    .run_cta(
                        &recipe.kernel,
                        &|_| args.clone(),
                        &dims,
                        position,
                        &mut memory,
                        options.fuel,
                    )
                    .map_err(|error| format!("{side} side, CTA {position:?}: {error}"))?;
                stats += run.stats;
            }
            Ok((memory, buffers, stats))
        };
    let (simt_run, spmd_run) = match (run(simt, "SIMT"), run(spmd, "spmd")) {
        (Ok(simt_run), Ok(spmd_run)) => (simt_run, spmd_run),
        (Err(error), _) | (_, Err(error)) => {
            outcome.status = Status::Failed(error);
            return outcome;
        }
    };
    outcome.status = match compare(
        recipe,
        (&simt_run.0, &simt_run.1),
        (&spmd_run.0, &spmd_run.1),
    ) {
        Ok(within_tolerance) => Status::Measured {
            simt: simt_run.2,
            spmd: spmd_run.2,
            within_tolerance,
        },
        Err(detail) => Status::Mismatch(detail),
    };
    outcome
}

/// Compares every recipe buffer of the two final memories: `Ok(None)` if
/// all are equal bit for bit, `Ok(Some(n))` if `n` float elements differ
/// within the recipe's tolerance, else the first difference.
fn compare(
    recipe: &Recipe,
    (simt, simt_buffers): (&Memory, &[MemRefId]),
    (spmd, spmd_buffers): (&Memory, &[MemRefId]),
) -> Result<Option<usize>, String> {
    let contents = |memory: &Memory, memref: MemRefId| {
        memory
            .buffer_of(memref)
            .map(|buffer| memory.contents(buffer))
            .unwrap_or_default()
    };
    let mut close = 0;
    for (index, (&a, &b)) in simt_buffers.iter().zip(spmd_buffers).enumerate() {
        let (expected, actual) = (contents(simt, a), contents(spmd, b));
        let mut differing = 0;
        let mut first = None;
        for (position, (x, y)) in expected.iter().zip(&actual).enumerate() {
            if x.same_as(*y) {
                continue;
            }
            let within = match (x, y) {
                (Value::F32(x), Value::F32(y)) => recipe.close(f64::from(*x), f64::from(*y)),
                (Value::F64(x), Value::F64(y)) => recipe.close(*x, *y),
                _ => false,
            };
            if within {
                close += 1;
            } else {
                differing += 1;
                first.get_or_insert((position, *x, *y));
            }
        }
        if let Some((position, x, y)) = first {
            return Err(format!(
                "buffer {index} ({} x {}): {differing} elements differ; first [{position}]: \
                 SIMT {x}, spmd {y}",
                recipe.buffers[index].dtype, recipe.buffers[index].n
            ));
        }
    }
    Ok((close > 0).then_some(close))
}

fn print_row(outcome: &Outcome, seconds: f64) {
    let name = format!("{} ({})", outcome.kernel, outcome.file);
    match &outcome.status {
        Status::Measured {
            simt,
            spmd,
            within_tolerance,
        } => {
            let note = match within_tolerance {
                None => "outputs equal".to_string(),
                Some(n) => format!("outputs equal within tolerance ({n} floats differ)"),
            };
            println!(
                "  {name:<44} {:>11} / {:>11} = {:.3}  [{note}; CTAs {:?}; {seconds:.1} s]",
                spmd.warp_instructions,
                simt.warp_instructions,
                outcome.ratio().unwrap_or(f64::NAN),
                outcome.ctas,
            );
        }
        Status::Failed(error) => println!("  {name:<44} CANNOT RUN: {error}"),
        Status::Mismatch(detail) => println!(
            "  {name:<44} OUTPUT MISMATCH (CTAs {:?}): {detail}",
            outcome.ctas
        ),
    }
}

fn geomean(ratios: &[f64]) -> f64 {
    (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp()
}

fn summary(results: &[Outcome]) {
    let measured: Vec<(&Outcome, f64)> = results
        .iter()
        .filter_map(|outcome| outcome.ratio().map(|ratio| (outcome, ratio)))
        .collect();
    let failed = results
        .iter()
        .filter(|outcome| matches!(outcome.status, Status::Failed(_)))
        .count();
    let mismatched = results
        .iter()
        .filter(|outcome| matches!(outcome.status, Status::Mismatch(_)))
        .count();
    if measured.is_empty() {
        println!("no kernel measured ({failed} cannot run, {mismatched} output mismatches)");
        return;
    }
    let ratios: Vec<f64> = measured.iter().map(|(_, ratio)| *ratio).collect();
    let (worst, worst_ratio) = measured
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("not empty");
    let over = ratios.iter().filter(|&&ratio| ratio > 1.2).count();
    println!(
        "{} of {} kernels measured: spmd / SIMT warp instructions geomean {:.3}, worst {:.3} \
         ({}), {over} over 1.2x; {failed} cannot run, {mismatched} output mismatches",
        measured.len(),
        results.len(),
        geomean(&ratios),
        worst_ratio,
        worst.kernel
    );
}

/// Per kernel: file, kernel, status (`ok`, `tolerance`, `failed`,
/// `mismatch`), SIMT and spmd warp instructions and their ratio, SIMT
/// divergent branches, sampled CTAs, detail.
fn tsv(results: &[Outcome]) -> String {
    let mut out =
        String::from("file\tkernel\tstatus\tsimt\tspmd\tratio\tsimt_divergent\tctas\tdetail\n");
    for outcome in results {
        let ctas = outcome
            .ctas
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let clean = |text: &str| text.replace(['\t', '\n'], " ");
        let (status, simt, spmd, ratio, divergent, detail) = match &outcome.status {
            Status::Measured {
                simt,
                spmd,
                within_tolerance,
            } => (
                if within_tolerance.is_some() {
                    "tolerance"
                } else {
                    "ok"
                },
                simt.warp_instructions.to_string(),
                spmd.warp_instructions.to_string(),
                format!("{:.4}", outcome.ratio().unwrap_or(f64::NAN)),
                simt.divergent_guards.to_string(),
                within_tolerance
                    .map(|n| format!("{n} floats differ within the recipe's tolerance"))
                    .unwrap_or_default(),
            ),
            Status::Failed(error) => (
                "failed",
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                clean(error),
            ),
            Status::Mismatch(detail) => (
                "mismatch",
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                clean(detail),
            ),
        };
        let _ = writeln!(
            out,
            "{}\t{}\t{status}\t{simt}\t{spmd}\t{ratio}\t{divergent}\t{ctas}\t{detail}",
            outcome.file, outcome.kernel
        );
    }
    out
}

// ---------------------------------------------------------------- recipes

/// One buffer of a recipe.
struct BufferRecipe {
    dtype: String,
    n: u64,
    init: (String, Vec<f64>),
}

/// One launch of `recipes.json`.
struct Recipe {
    file: String,
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    buffers: Vec<BufferRecipe>,
    /// `("buf", index)` or `(scalar type, value)`.
    args: Vec<(String, f64)>,
    rtol: f64,
    atol: f64,
}

impl Recipe {
    fn all(json: &Json) -> Result<Vec<Self>, String> {
        json.array()?.iter().map(Self::of).collect()
    }

    fn of(json: &Json) -> Result<Self, String> {
        let dims = |key: &str| -> Result<[u32; 3], String> {
            let list = json.get(key)?.array()?;
            let mut dims = [1u32; 3];
            for (slot, value) in dims.iter_mut().zip(list) {
                *slot = value.number()? as u32;
            }
            Ok(dims)
        };
        let kernel = json.get("kernel")?.string()?.to_string();
        let context = |error: String| format!("recipe {kernel}: {error}");
        let shared = json
            .get("shared")
            .map_or(Ok(0.0), Json::number)
            .map_err(context)?;
        if shared != 0.0 {
            return Err(context("dynamic shared memory is not supported".into()));
        }
        let buffers = json
            .get("bufs")?
            .array()?
            .iter()
            .map(|buffer| {
                let init = buffer.get("init")?.object()?;
                let [(kind, value)] = init else {
                    return Err("an init with one key".to_string());
                };
                let values = match value {
                    Json::Array(values) => {
                        values.iter().map(Json::number).collect::<Result<_, _>>()?
                    }
                    other => vec![other.number()?],
                };
                Ok(BufferRecipe {
                    dtype: buffer.get("dtype")?.string()?.to_string(),
                    n: buffer.get("n")?.number()? as u64,
                    init: (kind.clone(), values),
                })
            })
            .collect::<Result<Vec<_>, String>>()
            .map_err(context)?;
        let args = json
            .get("args")?
            .array()?
            .iter()
            .map(|arg| {
                let [(kind, value)] = arg.object()? else {
                    return Err("an argument with one key".to_string());
                };
                Ok((kind.clone(), value.number()?))
            })
            .collect::<Result<Vec<_>, String>>()
            .map_err(context)?;
        let tolerance = |key: &str, default: f64| json.get(key).map_or(Ok(default), Json::number);
        Ok(Self {
            file: json.get("file")?.string()?.to_string(),
            grid: dims("grid")?,
            block: dims("block")?,
            buffers,
            args,
            rtol: tolerance("float_rtol", 1e-5)?,
            atol: tolerance("float_atol", 1e-6)?,
            kernel,
        })
    }

    /// numpy's `isclose(actual, expected)`, NaNs equal.
    fn close(&self, expected: f64, actual: f64) -> bool {
        (expected.is_nan() && actual.is_nan())
            || (actual - expected).abs() <= self.atol + self.rtol * expected.abs()
    }

    /// A fresh memory with the recipe's buffers, their memrefs, and the
    /// kernel's arguments.
    fn inputs(&self) -> Result<(Memory, Vec<MemRefId>, Vec<Value>), String> {
        let mut memory = Memory::new();
        let mut memrefs = Vec::new();
        for (index, buffer) in self.buffers.iter().enumerate() {
            let (element, _) = dtype(&buffer.dtype)?;
            let values = self.buffer_values(index, buffer)?;
            let memref = memory
                .alloc_values(element, &values)
                .map_err(|error| format!("buffer {index}: {error}"))?;
            memrefs.push(memref);
        }
        let args = self
            .args
            .iter()
            .map(|(kind, value)| {
                Ok(match kind.as_str() {
                    "buf" => {
                        let memref = memrefs
                            .get(*value as usize)
                            .ok_or(format!("no buffer {value}"))?;
                        Value::Ptr(memory.pointer_to(*memref).expect("allocated"))
                    }
                    "i8" | "u8" => Value::int(8, *value as i64).expect("width"),
                    "i16" | "u16" => Value::int(16, *value as i64).expect("width"),
                    "i32" | "u32" => Value::int(32, *value as i64).expect("width"),
                    "i64" | "u64" => Value::int(64, *value as i64).expect("width"),
                    "f32" => Value::F32(*value as f32),
                    "f64" => Value::F64(*value),
                    other => return Err(format!("unknown argument kind {other}")),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok((memory, memrefs, args))
    }

    /// The initial elements of buffer `index`.
    fn buffer_values(&self, index: usize, buffer: &BufferRecipe) -> Result<Vec<Value>, String> {
        let (element, float) = dtype(&buffer.dtype)?;
        let (kind, parameters) = &buffer.init;
        let parameter = |at: usize| {
            parameters
                .get(at)
                .copied()
                .ok_or(format!("buffer {index}: {kind} needs {} values", at + 1))
        };
        let integer = |value: i64| match element {
            ElementType::Int(width) => Value::int(width, value).expect("width"),
            ElementType::F32 => Value::F32(value as f32),
            ElementType::F64 => Value::F64(value as f64),
            ElementType::Index => Value::Index(value),
        };
        let real = |value: f64| match element {
            ElementType::F32 => Value::F32(value as f32),
            ElementType::F64 => Value::F64(value),
            _ => integer(value as i64),
        };
        let n = buffer.n;
        let mut random = SplitMix64::seeded(&format!("{}/{}#{index}", self.file, self.kernel));
        Ok(match kind.as_str() {
            "fill" => {
                let value = parameter(0)?;
                vec![
                    if float {
                        real(value)
                    } else {
                        integer(value as i64)
                    };
                    n as usize
                ]
            }
            "range" => {
                let (start, step) = (parameter(0)?, parameter(1)?);
                if start.fract() == 0.0 && step.fract() == 0.0 {
                    (0..n as i64)
                        .map(|i| integer(start as i64 + step as i64 * i))
                        .collect()
                } else {
                    (0..n).map(|i| real(start + step * i as f64)).collect()
                }
            }
            "randint" => {
                let (low, high) = (parameter(0)? as i64, parameter(1)? as i64);
                if high <= low {
                    return Err(format!("buffer {index}: empty randint range"));
                }
                let span = (high - low) as u64;
                (0..n)
                    .map(|_| integer(low + (random.next() % span) as i64))
                    .collect()
            }
            "randfloat" => {
                let (low, high) = (parameter(0)?, parameter(1)?);
                (0..n)
                    .map(|_| real(low + (high - low) * random.unit()))
                    .collect()
            }
            other => return Err(format!("buffer {index}: unknown init {other}")),
        })
    }
}

/// The element type of a recipe dtype, and whether it is a float.
fn dtype(name: &str) -> Result<(ElementType, bool), String> {
    Ok(match name {
        "int8" | "uint8" => (ElementType::Int(8), false),
        "int16" | "uint16" => (ElementType::Int(16), false),
        "int32" | "uint32" => (ElementType::Int(32), false),
        "int64" | "uint64" => (ElementType::Int(64), false),
        "float32" => (ElementType::F32, true),
        "float64" => (ElementType::F64, true),
        other => return Err(format!("unknown dtype {other}")),
    })
}

/// SplitMix64 (Steele, Lea and Flood), seeded by FNV-1a of a name.
struct SplitMix64(u64);

impl SplitMix64 {
    fn seeded(name: &str) -> Self {
        let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
        Self(hash)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A float in [0, 1) with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

// ---------------------------------------------------------------- JSON

/// Just enough JSON for `recipes.json` (no dependency for one file).
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Result<Self, String> {
        let mut parser = JsonParser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = parser.value()?;
        parser.space();
        if parser.at != parser.bytes.len() {
            return Err(format!("JSON: trailing text at byte {}", parser.at));
        }
        Ok(value)
    }

    fn get(&self, key: &str) -> Result<&Json, String> {
        self.object()?
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
            .ok_or(format!("no key {key:?}"))
    }

    fn object(&self) -> Result<&[(String, Json)], String> {
        match self {
            Self::Object(members) => Ok(members),
            _ => Err("expected an object".into()),
        }
    }

    fn array(&self) -> Result<&[Json], String> {
        match self {
            Self::Array(values) => Ok(values),
            _ => Err("expected an array".into()),
        }
    }

    fn string(&self) -> Result<&str, String> {
        match self {
            Self::String(text) => Ok(text),
            _ => Err("expected a string".into()),
        }
    }

    fn number(&self) -> Result<f64, String> {
        match self {
            Self::Number(value) => Ok(*value),
            Self::Bool(flag) => Ok(f64::from(u8::from(*flag))),
            Self::Null => Err("expected a number, found null".into()),
            _ => Err("expected a number".into()),
        }
    }
}

struct JsonParser<'t> {
    bytes: &'t [u8],
    at: usize,
}

impl JsonParser<'_> {
    fn space(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn error<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("JSON: {what} at byte {}", self.at))
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.space();
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            self.error(&format!("expected '{}'", byte as char))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.space();
        match self.bytes.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                loop {
                    self.space();
                    let Json::String(key) = self.value()? else {
                        return self.error("expected a key");
                    };
                    self.expect(b':')?;
                    members.push((key, self.value()?));
                    self.space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Object(members));
                        }
                        _ => return self.error("expected ',' or '}'"),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut values = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Array(values));
                }
                loop {
                    values.push(self.value()?);
                    self.space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Array(values));
                        }
                        _ => return self.error("expected ',' or ']'"),
                    }
                }
            }
            Some(b'"') => {
                self.at += 1;
                let mut text = String::new();
                loop {
                    match self.bytes.get(self.at) {
                        Some(b'"') => {
                            self.at += 1;
                            return Ok(Json::String(text));
                        }
                        Some(b'\\') => {
                            let escaped = self.bytes.get(self.at + 1).copied();
                            self.at += 2;
                            text.push(match escaped {
                                Some(b'n') => '\n',
                                Some(b't') => '\t',
                                Some(byte @ (b'"' | b'\\' | b'/')) => byte as char,
                                _ => return self.error("unsupported escape"),
                            });
                        }
                        Some(_) => {
                            let rest = std::str::from_utf8(&self.bytes[self.at..])
                                .map_err(|_| "JSON: invalid UTF-8".to_string())?;
                            let c = rest.chars().next().expect("not empty");
                            text.push(c);
                            self.at += c.len_utf8();
                        }
                        None => return self.error("unterminated string"),
                    }
                }
            }
            Some(b't') if self.bytes[self.at..].starts_with(b"true") => {
                self.at += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.bytes[self.at..].starts_with(b"false") => {
                self.at += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.bytes[self.at..].starts_with(b"null") => {
                self.at += 4;
                Ok(Json::Null)
            }
            Some(_) => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|byte| b"+-.eE0123456789".contains(byte))
                {
                    self.at += 1;
                }
                std::str::from_utf8(&self.bytes[start..self.at])
                    .ok()
                    .and_then(|number| number.parse().ok())
                    .map(Json::Number)
                    .map_or_else(|| self.error("expected a value"), Ok)
            }
            None => self.error("unexpected end"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_spread_over_the_grid() {
        assert_eq!(sampled_ctas(4096, 4), vec![0, 1365, 2730, 4095]);
        assert_eq!(sampled_ctas(3, 4), vec![0, 1, 2]);
        assert_eq!(sampled_ctas(10, 1), vec![0]);
        assert_eq!(sampled_ctas(5, 2), vec![0, 4]);
    }

    #[test]
    fn recipes_parse_and_fill_their_buffers() {
        let text = r#"[{"file": "a.cu", "kernel": "k", "grid": [2, 1, 1], "block": [48, 1, 1],
            "shared": 0, "bufs": [{"dtype": "int32", "n": 3, "init": {"range": [5, -2]}},
            {"dtype": "float32", "n": 2, "init": {"randfloat": [1, 2]}},
            {"dtype": "uint8", "n": 4, "init": {"randint": [0, 4]}}],
            "args": [{"buf": 1}, {"i32": -7}, {"f32": 0.5}], "float_rtol": 1e-4}]"#;
        let recipes = Json::parse(text)
            .and_then(|json| Recipe::all(&json))
            .unwrap();
        let recipe = &recipes[0];
        assert_eq!((recipe.grid, recipe.block), ([2, 1, 1], [48, 1, 1]));
        assert_eq!(recipe.rtol, 1e-4);
        let (memory, buffers, args) = recipe.inputs().unwrap();
        assert_eq!(memory.read_i64s(buffers[0]), vec![5, 3, 1]);
        let floats = memory.contents(memory.buffer_of(buffers[1]).unwrap());
        assert!(floats
            .iter()
            .all(|value| matches!(value, Value::F32(x) if (1.0..2.0).contains(x))));
        assert!(memory
            .read_i64s(buffers[2])
            .iter()
            .all(|&v| (0..4).contains(&v)));
        assert_eq!(args[1], Value::i32(-7));
        assert_eq!(args[2], Value::F32(0.5));
        // The same recipe gives the same contents.
        let (again, buffers_again, _) = recipe.inputs().unwrap();
        assert_eq!(
            memory.read_i64s(buffers[2]),
            again.read_i64s(buffers_again[2])
        );
    }
}
