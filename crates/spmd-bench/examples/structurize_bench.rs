//! Speed, memory and size of CFG structurization on random unstructured
//! CFGs of 1k..100k blocks: `spmd-opt --spmd-structurize` and
//! `--spmd-reconverge` against LLVM's `structurizecfg`, MLIR's
//! `--lift-cf-to-scf` and the floor of any MLIR text tool, `mlir-opt` parse
//! plus print, all on identical shapes.
//!
//! ```sh
//! cargo build --release --bins --examples
//! target/release/examples/structurize_bench                  # 1k 2k 4k 10k 100k
//! target/release/examples/structurize_bench 1k 100k --timeout 300 --anchors-up-to 100k
//! target/release/examples/structurize_bench 1k 2k 4k --loops 250   # ~10% back edges
//! target/release/examples/structurize_bench 1k 10k 30k 100k 300k --family long-range --anchors-up-to 10k
//! ```
//!
//! # Families
//!
//! Every run prints one set of tables per family (`--family
//! code|long-range|both`, default both), each with its own inputs:
//!
//! * `code` (below): code-shaped CFGs with short edges;
//! * `long-range` ([`spmd::testing::long_range`], issue #18): `N` blocks in a
//!   line passing one `i32` accumulator, each ending in a `cf.cond_br`
//!   whose targets are drawn from the next `N/50` blocks
//!   (`--long-range-reach BLOCKS`), 70% on the thread id
//!   (`--long-range-divergent PER_MILLE`), 10% with a back edge instead of
//!   one forward target (`--long-range-back-edges PER_MILLE`), guarded by a
//!   bound on the accumulator. Regions between a divergent branch and its
//!   post-dominator are long: the shape that makes per-branch algorithms
//!   quadratic. Files `long-N.mlir` / `long-N.ll`.
//!
//! # Inputs
//!
//! Per size, one random code-shaped CFG
//! ([`spmd::testing::mlir_cfg::random_function`], seed 42) with 35% divergent
//! branches (`--divergent PER_MILLE`) is written once as MLIR
//! (`$TMPDIR/spmd-structurize-bench/cfg-N.mlir`) and, if an LLVM row runs,
//! lowered once to LLVM IR (`cfg-N.ll`, see [`spmd_bench::llvm_ir`]). The
//! generator (`realistic_cfg`) has no knob for loop density: it plans a loop
//! at about 2.5% of the blocks (nested up to 8 deep, with `continue` edges,
//! about 2% infinite loops), adds if/else skips, early returns, a few
//! switches and unstructured forward gotos that make some cycles
//! irreducible. The first table prints what each input actually has: edges,
//! back edges (DFS retreating edges) and their share, irreducible cycles,
//! conditional branches and how many are divergent.
//!
//! Divergence: in MLIR a branch is divergent when it tests `%t`, an argument
//! marked `spmd.divergent`; `%n` is uniform. In the LLVM IR form `%t` is
//! `llvm.amdgcn.workitem.id.x` and the function an `amdgpu_kernel`, so the
//! same branches are divergent for a divergence-aware `opt`. This benchmark
//! runs plain `opt` (no GPU target), where `structurizecfg` structurizes
//! every branch, uniform or not — the same contract as `--spmd-structurize`
//! without `skip-uniform-regions`.
//!
//! # Rows
//!
//! | row | command (input file, `-o` output file) |
//! |---|---|
//! | `mlir-opt parse+print` | `mlir-opt` — the floor; `× floor` divides by it |
//! | `spmd-opt parse+print` | `spmd-opt` |
//! | `spmd annotate-uniformity` | `spmd-opt --spmd-annotate-uniformity` |
//! | `spmd reconverge` | `spmd-opt --spmd-reconverge` (default ordering) |
//! | `spmd structurize` | `spmd-opt --spmd-structurize=irreducible=fix` |
//! | `spmd structurize skip-uniform` | `... "--spmd-structurize=irreducible=fix skip-uniform-regions=true"` |
//! | `llvm structurizecfg` | `opt -S -passes=mergereturn,lower-switch,fix-irreducible,unify-loop-exits,structurizecfg` on the LLVM IR (the passes AMDGPU runs first establish structurizecfg's preconditions, one exit among them; all five are timed) |
//! | `llvm print<uniformity>` | `opt -mtriple=amdgcn-amd-amdhsa -disable-output -passes=print<uniformity>` on the LLVM IR: LLVM's uniformity analysis, the anchor of `annotate-uniformity` |
//! | `mlir-opt lift-cf-to-scf` | `mlir-opt --lift-cf-to-scf` |
//!
//! The last three are anchors that grow much faster than linearly (on these
//! inputs `structurizecfg` took 0.5 s at 4k, 7.6 s at 10k blocks and did not
//! finish in 120 s at 100k, nor did `lift-cf-to-scf`); they run only up to
//! `--anchors-up-to` blocks (default 10k) and show `skipped` above.
//!
//! # Columns
//!
//! * wall: seconds from spawn to exit of the child, best of `--repeat`
//!   runs (default 3). The runs go in interleaved rounds (each round runs
//!   every row once), so a slow spell of the machine hits every row alike
//!   and the `× floor` ratios stay comparable; a run longer than 10 s is
//!   not repeated.
//!   Every run has a time limit (`--timeout SECS` or `$SPMD_BENCH_TIMEOUT`,
//!   default 120) enforced with `timeout`; a run over it shows
//!   `timeout` (with the peak memory reached until then), a failing run
//!   `error` (numbered; the first stderr line is printed after the table).
//! * peak MB: peak resident memory of the child (`/usr/bin/time -f %M`), the
//!   largest over the runs; `mem × floor` divides by parse+print's.
//! * out bytes × in: output file size over the input file size (`-` for
//!   tools that print no module).
//! * blocks added: blocks in all regions of the output minus the input
//!   (MLIR outputs parsed with melior, so structured regions of
//!   `lift-cf-to-scf` count too and it can be negative); for LLVM, labelled
//!   blocks of the output minus the LLVM IR input.
//! * Flow blocks: `spmd.flow_br` terminators in spmd output; blocks named
//!   `Flow`, `Flow1`, ... in `structurizecfg` output.
//!
//! After each family's table: the growth exponent of each row, the
//! least-squares slope of `ln(wall)` over `ln(blocks)` across the sizes the
//! row finished (≈ 1 is linear, 2 quadratic).
//!
//! Tools: `target/release/spmd-opt` or `$SPMD_OPT`; LLVM 22 tools from
//! `/usr/lib/llvm-22/bin` or `$LLVM_BIN`. No timing is asserted anywhere;
//! compare ratios measured in the same run.

