//! `--spmd-print-uniformity`: every value and branch, uniform or divergent.

use super::{
    for_each_region, uniformity_options, PassOptions, PassOutcome, RegionFailure, Report, Scope,
    Statistic,
};
use crate::{
    analysis::{
        cfg::BlockId,
        region_uniformity::{RegionUniformity, UniformityOptions},
    },
    ir::value_names::AsmNames,
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    report: &mut Report,
) -> Result<PassOutcome, ()> {
    let mut outcome = PassOutcome::new(STATISTICS);
    // The report lists every join of every divergent branch.
    let options = UniformityOptions {
        complete_joins: true,
        ..uniformity_options::parse(root, options)?
    };
    for_each_region(root, Scope::FunctionBodies, |function| {
        let uniformity = RegionUniformity::compute(function.owner, function.region, &options)
            .map_err(|e| RegionFailure::cannot(function, "analyse", e))?;
        let names = AsmNames::new(function.owner);
        report.write(&format!("// uniformity {}\n", function.label));
        report.write(&render(&uniformity, &names));
        let graph = uniformity.graph();
        for index in 0..graph.num_blocks() {
            let id = BlockId::new(index);
            if crate::analysis::cfg::Graph::successors(graph.graph(), id).len() >= 2 {
                let divergent = uniformity.info().is_divergent_branch(id);
                outcome.add(
                    if divergent {
                        "divergent-branches"
                    } else {
                        "uniform-branches"
                    },
                    1,
                );
            }
        }
        Ok(())
    })?;
    Ok(outcome)
}

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_print_uniformity::STATISTICS;

fn classification(divergent: bool) -> &'static str {
    if divergent {
        "divergent"
    } else {
        "uniform"
    }
}

/// The report of one function: block arguments, op results and branches in
/// region order, then the cycles with temporal divergence.
fn render(uniformity: &RegionUniformity<'_, '_>, names: &AsmNames) -> String {
    let graph = uniformity.graph();
    let mut out = String::new();
    for index in 0..graph.num_blocks() {
        let id = BlockId::new(index);
        let block = graph.block(id);
        if block.argument_count() > 0 {
            let arguments: Vec<String> = (0..block.argument_count())
                .map(|i| {
                    let value = block.argument(i).unwrap().into();
                    format!(
                        "{} {}",
                        names.value(value),
                        classification(uniformity.is_divergent(value))
                    )
                })
                .collect();
            out.push_str(&format!(
                "{} arguments: {}\n",
                graph.name(id),
                arguments.join(", ")
            ));
        }
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op.successor_count() >= 2 {
                out.push_str(&render_branch(uniformity, names, id, op));
            } else if op.result_count() > 0 {
                let divergent = op.results().any(|r| uniformity.is_divergent(r.into()));
                out.push_str(&format!(
                    "{}: {}\n",
                    classification(divergent),
                    names.operation_line(op)
                ));
            }
        }
    }
    let forest = uniformity.cfg().cycles();
    for cycle in forest.cycles() {
        if uniformity.info().has_temporal_divergence(cycle) {
            out.push_str(&format!(
                "temporal divergence: cycle headed by {}\n",
                graph.name(forest.header(cycle))
            ));
        }
    }
    out
}

fn render_branch(
    uniformity: &RegionUniformity<'_, '_>,
    names: &AsmNames,
    block: BlockId,
    op: OperationRef<'_, '_>,
) -> String {
    let graph = uniformity.graph();
    let divergent = uniformity.info().is_divergent_branch(block);
    let mut line = format!(
        "{} branch: {}",
        classification(divergent),
        names.operation_line(op)
    );
    if divergent {
        let joins: Vec<String> = uniformity
            .info()
            .join_blocks(block)
            .iter()
            .map(|&j| graph.name(j))
            .collect();
        line.push_str(&format!(
            " (joins: {})",
            if joins.is_empty() {
                "none".to_string()
            } else {
                joins.join(", ")
            }
        ));
    }
    line.push('\n');
    line
}
