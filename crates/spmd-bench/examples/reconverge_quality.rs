//! Quality of `--spmd-reconverge` per ordering and of `--spmd-structurize`
//! on a mixed uniform/divergent corpus of random code-shaped CFGs
//! (20..200 blocks, 50% divergent branches), compared with LLVM's
//! `structurizecfg` (after `lower-switch`, `fix-irreducible` and
//! `unify-loop-exits`, as AMDGPU schedules it) on the same CFGs lowered to
//! LLVM IR ([`spmd_bench::llvm_ir`]).
//!
//! Rows: `reconverge` per ordering; `structurize` (`irreducible=fix`, every
//! branch structurized) and `structurize skip-uniform` (also
//! `skip-uniform-regions=true`); `llvm structurizecfg` with plain `opt` (no
//! target: every branch is structurized) and `llvm structurizecfg
//! skip-uniform` (`-mtriple=amdgcn-amd-amdhsa`, `structurizecfg<skip-uniform-
//! regions>`: the divergent condition is `llvm.amdgcn.workitem.id.x`, the
//! function an `amdgpu_kernel` with uniform arguments). A transform that
//! fails on some function shows `error` with the first message; its totals
//! are left out.
//!
//! Columns: Flow blocks inserted (`spmd.flow_br`; for LLVM, blocks named
//! `Flow*`), blocks added, branches added (terminators with two or more
//! successors), uniform branches preserved (successors untouched; spmd
//! only), operations added (spmd only).
//!
//! `cargo run --release --example reconverge_quality [functions] [divergent per mille]`

use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, RegionLike},
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};
use spmd::{
    cfg_regions,
    graph::BlockId,
    testing::ir::{BlockKey, OperationKey},
    Ordering, RegionUniformity, UniformityOptions,
};
use spmd_bench::llvm_ir;
use std::{cell::RefCell, process::Command, rc::Rc};

#[derive(Default, Clone, Copy)]
struct Totals {
    flows: usize,
    blocks_added: isize,
    branches_added: isize,
    uniform: usize,
    uniform_preserved: usize,
    /// Uniform branches outside every divergent region (not strictly between
    /// a divergent branch and its immediate post-dominator).
    uniform_outside: usize,
    uniform_outside_preserved: usize,
    ops_added: isize,
}

impl std::ops::AddAssign for Totals {
    fn add_assign(&mut self, t: Totals) {
        self.flows += t.flows;
        self.blocks_added += t.blocks_added;
        self.branches_added += t.branches_added;
        self.uniform += t.uniform;
        self.uniform_preserved += t.uniform_preserved;
        self.uniform_outside += t.uniform_outside;
        self.uniform_outside_preserved += t.uniform_outside_preserved;
        self.ops_added += t.ops_added;
    }
}

/// One row: a transform, its totals over the functions it handled, and the
/// first error of the functions it failed on.
struct Row {
    name: String,
    /// `false` for LLVM rows, which have no uniformity or op counts.
    spmd: bool,
    totals: Totals,
    ok: usize,
    first_error: Option<String>,
}

impl Row {
    fn new(name: impl Into<String>, spmd: bool) -> Self {
        Row {
            name: name.into(),
            spmd,
            totals: Totals::default(),
            ok: 0,
            first_error: None,
        }
    }

    fn add(&mut self, result: Result<Totals, String>) {
        match result {
            Ok(t) => {
                self.totals += t;
                self.ok += 1;
            }
            Err(e) => {
                self.first_error.get_or_insert(e);
            }
        }
    }
}

