//! Quality of `--spmd-reconverge` per ordering on a mixed uniform/divergent
//! corpus of random code-shaped CFGs (20..200 blocks, 50% divergent
//! branches), compared with LLVM's `structurizecfg` (after `lower-switch`,
//! `fix-irreducible` and `unify-loop-exits`, as AMDGPU schedules it) on the
//! same CFGs lowered to LLVM IR.
//!
//! Columns: Flow blocks inserted, branches added (terminators with two or
//! more successors), uniform branches preserved (successors untouched),
//! operations added, and for LLVM the blocks added.
//!
//! `cargo run --release --example reconverge_quality [functions] [divergent per mille]`

use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, RegionLike},
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};
use spmd::{
    analysis::{
        cfg::BlockId,
        function_regions::cfg_regions,
        region_uniformity::{RegionUniformity, UniformityOptions},
    },
    transforms::reconverge::plan::Ordering,
};
use std::process::Command;

#[derive(Default, Clone, Copy)]
struct Totals {
    flows: usize,
    branches_added: isize,
    uniform: usize,
    uniform_preserved: usize,
    /// Uniform branches outside every divergent region (not strictly between
    /// a divergent branch and its immediate post-dominator).
    uniform_outside: usize,
    uniform_outside_preserved: usize,
    ops_added: isize,
}

fn main() {
    let functions: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let divergent_per_mille: u64 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(500);
    let context = context();
    spmd::passes::register_all_passes();
    let mut totals = [Totals::default(); 4];
    let (mut llvm_blocks_added, mut llvm_ok, mut original_blocks) = (0isize, 0usize, 0usize);
    for seed in 0..functions {
        let blocks = 20 + (seed as usize * 37) % 180;
        let (text, graph) = spmd::bench::mlir_cfg::random_function(seed, blocks, divergent_per_mille);
        original_blocks += spmd::analysis::cfg::Graph::num_blocks(&graph);
        for (slot, ordering) in Ordering::ALL.iter().enumerate() {
            let t = measure(&context, &text, *ordering);
            let total = &mut totals[slot];
            total.flows += t.flows;
            total.branches_added += t.branches_added;
            total.uniform += t.uniform;
            total.uniform_preserved += t.uniform_preserved;
            total.uniform_outside += t.uniform_outside;
            total.uniform_outside_preserved += t.uniform_outside_preserved;
            total.ops_added += t.ops_added;
        }
        if let Some(added) = llvm_structurizecfg_blocks_added(&text) {
            llvm_blocks_added += added;
            llvm_ok += 1;
        }
    }
    println!(
        "corpus: {functions} functions, {original_blocks} blocks, {:.0}% divergent branches\n",
        divergent_per_mille as f64 / 10.0
    );
    println!(
        "{:<22} {:>8} {:>15} {:>24} {:>26} {:>11}",
        "transform", "flows", "branches added", "uniform preserved", "outside divergent regions", "ops added"
    );
    for (slot, ordering) in Ordering::ALL.iter().enumerate() {
        let t = totals[slot];
        println!(
            "{:<22} {:>8} {:>15} {:>10}/{:<5} ({:>5.1}%) {:>10}/{:<5} ({:>5.1}%) {:>9}",
            format!("reconverge {}", ordering.name()),
            t.flows,
            t.branches_added,
            t.uniform_preserved,
            t.uniform,
            100.0 * t.uniform_preserved as f64 / t.uniform.max(1) as f64,
            t.uniform_outside_preserved,
            t.uniform_outside,
            100.0 * t.uniform_outside_preserved as f64 / t.uniform_outside.max(1) as f64,
            t.ops_added
        );
    }
    println!("{:<22} {:>8}   (blocks added, {} of {} functions lowered)", "llvm structurizecfg", llvm_blocks_added, llvm_ok, functions);
}

fn context() -> Context {
    spmd::dialect::context_with_all_dialects()
}

