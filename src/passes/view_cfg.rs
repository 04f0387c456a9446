//! `--spmd-view-cfg`: the CFGs of a module as one Graphviz DOT graph.
//!
//! Every CFG region becomes a cluster of one `digraph` (Graphviz draws
//! them side by side in one picture). Each block shows its name and the CFG
//! analyses (RPO number, idom, ipdom, loop depth, loop roles); on top of
//! that the pass shows what matters for divergence, each with its own look
//! (the table is in [`DotDocument`], the picture has a legend):
//!
//! * branches the uniformity analysis calls divergent (red) or uniform
//!   (blue); `spmd.uniformity` marks are trusted, as everywhere;
//! * Flow blocks and loop Flow blocks (ending in `spmd.flow_br`);
//! * guard blocks and other inserted blocks, recognised by the kind in
//!   their location (see [`crate::transforms::locations`]);
//! * reconvergence head/tail pairs (`spmd.reconvergence.head/tail`);
//! * edge labels: `T`/`F` on two-way branches, `default` and `case V` on
//!   `cf.switch`, the successor index elsewhere.
//!
//! Nothing in the look depends on which pass ran: the same options draw the
//! input and the output of any pipeline, which `scripts/cfg-diff.sh` puts
//! side by side. Regions that are not function bodies (multi-block regions
//! of other operations) are drawn without uniformity.

use super::{
    for_each_region, uniformity_options, PassOptions, PassOutcome, RegionFailure, Report, Scope,
    Statistic,
};
use crate::ir::names;
use crate::{
    analysis::{
        cfg::{BlockId, BlockLook, BlockView, BranchLook, CfgAnalysis, DotDocument},
        region_uniformity::RegionUniformity,
    },
    ir::region_graph::RegionGraph,
    transforms::{
        locations::{inserted_kind, InsertedKind},
        prepare::op_name,
    },
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef};

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_view_cfg::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    report: &mut Report,
) -> Result<PassOutcome, ()> {
    let uniformity_options = uniformity_options::parse(root, options)?;
    let legend = options.flag("legend");
    let mut analysis = CfgAnalysis::new();
    let mut outcome = PassOutcome::new(STATISTICS);
    let mut document = DotDocument::new();
    let result = for_each_region(root, Scope::CfgRegions, |cfg| {
        // A region the uniformity analysis cannot read is still drawn,
        // without branch uniformity.
        let uniformity = if cfg.function_like {
            RegionUniformity::compute(cfg.owner, cfg.region, &uniformity_options).ok()
        } else {
            None
        };
        let (graph, divergent) = match uniformity {
            Some(uniformity) => {
                let divergent: Vec<bool> = (0..uniformity.graph().num_blocks())
                    .map(|b| uniformity.info().is_divergent_branch(BlockId::new(b)))
                    .collect();
                (uniformity.into_graph(), Some(divergent))
            }
            None => (
                RegionGraph::snapshot(cfg.region)
                    .map_err(|e| RegionFailure::cannot(cfg, "draw", e))?,
                None,
            ),
        };
        analysis.compute(graph.graph());
        let views: Vec<BlockView> = (0..graph.num_blocks())
            .map(|b| block_view(&graph, BlockId::new(b), divergent.as_ref().map(|d| d[b])))
            .collect();
        document.add_cluster(graph.graph(), &analysis, &cfg.label, &views);
        outcome.add("regions", 1);
        outcome.add("blocks", graph.num_blocks());
        Ok(())
    });
    report.write(&document.finish(legend));
    result.map(|()| outcome)
}

/// What the picture shows of block `b`; `divergent` is the uniformity of
/// its branch, if known.
fn block_view(graph: &RegionGraph<'_, '_>, b: BlockId, divergent: Option<bool>) -> BlockView {
    let terminator = graph.terminator(b);
    let name = op_name(terminator);
    let successors = terminator.successor_count();
    let look = if name == names::FLOW_BR {
        if terminator.attribute("loop").is_ok() {
            BlockLook::LoopFlow
        } else {
            BlockLook::Flow
        }
    } else {
        match inserted_kind(terminator.location()) {
            Some(InsertedKind::Guard) => BlockLook::Guard,
            Some(InsertedKind::Flow | InsertedKind::LoopFlow) | None => BlockLook::Plain,
            Some(kind) => BlockLook::Inserted(kind.name()),
        }
    };
    let label = graph.name(b);
    let (mut heads, mut tails) = (Vec::new(), Vec::new());
    let mut next = graph.block(b).first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let list = match op_name(op).as_str() {
            names::RECONVERGENCE_HEAD => &mut heads,
            names::RECONVERGENCE_TAIL => &mut tails,
            _ => continue,
        };
        list.push(crate::ir::facts::marker_id(op).unwrap_or(0));
    }
    BlockView {
        label,
        branch: divergent.filter(|_| successors >= 2).map(|d| {
            if d {
                BranchLook::Divergent
            } else {
                BranchLook::Uniform
            }
        }),
        look,
        heads,
        tails,
        edge_labels: edge_labels(terminator, &name, successors),
    }
}

/// The label of each successor slot of `terminator`.
fn edge_labels(terminator: OperationRef<'_, '_>, name: &str, successors: usize) -> Vec<String> {
    if successors < 2 {
        return Vec::new();
    }
    if name == names::CF_SWITCH {
        let cases = switch_cases(terminator);
        return (0..successors)
            .map(|slot| match slot {
                0 => "default".to_string(),
                _ => cases
                    .get(slot - 1)
                    .map_or_else(|| format!("{slot}"), |v| format!("case {v}")),
            })
            .collect();
    }
    if successors == 2 {
        return vec!["T".to_string(), "F".to_string()];
    }
    (0..successors).map(|slot| slot.to_string()).collect()
}

/// The case values of a `cf.switch` (splats expanded), as edge labels.
fn switch_cases(switch: OperationRef<'_, '_>) -> Vec<String> {
    crate::ir::facts::switch_case_values(switch)
        .unwrap_or_default()
        .iter()
        .map(i64::to_string)
        .collect()
}
