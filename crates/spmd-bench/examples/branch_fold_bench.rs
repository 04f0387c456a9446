//! Speed of `--spmd-branch-fold` on one big function.
//!
//! ```sh
//! cargo build --release --examples
//! target/release/examples/branch_fold_bench                 # 1000 2000 5000 10000 blocks
//! target/release/examples/branch_fold_bench 10000 --write   # also writes the inputs
//! ```
//!
//! Per size, one random code-shaped CFG
//! ([`spmd::testing::mlir_cfg::random_function`], seed 42, 35% divergent
//! branches) goes through `spmd-reconverge` (not timed); the reconverged
//! function is the input. Each row runs one cleanup on a fresh parse of it
//! and prints the wall time of the pass manager run and the blocks and
//! operations of the function body before and after. `--write` stores the
//! input as `$TMPDIR/spmd-branch-fold-bench/cfg-N.mlir`, so another
//! `spmd-opt` build can be timed on identical input
//! (`spmd-opt --spmd-branch-fold --mlir-timing cfg-N.mlir`).

use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline, Context};
use spmd::{cfg_regions, testing::checks::count_blocks_and_operations};
use std::time::Instant;

const ROWS: &[(&str, &str)] = &[
    ("branch-fold", "spmd-branch-fold"),
    (
        "branch-fold, no folding step",
        "spmd-branch-fold{fold-operations=false}",
    ),
    ("canonicalize", "canonicalize"),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let write = args.iter().any(|a| a == "--write");
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![1000, 2000, 5000, 10000];
    }
    let context = spmd::dialect::context_with_all_dialects();
    spmd::register_all_passes();
    melior::utility::register_all_passes();
    println!(
        "{:<8} {:<30} {:>10} {:>16} {:>18}",
        "blocks", "cleanup", "seconds", "blocks", "ops"
    );
    for size in sizes {
        let (text, _) = spmd::testing::mlir_cfg::random_function(42, size, 350);
        let Some(based) = run(&context, &text, "spmd-reconverge").map(|(m, _)| m) else {
            println!("{size:<8} spmd-reconverge failed");
            continue;
        };
        let input = based.as_operation().to_string();
        if write {
            let dir = std::env::temp_dir().join("spmd-branch-fold-bench");
            std::fs::create_dir_all(&dir).expect("temporary directory");
            let path = dir.join(format!("cfg-{size}.mlir"));
            std::fs::write(&path, &input).expect("write input");
            println!("wrote {}", path.display());
        }
        let (blocks, ops) = measure(&based);
        for (label, pipeline) in ROWS {
            match run(&context, &input, pipeline) {
                Some((cleaned, seconds)) => {
                    let (b, o) = measure(&cleaned);
                    println!(
                        "{size:<8} {label:<30} {seconds:>10.3} {:>16} {:>18}",
                        format!("{blocks} -> {b}"),
                        format!("{ops} -> {o}")
                    );
                }
                None => println!("{size:<8} {label:<30} {:>10}", "failed"),
            }
        }
    }
}

fn run<'c>(context: &'c Context, text: &str, pipeline: &str) -> Option<(Module<'c>, f64)> {
    let mut module = Module::parse(context, text)?;
    let manager = PassManager::new(context);
    parse_pass_pipeline(
        manager.as_operation_pass_manager(),
        &format!("builtin.module({pipeline})"),
    )
    .ok()?;
    let start = Instant::now();
    manager.run(&mut module).ok()?;
    Some((module, start.elapsed().as_secs_f64()))
}

fn measure(module: &Module) -> (usize, usize) {
    cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
        .map(|r| count_blocks_and_operations(r.region))
        .fold((0, 0), |(b, o), (x, y)| (b + x, o + y))
}
