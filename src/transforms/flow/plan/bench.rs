//! Scaling benchmark of the planner on random code-shaped CFGs.
//!
//! [`run_benchmark`] generates one CFG per size with
//! [`realistic_cfg`](crate::analysis::cfg::random::realistic_cfg) (early
//! returns unified into the last block, 30% of the two-way branches
//! divergent) and reports, best of 3: the whole [`CfgAnalysis`] service
//! (the anchor), the planner's pre-check (is the input already
//! reconverging?), the plan itself (layout + sweep + bookkeeping) per
//! ordering without verification, and the default planner call (pre-check,
//! plan, verification). The growth ratio between the largest and the
//! smallest size tells whether the planner scales like the analyses.

use super::corpus::{sample, Class};
use super::{is_reconverging, plan_reconvergence_with, Ordering, PlanOptions, ReconvergePlan};
use crate::analysis::cfg::random::SplitMix64;
use crate::analysis::cfg::{CfgAnalysis, Graph};
use std::fmt::Write;
use std::time::Instant;

fn best_of_3(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn ms(s: f64) -> String {
    format!("{:.2}", s * 1e3)
}

/// Runs the benchmark for each size (blocks, each >= 3) and returns a
/// printable report. Panics if a plan fails.
pub fn run_benchmark(sizes: &[usize]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>8} {:>8} {:>6} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "blocks",
        "edges",
        "div",
        "flows",
        "anlys ms",
        "check ms",
        "df ms",
        "dfpd ms",
        "bf ms",
        "rpot ms",
        "full ms"
    );
    let mut rows: Vec<(usize, f64, f64)> = Vec::new();
    for &n in sizes {
        let mut rng = SplitMix64::new(0xB0_0000 ^ n as u64);
        let s = sample(&mut rng, Class::UnifiedExits, n, 300);
        let g = &s.graph;
        let mut analysis = CfgAnalysis::new();
        let anchor = best_of_3(|| analysis.compute(g));
        let check = best_of_3(|| {
            is_reconverging(g, &|b| s.divergent[b.index()], s.exit);
        });
        let mut per = Vec::new();
        let mut dfpd_plan: Option<ReconvergePlan> = None;
        for ordering in Ordering::ALL {
            let options = PlanOptions {
                ordering,
                verify: false,
                keep_reconverging_input: false,
            };
            let t = best_of_3(|| {
                let p = plan_reconvergence_with(g, &s.divergent, s.exit, &options).expect("plan");
                if ordering == Ordering::Dfpd {
                    dfpd_plan = Some(p);
                }
            });
            per.push(t);
        }
        let full = best_of_3(|| {
            plan_reconvergence_with(g, &s.divergent, s.exit, &PlanOptions::default())
                .expect("verified plan");
        });
        let plan = dfpd_plan.expect("dfpd plan");
        let div = s.divergent.iter().filter(|&&d| d).count();
        let _ = writeln!(
            out,
            "{:>8} {:>8} {:>6} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9}",
            g.num_blocks(),
            g.num_edges(),
            div,
            plan.num_flows(),
            ms(anchor),
            ms(check),
            ms(per[0]),
            ms(per[1]),
            ms(per[2]),
            ms(per[3]),
            ms(full)
        );
        rows.push((n, anchor, per[1]));
    }
    out.push_str("(best of 3; anlys = CfgAnalysis::compute; check = Definition 1 pre-check; df..rpot = plan\n");
    out.push_str(" without pre-check/verification; full = default options: pre-check + dfpd plan + verification)\n");
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        if last.0 > first.0 {
            let _ = writeln!(
                out,
                "growth {}->{} blocks ({:.0}x): analysis {:.1}x, dfpd plan {:.1}x; plan/analysis at {}: {:.2}",
                first.0,
                last.0,
                last.0 as f64 / first.0 as f64,
                last.1 / first.1,
                last.2 / first.2,
                last.0,
                last.2 / last.1
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn small_benchmark_report() {
        let report = super::run_benchmark(&[300, 1000]);
        assert!(report.contains("dfpd ms"), "{report}");
        assert!(report.lines().count() >= 5, "{report}");
    }
}