use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        Module, RegionLike,
    },
    Context,
};
use spmd::{
    graph::CfgAnalysis,
    testing::{long_range, mlir_cfg},
};
use spmd_bench::llvm_ir;
use std::{
    fs,
    path::PathBuf,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

struct Config {
    sizes: Vec<usize>,
    timeout: Duration,
    anchors_up_to: usize,
    divergent_per_mille: u64,
    /// Extra loops ([`mlir_cfg::random_function_with_loops`]); 0 = none.
    loop_per_mille: u64,
    /// Which input families run.
    families: Vec<Family>,
    /// The long-range family's options ([`long_range::LongRangeShape`]).
    long_range: long_range::LongRangeShape,
    repeats: usize,
    spmd_opt: PathBuf,
    llvm_bin: PathBuf,
    dir: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Family {
    /// `realistic_cfg`: short, code-shaped edges.
    Code,
    /// [`long_range`]: every edge reaches up to N/50 blocks away.
    LongRange,
}

#[derive(Clone, Copy, PartialEq)]
enum Input {
    Mlir,
    Llvm,
}

struct Tool {
    label: &'static str,
    program: PathBuf,
    args: Vec<String>,
    input: Input,
    /// Runs only up to `--anchors-up-to` blocks.
    anchor: bool,
}

enum Outcome {
    Done {
        secs: f64,
        peak_mb: f64,
        blocks_added: Option<isize>,
        flows: Option<usize>,
        /// Output bytes (`None` for tools that print no module).
        bytes: Option<usize>,
    },
    Error(String),
    /// Killed at the time limit; peak RSS until then.
    Timeout {
        limit: Duration,
        peak_mb: f64,
    },
    Skipped,
}

fn main() {
    let config = parse_args();
    fs::create_dir_all(&config.dir).expect("create the benchmark directory");
    let tools = tools(&config);
    let context = spmd::dialect::context_with_all_dialects();
    context.attach_diagnostic_handler(|_| true); // unparsable output counts as "?"
    for &family in &config.families {
        run_family(&config, &tools, &context, family);
    }
}

/// One input per size of `family`, every tool on each; prints the input
/// table, the result table and the growth exponents.
fn run_family(config: &Config, tools: &[Tool], context: &Context, family: Family) {
    let mut inputs = Vec::new();
    match family {
        Family::Code => println!(
            "\n## Family `code` (seed 42, {:.0}% divergent branches{})\n",
            config.divergent_per_mille as f64 / 10.0,
            if config.loop_per_mille > 0 {
                format!(", extra loops {}‰", config.loop_per_mille)
            } else {
                String::new()
            }
        ),
        Family::LongRange => {
            let lr = &config.long_range;
            println!(
                "\n## Family `long-range` (seed 42, reach {}, {:.0}% divergent, {:.0}% back edges, {:.1}% returns)\n",
                if lr.reach == 0 { "N/50".to_string() } else { lr.reach.to_string() },
                lr.divergent_per_mille as f64 / 10.0,
                lr.back_edge_per_mille as f64 / 10.0,
                lr.return_per_mille as f64 / 10.0
            )
        }
    }
    println!("| blocks | edges | back edges | irreducible cycles | cond. branches | divergent | input bytes |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for &blocks in &config.sizes {
        let (text, graph) = match family {
            Family::Code if config.loop_per_mille == 0 => {
                mlir_cfg::random_function(42, blocks, config.divergent_per_mille)
            }
            Family::Code => mlir_cfg::random_function_with_loops(
                42,
                blocks,
                config.divergent_per_mille,
                config.loop_per_mille,
            ),
            Family::LongRange => {
                let shape = long_range::LongRangeShape {
                    blocks,
                    ..config.long_range.clone()
                };
                long_range::long_range_function(42, &shape, long_range::Signature::Bench)
            }
        };
        let analysis = CfgAnalysis::build(&graph);
        let back_edges = analysis.traversal().back_edges().len();
        let cycles = analysis.cycles();
        let irreducible = cycles.cycles().filter(|&c| !cycles.is_reducible(c)).count();
        let branches = text
            .lines()
            .filter(|l| l.starts_with("  cf.cond_br") || l.starts_with("  cf.switch"))
            .count();
        let divergent = text
            .lines()
            .filter(|l| l.contains("slt, %t,") || l.starts_with("  cf.switch %t "))
            .count();
        println!(
            "| {blocks} | {} | {back_edges} ({:.1}%) | {irreducible} | {branches} | {divergent} | {} |",
            graph.num_edges(),
            100.0 * back_edges as f64 / graph.num_edges().max(1) as f64,
            text.len()
        );
        let stem = match family {
            Family::Code => "cfg",
            Family::LongRange => "long",
        };
        let path = config.dir.join(format!("{stem}-{blocks}.mlir"));
        fs::write(&path, &text).expect("write the MLIR input");
        let input_blocks = mlir_blocks(context, &text);
        inputs.push((blocks, text, path, input_blocks, stem));
    }

    println!(
        "\n| blocks | tool | wall s | × floor | peak MB | mem × floor | out bytes × in | blocks added | Flow blocks |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut errors: Vec<String> = Vec::new();
    // Per tool: (blocks, seconds) of the finished runs, for the exponents.
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); tools.len()];
    for (blocks, text, mlir_path, mlir_input_blocks, stem) in &inputs {
        let mut llvm_input: Option<Result<(PathBuf, usize), String>> = None;
        let mut runs: Vec<Runs> = tools
            .iter()
            .enumerate()
            .map(|(index, tool)| {
                if tool.anchor && *blocks > config.anchors_up_to {
                    return Runs::ended(Outcome::Skipped);
                }
                let input = match tool.input {
                    Input::Mlir => Ok((mlir_path.clone(), *mlir_input_blocks)),
                    Input::Llvm => llvm_input
                        .get_or_insert_with(|| {
                            let ll = llvm_ir::llvm_ir_form(text)?;
                            let path = config.dir.join(format!("{stem}-{blocks}.ll"));
                            fs::write(&path, &ll).map_err(|e| e.to_string())?;
                            Ok((path, llvm_ir::count_blocks(&ll)))
                        })
                        .clone()
                        .map(|(path, count)| (path, Some(count))),
                };
                match input {
                    Ok((input, input_blocks)) => {
                        Runs::new(config, tool, *blocks, index, input, input_blocks)
                    }
                    Err(message) => Runs::ended(Outcome::Error(format!("LLVM IR form: {message}"))),
                }
            })
            .collect();
        // Interleaved rounds: a slow spell of the machine hits every row.
        for round in 1..=config.repeats.max(1) {
            for (tool, runs) in tools.iter().zip(&mut runs) {
                if runs.wants_another_run() {
                    eprintln!(
                        "[{family:?} {blocks} blocks, round {round}] {} ...",
                        tool.label
                    );
                    runs.run(config, tool);
                }
            }
        }
        let mut floor = None;
        for (index, (tool, runs)) in tools.iter().zip(runs).enumerate() {
            let input_bytes = fs::metadata(&runs.input)
                .map(|m| m.len() as usize)
                .unwrap_or(0);
            let outcome = runs.finish(context, tool);
            if let Outcome::Done { secs, peak_mb, .. } = outcome {
                if tool.label == "mlir-opt parse+print" {
                    floor = Some((secs, peak_mb));
                }
                series[index].push((*blocks as f64, secs));
            }
            println!(
                "{}",
                row(
                    *blocks,
                    tool.label,
                    &outcome,
                    floor,
                    input_bytes,
                    &mut errors
                )
            );
        }
    }
    for (index, error) in errors.iter().enumerate() {
        println!("\n[{}] {error}", index + 1);
    }
    println!("\nGrowth exponents (least-squares slope of log wall time over log blocks, sizes where the tool finished):\n");
    println!("| tool | exponent | sizes |");
    println!("|---|---:|---:|");
    for (tool, points) in tools.iter().zip(&series) {
        match growth_exponent(points) {
            Some(k) => println!("| {} | {k:.2} | {} |", tool.label, points.len()),
            None => println!("| {} | - | {} |", tool.label, points.len()),
        }
    }
}

/// The slope of `ln secs` over `ln blocks` (least squares), from at least
/// two sizes.
fn growth_exponent(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let xs: Vec<f64> = points.iter().map(|p| p.0.ln()).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.1.max(1e-4).ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn tools(config: &Config) -> Vec<Tool> {
    let mlir_opt = config.llvm_bin.join("mlir-opt");
    let spmd_opt = config.spmd_opt.clone();
    let tool = |label, program: &PathBuf, args: &[&str], input, anchor| Tool {
        label,
        program: program.clone(),
        args: args.iter().map(|a| a.to_string()).collect(),
        input,
        anchor,
    };
    let structurizecfg = format!("-passes={}", llvm_ir::STRUCTURIZECFG_PIPELINE);
    let opt = config.llvm_bin.join("opt");
    vec![
        tool("mlir-opt parse+print", &mlir_opt, &[], Input::Mlir, false),
        tool("spmd-opt parse+print", &spmd_opt, &[], Input::Mlir, false),
        tool(
            "spmd annotate-uniformity",
            &spmd_opt,
            &["--spmd-annotate-uniformity"],
            Input::Mlir,
            false,
        ),
        tool(
            "spmd reconverge",
            &spmd_opt,
            &["--spmd-reconverge"],
            Input::Mlir,
            false,
        ),
        tool(
            "spmd structurize",
            &spmd_opt,
            &["--spmd-structurize=irreducible=fix"],
            Input::Mlir,
            false,
        ),
        tool(
            "spmd structurize skip-uniform",
            &spmd_opt,
            &["--spmd-structurize=irreducible=fix skip-uniform-regions=true"],
            Input::Mlir,
            false,
        ),
        tool(
            "llvm structurizecfg",
            &opt,
            &["-S", &structurizecfg],
            Input::Llvm,
            true,
        ),
        tool(
            "llvm print<uniformity>",
            &opt,
            &[
                "-mtriple",
                llvm_ir::AMDGPU_TRIPLE,
                "-disable-output",
                "-passes=print<uniformity>",
            ],
            Input::Llvm,
            true,
        ),
        tool(
            "mlir-opt lift-cf-to-scf",
            &mlir_opt,
            &["--lift-cf-to-scf"],
            Input::Mlir,
            true,
        ),
    ]
}

/// A run longer than this is not repeated (the anchors at large sizes).
const REPEAT_UP_TO: Duration = Duration::from_secs(10);

/// The runs of one tool on one input: the best wall time and the peak
/// memory so far, or how it ended early.
struct Runs {
    input: PathBuf,
    input_blocks: Option<usize>,
    output: PathBuf,
    best: Option<Duration>,
    peak_kb: u64,
    /// Set when a run failed or was skipped: no more runs.
    ended: Option<Outcome>,
    /// Set after a run longer than [`REPEAT_UP_TO`]: no more runs.
    slow: bool,
}

impl Runs {
    fn new(
        config: &Config,
        tool: &Tool,
        blocks: usize,
        index: usize,
        input: PathBuf,
        input_blocks: Option<usize>,
    ) -> Self {
        let extension = if tool.input == Input::Llvm {
            "ll"
        } else {
            "mlir"
        };
        let output = config.dir.join(format!("out-{blocks}-{index}.{extension}"));
        Self {
            input,
            input_blocks,
            output,
            best: None,
            peak_kb: 0,
            ended: None,
            slow: false,
        }
    }

    fn ended(outcome: Outcome) -> Self {
        Self {
            input: PathBuf::new(),
            input_blocks: None,
            output: PathBuf::new(),
            best: None,
            peak_kb: 0,
            ended: Some(outcome),
            slow: false,
        }
    }

    fn wants_another_run(&self) -> bool {
        self.ended.is_none() && !self.slow
    }

    /// Runs `tool` once under `/usr/bin/time` and the time limit.
    fn run(&mut self, config: &Config, tool: &Tool) {
        let rss = config.dir.join("rss.txt");
        let stderr = config.dir.join("stderr.txt");
        let start = Instant::now();
        let status = Command::new("/usr/bin/time")
            .arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&rss)
            // SIGTERM at the limit (then SIGKILL 5 s later): `timeout` reaps
            // the child, so its peak RSS reaches /usr/bin/time.
            .arg("timeout")
            .arg("-k")
            .arg("5")
            .arg(format!("{}", config.timeout.as_secs_f64()))
            .arg(&tool.program)
            .args(&tool.args)
            .arg(&self.input)
            .arg("-o")
            .arg(&self.output)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&stderr).expect("create the stderr file"))
            .status();
        let elapsed = start.elapsed();
        let status = match status {
            Ok(status) => status,
            Err(e) => {
                self.ended = Some(Outcome::Error(format!(
                    "{}: cannot run /usr/bin/time: {e}",
                    tool.label
                )));
                return;
            }
        };
        // GNU time writes %M last, also for a killed child.
        let kb = fs::read_to_string(&rss)
            .ok()
            .and_then(|s| s.lines().last()?.trim().parse().ok());
        self.peak_kb = self.peak_kb.max(kb.unwrap_or(0));
        if !status.success() {
            let _ = fs::remove_file(&self.output);
            let peak_mb = self.peak_kb as f64 / 1024.0;
            self.ended = Some(if elapsed >= config.timeout {
                Outcome::Timeout {
                    limit: config.timeout,
                    peak_mb,
                }
            } else {
                let message = fs::read_to_string(&stderr).unwrap_or_default();
                let first = message
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("(no message)");
                let first = first.replace(&*self.input.to_string_lossy(), "<input>");
                Outcome::Error(format!("{}: {status}: {first}", tool.label))
            });
            return;
        }
        self.best = Some(self.best.map_or(elapsed, |best| best.min(elapsed)));
        self.slow = elapsed > REPEAT_UP_TO;
    }

    /// The outcome, counting what the last output added.
    fn finish(self, context: &Context, tool: &Tool) -> Outcome {
        if let Some(outcome) = self.ended {
            return outcome;
        }
        let Some(best) = self.best else {
            return Outcome::Error(format!("{}: never ran", tool.label));
        };
        let printed = self.output.exists();
        let text = fs::read_to_string(&self.output).unwrap_or_default();
        let _ = fs::remove_file(&self.output);
        let (after, flows) = match tool.input {
            Input::Mlir => (
                mlir_blocks(context, &text),
                text.matches("spmd.flow_br").count(),
            ),
            Input::Llvm => (
                Some(llvm_ir::count_blocks(&text)),
                llvm_ir::count_flow_blocks(&text),
            ),
        };
        Outcome::Done {
            secs: best.as_secs_f64(),
            peak_mb: self.peak_kb as f64 / 1024.0,
            blocks_added: if printed {
                after
                    .zip(self.input_blocks)
                    .map(|(a, b)| a as isize - b as isize)
            } else {
                None
            },
            flows: printed.then_some(flows),
            bytes: printed.then_some(text.len()),
        }
    }
}

