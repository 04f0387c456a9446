//! Benchmark of the uniformity analysis (`UniformityInfo::compute`) on a
//! random million-op program, and the random program generator shared with
//! the property tests.
//!
//! [`run_benchmark`] builds a code-shaped CFG ([`realistic_cfg`], about ten
//! ops per block), fills it with a random SSA program ([`random_program`]:
//! values used only where their definition dominates, ~2% `Source` ops,
//! block arguments on about half of the blocks) and times, best of 3 with
//! warm buffers: the [`CfgAnalysis`] of the graph (the anchor), the
//! program snapshot (the generated program fed again through a reused
//! `ProgramBuilder`, what an adapter pays besides walking its IR), and
//! the uniformity analysis.

use super::analysis::UniformityInfo;
use super::program::{
    ArgumentKind, BranchMark, OpKind, Program, ProgramBuilder, ValueDef, ValueId,
};
use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
use crate::analysis::cfg::{BlockId, CfgAnalysis, Graph};
use std::fmt::Write;
use std::time::Instant;

/// Shape of a [`random_program`]. Probabilities are per mille.
#[derive(Clone, Debug)]
pub(crate) struct RandomProgramParams {
    /// Ops per block, inclusive range.
    pub(crate) ops_per_block: (usize, usize),
    /// Per mille of blocks that get arguments (1..=3 of them).
    pub(crate) args_pm: u64,
    /// Per mille of ops that are `Source`.
    pub(crate) source_pm: u64,
    /// Per mille of ops that are `Uniform`.
    pub(crate) uniform_pm: u64,
    /// Per mille of ops that are `Constant` (keys `0..4`, so equal
    /// constants meet often).
    pub(crate) constant_pm: u64,
    /// Per mille of block arguments created `Divergent`.
    pub(crate) divergent_arg_pm: u64,
    /// Per mille of multi-slot terminators carrying a mark.
    pub(crate) mark_pm: u64,
    /// Per mille of multi-slot terminators without a condition.
    pub(crate) no_condition_pm: u64,
    /// Per mille of slots forwarding fewer operands than the target needs.
    pub(crate) missing_forward_pm: u64,
    /// Per mille of operand picks taken from the current block (the rest
    /// walk up the dominator tree).
    pub(crate) local_pm: u64,
    /// If set, the argument with this creation index is made `Divergent`
    /// (without changing the random sequence): monotonicity tests.
    pub(crate) force_divergent_arg: Option<usize>,
}

impl Default for RandomProgramParams {
    fn default() -> Self {
        RandomProgramParams {
            ops_per_block: (8, 12),
            args_pm: 500,
            source_pm: 20,
            uniform_pm: 30,
            constant_pm: 100,
            divergent_arg_pm: 0,
            mark_pm: 0,
            no_condition_pm: 0,
            missing_forward_pm: 0,
            local_pm: 700,
            force_divergent_arg: None,
        }
    }
}

