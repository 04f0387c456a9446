//! [`quality_report`]: the orderings compared on a mixed corpus.

use super::corpus::{sample, Class};
use super::relevant::RView;
use super::{plan_reconvergence_with, Ordering, PlanOptions};
use crate::analysis::cfg::random::SplitMix64;
use crate::analysis::cfg::{BlockId, Graph};
use std::fmt::Write;

/// Plans `count` random CFGs generated from `seed` — half code-shaped with
/// unified returns, a quarter reducible, a quarter irreducible; 12..160
/// blocks; 0%, 10%, 25% or 50% of the two-way branches divergent — with every
/// [`Ordering`] and returns a table of Flows inserted, loop latches among
/// them, rerouted slots and uniform branches kept. A uniform branch is a
/// non-divergent block with two different successors that can return;
/// "in regions" are those strictly between a divergent branch and its
/// immediate post-dominator (the only ones the planner may have to touch).
/// Panics if a plan fails.
pub fn quality_report(seed: u64, count: usize) -> String {
    let mut rng = SplitMix64::new(seed);
    let classes = [
        Class::UnifiedExits,
        Class::Reducible,
        Class::UnifiedExits,
        Class::Irreducible,
    ];
    let rates = [0, 100, 250, 500];
    let samples: Vec<_> = (0..count)
        .map(|i| {
            let n = rng.range(12, 160);
            sample(
                &mut rng,
                classes[i % classes.len()],
                n,
                rates[(i / classes.len()) % rates.len()],
            )
        })
        .collect();
    let (mut blocks, mut divergent, mut uniform, mut in_regions, mut needing) = (0, 0, 0, 0, 0);
    let mut region_of: Vec<(Vec<bool>, Vec<bool>)> = Vec::new();
    for s in &samples {
        let g = &s.graph;
        blocks += g.num_blocks();
        let view = RView::build(g, s.exit);
        let is_div = |b: BlockId| s.divergent[b.index()];
        let inside = view.in_divergent_regions(g, &is_div);
        // Only two-slot blocks are divergent in the corpus: no NotTwoWay.
        needing +=
            !crate::analysis::reconverging::check_against(g, &is_div, &view).is_empty() as usize;
        for b in (0..g.num_blocks()).map(BlockId::new) {
            if !is_branch(g, &view.in_r, b) {
                continue;
            }
            if s.divergent[b.index()] {
                divergent += 1;
            } else {
                uniform += 1;
                in_regions += inside[b.index()] as usize;
            }
        }
        region_of.push((inside, view.in_r));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "quality of the orderings (seed {seed:#x}): {count} CFGs, {blocks} blocks, {needing} not reconverging;"
    );
    let _ = writeln!(
        out,
        "{divergent} divergent branches, {uniform} uniform branches of which {in_regions} in divergent regions"
    );
    let _ = writeln!(
        out,
        "{:>8} {:>8} {:>9} {:>8} {:>9} {:>10} {:>12} {:>11}",
        "ordering",
        "flows",
        "flows/div",
        "latches",
        "rerouted",
        "unif.kept",
        "kept/region",
        "kept/other"
    );
    for ordering in Ordering::ALL {
        let options = PlanOptions {
            ordering,
            ..PlanOptions::default()
        };
        let (mut flows, mut latches, mut rerouted, mut touched_in, mut touched_out) =
            (0, 0, 0, 0, 0);
        for (s, (inside, in_r)) in samples.iter().zip(&region_of) {
            let plan = plan_reconvergence_with(&s.graph, &s.divergent, s.exit, &options)
                .unwrap_or_else(|e| panic!("planning failed: {e}"));
            let st = plan.stats();
            flows += st.flows;
            latches += st.loop_latches;
            rerouted += st.edges_rerouted;
            let mut last = None;
            for (b, _, _) in plan.redirected_slots() {
                if s.divergent[b.index()] || last == Some(b) {
                    continue;
                }
                last = Some(b);
                if !is_branch(&s.graph, in_r, b) {
                    continue;
                }
                if inside[b.index()] {
                    touched_in += 1;
                } else {
                    touched_out += 1;
                }
            }
        }
        let pct = |kept: usize, total: usize| {
            if total == 0 {
                100.0
            } else {
                100.0 * kept as f64 / total as f64
            }
        };
        let _ = writeln!(
            out,
            "{:>8} {:>8} {:>9.2} {:>8} {:>9} {:>9.1}% {:>11.1}% {:>10.1}%",
            ordering.name(),
            flows,
            flows as f64 / divergent.max(1) as f64,
            latches,
            rerouted,
            pct(uniform - touched_in - touched_out, uniform),
            pct(in_regions - touched_in, in_regions),
            pct(uniform - in_regions - touched_out, uniform - in_regions)
        );
    }
    let _ = writeln!(out, "per class, dfpd:");
    let _ = writeln!(
        out,
        "{:>14} {:>6} {:>8} {:>8} {:>9} {:>10}",
        "class", "CFGs", "div.br", "flows", "flows/div", "unif.kept"
    );
    for class in [Class::UnifiedExits, Class::Reducible, Class::Irreducible] {
        let (mut cfgs, mut div, mut flows, mut unif, mut rerouted) = (0, 0, 0, 0, 0);
        for (i, s) in samples.iter().enumerate() {
            if classes[i % classes.len()] != class {
                continue;
            }
            let plan =
                plan_reconvergence_with(&s.graph, &s.divergent, s.exit, &PlanOptions::default())
                    .unwrap_or_else(|e| panic!("planning failed: {e}"));
            let st = plan.stats();
            cfgs += 1;
            div += st.divergent_branches;
            flows += st.flows;
            unif += st.uniform_branches;
            rerouted += st.uniform_branches_rerouted;
        }
        let kept = if unif == 0 {
            100.0
        } else {
            100.0 * (unif - rerouted) as f64 / unif as f64
        };
        let _ = writeln!(
            out,
            "{:>14} {:>6} {:>8} {:>8} {:>9.2} {:>9.1}%",
            format!("{class:?}"),
            cfgs,
            div,
            flows,
            flows as f64 / div.max(1) as f64,
            kept
        );
    }
    out.push_str("(rerouted: original slots whose target changed; unif.kept: uniform branches with all slots\n");
    out.push_str(" unchanged, overall / in divergent regions / elsewhere (irreducible cycles aside, always 100%))\n");
    out
}

/// A block of `R` with two different successors in `R`.
fn is_branch<G: Graph + ?Sized>(g: &G, in_r: &[bool], b: BlockId) -> bool {
    if !in_r[b.index()] {
        return false;
    }
    let mut inside = g.successors(b).iter().filter(|t| in_r[t.index()]);
    match inside.next() {
        Some(first) => inside.any(|t| t != first),
        None => false,
    }
}
