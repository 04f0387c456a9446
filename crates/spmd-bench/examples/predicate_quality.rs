//! Mask instructions added by `--spmd-predicate`, compared with the reconvergence paper's
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
//! *Per divergent loop*: a cycle of the wave-level CFG (cycle forest, nested
//! cycles counted separately) that a parking branch leaves, i.e. a loop
//! some lanes exit before others. The mask operations inside its blocks run
//! on every iteration; they are counted per loop (GCN-equivalent as
//! above, with the `s_or_b64` of an accumulating OR).
//!
//! Figure 1a is the function of `mlir-tests/predicate/figure-1a.mlir`;
//! Listing 1 has 8 mask instructions for it: 2 `v_cmp`, 2 `s_andn2_b64`,
//! 1 `s_or_b64` accumulating `m`, 2 `s_cbranch_execz`, 1 `s_or_b64 exec`.
//!
//! `cargo run --example predicate_quality [seeds per class]`

use melior::{
    ir::{
        attribute::StringAttribute, block::BlockLike, operation::OperationLike, Module,
        OperationRef, RegionLike,
    },
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};
use spmd::{
    graph::{CycleForest, Graph},
    RegionGraph,
};
use spmd_oracle::{KernelShape, RandomKernel};

const FIGURE_1A: &str = include_str!("../../../mlir-tests/predicate/figure-1a.mlir");
const LOOP: &str = include_str!("../../../mlir-tests/predicate/loop.mlir");

/// Counts of the added wave-level operations.
#[derive(Default, Debug, Clone, Copy)]
struct Counts {
    ops: usize,
    gcn: usize,
    selects: usize,
    divergent_branches: usize,
}

/// Mask operations inside divergent loops.
#[derive(Default, Debug, Clone, Copy)]
struct LoopCounts {
    loops: usize,
    ops: usize,
    gcn: usize,
    selects: usize,
}

/// The name of `op`.
fn name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// `(ops, gcn, selects)` of one operation, as in [`count`] (an OR counts
/// for GCN unless it feeds an exec write, whose `s_or_b64 exec` is
/// counted at the write).
fn classify(op: OperationRef) -> (usize, usize, usize) {
    match name(op).as_str() {
        "spmd.ballot" | "spmd.exec.write" | "spmd.exec.br_zero" => (1, 1, 0),
        "spmd.exec.read" | "spmd.mask.andn" | "spmd.mask.empty" | "spmd.mask.and" => (1, 0, 0),
        "spmd.mask.select" => (1, 1, 1),
        "spmd.mask.or" => {
            let feeds_exec = op.result(0).ok().and_then(|r| {
                let mut next = op.next_in_block();
                while let Some(n) = next {
                    if name(n) == "spmd.exec.write" && n.operand(0).ok() == Some(r.into()) {
                        return Some(());
                    }
                    next = n.next_in_block();
                }
                None
            });
            (1, usize::from(feeds_exec.is_none()), 0)
        }
        _ => (0, 0, 0),
    }
}

/// Per-loop counts of every function of `module`.
fn count_loops(module: &Module) -> LoopCounts {
    let mut counts = LoopCounts::default();
    let mut function = module.body().first_operation();
    while let Some(op) = function {
        function = op.next_in_block();
        if name(op) != "func.func"
            || op
                .attribute("sym_name")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())
                .is_none()
        {
            continue;
        }
        let Ok(region) = op.region(0) else { continue };
        if region.first_block().is_none() {
            continue;
        }
        let Ok(graph) = RegionGraph::snapshot(region) else {
            continue;
        };
        let g = graph.graph();
        let cycles = CycleForest::build(g);
        for c in cycles.cycles() {
            let blocks = cycles.blocks(c);
            let parks_out = blocks.iter().any(|&b| {
                let terminator = graph.terminator(b);
                name(terminator) == "spmd.exec.br_zero" && !cycles.contains(c, g.successors(b)[0])
            });
            if !parks_out {
                continue;
            }
            counts.loops += 1;
            for &b in blocks {
                let mut next = graph.block(b).first_operation();
                while let Some(op) = next {
                    next = op.next_in_block();
                    let (ops, gcn, selects) = classify(op);
                    counts.ops += ops;
                    counts.gcn += gcn;
                    counts.selects += selects;
                }
            }
        }
    }
    counts
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
            "spmd.exec.read" | "spmd.mask.andn" | "spmd.mask.empty" | "spmd.mask.and" => {
                counts.ops += 1
            }
            "spmd.exec.write" => {
                counts.ops += 1;
                counts.gcn += 1;
                counts.divergent_branches += usize::from(line.contains("spmd.park"));
            }
            // Rejoin ORs (folded into the exec write above) vs accumulating ORs.
            "spmd.mask.or" => counts.ops += 1,
            "spmd.exec.br_zero" => (counts.ops, counts.gcn) = (counts.ops + 1, counts.gcn + 1),
            "spmd.mask.select" => {
                (counts.ops, counts.gcn, counts.selects) =
                    (counts.ops + 1, counts.gcn + 1, counts.selects + 1)
            }
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

