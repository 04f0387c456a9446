//! `--spmd-view-cfg`: each function's CFG as Graphviz DOT.
//!
//! Blocks are labelled `^bbN` plus their first operation's name and the
//! analysis annotations; Flow blocks (ending in `spmd.flow_br`) are green
//! diamonds. `dot -Tsvg cfg.dot -o cfg.svg` turns the output into a picture.

use super::{PassOptions, Report};
use crate::{
    analysis::{
        cfg::{render_dot_with_flow, CfgAnalysis},
        function_regions::cfg_regions,
        region_graph::RegionGraph,
    },
    diagnostics,
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef};

/// Name of the Flow-block terminator.
const FLOW_BRANCH: &str = "spmd.flow_br";

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, _: &PassOptions, report: &mut Report) -> Result<(), ()> {
    let mut analysis = CfgAnalysis::new();
    let mut failed = false;
    for cfg in cfg_regions(root) {
        let graph = match RegionGraph::snapshot(cfg.region) {
            Ok(graph) => graph,
            Err(error) => {
                diagnostics::emit_error(cfg.owner.location(), &format!("cannot draw {}: {error}", cfg.label));
                failed = true;
                continue;
            }
        };
        analysis.compute(graph.graph());
        let is_flow = |b| {
            graph
                .block(b)
                .terminator()
                .is_some_and(|t| t.name().as_string_ref().as_str() == Ok(FLOW_BRANCH))
        };
        let label = |b| graph.name(b);
        report.write(&render_dot_with_flow(graph.graph(), &analysis, &cfg.label, &label, &is_flow));
    }
    if failed { Err(()) } else { Ok(()) }
}
