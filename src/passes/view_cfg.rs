//! `--spmd-view-cfg`: each function's CFG as Graphviz DOT.
//!
//! Blocks are labelled `^bbN` plus their first operation's name and the
//! analysis annotations; Flow blocks (ending in `spmd.flow_br`) are green
//! diamonds. `dot -Tsvg cfg.dot -o cfg.svg` turns the output into a picture.

use super::{for_each_region, PassOptions, RegionFailure, Report, Scope};
use crate::{
    analysis::cfg::{render_dot_with_flow, CfgAnalysis},
    ir::region_graph::RegionGraph,
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Name of the Flow-block terminator.
const FLOW_BRANCH: &str = "spmd.flow_br";

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, _: &PassOptions, report: &mut Report) -> Result<(), ()> {
    let mut analysis = CfgAnalysis::new();
    for_each_region(root, Scope::CfgRegions, |cfg| {
        let graph = RegionGraph::snapshot(cfg.region).map_err(|e| RegionFailure::cannot(cfg, "draw", e))?;
        analysis.compute(graph.graph());
        let is_flow = |b| graph.terminator(b).name().as_string_ref().as_str() == Ok(FLOW_BRANCH);
        let label = |b| graph.name(b);
        report.write(&render_dot_with_flow(graph.graph(), &analysis, &cfg.label, &label, &is_flow));
        Ok(())
    })
}
