//! `--spmd-verify-reconverging`: checks Definition 1 on every function and
//! names the first offending branch of each.

use super::{
    for_each_region, uniformity_options, PassOptions, PassOutcome, RegionFailure, Report, Scope,
    Statistic,
};
use crate::{
    analysis::{
        reconverging::{check_with_exits, Violation},
        region_uniformity::RegionUniformity,
    },
    transforms::prepare,
};
use melior::ir::OperationRef;

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_verify_reconverging::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let options = uniformity_options::parse(root, options)?;
    let mut outcome = PassOutcome::new(STATISTICS);
    for_each_region(root, Scope::FunctionBodies, |function| {
        let uniformity = RegionUniformity::compute(function.owner, function.region, &options)
            .map_err(|e| RegionFailure::cannot(function, "analyse", e))?;
        let graph = uniformity.graph();
        outcome.add("functions", 1);
        let divergent = (0..graph.num_blocks())
            .filter(|&b| {
                uniformity
                    .info()
                    .is_divergent_branch(crate::analysis::cfg::BlockId::new(b))
            })
            .count();
        outcome.add("divergent-branches", divergent);
        let violations = check_with_exits(
            graph.graph(),
            &|b| uniformity.info().is_divergent_branch(b),
            &|b| prepare::is_function_exit(graph.terminator(b)),
        );
        let Some(first) = violations.first() else {
            return Ok(());
        };
        let (block, message) = match first {
            Violation::NotTwoWay { block, successors } => (
                *block,
                format!(
                    "divergent branch in {} has {successors} successors; a reconverging CFG needs exactly two (run --spmd-reconverge)",
                    graph.name(*block)
                ),
            ),
            Violation::NoPostDominatingSuccessor { block, reconvergence, .. } => {
                let meet = reconvergence.map_or("only at the function's end".to_string(), |r| format!("at {}", graph.name(r)));
                (
                    *block,
                    format!(
                        "divergent branch in {} is not reconverging: neither successor post-dominates it (its threads meet {meet}); run --spmd-reconverge",
                        graph.name(*block)
                    ),
                )
            }
        };
        Err(RegionFailure {
            location: graph.terminator_location(block),
            message,
        })
    })?;
    Ok(outcome)
}
