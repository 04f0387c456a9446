//! `--spmd-fix-irreducible`: one entry per cycle, through a dispatch hub
//! (see [`crate::transforms::hubs::fix_irreducible`]).

use super::{hub_pass::run_hub_pass, stat, PassOptions, PassOutcome, Report, Statistic};
use crate::transforms::hubs::fix_irreducible::irreducible_hubs;
use melior::ir::OperationRef;

/// The statistics of the pass (see `SpmdPasses.td`).
pub(crate) const STATISTICS: &[Statistic] = &[
    stat(
        "irreducible-cycles",
        "Irreducible cycles made reducible (one hub each)",
    ),
    stat("guard-blocks", "Guard blocks inserted"),
    stat("edges-redirected", "Edges routed through a hub"),
];

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