fn main() {
    let functions: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let divergent_per_mille: u64 = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(500);
    let context = context();
    // Failing passes report through diagnostics; keep the first per run
    // instead of printing one per function.
    let diagnostic = Rc::new(RefCell::new(None::<String>));
    let sink = diagnostic.clone();
    context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().get_or_insert_with(|| d.to_string());
        true
    });
    spmd::register_all_passes();
    let mut spmd_rows: Vec<(Row, String)> = Ordering::ALL
        .iter()
        .map(|o| {
            (
                Row::new(format!("reconverge {}", o.name()), true),
                format!("spmd-reconverge{{ordering={}}}", o.name()),
            )
        })
        .collect();
    spmd_rows.push((
        Row::new("structurize", true),
        "spmd-structurize{irreducible=fix}".into(),
    ));
    spmd_rows.push((
        Row::new("structurize skip-uniform", true),
        "spmd-structurize{irreducible=fix skip-uniform-regions=true}".into(),
    ));
    let mut llvm_rows = [
        (
            Row::new("llvm structurizecfg", false),
            None,
            llvm_ir::STRUCTURIZECFG_PIPELINE,
        ),
        (
            Row::new("llvm structurizecfg skip-uniform", false),
            Some(llvm_ir::AMDGPU_TRIPLE),
            llvm_ir::STRUCTURIZECFG_SKIP_UNIFORM_PIPELINE,
        ),
    ];
    let mut original_blocks = 0;
    for seed in 0..functions {
        let blocks = 20 + (seed as usize * 37) % 180;
        let (text, graph) =
            spmd::testing::mlir_cfg::random_function(seed, blocks, divergent_per_mille);
        original_blocks += spmd::graph::Graph::num_blocks(&graph);
        for (row, pipeline) in &mut spmd_rows {
            diagnostic.borrow_mut().take();
            let result = measure(&context, &text, pipeline);
            row.add(result.map_err(|e| diagnostic.borrow_mut().take().unwrap_or(e)));
        }
        let ll = llvm_ir::llvm_ir_form(&text);
        for (row, triple, pipeline) in &mut llvm_rows {
            row.add(
                ll.clone()
                    .and_then(|ll| llvm_structurizecfg(&ll, *triple, pipeline)),
            );
        }
    }
    println!(
        "corpus: {functions} functions, {original_blocks} blocks, {:.0}% divergent branches\n",
        divergent_per_mille as f64 / 10.0
    );
    println!(
        "{:<34} {:>8} {:>13} {:>15} {:>24} {:>26} {:>11}",
        "transform",
        "flows",
        "blocks added",
        "branches added",
        "uniform preserved",
        "outside divergent regions",
        "ops added"
    );
    let rows = spmd_rows
        .iter()
        .map(|(row, _)| row)
        .chain(llvm_rows.iter().map(|(row, _, _)| row));
    for row in rows {
        let t = row.totals;
        if row.ok < functions as usize {
            let error = row.first_error.as_deref().unwrap_or_default();
            let error: String = error
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(100)
                .collect();
            println!(
                "{:<34} error on {} of {functions} functions: {error}",
                row.name,
                functions as usize - row.ok
            );
            continue;
        }
        let uniform = if row.spmd {
            format!(
                "{:>10}/{:<5} ({:>5.1}%) {:>10}/{:<5} ({:>5.1}%) {:>9}",
                t.uniform_preserved,
                t.uniform,
                100.0 * t.uniform_preserved as f64 / t.uniform.max(1) as f64,
                t.uniform_outside_preserved,
                t.uniform_outside,
                100.0 * t.uniform_outside_preserved as f64 / t.uniform_outside.max(1) as f64,
                t.ops_added
            )
        } else {
            format!("{:>24} {:>26} {:>11}", "-", "-", "-")
        };
        println!(
            "{:<34} {:>8} {:>13} {:>15} {uniform}",
            row.name, t.flows, t.blocks_added, t.branches_added
        );
    }
}

fn context() -> Context {
    spmd::dialect::context_with_all_dialects()
}

/// Runs `pipeline` (nested in `builtin.module`) on `text` and counts what
/// changed; `Err` if the pass fails.
fn measure(context: &Context, text: &str, pipeline: &str) -> Result<Totals, String> {
    let mut module = Module::parse(context, text).expect("valid input");
    let function = cfg_regions(module.as_operation())
        .into_iter()
        .find(|r| r.function_like)
        .unwrap();
    let uniformity = RegionUniformity::compute(
        function.owner,
        function.region,
        &UniformityOptions::default(),
    )
    .unwrap();
    let graph = uniformity.graph();
    let inside = inside_divergent_regions(graph.graph(), uniformity.cfg(), &|b| {
        uniformity.is_divergent_branch_id(b)
    });
    let mut uniform_branches = Vec::new();
    for (b, &in_divergent_region) in inside.iter().enumerate().take(graph.num_blocks()) {
        let terminator = graph.terminator(BlockId::new(b));
        if terminator.successor_count() >= 2 && !uniformity.is_divergent_branch_id(BlockId::new(b))
        {
            let successors: Vec<BlockKey> =
                terminator.successors().map(|s| BlockKey::of(&s)).collect();
            uniform_branches.push((
                OperationKey::of(&terminator),
                successors,
                in_divergent_region,
            ));
        }
    }
    let (blocks_before, branches_before, ops_before) = count(&module);
    let manager = PassManager::new(context);
    parse_pass_pipeline(
        manager.as_operation_pass_manager(),
        &format!("builtin.module({pipeline})"),
    )
    .map_err(|e| format!("{pipeline}: {e}"))?;
    manager
        .run(&mut module)
        .map_err(|e| format!("{pipeline} failed: {e}"))?;
    let (blocks_after, branches_after, ops_after) = count(&module);
    let mut preserved = 0;
    let mut outside_preserved = 0;
    let mut flows = 0;
    module
        .as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            let name = op
                .name()
                .as_string_ref()
                .as_str()
                .unwrap_or_default()
                .to_string();
            if name == "spmd.flow_br" {
                flows += 1;
            }
            if let Some((_, successors, inside)) = uniform_branches
                .iter()
                .find(|(key, _, _)| *key == OperationKey::of(&op))
            {
                let now: Vec<BlockKey> = op.successors().map(|s| BlockKey::of(&s)).collect();
                preserved += usize::from(&now == successors);
                outside_preserved += usize::from(&now == successors && !inside);
            }
            melior::ir::operation::WalkResult::Advance
        });
    Ok(Totals {
        flows,
        blocks_added: blocks_after as isize - blocks_before as isize,
        branches_added: branches_after as isize - branches_before as isize,
        uniform: uniform_branches.len(),
        uniform_preserved: preserved,
        uniform_outside: uniform_branches
            .iter()
            .filter(|(_, _, inside)| !inside)
            .count(),
        uniform_outside_preserved: outside_preserved,
        ops_added: ops_after as isize - ops_before as isize,
    })
}