/// Blocks in every region of every operation below the module, or `None` if
/// `text` does not parse.
fn mlir_blocks(context: &Context, text: &str) -> Option<usize> {
    let module = Module::parse(context, text)?;
    let top = module.as_operation();
    let mut count = 0;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op != top {
            for region in op.regions() {
                let mut block = region.first_block();
                while let Some(b) = block {
                    count += 1;
                    block = b.next_in_region();
                }
            }
        }
        WalkResult::Advance
    });
    Some(count)
}

fn row(
    blocks: usize,
    label: &str,
    outcome: &Outcome,
    floor: Option<(f64, f64)>,
    input_bytes: usize,
    errors: &mut Vec<String>,
) -> String {
    let cells = match outcome {
        Outcome::Done {
            secs,
            peak_mb,
            blocks_added,
            flows,
            bytes,
        } => {
            let ratio = floor.map_or("-".into(), |f| format!("{:.2}×", secs / f.0));
            let mem_ratio = floor.map_or("-".into(), |f| format!("{:.2}×", peak_mb / f.1));
            let show = |n: Option<String>| n.unwrap_or_else(|| "-".into());
            let size = bytes
                .filter(|_| input_bytes > 0)
                .map(|b| format!("{:.2}×", b as f64 / input_bytes as f64));
            format!(
                "{secs:.3} | {ratio} | {peak_mb:.0} | {mem_ratio} | {} | {} | {}",
                show(size),
                show(blocks_added.map(|n| n.to_string())),
                show(flows.map(|n| n.to_string()))
            )
        }
        Outcome::Error(message) => {
            let index = errors.iter().position(|e| e == message).unwrap_or_else(|| {
                errors.push(message.clone());
                errors.len() - 1
            });
            format!("error [{}] | - | - | - | - | - | -", index + 1)
        }
        Outcome::Timeout { limit, peak_mb } => {
            format!(
                "timeout (> {} s) | - | ≥ {peak_mb:.0} | - | - | - | -",
                limit.as_secs()
            )
        }
        Outcome::Skipped => "skipped | - | - | - | - | - | -".into(),
    };
    format!("| {blocks} | {label} | {cells} |")
}

