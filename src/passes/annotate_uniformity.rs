//! `--spmd-annotate-uniformity`: attach `spmd.uniformity` to every branch.

use super::{for_each_region, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::{analysis::{cfg::BlockId, region_uniformity::RegionUniformity}, ir::names::UNIFORMITY_ATTR};
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationMutLike},
    Attribute, OperationRef,
};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let options = uniformity_options::parse(root, options)?;
    let context = crate::ir::query::context_of(root);
    let mark = |divergent: bool| {
        let text = if divergent { "#spmd.uniformity<divergent>" } else { "#spmd.uniformity<uniform>" };
        Attribute::parse(context, text).expect("the spmd dialect is loaded")
    };
    for_each_region(root, Scope::FunctionBodies, |function| {
        let uniformity = RegionUniformity::compute(function.owner, function.region, &options)
            .map_err(|e| RegionFailure::cannot(function, "analyse", e))?;
        let graph = uniformity.graph();
        for index in 0..graph.num_blocks() {
            let id = BlockId::new(index);
            let Some(mut terminator) = graph.block(id).terminator_mut() else { continue };
            if terminator.successor_count() < 2 || terminator.has_attribute(UNIFORMITY_ATTR) {
                continue;
            }
            terminator.set_discardable_attribute(UNIFORMITY_ATTR, mark(uniformity.info().is_divergent_branch(id)));
        }
        Ok(())
    })
}