/// Per block: is it strictly inside the region of some divergent branch
/// (reachable from it without passing its immediate post-dominator)?
fn inside_divergent_regions(
    graph: &spmd::graph::CfgGraph,
    cfg: &spmd::graph::CfgAnalysis,
    divergent: &dyn Fn(BlockId) -> bool,
) -> Vec<bool> {
    use spmd::graph::Graph;
    let mut inside = vec![false; graph.num_blocks()];
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        if !divergent(b) || graph.successors(b).len() < 2 {
            continue;
        }
        let stop = cfg.post_dominators().ipdom(b);
        let mut seen = vec![false; graph.num_blocks()];
        let mut stack: Vec<BlockId> = graph.successors(b).to_vec();
        while let Some(x) = stack.pop() {
            if Some(x) == stop || x == b || std::mem::replace(&mut seen[x.index()], true) {
                continue;
            }
            inside[x.index()] = true;
            stack.extend(graph.successors(x).iter().copied());
        }
    }
    inside
}

/// (blocks, terminators with two or more successors, operations) of the
/// function in the module.
fn count(module: &Module) -> (usize, usize, usize) {
    let (mut blocks, mut branches, mut ops) = (0, 0, 0);
    let function = cfg_regions(module.as_operation())
        .into_iter()
        .find(|r| r.function_like)
        .unwrap();
    let mut block = function.region.first_block();
    while let Some(b) = block {
        blocks += 1;
        let mut op = b.first_operation();
        while let Some(o) = op {
            ops += 1;
            branches += usize::from(o.successor_count() >= 2);
            op = o.next_in_block();
        }
        block = b.next_in_region();
    }
    (blocks, branches, ops)
}

/// Flow blocks, blocks and branches LLVM's structurizer `pipeline` adds to
/// the LLVM IR `ll` (with `-mtriple=triple` if given).
fn llvm_structurizecfg(ll: &str, triple: Option<&str>, pipeline: &str) -> Result<Totals, String> {
    let input = std::env::temp_dir().join(format!("spmd-quality-{}.ll", std::process::id()));
    std::fs::write(&input, ll).map_err(|e| e.to_string())?;
    let mut command = Command::new(llvm_ir::llvm_bin().join("opt"));
    command
        .arg("-S")
        .arg(format!("-passes={pipeline}"))
        .arg(&input);
    if let Some(triple) = triple {
        command.arg(format!("-mtriple={triple}"));
    }
    let output = command.output().map_err(|e| format!("opt: {e}"))?;
    let _ = std::fs::remove_file(&input);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "opt failed: {}",
            stderr.lines().next().unwrap_or_default()
        ));
    }
    let structured = String::from_utf8_lossy(&output.stdout);
    Ok(Totals {
        flows: llvm_ir::count_flow_blocks(&structured),
        blocks_added: llvm_ir::count_blocks(&structured) as isize
            - llvm_ir::count_blocks(ll) as isize,
        branches_added: llvm_ir::count_branches(&structured) as isize
            - llvm_ir::count_branches(ll) as isize,
        ..Totals::default()
    })
}
