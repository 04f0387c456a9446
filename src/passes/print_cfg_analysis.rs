//! `--spmd-print-cfg-analysis`: the CFG analyses of every function, as text.

use super::{for_each_region, PassOptions, PassOutcome, RegionFailure, Report, Scope, Statistic};
use crate::{
    analysis::{cfg::CfgAnalysis, report::render_text},
    ir::region_graph::RegionGraph,
};
use melior::ir::OperationRef;

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_print_cfg_analysis::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    _: &PassOptions,
    report: &mut Report,
) -> Result<PassOutcome, ()> {
    let mut analysis = CfgAnalysis::new();
    let mut outcome = PassOutcome::new(STATISTICS);
    for_each_region(root, Scope::CfgRegions, |cfg| {
        let graph = RegionGraph::snapshot(cfg.region)
            .map_err(|e| RegionFailure::cannot(cfg, "analyse", e))?;
        analysis.compute(graph.graph());
        report.write(&format!(
            "// cfg-analysis {}: {} blocks\n",
            cfg.label,
            graph.num_blocks()
        ));
        report.write(&render_text(graph.graph(), &analysis, &|b| graph.name(b)));
        outcome.add("regions", 1);
        outcome.add("blocks", graph.num_blocks());
        Ok(())
    })?;
    Ok(outcome)
}