/// Runs the pass with `ordering` on `text` and counts what changed.
fn measure(context: &Context, text: &str, ordering: Ordering) -> Totals {
    let mut module = Module::parse(context, text).expect("valid input");
    let function = cfg_regions(module.as_operation()).into_iter().find(|r| r.function_like).unwrap();
    let uniformity = RegionUniformity::compute(function.owner, function.region, UniformityOptions::default()).unwrap();
    let graph = uniformity.graph();
    let inside = inside_divergent_regions(graph.graph(), uniformity.cfg(), &|b| uniformity.info().is_divergent_branch(b));
    let mut uniform_branches = Vec::new();
    for b in 0..graph.num_blocks() {
        let terminator = graph.terminator(BlockId::new(b));
        if terminator.successor_count() >= 2 && !uniformity.info().is_divergent_branch(BlockId::new(b)) {
            let successors: Vec<usize> = terminator.successors().map(|s| s.to_raw().ptr as usize).collect();
            uniform_branches.push((terminator.to_raw().ptr as usize, successors, inside[b]));
        }
    }
    let (branches_before, ops_before) = count(&module);
    let manager = PassManager::new(context);
    parse_pass_pipeline(
        manager.as_operation_pass_manager(),
        &format!("builtin.module(spmd-reconverge{{ordering={}}})", ordering.name()),
    )
    .unwrap();
    manager.run(&mut module).expect("reconverge succeeds");
    let (branches_after, ops_after) = count(&module);
    let mut preserved = 0;
    let mut outside_preserved = 0;
    let mut flows = 0;
    module.as_operation().walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or_default().to_string();
        if name == "spmd.flow_br" {
            flows += 1;
        }
        if let Some((_, successors, inside)) = uniform_branches.iter().find(|(raw, _, _)| *raw == op.to_raw().ptr as usize) {
            let now: Vec<usize> = op.successors().map(|s| s.to_raw().ptr as usize).collect();
            preserved += usize::from(&now == successors);
            outside_preserved += usize::from(&now == successors && !inside);
        }
        melior::ir::operation::WalkResult::Advance
    });
    Totals {
        flows,
        branches_added: branches_after as isize - branches_before as isize,
        uniform: uniform_branches.len(),
        uniform_preserved: preserved,
        uniform_outside: uniform_branches.iter().filter(|(_, _, inside)| !inside).count(),
        uniform_outside_preserved: outside_preserved,
        ops_added: ops_after as isize - ops_before as isize,
    }
}

/// Per block: is it strictly inside the region of some divergent branch
/// (reachable from it without passing its immediate post-dominator)?
fn inside_divergent_regions(
    graph: &spmd::analysis::cfg::CfgGraph,
    cfg: &spmd::analysis::cfg::CfgAnalysis,
    divergent: &dyn Fn(BlockId) -> bool,
) -> Vec<bool> {
    use spmd::analysis::cfg::Graph;
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

/// (terminators with two or more successors, operations) in the module.
fn count(module: &Module) -> (usize, usize) {
    let (mut branches, mut ops) = (0, 0);
    let function = cfg_regions(module.as_operation()).into_iter().find(|r| r.function_like).unwrap();
    let mut block = function.region.first_block();
    while let Some(b) = block {
        let mut op = b.first_operation();
        while let Some(o) = op {
            ops += 1;
            branches += usize::from(o.successor_count() >= 2);
            op = o.next_in_block();
        }
        block = b.next_in_region();
    }
    (branches, ops)
}

/// Blocks added by LLVM's structurizecfg pipeline on the LLVM IR form of
/// `text`, or `None` if a tool is missing or fails.
fn llvm_structurizecfg_blocks_added(text: &str) -> Option<isize> {
    let bin = "/usr/lib/llvm-22/bin";
    let dir = std::env::temp_dir();
    let input = dir.join("spmd-quality.mlir");
    std::fs::write(&input, text.replace(" {spmd.divergent}", "")).ok()?;
    let llvm_dialect = run(&format!("{bin}/mlir-opt"), &["--convert-to-llvm", "--reconcile-unrealized-casts", input.to_str()?], None)?;
    let ll = run(&format!("{bin}/mlir-translate"), &["--mlir-to-llvmir"], Some(&llvm_dialect))?;
    let before = count_llvm_blocks(&ll);
    let structured = run(
        &format!("{bin}/opt"),
        &["-S", "-passes=lower-switch,fix-irreducible,unify-loop-exits,structurizecfg"],
        Some(&ll),
    )?;
    Some(count_llvm_blocks(&structured) as isize - before as isize)
}

fn count_llvm_blocks(ll: &str) -> usize {
    // The entry block plus one per label line (`name:` at column 0).
    1 + ll
        .lines()
        .filter(|l| !l.starts_with([' ', ';', '!']))
        .filter(|l| l.split_whitespace().next().is_some_and(|token| token.ends_with(':')))
        .count()
}

fn run(tool: &str, args: &[&str], stdin: Option<&str>) -> Option<String> {
    use std::io::Write;
    let mut child = Command::new(tool)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    if let Some(input) = stdin {
        child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    }
    drop(child.stdin.take());
    let output = child.wait_with_output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}
