//! `--spmd-print-cfg-analysis`: the CFG analyses of every function, as text.

use super::{PassOptions, Report};
use crate::{
    analysis::{
        cfg::CfgAnalysis, function_regions::cfg_regions, region_graph::RegionGraph,
        report::render_text,
    },
    diagnostics,
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, _: &PassOptions, report: &mut Report) -> Result<(), ()> {
    let mut analysis = CfgAnalysis::new();
    let mut failed = false;
    for cfg in cfg_regions(root) {
        let graph = match RegionGraph::snapshot(cfg.region) {
            Ok(graph) => graph,
            Err(error) => {
                diagnostics::emit_error(cfg.owner.location(), &format!("cannot analyse {}: {error}", cfg.label));
                failed = true;
                continue;
            }
        };
        analysis.compute(graph.graph());
        report.write(&format!("// cfg-analysis {}: {} blocks\n", cfg.label, graph.num_blocks()));
        report.write(&render_text(graph.graph(), &analysis, &|b| graph.name(b)));
    }
    if failed { Err(()) } else { Ok(()) }
}
