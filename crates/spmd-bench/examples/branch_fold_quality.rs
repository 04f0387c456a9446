//! Quality of `--spmd-branch-fold` against `-canonicalize` on the random
//! kernel corpus (`RandomKernel`, every class), after each base pipeline
//! (`spmd-reconverge`, and `spmd-structurize{irreducible=fix}` once it is
//! implemented).
//!
//! For each base pipeline it prints the blocks and operations (directly in
//! function bodies) after the base, and how many of them each cleanup
//! removes: `spmd-branch-fold`, `canonicalize`, `canonicalize` followed by
//! `spmd-branch-fold` (what folding adds on top of canonicalize), and
//! `spmd-branch-fold` followed by `canonicalize`. Columns: outputs that
//! are no longer reconverging (Definition 1, fresh uniformity analysis),
//! that have more violations than the base of any property the
//! branch-fold gate checks (`broke property`: reconverging, reducible,
//! pure linear Flow chains, loop tokens in cycle headers, unmarked
//! branches reconverge), that fail `--spmd-verify-structured` (after
//! structurize), and cleanups that failed (the verifier rejected the
//! output). Two tables per base: totals over the kernels where every
//! cleanup produced valid IR, and over those where, in addition, no
//! cleanup broke a property (the fair comparison: removals that break the
//! contract are not counted).
//!
//! `cargo run --release --example branch_fold_quality [seeds per class]`

use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline, Context};
use spmd::{
    cfg_regions,
    testing::{
        checks::{
            branch_fold_violations, check_reconverging_with_exits, count_blocks_and_operations,
        },
        ir::is_function_exit,
    },
    RegionUniformity, UniformityOptions,
};
use spmd_oracle::{KernelShape, RandomKernel};

const CLEANUPS: &[(&str, &str)] = &[
    ("branch-fold", "spmd-branch-fold"),
    ("canonicalize", "canonicalize"),
    ("canonicalize,branch-fold", "canonicalize,spmd-branch-fold"),
    ("branch-fold,canonicalize", "spmd-branch-fold,canonicalize"),
];

#[derive(Clone, Copy, Default)]
struct Row {
    blocks: isize,
    ops: isize,
    changed: usize,
    not_reconverging: usize,
    broke_property: usize,
    not_structured: usize,
    failed: usize,
}

/// Totals over one set of kernels.
#[derive(Clone, Default)]
struct Table {
    kernels: usize,
    blocks: usize,
    ops: usize,
    rows: Vec<Row>,
}

impl Table {
    fn new() -> Self {
        Self {
            rows: vec![Row::default(); CLEANUPS.len()],
            ..Default::default()
        }
    }