/// Fills `builder` with a random SSA program over `g` (whose analysis is
/// `cfg`) and finishes it. Blocks are visited in RPO, then the unreachable
/// ones; operands are values of the same block or of a dominator, so the
/// program passes `Program::validate`. The entry block gets two
/// uniform function arguments. With `rename = Some(map)`, block `b` of `g`
/// is emitted as block `map[b]`: the same calls in the same order, so the
/// value ids are identical (block-renaming invariance tests).
pub(crate) fn random_program<G: Graph + ?Sized>(
    rng: &mut SplitMix64,
    g: &G,
    cfg: &CfgAnalysis,
    params: &RandomProgramParams,
    rename: Option<&[u32]>,
    builder: &mut ProgramBuilder,
) {
    let n = g.num_blocks();
    let name = |b: BlockId| rename.map_or(b, |m| BlockId::new(m[b.index()] as usize));
    builder.begin(n);
    let dom = cfg.dominators();
    // Values of each block, in a flat array: block_vals[range[b]].
    let mut range = vec![(0u32, 0u32); n];
    let mut block_vals: Vec<ValueId> = Vec::with_capacity(n * 14);
    let mut num_args = 0usize;
    let order: Vec<BlockId> = cfg
        .traversal()
        .rpo()
        .iter()
        .copied()
        .chain((0..n).map(BlockId::new).filter(|&b| !dom.is_reachable(b)))
        .collect();
    let pick = |rng: &mut SplitMix64,
                b: BlockId,
                own: &[ValueId],
                block_vals: &[ValueId],
                range: &[(u32, u32)]| {
        if !own.is_empty() && rng.chance(params.local_pm) {
            return Some(own[rng.below(own.len() as u64) as usize]);
        }
        let mut d = b;
        for _ in 0..rng.range(1, 4) {
            match dom.idom(d) {
                Some(p) => d = p,
                None => break,
            }
        }
        let (s, e) = range[d.index()];
        let vals = if d == b {
            own
        } else {
            &block_vals[s as usize..e as usize]
        };
        (!vals.is_empty()).then(|| vals[rng.below(vals.len() as u64) as usize])
    };
    for &b in &order {
        let start = block_vals.len();
        let arity = if b == g.entry() {
            2
        } else if rng.chance(params.args_pm) {
            rng.range(1, 3)
        } else {
            0
        };
        for _ in 0..arity {
            let mut kind = if b != g.entry() && rng.chance(params.divergent_arg_pm) {
                ArgumentKind::Divergent
            } else {
                ArgumentKind::Uniform
            };
            if params.force_divergent_arg == Some(num_args) {
                kind = ArgumentKind::Divergent;
            }
            num_args += 1;
            block_vals.push(builder.add_argument(name(b), kind));
        }
        // A constant first, so every block has something to use.
        let c = builder.add_op(name(b), OpKind::Constant(rng.below(4)), &[], 1);
        block_vals.push(builder.op_results(c)[0]);
        let num_ops = rng.range(params.ops_per_block.0, params.ops_per_block.1);
        let mut operands = Vec::with_capacity(2);
        for _ in 1..num_ops {
            let roll = rng.below(1000);
            let kind = if roll < params.source_pm {
                OpKind::Source
            } else if roll < params.source_pm + params.uniform_pm {
                OpKind::Uniform
            } else if roll < params.source_pm + params.uniform_pm + params.constant_pm {
                OpKind::Constant(rng.below(4))
            } else {
                OpKind::Pure
            };
            operands.clear();
            if !matches!(kind, OpKind::Constant(_)) {
                for _ in 0..rng.range(1, 2) {
                    let own = &block_vals[start..];
                    if let Some(v) = pick(rng, b, own, &block_vals, &range) {
                        operands.push(v);
                    }
                }
            }
            let results = if rng.chance(50) { 2 } else { 1 };
            let op = builder.add_op(name(b), kind, &operands, results);
            block_vals.extend_from_slice(builder.op_results(op));
        }
        range[b.index()] = (start as u32, block_vals.len() as u32);
    }
    // Terminators, once every block's arguments exist.
    let mut forwarded: Vec<Vec<ValueId>> = Vec::new();
    for &b in &order {
        let succs = g.successors(b);
        let (s, e) = range[b.index()];
        let own = &block_vals[s as usize..e as usize];
        let mut condition = None;
        let mut mark = None;
        if succs.len() >= 2 {
            if !rng.chance(params.no_condition_pm) {
                condition = pick(rng, b, own, &block_vals, &range);
            }
            if rng.chance(params.mark_pm) {
                mark = Some(if rng.chance(500) {
                    BranchMark::Uniform
                } else {
                    BranchMark::Divergent
                });
            }
        }
        forwarded.resize(succs.len(), Vec::new());
        for (slot, &t) in succs.iter().enumerate() {
            let f = &mut forwarded[slot];
            f.clear();
            let mut wanted = builder.num_arguments(name(t));
            if wanted > 0 && rng.chance(params.missing_forward_pm) {
                wanted -= 1;
            }
            for _ in 0..wanted {
                f.push(pick(rng, b, own, &block_vals, &range).expect("blocks define a constant"));
            }
        }
        let slices: Vec<&[ValueId]> = forwarded[..succs.len()]
            .iter()
            .map(|v| v.as_slice())
            .collect();
        builder.set_terminator(name(b), condition, mark, &slices);
    }
    builder.finish();
}

