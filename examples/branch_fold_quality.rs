//! Quality of `--spmd-branch-fold` against `-canonicalize` on the random
//! kernel corpus (`RandomKernel`, every class), after each base pipeline
//! (`spmd-reconverge`, and `spmd-structurize{irreducible=fix}` once it is
//! implemented).
//!
//! For each base pipeline it prints the blocks and operations (directly in
//! function bodies) after the base, and how many of them each cleanup
//! removes: `spmd-branch-fold`, `canonicalize`, `canonicalize` followed by
//! `spmd-branch-fold` (what folding adds on top of canonicalize), and
//! `spmd-branch-fold` followed by `canonicalize`. Totals are over the
//! kernels where every cleanup produced valid IR; the last columns count
//! outputs that are no longer reconverging (Definition 1, fresh uniformity
//! analysis) and cleanups that failed (for canonicalize: the verifier
//! rejected its output).
//!
//! `cargo run --release --example branch_fold_quality [seeds per class]`

use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline, Context};
use spmd::{
    analysis::{
        function_regions::cfg_regions,
        reconverging,
        region_uniformity::{RegionUniformity, UniformityOptions},
    },
    exec::{KernelShape, RandomKernel},
    transforms::{branch_fold, prepare},
};

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
    failed: usize,
}

fn main() {
    let seeds: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    let context = spmd::dialect::context_with_all_dialects();
    spmd::passes::register_all_passes();
    melior::utility::register_all_passes();
    for (name, base) in [("reconverge", "spmd-reconverge"), ("structurize", "spmd-structurize{irreducible=fix}")] {
        let pass = base.split('{').next().unwrap();
        if !spmd::passes::PASSES.iter().any(|(n, _)| *n == pass) {
            println!("after {name}: not implemented yet, skipped\n");
            continue;
        }
        let (mut kernels, mut skipped, mut base_blocks, mut base_ops) = (0usize, 0usize, 0usize, 0usize);
        let mut rows = vec![Row::default(); CLEANUPS.len()];
        for shape_of in [
            KernelShape::reducible as fn(usize) -> KernelShape,
            KernelShape::irreducible,
            KernelShape::multi_exit_switch,
            KernelShape::uniform,
        ] {
            for seed in 0..seeds {
                let kernel = RandomKernel::build(seed * 7 + 1, &shape_of(3 + seed as usize % 38));
                let Some(based) = run(&context, &kernel.text, base) else { continue };
                let (blocks, ops) = measure(&based);
                let text = based.as_operation().to_string();
                let results: Vec<Option<Module>> = CLEANUPS.iter().map(|(_, c)| run(&context, &text, c)).collect();
                for (row, result) in rows.iter_mut().zip(&results) {
                    row.failed += usize::from(result.is_none());
                }
                if results.iter().any(Option::is_none) {
                    skipped += 1;
                    continue;
                }
                kernels += 1;
                base_blocks += blocks;
                base_ops += ops;
                for (row, cleaned) in rows.iter_mut().zip(&results) {
                    let cleaned = cleaned.as_ref().unwrap();
                    let (b, o) = measure(cleaned);
                    row.blocks += blocks as isize - b as isize;
                    row.ops += ops as isize - o as isize;
                    row.not_reconverging += usize::from(!is_reconverging(cleaned));
                    row.changed += usize::from(b != blocks || o != ops);
                }
            }
        }
        println!(
            "after {name}: {kernels} kernels compared ({skipped} skipped: a cleanup failed), {base_blocks} blocks, {base_ops} ops"
        );
        println!(
            "{:<26} {:>16} {:>17} {:>8} {:>17} {:>7}",
            "cleanup", "blocks removed", "ops removed", "changed", "not reconverging", "failed"
        );
        for ((label, _), row) in CLEANUPS.iter().zip(&rows) {
            println!(
                "{label:<26} {:>7} ({:>5.1}%) {:>7} ({:>5.1}%) {:>8} {:>17} {:>7}",
                row.blocks,
                100.0 * row.blocks as f64 / base_blocks.max(1) as f64,
                row.ops,
                100.0 * row.ops as f64 / base_ops.max(1) as f64,
                row.changed,
                row.not_reconverging,
                row.failed
            );
        }
        println!();
    }
}

fn run<'c>(context: &'c Context, text: &str, pipeline: &str) -> Option<Module<'c>> {
    let mut module = Module::parse(context, text)?;
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), &format!("builtin.module({pipeline})")).ok()?;
    manager.run(&mut module).ok()?;
    Some(module)
}

fn measure(module: &Module) -> (usize, usize) {
    cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
        .map(|r| branch_fold::count(r.region))
        .fold((0, 0), |(b, o), (x, y)| (b + x, o + y))
}

fn is_reconverging(module: &Module) -> bool {
    cfg_regions(module.as_operation()).into_iter().filter(|r| r.function_like).all(|function| {
        let Ok(uniformity) = RegionUniformity::compute(function.owner, function.region, UniformityOptions::default())
        else {
            return false;
        };
        let graph = uniformity.graph();
        reconverging::check_with_exits(graph.graph(), &|b| uniformity.info().is_divergent_branch(b), &|b| {
            prepare::is_function_exit(graph.terminator(b))
        })
        .is_empty()
    })
}
