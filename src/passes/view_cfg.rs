//! `--spmd-view-cfg`: each function's CFG as Graphviz DOT.
//!
//! Blocks are labelled `^bbN` plus their first operation's name and the
//! analysis annotations; Flow blocks (ending in `spmd.flow_br`) are green
//! diamonds. `dot -Tsvg cfg.dot -o cfg.svg` turns the output into a picture.

use super::{for_each_region, stat, PassOptions, PassOutcome, RegionFailure, Report, Scope, Statistic};
use crate::analysis::{
    cfg::{render_dot_with_flow, CfgAnalysis},
    region_graph::RegionGraph,
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Name of the Flow-block terminator.
const FLOW_BRANCH: &str = "spmd.flow_br";

/// The statistics of the pass (see `SpmdPasses.td`).
pub const STATISTICS: &[Statistic] = &[stat("regions", "CFG regions drawn"), stat("blocks", "Blocks drawn")];

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, _: &PassOptions, report: &mut Report) -> Result<PassOutcome, ()> {
    let mut analysis = CfgAnalysis::new();
    let mut outcome = PassOutcome::new(STATISTICS);
    for_each_region(root, Scope::CfgRegions, |cfg| {
        let graph = RegionGraph::snapshot(cfg.region).map_err(|e| RegionFailure::cannot(cfg, "draw", e))?;
        analysis.compute(graph.graph());
        let is_flow = |b| graph.terminator(b).name().as_string_ref().as_str() == Ok(FLOW_BRANCH);
        let label = |b| graph.name(b);
        report.write(&render_dot_with_flow(graph.graph(), &analysis, &cfg.label, &label, &is_flow));
        outcome.add("regions", 1);
        outcome.add("blocks", graph.num_blocks());
        Ok(())
    })?;
    Ok(outcome)
}
