//! Mask instructions added by `--spmd-predicate`, compared with seed 004's
//! Listing 1 and measured per divergent branch and per divergent loop on
//! random kernels.
//!
//! Two counts are printed. *Ops* counts every wave-level operation the
//! pass adds (`spmd.ballot`, `spmd.mask.*`, `spmd.exec.*`). *GCN* counts
//! what a GCN backend would emit for them: `spmd.ballot` is the `v_cmp`
//! that already writes a lane mask, `exec.read; mask.andn; exec.write`
//! is one `s_andn2_b64 exec`, `exec.read; mask.or; exec.write` one
//! `s_or_b64 exec`, a `spmd.mask.or` accumulating a rejoin mask one
//! `s_or_b64`, `spmd.exec.br_zero` one `s_cbranch_execz`, and each
//! `spmd.mask.select` one `v_cndmask_b32` (no counterpart in Listing 1).
//!
//! Figure 1a is the function of `mlir-tests/predicate/figure-1a.mlir`;
//! Listing 1 has 8 mask instructions for it: 2 `v_cmp`, 2 `s_andn2_b64`,
//! 1 `s_or_b64` accumulating `m`, 2 `s_cbranch_execz`, 1 `s_or_b64 exec`.
//!
//! `cargo run --example predicate_quality [seeds per class]`

use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline, Context};
use spmd::exec::{KernelShape, RandomKernel};

const FIGURE_1A: &str = include_str!("../mlir-tests/predicate/figure-1a.mlir");

/// Counts of the added wave-level operations.
#[derive(Default, Debug, Clone, Copy)]
struct Counts {
    ops: usize,
    gcn: usize,
    selects: usize,
    divergent_branches: usize,
}

fn count(module: &Module) -> Counts {
    let mut counts = Counts::default();
    let text = module.as_operation().to_string();
    for line in text.lines().map(str::trim) {
        let op_text = match line.find(" = ") {
            Some(i) if line.starts_with('%') => &line[i + 3..],
            _ => line,
        };
        let op = op_text.split_whitespace().next().unwrap_or("");
        match op {
            "spmd.ballot" => (counts.ops, counts.gcn) = (counts.ops + 1, counts.gcn + 1),
            "spmd.exec.read" | "spmd.mask.andn" | "spmd.mask.empty" | "spmd.mask.and" => counts.ops += 1,
            "spmd.exec.write" => {
                counts.ops += 1;
                counts.gcn += 1;
                counts.divergent_branches += usize::from(line.contains("spmd.park"));
            }
            // Rejoin ORs (folded into the exec write above) vs accumulating ORs.
            "spmd.mask.or" => counts.ops += 1,
            "spmd.exec.br_zero" => (counts.ops, counts.gcn) = (counts.ops + 1, counts.gcn + 1),
            "spmd.mask.select" => (counts.ops, counts.gcn, counts.selects) = (counts.ops + 1, counts.gcn + 1, counts.selects + 1),
            _ => {}
        }
    }
    // An OR whose result feeds an exec write is part of `s_or_b64 exec`;
    // the others accumulate a rejoin mask.
    let ors = text.matches("spmd.mask.or ").count();
    let rejoins = text.matches("spmd.rejoin").count();
    counts.gcn += ors - rejoins.min(ors);
    counts
}

fn lower(context: &Context, text: &str, pipeline: &str) -> Option<Module<'static>> {
    // SAFETY of the lifetime: the context is leaked by the caller.
    let context: &'static Context = unsafe { std::mem::transmute(context) };
    let mut module = Module::parse(context, text)?;
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline).ok()?;
    manager.run(&mut module).ok()?;
    Some(module)
}

fn main() {
    spmd::passes::register_all_passes();
    let context = Box::leak(Box::new(spmd::dialect::context_with_all_dialects()));
    context.attach_diagnostic_handler(|_| true);
    let figure = lower(context, FIGURE_1A, "builtin.module(spmd-predicate)").expect("Figure 1a lowers");
    let c = count(&figure);
    println!("Figure 1a: {} wave-level ops, {} GCN-equivalent mask instructions (Listing 1: 8), {} parking branches", c.ops, c.gcn, c.divergent_branches);
    let seeds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    println!("{:<20} {:>7} {:>9} {:>8} {:>8} {:>10} {:>10}", "producer", "kernels", "branches", "ops", "gcn", "ops/branch", "selects");
    for producer in ["spmd-reconverge{ordering=dfpd}", "spmd-structurize{irreducible=fix}"] {
        let mut total = Counts::default();
        let mut kernels = 0;
        for seed in 0..seeds {
            for (_, shape) in KernelShape::classes(3 + seed as usize % 25) {
                let kernel = RandomKernel::build(seed * 17 + 3, &shape);
                let pipeline = format!("builtin.module({producer}, spmd-predicate)");
                let Some(module) = lower(context, &kernel.text, &pipeline) else { continue };
                let c = count(&module);
                total.ops += c.ops;
                total.gcn += c.gcn;
                total.selects += c.selects;
                total.divergent_branches += c.divergent_branches;
                kernels += 1;
            }
        }
        let per = |x: usize| x as f64 / total.divergent_branches.max(1) as f64;
        println!(
            "{:<20} {:>7} {:>9} {:>8} {:>8} {:>10.2} {:>10}",
            producer.split('{').next().unwrap(),
            kernels,
            total.divergent_branches,
            total.ops,
            total.gcn,
            per(total.ops),
            total.selects
        );
    }
}
