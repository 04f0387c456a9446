//! `--spmd-verify-structured`: checks the structured contract
//! ([`crate::analysis::structured`]) and names the first violation of each
//! function.

use super::{
    for_each_region, uniformity_options, PassOptions, PassOutcome, RegionFailure, Report, Scope,
    Statistic,
};
use crate::ir::names;
use crate::{
    analysis::{
        cfg::BlockId,
        reconverging::Violation,
        region_uniformity::{is_marked_uniform, RegionUniformity},
        structured::{
            check_markers, check_structured, MarkerViolation, StructuredInput, StructuredViolation,
        },
    },
    ir::region_graph::RegionGraph,
    transforms::{
        prepare::{self, op_name},
        structurize::flow_shapes,
    },
};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, Location, OperationRef};

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let uniformity_options = uniformity_options::parse(root, options)?;
    let use_uniformity = options.flag("use-uniformity");
    let mut outcome = PassOutcome::new(STATISTICS);
    for_each_region(root, Scope::FunctionBodies, |function| {
        outcome.add("functions", 1);
        let uniformity =
            RegionUniformity::compute(function.owner, function.region, &uniformity_options)
                .map_err(|e| RegionFailure::cannot(function, "analyse", e))?;
        let graph = uniformity.graph();
        let must = |b: BlockId| {
            if use_uniformity {
                uniformity.info().is_divergent_branch(b)
            } else {
                !is_marked_uniform(graph.terminator(b))
            }
        };
        let shapes = flow_shapes(graph);
        let violations = check_structured(
            graph.graph(),
            &StructuredInput {
                must_reconverge: &must,
                is_exit: &|b| prepare::is_function_exit(graph.terminator(b)),
                flow: &|b| shapes[b.index()],
            },
        );
        if let Some(first) = violations.first() {
            let (location, message) = describe(graph, first);
            return Err(RegionFailure { location, message });
        }
        match first_marker_error(graph) {
            Some((location, message)) => Err(RegionFailure { location, message }),
            None => Ok(()),
        }
    })?;
    Ok(outcome)
}

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_verify_structured::STATISTICS;

/// The first malformed pair of reconvergence markers in `graph` (a head
/// without tail or the reverse, a duplicate id, a tail that does not
/// post-dominate its head), as a located message.
pub fn first_marker_error<'c>(graph: &RegionGraph<'c, '_>) -> Option<(Location<'c>, String)> {
    let (heads, tails) = markers(graph);
    if heads.is_empty() && tails.is_empty() {
        return None;
    }
    check_markers(graph.graph(), &heads, &tails)
        .first()
        .map(|first| describe_marker(graph, first))
}

/// Reconvergence markers as `(id, block)`, in block order.
type Markers = Vec<(u64, BlockId)>;

/// The reconvergence markers of the region: heads, then tails.
fn markers(graph: &RegionGraph<'_, '_>) -> (Markers, Markers) {
    let (mut heads, mut tails) = (Vec::new(), Vec::new());
    for b in (0..graph.num_blocks()).map(BlockId::new) {
        let mut next = graph.block(b).first_operation();
        while let Some(op) = next {
            let name = op_name(op);
            let list = match name.as_str() {
                names::RECONVERGENCE_HEAD => Some(&mut heads),
                names::RECONVERGENCE_TAIL => Some(&mut tails),
                _ => None,
            };
            if let Some(list) = list {
                list.push((crate::ir::facts::marker_id(op).unwrap_or(0), b));
            }
            next = op.next_in_block();
        }
    }
    (heads, tails)
}

fn describe<'c>(
    graph: &RegionGraph<'c, '_>,
    violation: &StructuredViolation,
) -> (Location<'c>, String) {
    let block = violation.block();
    let name = graph.name(block);
    let at = graph.terminator_location(block);
    let message = match violation {
        StructuredViolation::Irreducible { entries, .. } => format!(
            "irreducible cycle: it is entered at {}; a structured CFG needs single-entry loops (run --spmd-fix-irreducible)",
            entries.iter().map(|&e| graph.name(e)).collect::<Vec<_>>().join(", ")
        ),
        StructuredViolation::NotReconverging(Violation::NotTwoWay { successors, .. }) => {
            format!("branch in {name} has {successors} successors; a structured CFG needs two-way branches (run --spmd-structurize)")
        }
        StructuredViolation::NotReconverging(Violation::NoPostDominatingSuccessor { reconvergence, .. }) => format!(
            "branch in {name} does not reconverge at a successor: neither successor post-dominates it (its paths meet {}); run --spmd-structurize",
            reconvergence.map_or("only at the function's end".to_string(), |r| format!("at {}", graph.name(r)))
        ),
        StructuredViolation::FlowNotEmpty { .. } => {
            format!("Flow block {name} holds operations other than its branch; Flow blocks must only select the path")
        }
        StructuredViolation::FlowChainForks { .. } => {
            format!("Flow block {name} branches to two Flow blocks; Flow blocks must form linear chains")
        }
        StructuredViolation::LoopFlowWithoutBackEdge { .. } => format!(
            "loop Flow block {name} does not take a back edge on false: its false successor must be the header of a loop containing it"
        ),
        StructuredViolation::LoopFlowExitStaysInLoop { .. } => {
            format!("loop Flow block {name} does not leave its loop on true")
        }
    };
    (at, message)
}

fn describe_marker<'c>(
    graph: &RegionGraph<'c, '_>,
    violation: &MarkerViolation,
) -> (Location<'c>, String) {
    let (block, message) = match *violation {
        MarkerViolation::DuplicateHead { id, block } => (
            block,
            format!("reconvergence region id {id} has two heads; ids must be unique"),
        ),
        MarkerViolation::DuplicateTail { id, block } => (
            block,
            format!("reconvergence region id {id} has two tails; ids must be unique"),
        ),
        MarkerViolation::TailWithoutHead { id, block } => (
            block,
            format!("spmd.reconvergence.tail {id} has no matching spmd.reconvergence.head"),
        ),
        MarkerViolation::HeadWithoutTail { id, block } => (
            block,
            format!("spmd.reconvergence.head {id} has no matching spmd.reconvergence.tail"),
        ),
        MarkerViolation::TailDoesNotPostDominate { id, head, tail } => (
            tail,
            format!(
                "spmd.reconvergence.tail {id} in {} does not post-dominate its head in {}",
                graph.name(tail),
                graph.name(head)
            ),
        ),
    };
    (marker_location(graph.block(block), violation), message)
}

/// The location of the marker op the violation is about (its block's
/// first marker with a matching name), or of the block's terminator.
fn marker_location<'c>(block: BlockRef<'c, '_>, violation: &MarkerViolation) -> Location<'c> {
    let wanted = match violation {
        MarkerViolation::DuplicateHead { .. } | MarkerViolation::HeadWithoutTail { .. } => {
            names::RECONVERGENCE_HEAD
        }
        _ => names::RECONVERGENCE_TAIL,
    };
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op_name(op) == wanted {
            return op.location();
        }
        next = op.next_in_block();
    }
    block
        .terminator()
        .expect("snapshotted blocks have terminators")
        .location()
}
