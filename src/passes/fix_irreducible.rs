//! `--spmd-fix-irreducible`: one entry per cycle, through a dispatch hub
//! (see [`crate::transforms::hubs::fix_irreducible`]).

use super::{hub_pass::run_hub_pass, PassOptions, PassOutcome, Report, Statistic};
use crate::transforms::hubs::fix_irreducible::irreducible_hubs;
use melior::ir::OperationRef;

/// The statistics of the pass (declared in `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = crate::ir::ods::spmd_fix_irreducible::STATISTICS;

/// Runs the pass on `root`.
pub(crate) fn run(
    root: OperationRef<'_, '_>,
    _: &PassOptions,
    _: &mut Report,
) -> Result<PassOutcome, ()> {
    run_hub_pass(
        root,
        "make the cycles of",
        irreducible_hubs,
        PassOutcome::new(STATISTICS),
        "irreducible-cycles",
    )
}