    fn print(&self, title: &str, structured: bool) {
        println!(
            "{title}: {} kernels, {} blocks, {} ops",
            self.kernels, self.blocks, self.ops
        );
        println!(
            "{:<26} {:>16} {:>17} {:>8} {:>17} {:>15} {:>15} {:>7}",
            "cleanup",
            "blocks removed",
            "ops removed",
            "changed",
            "not reconverging",
            "broke property",
            if structured { "not structured" } else { "" },
            "failed"
        );
        for ((label, _), row) in CLEANUPS.iter().zip(&self.rows) {
            println!(
                "{label:<26} {:>7} ({:>5.1}%) {:>7} ({:>5.1}%) {:>8} {:>17} {:>15} {:>15} {:>7}",
                row.blocks,
                100.0 * row.blocks as f64 / self.blocks.max(1) as f64,
                row.ops,
                100.0 * row.ops as f64 / self.ops.max(1) as f64,
                row.changed,
                row.not_reconverging,
                row.broke_property,
                if structured {
                    row.not_structured.to_string()
                } else {
                    String::new()
                },
                row.failed
            );
        }
    }
}

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let context = spmd::dialect::context_with_all_dialects();
    spmd::register_all_passes();
    melior::utility::register_all_passes();
    for (name, base) in [
        ("reconverge", "spmd-reconverge"),
        ("structurize", "spmd-structurize{irreducible=fix}"),
    ] {
        let pass = base.split('{').next().unwrap();
        if !spmd::pass_names().any(|n| n == pass) {
            println!("after {name}: not implemented yet, skipped\n");
            continue;
        }
        let structured = name == "structurize";
        let (mut valid, mut safe, mut alone, mut unsafe_) =
            (Table::new(), Table::new(), Table::new(), Table::new());
        let mut broken_checks = vec![[0usize; 5]; CLEANUPS.len()];
        let mut failed = vec![0usize; CLEANUPS.len()];
        let (mut total, mut skipped) = (0usize, 0usize);
        for shape_of in [
            KernelShape::reducible as fn(usize) -> KernelShape,
            KernelShape::irreducible,
            KernelShape::multi_exit_switch,
            KernelShape::uniform,
        ] {
            for seed in 0..seeds {
                let kernel = RandomKernel::build(seed * 7 + 1, &shape_of(3 + seed as usize % 38));
                let Some(based) = run(&context, &kernel.text, base) else {
                    continue;
                };
                total += 1;
                let (blocks, ops) = measure(&based);
                let base_violations = violations(&based);
                let text = based.as_operation().to_string();
                let results: Vec<Option<Module>> = CLEANUPS
                    .iter()
                    .map(|(_, c)| run(&context, &text, c))
                    .collect();
                for (count, result) in failed.iter_mut().zip(&results) {
                    *count += usize::from(result.is_none());
                }
                // branch-fold alone, over every kernel (whatever the other cleanups did).
                alone.kernels += 1;
                alone.blocks += blocks;
                alone.ops += ops;
                match &results[0] {
                    Some(cleaned) => {
                        let (b, o) = measure(cleaned);
                        let after = violations(cleaned);
                        let row = &mut alone.rows[0];
                        row.blocks += blocks as isize - b as isize;
                        row.ops += ops as isize - o as isize;
                        row.changed += usize::from(b != blocks || o != ops);
                        row.not_reconverging += usize::from(!is_reconverging(cleaned));
                        row.broke_property +=
                            usize::from(after.iter().zip(&base_violations).any(|(a, b)| a > b));
                        let broken = structured
                            && run(
                                &context,
                                &cleaned.as_operation().to_string(),
                                "spmd-verify-structured",
                            )
                            .is_none();
                        row.not_structured += usize::from(broken);
                        if let (true, Ok(dir)) = (broken, std::env::var("SPMD_QUALITY_DUMP")) {
                            let base_ok = run(&context, &text, "spmd-verify-structured").is_some();
                            let _ = std::fs::write(
                                format!("{dir}/not-structured-{seed}-base-ok-{base_ok}.mlir"),
                                &text,
                            );
                        }
                    }
                    None => alone.rows[0].failed += 1,
                }
                if results.iter().any(Option::is_none) {
                    skipped += 1;
                    continue;
                }
                let rows: Vec<Row> = results
                    .iter()
                    .enumerate()
                    .map(|(which, cleaned)| {
                        let cleaned = cleaned.as_ref().unwrap();
                        let (b, o) = measure(cleaned);
                        let after = violations(cleaned);
                        Row {
                            blocks: blocks as isize - b as isize,
                            ops: ops as isize - o as isize,
                            changed: usize::from(b != blocks || o != ops),
                            not_reconverging: usize::from(!is_reconverging(cleaned)),
                            broke_property: {
                                let mut broke = false;
                                for (k, (a, b)) in after.iter().zip(&base_violations).enumerate() {
                                    if a > b {
                                        broke = true;
                                        broken_checks[which][k] += 1;
                                    }
                                }
                                usize::from(broke)
                            },
                            not_structured: usize::from(
                                structured
                                    && run(
                                        &context,
                                        &cleaned.as_operation().to_string(),
                                        "spmd-verify-structured",
                                    )
                                    .is_none(),
                            ),
                            failed: 0,
                        }
                    })
                    .collect();
                if let Ok(dir) = std::env::var("SPMD_QUALITY_DUMP") {
                    // Debugging aid: the base of every kernel where canonicalize removes more blocks.
                    if rows[1].blocks > rows[0].blocks {
                        let path = format!("{dir}/{name}-{}-{seed}.mlir", kernel_index(&rows));
                        let _ = std::fs::write(path, &text);
                    }
                }
                let all_safe = rows
                    .iter()
                    .all(|r| r.broke_property == 0 && r.not_structured == 0);
                let some_unsafe = !all_safe;
                for table in [
                    Some(&mut valid),
                    all_safe.then_some(&mut safe),
                    some_unsafe.then_some(&mut unsafe_),
                ]
                .into_iter()
                .flatten()
                {
                    table.kernels += 1;
                    table.blocks += blocks;
                    table.ops += ops;
                    for (sum, row) in table.rows.iter_mut().zip(&rows) {
                        sum.blocks += row.blocks;
                        sum.ops += row.ops;
                        sum.changed += row.changed;
                        sum.not_reconverging += row.not_reconverging;
                        sum.broke_property += row.broke_property;
                        sum.not_structured += row.not_structured;
                    }
                }
            }
        }
        for (row, count) in valid.rows.iter_mut().zip(&failed) {
            row.failed = *count;
        }
        println!("after {name}: {total} kernels, {skipped} skipped because a cleanup produced invalid IR (failed column)");
        valid.print("  every cleanup valid", structured);
        safe.print("  every cleanup valid and property-preserving", structured);
        unsafe_.print(
            "  every cleanup valid, some cleanup broke a property",
            structured,
        );
        println!("  kernels where a cleanup broke each property (reconverging, reducible, flow-chains, loop-tokens, structured):");
        for ((label, _), counts) in CLEANUPS.iter().zip(&broken_checks) {
            println!("    {label:<26} {counts:?}");
        }
        alone.rows.truncate(1);
        alone.print("  branch-fold alone, every kernel", structured);
        println!();
    }
}