fn lower(context: &'static Context, text: &str, pipeline: &str) -> Option<Module<'static>> {
    let mut module = Module::parse(context, text)?;
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline).ok()?;
    manager.run(&mut module).ok()?;
    Some(module)
}

fn main() {
    spmd::register_all_passes();
    let context = Box::leak(Box::new(spmd::dialect::context_with_all_dialects()));
    context.attach_diagnostic_handler(|_| true);
    let figure =
        lower(context, FIGURE_1A, "builtin.module(spmd-predicate)").expect("Figure 1a lowers");
    let c = count(&figure);
    println!("Figure 1a: {} wave-level ops, {} GCN-equivalent mask instructions (Listing 1: 8), {} parking branches", c.ops, c.gcn, c.divergent_branches);
    let lowered =
        lower(context, LOOP, "builtin.module(spmd-predicate)").expect("the loop test lowers");
    let l = count_loops(&lowered);
    println!(
        "loop.mlir: {} divergent loop, {} wave-level ops and {} GCN-equivalent mask instructions per iteration ({} select)",
        l.loops, l.ops, l.gcn, l.selects
    );
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    println!(
        "{:<20} {:>7} {:>9} {:>8} {:>8} {:>10} {:>8} | {:>6} {:>8} {:>8} {:>12}",
        "producer",
        "kernels",
        "branches",
        "ops",
        "gcn",
        "ops/branch",
        "selects",
        "loops",
        "ops/loop",
        "gcn/loop",
        "selects/loop"
    );
    for producer in [
        "spmd-reconverge{ordering=dfpd}",
        "spmd-structurize{irreducible=fix}",
    ] {
        let mut total = Counts::default();
        let mut in_loops = LoopCounts::default();
        let mut kernels = 0;
        for seed in 0..seeds {
            for (_, shape) in KernelShape::classes(3 + seed as usize % 25) {
                let kernel = RandomKernel::build(seed * 17 + 3, &shape);
                let pipeline = format!("builtin.module({producer}, spmd-predicate)");
                let Some(module) = lower(context, &kernel.text, &pipeline) else {
                    continue;
                };
                let c = count(&module);
                total.ops += c.ops;
                total.gcn += c.gcn;
                total.selects += c.selects;
                total.divergent_branches += c.divergent_branches;
                let l = count_loops(&module);
                in_loops.loops += l.loops;
                in_loops.ops += l.ops;
                in_loops.gcn += l.gcn;
                in_loops.selects += l.selects;
                kernels += 1;
            }
        }
        let per = |x: usize| x as f64 / total.divergent_branches.max(1) as f64;
        let per_loop = |x: usize| x as f64 / in_loops.loops.max(1) as f64;
        println!(
            "{:<20} {:>7} {:>9} {:>8} {:>8} {:>10.2} {:>8} | {:>6} {:>8.2} {:>8.2} {:>12.2}",
            producer.split('{').next().unwrap(),
            kernels,
            total.divergent_branches,
            total.ops,
            total.gcn,
            per(total.ops),
            total.selects,
            in_loops.loops,
            per_loop(in_loops.ops),
            per_loop(in_loops.gcn),
            per_loop(in_loops.selects)
        );
    }
}
