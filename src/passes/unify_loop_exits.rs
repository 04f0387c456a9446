//! `--spmd-unify-loop-exits`: one exit block per loop, through a dispatch
//! hub (see [`crate::transforms::hubs::unify_loop_exits`]).

use super::{hub_pass::run_hub_pass, PassOptions, PassOutcome, Report, Statistic};
use crate::transforms::hubs::unify_loop_exits::loop_exit_hubs;
use melior::ir::OperationRef;

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_unify_loop_exits::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    _: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    run_hub_pass(
        root,
        "unify the loop exits of",
        loop_exit_hubs,
        PassOutcome::new(STATISTICS),
        "loops-unified",
    )
}
