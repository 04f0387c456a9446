//! `--spmd-verify-reconverging`: checks Definition 1 on every function and
//! names the first offending branch of each.

use super::{uniformity_options, PassOptions, Report};
use crate::{
    analysis::{
        function_regions::cfg_regions,
        reconverging::{check_with_exits, Violation},
        region_uniformity::RegionUniformity,
    },
    diagnostics,
    transforms::prepare,
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let options = uniformity_options::parse(root, options)?;
    let mut failed = false;
    for function in cfg_regions(root).into_iter().filter(|r| r.function_like) {
        let uniformity = match RegionUniformity::compute(function.owner, function.region, options) {
            Ok(uniformity) => uniformity,
            Err(error) => {
                diagnostics::emit_error(function.owner.location(), &format!("cannot analyse {}: {error}", function.label));
                failed = true;
                continue;
            }
        };
        let graph = uniformity.graph();
        let violations = check_with_exits(graph.graph(), &|b| uniformity.info().is_divergent_branch(b), &|b| {
            prepare::is_function_exit(graph.terminator(b))
        });
        if let Some(first) = violations.first() {
            failed = true;
            let (block, message) = match first {
                Violation::NotTwoWay { block, successors } => (
                    *block,
                    format!("divergent branch in {} has {successors} successors; a reconverging CFG needs exactly two (run --spmd-reconverge)", graph.name(*block)),
                ),
                Violation::NoPostDominatingSuccessor { block, reconvergence } => {
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
            diagnostics::emit_error(graph.terminator_location(block), &message);
        }
    }
    if failed { Err(()) } else { Ok(()) }
}