/// Reports a bad command line and exits with status 2.
fn usage_error(message: &str, usage: &str) -> ! {
    eprintln!("structurize_bench: {message}\n{usage}");
    std::process::exit(2);
}

fn parse_args() -> Config {
    let usage = "usage: structurize_bench [SIZES...] [--timeout SECS] [--anchors-up-to BLOCKS] \
                 [--divergent PER_MILLE] [--loops PER_MILLE] [--repeat N] [--family code|long-range|both] \
                 [--long-range-reach BLOCKS] [--long-range-divergent PER_MILLE] [--long-range-back-edges PER_MILLE] \
                 (sizes like 4000, 4_000 or 4k)";
    let number = |s: &str| -> usize {
        let s = s.replace('_', "").to_ascii_lowercase();
        let parsed = match s.strip_suffix('k') {
            Some(thousands) => thousands.parse::<usize>().map(|n| n * 1000),
            None => s.parse(),
        };
        parsed.unwrap_or_else(|_| usage_error(&format!("not a number: {s}"), usage))
    };
    let env_timeout = std::env::var("SPMD_BENCH_TIMEOUT").ok().map(|s| number(&s));
    let mut config = Config {
        sizes: Vec::new(),
        timeout: Duration::from_secs(env_timeout.unwrap_or(120) as u64),
        anchors_up_to: 10_000,
        divergent_per_mille: 350,
        loop_per_mille: 0,
        families: vec![Family::Code, Family::LongRange],
        long_range: long_range::LongRangeShape::new(0),
        repeats: 3,
        spmd_opt: std::env::var_os("SPMD_OPT")
            .map_or_else(|| "target/release/spmd-opt".into(), PathBuf::from),
        llvm_bin: llvm_ir::llvm_bin(),
        dir: std::env::temp_dir().join("spmd-structurize-bench"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            println!("{usage}");
            std::process::exit(0);
        }
        let Some(flag) = arg.strip_prefix("--") else {
            config.sizes.push(number(&arg));
            continue;
        };
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name.to_string(), value.to_string()),
            None => (
                flag.to_string(),
                args.next()
                    .unwrap_or_else(|| usage_error(&format!("--{flag} needs a value"), usage)),
            ),
        };
        if name == "family" {
            config.families = match value.as_str() {
                "code" => vec![Family::Code],
                "long-range" => vec![Family::LongRange],
                "both" => vec![Family::Code, Family::LongRange],
                other => usage_error(&format!("unknown family {other}"), usage),
            };
            continue;
        }
        let value = number(&value);
        match name.as_str() {
            "timeout" => config.timeout = Duration::from_secs(value as u64),
            "anchors-up-to" => config.anchors_up_to = value,
            "divergent" => config.divergent_per_mille = value as u64,
            "loops" => config.loop_per_mille = value as u64,
            "repeat" => config.repeats = value,
            "long-range-reach" => config.long_range.reach = value,
            "long-range-divergent" => config.long_range.divergent_per_mille = value as u64,
            "long-range-back-edges" => config.long_range.back_edge_per_mille = value as u64,
            _ => usage_error(&format!("unknown flag --{name}"), usage),
        }
    }
    if config.timeout.is_zero() {
        usage_error("the time limit must be at least 1 s", usage);
    }
    if config.sizes.is_empty() {
        config.sizes = vec![1_000, 2_000, 4_000, 10_000, 100_000];
    }
    config
}
