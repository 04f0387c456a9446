//! Scaling benchmark of the analyses on random code-shaped CFGs.
//!
//! [`run_benchmark`] generates one [`realistic_cfg`] per size and times
//! the forward DFS/RPO, dominators, post-dominators and the cycle forest
//! separately (best of 3, buffers warm — the steady state of the
//! re-entrant [`CfgAnalysis`] service), plus the whole service, plus the
//! Cooper–Harvey–Kennedy reference dominators as an anchor for sizes up to
//! 100k. It reports the growth ratio between 1M and 100k blocks when both
//! sizes are present (linear growth would be 10x).

use super::analysis::CfgAnalysis;
use super::cycles::CycleForest;
use super::dominators::{reference_dominators, DominatorTree};
use super::graph::{BlockId, CfgGraph, Graph};
use super::post_dominators::PostDominatorTree;
use super::random::{realistic_cfg, SplitMix64};
use super::traversal::Traversal;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// Largest size for which the quadratic-worst-case reference is timed.
const REFERENCE_LIMIT: usize = 100_000;

/// Timings of one size, in seconds.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    blocks: usize,
    edges: usize,
    rpo: f64,
    dom: f64,
    pdom: f64,
    cycles: f64,
    service: f64,
    cold: f64,
    reference: Option<f64>,
}

impl Row {
    fn four(&self) -> f64 {
        self.rpo + self.dom + self.pdom + self.cycles
    }
}

/// Runs the benchmark for each size (in blocks, each >= 2) and returns a
/// printable report: graph statistics, a timing table in milliseconds and
/// the 1M/100k growth ratios. Also asserts that the fast dominators
/// agree with the reference wherever the reference is timed.
pub fn run_benchmark(sizes: &[usize]) -> String {
    let mut out = String::new();
    let mut rows = Vec::new();
    for &n in sizes {
        let g = realistic_cfg(&mut SplitMix64::new(0x5EED_0000 ^ n as u64), n);
        let _ = writeln!(out, "{}", describe_graph(&g));
        rows.push(measure(&g));
    }
    write_table(&mut out, &rows);
    write_ratios(&mut out, &rows);
    out
}

/// Best wall time of three runs of `f`.
fn best_of_3(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

fn measure(g: &CfgGraph) -> Row {
    let mut dfs = Traversal::new();
    let mut dom = DominatorTree::new();
    let mut pdom = PostDominatorTree::new();
    let mut forest = CycleForest::new();
    let cold = {
        let start = Instant::now();
        CfgAnalysis::build(g);
        start.elapsed().as_secs_f64()
    };
    let mut service = CfgAnalysis::new();
    let rpo = best_of_3(|| dfs.compute(g));
    let dom_time = best_of_3(|| dom.compute(g, &dfs));
    let pdom_time = best_of_3(|| pdom.compute(g, &dfs));
    let cycles = best_of_3(|| forest.compute(g, &dfs));
    let service_time = best_of_3(|| service.compute(g));
    let reference = (g.num_blocks() <= REFERENCE_LIMIT).then(|| {
        let mut idoms = Vec::new();
        let t = best_of_3(|| idoms = reference_dominators(g));
        for (i, &r) in idoms.iter().enumerate() {
            assert_eq!(
                dom.idom(BlockId::new(i)),
                r,
                "fast and reference dominators disagree"
            );
        }
        t
    });
    Row {
        blocks: g.num_blocks(),
        edges: g.num_edges(),
        rpo,
        dom: dom_time,
        pdom: pdom_time,
        cycles,
        service: service_time,
        cold,
        reference,
    }
}

fn describe_graph(g: &CfgGraph) -> String {
    let a = CfgAnalysis::build(g);
    let f = a.cycles();
    let max_depth = f.cycles().map(|c| f.depth(c)).max().unwrap_or(0);
    format!(
        "{} blocks: {} edges, {} reachable, {} exits, {} infinite-loop roots, {} cycles (max depth {}), {} irreducible",
        g.num_blocks(),
        g.num_edges(),
        a.traversal().num_reachable(),
        a.post_dominators().exits().len(),
        a.post_dominators().extra_roots().len(),
        f.num_cycles(),
        max_depth,
        a.irreducibility().len()
    )
}

fn ms(seconds: f64) -> String {
    format!("{:.2}", seconds * 1e3)
}

fn write_table(out: &mut String, rows: &[Row]) {
    let _ = writeln!(
        out,
        "\n{:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "blocks",
        "edges",
        "rpo ms",
        "dom ms",
        "pdom ms",
        "cycles ms",
        "4-sum ms",
        "all ms",
        "cold ms",
        "chk ms"
    );
    for r in rows {
        let chk = r.reference.map_or("-".to_string(), ms);
        let _ = writeln!(
            out,
            "{:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            r.blocks,
            r.edges,
            ms(r.rpo),
            ms(r.dom),
            ms(r.pdom),
            ms(r.cycles),
            ms(r.four()),
            ms(r.service),
            ms(r.cold),
            chk
        );
    }
    out.push_str(concat!(
        "(best of 3 with warm buffers; all = whole CfgAnalysis::compute incl. irreducibility and tags;\n",
        " cold = first CfgAnalysis::compute on fresh buffers; chk = CHK reference dominators)\n"
    ));
}

fn write_ratios(out: &mut String, rows: &[Row]) {
    let find = |n: usize| rows.iter().find(|r| r.blocks == n);
    let (Some(small), Some(big)) = (find(100_000), find(1_000_000)) else {
        return;
    };
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    let _ = writeln!(
        out,
        "growth 1M/100k: rpo {:.1}x, dom {:.1}x, pdom {:.1}x, cycles {:.1}x, 4-sum {:.1}x, all {:.1}x (linear = 10x)",
        ratio(big.rpo, small.rpo),
        ratio(big.dom, small.dom),
        ratio(big.pdom, small.pdom),
        ratio(big.cycles, small.cycles),
        ratio(big.four(), small.four()),
        ratio(big.service, small.service)
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn small_benchmark_report() {
        let report = super::run_benchmark(&[300, 1000]);
        assert!(report.contains("blocks"));
        assert!(report.lines().count() >= 5);
    }
}