/// Builds a random program of about `num_ops` ops (about `num_ops / 10`
/// blocks) and returns a printable report of the timings and statistics.
pub fn run_benchmark(num_ops: usize) -> String {
    let mut out = String::new();
    let blocks = (num_ops / 10).max(2);
    let mut rng = SplitMix64::new(0x0D1C_E000 ^ num_ops as u64);
    let g = realistic_cfg(&mut rng, blocks);
    let mut cfg = CfgAnalysis::new();
    let cfg_time = best_of_3(|| cfg.compute(&g));
    let params = RandomProgramParams::default();
    let mut generator = ProgramBuilder::new();
    random_program(&mut rng, &g, &cfg, &params, None, &mut generator);
    let program = generator.program();
    // What an adapter pays: feeding the same program through a builder.
    let mut builder = ProgramBuilder::new();
    let build_time = best_of_3(|| replay(program, &g, &mut builder));
    assert_eq!(builder.program().num_values(), program.num_values());
    let mut info = UniformityInfo::new();
    let cold = {
        let start = Instant::now();
        info.compute(program, &g, &cfg);
        start.elapsed().as_secs_f64()
    };
    let compute_time = best_of_3(|| info.compute(program, &g, &cfg));
    let stats = info.stats();
    let reachable = cfg.traversal().num_reachable();
    let branches = (0..g.num_blocks())
        .filter(|&b| g.successors(BlockId::new(b)).len() >= 2)
        .count();
    let _ = writeln!(
        out,
        "program: {} blocks ({} reachable), {} ops, {} values, {} multi-slot terminators, {} cycles ({} irreducible)",
        g.num_blocks(),
        reachable,
        program.num_ops(),
        program.num_values(),
        branches,
        cfg.cycles().num_cycles(),
        cfg.irreducibility().len(),
    );
    let _ = writeln!(
        out,
        "result: {} divergent values ({:.1}%), {} divergent branches, {} joins, {} temporally divergent cycles, {} irreducible cycles made divergent, {} propagation steps ({:.1} per divergent branch)",
        stats.divergent_values,
        100.0 * stats.divergent_values as f64 / program.num_values().max(1) as f64,
        stats.divergent_branches,
        stats.joins,
        stats.temporal_cycles,
        stats.irreducible_cycles,
        stats.propagation_work,
        stats.propagation_work as f64 / stats.divergent_branches.max(1) as f64,
    );
    let _ = writeln!(
        out,
        "time (best of 3): uniformity {:.1} ms (first run {:.1} ms), CfgAnalysis {:.1} ms, program snapshot {:.1} ms; {:.1} ns per op",
        compute_time * 1e3,
        cold * 1e3,
        cfg_time * 1e3,
        build_time * 1e3,
        compute_time * 1e9 / program.num_ops().max(1) as f64,
    );
    out
}

/// Rebuilds `program` through `builder` with the same calls in the same
/// order (so the same ids). Assumes every op has at least one result, as
/// [`random_program`] guarantees.
fn replay<G: Graph + ?Sized>(program: &Program, g: &G, builder: &mut ProgramBuilder) {
    builder.begin(program.num_blocks());
    for i in 0..program.num_values() {
        let v = ValueId::new(i);
        match program.value_def(v) {
            ValueDef::Argument { block, kind, .. } => {
                builder.add_argument(block, kind);
            }
            ValueDef::Result { op, index: 0 } => {
                let (block, kind) = (program.op_block(op), program.op_kind(op));
                builder.add_op(
                    block,
                    kind,
                    program.op_operands(op),
                    program.op_results(op).len(),
                );
            }
            ValueDef::Result { .. } => {}
        }
    }
    let mut slots: Vec<&[ValueId]> = Vec::new();
    for b in 0..program.num_blocks() {
        let b = BlockId::new(b);
        slots.clear();
        slots.extend((0..g.successors(b).len()).map(|s| program.forwarded(b, s)));
        builder.set_terminator(b, program.condition(b), program.mark(b), &slots);
    }
    builder.finish();
}

fn best_of_3(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}
