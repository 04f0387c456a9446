//! `--spmd-annotate-uniformity`: attach `spmd.uniformity` to every branch.

use super::{
    for_each_region, uniformity_options, PassOptions, PassOutcome, RegionFailure, Report, Scope,
    Statistic,
};
use crate::analysis::{
    cfg::BlockId,
    region_uniformity::{RegionUniformity, UNIFORMITY_ATTR},
};
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationMutLike},
    Attribute, OperationRef,
};

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_annotate_uniformity::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    let mut outcome = PassOutcome::new(STATISTICS);
    let options = uniformity_options::parse(root, options)?;
    let context = crate::ir::query::context_of(root);
    let mark = |divergent: bool| {
        let text = if divergent {
            "#spmd.uniformity<divergent>"
        } else {
            "#spmd.uniformity<uniform>"
        };
        Attribute::parse(context, text).expect("the spmd dialect is loaded")
    };
    for_each_region(root, Scope::FunctionBodies, |function| {
        let uniformity = RegionUniformity::compute(function.owner, function.region, &options)
            .map_err(|e| RegionFailure::cannot(function, "analyse", e))?;
        let graph = uniformity.graph();
        for index in 0..graph.num_blocks() {
            let id = BlockId::new(index);
            let Some(mut terminator) = graph.block(id).terminator_mut() else {
                continue;
            };
            if terminator.successor_count() < 2 || terminator.has_attribute(UNIFORMITY_ATTR) {
                continue;
            }
            let divergent = uniformity.info().is_divergent_branch(id);
            terminator.set_discardable_attribute(UNIFORMITY_ATTR, mark(divergent));
            outcome.add(
                if divergent {
                    "divergent-branches"
                } else {
                    "uniform-branches"
                },
                1,
            );
            outcome.changed = true;
        }
        Ok(())
    })?;
    Ok(outcome)
}
