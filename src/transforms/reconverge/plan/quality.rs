//! [`quality_report`]: the orderings compared on a mixed corpus.

use super::corpus::{sample, Class};
use super::{plan_reconvergence_with, Ordering, PlanOptions, PlanStats};
use crate::analysis::cfg::random::SplitMix64;
use crate::analysis::cfg::Graph;
use std::fmt::Write;

/// Plans `count` random CFGs (reducible, irreducible and code-shaped with
/// unified returns, 12..160 blocks, 10%..60% of the two-way branches
/// divergent, generated from `seed`) with every [`Ordering`] and returns a
/// table: Flows inserted, slots rerouted, loop latches, CFGs changed, and
/// the share of uniform branches that kept all their slots. Panics if a
/// plan fails.
pub fn quality_report(seed: u64, count: usize) -> String {
    let mut rng = SplitMix64::new(seed);
    let classes = [Class::Reducible, Class::Irreducible, Class::UnifiedExits];
    let samples: Vec<_> = (0..count)
        .map(|i| {
            let n = rng.range(12, 160);
            let rate = rng.range(100, 600) as u64;
            sample(&mut rng, classes[i % classes.len()], n, rate)
        })
        .collect();
    let blocks: usize = samples.iter().map(|s| s.graph.num_blocks()).sum();
    let mut out = String::new();
    let _ = writeln!(out, "quality of the orderings: {count} CFGs, {blocks} blocks (seed {seed:#x})");
    let _ = writeln!(
        out,
        "{:>8} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9} {:>10}",
        "ordering", "div.br", "flows", "latches", "changed", "rerouted", "unif.br", "unif.kept"
    );
    for ordering in Ordering::ALL {
        let options = PlanOptions { ordering, ..PlanOptions::default() };
        let mut total = PlanStats::default();
        let mut changed = 0;
        for s in &samples {
            let plan = plan_reconvergence_with(&s.graph, &s.divergent, s.exit, &options)
                .unwrap_or_else(|e| panic!("planning failed: {e}"));
            let st = plan.stats();
            changed += plan.changed() as usize;
            total.divergent_branches += st.divergent_branches;
            total.uniform_branches += st.uniform_branches;
            total.flows += st.flows;
            total.loop_latches += st.loop_latches;
            total.edges_rerouted += st.edges_rerouted;
            total.uniform_branches_rerouted += st.uniform_branches_rerouted;
        }
        let _ = writeln!(
            out,
            "{:>8} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9.1}%",
            ordering.name(),
            total.divergent_branches,
            total.flows,
            total.loop_latches,
            changed,
            total.edges_rerouted,
            total.uniform_branches,
            total.uniform_preserved_percent()
        );
    }
    out.push_str("(div.br / unif.br: divergent / uniform branches that can reach the exit; rerouted: original\n");
    out.push_str(" slots whose target changed; unif.kept: uniform branches with all slots unchanged)\n");
    out
}