fn kernel_index(rows: &[Row]) -> String {
    format!("{}vs{}", rows[0].blocks, rows[1].blocks)
}

/// Violations per property check, summed over the module's functions.
fn violations(module: &Module) -> Vec<usize> {
    let mut sums = Vec::new();
    for function in cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
    {
        let Ok(counts) = branch_fold_violations(
            function.owner,
            function.region,
            UniformityOptions::default(),
        ) else {
            continue;
        };
        sums.resize(counts.len(), 0);
        for (sum, (_, count)) in sums.iter_mut().zip(counts) {
            *sum += count;
        }
    }
    sums
}

fn run<'c>(context: &'c Context, text: &str, pipeline: &str) -> Option<Module<'c>> {
    let mut module = Module::parse(context, text)?;
    let manager = PassManager::new(context);
    parse_pass_pipeline(
        manager.as_operation_pass_manager(),
        &format!("builtin.module({pipeline})"),
    )
    .ok()?;
    manager.run(&mut module).ok()?;
    Some(module)
}

fn measure(module: &Module) -> (usize, usize) {
    cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
        .map(|r| count_blocks_and_operations(r.region))
        .fold((0, 0), |(b, o), (x, y)| (b + x, o + y))
}

fn is_reconverging(module: &Module) -> bool {
    cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
        .all(|function| {
            let Ok(uniformity) = RegionUniformity::compute(
                function.owner,
                function.region,
                &UniformityOptions::default(),
            ) else {
                return false;
            };
            let graph = uniformity.graph();
            check_reconverging_with_exits(
                graph.graph(),
                &|b| uniformity.is_divergent_branch_id(b),
                &|b| is_function_exit(graph.terminator(b)),
            )
            .is_empty()
        })
}
