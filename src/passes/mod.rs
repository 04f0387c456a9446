//! The spmd passes and the runner that connects them to MLIR.
//!
//! Each pass is declared once, in `dialect/include/Spmd/SpmdPasses.td`, which
//! gives it its name, options and documentation. The generated C++ class is
//! a shell whose `runOnOperation` calls the runner of
//! [`crate::ir::pass_runner`] through the function pointer that
//! [`register_all_passes`] installs; the runner finds the pass in [`PASSES`]. Hence spmd passes
//! work everywhere MLIR passes do: `spmd-opt --spmd-view-cfg`, textual
//! `--pass-pipeline`s, `--mlir-timing`, melior's `PassManager` with
//! `parse_pass_pipeline`, or a C++ `PassManager` after
//! `spmdRegisterAllPasses()`.
//!
//! A pass implementation is a plain function over the operation it runs on
//! (see [`PassFn`]). It emits diagnostics itself and returns `Err(())` to
//! fail the pipeline. A panic is caught and turned into an "internal error"
//! diagnostic, so a bug never aborts the host compiler.
//!
//! On success a pass returns a [`PassOutcome`]: whether it may have changed
//! the IR, and the values of the statistics it declares in
//! `SpmdPasses.td` (`let statistics = [...]`). The runner hands both to the
//! C++ shell, which adds the values to the pass's MLIR statistics (printed
//! by `--mlir-pass-statistics`) and preserves every analysis when nothing
//! changed. [`STATISTICS`] lists each pass's statistics; a unit test keeps
//! it equal to the ODS declarations.

pub(crate) mod annotate_uniformity;
pub(crate) mod branch_fold;
pub(crate) mod fix_irreducible;
mod hub_pass;
pub(crate) mod lower_to_cf;
pub(crate) mod lower_to_nvvm;
pub(crate) mod options;
pub(crate) mod predicate;
pub(crate) mod print_cfg_analysis;
pub(crate) mod print_uniformity;
pub(crate) mod reconverge;
pub(crate) mod structurize;
mod uniformity_options;
pub(crate) mod unify_loop_exits;
pub(crate) mod verify_reconverging;
pub(crate) mod verify_structured;
pub(crate) mod view_cfg;

pub(crate) use crate::ir::pass_runner::{PassOutcome, Report, Statistic};
use crate::ir::{
    diagnostics,
    function_regions::{cfg_regions, CfgRegion},
    pass_runner,
};
use melior::ir::{operation::OperationLike, Location, OperationRef};
pub(crate) use options::PassOptions;

/// Shorthand for the statistic tables of the pass modules.
pub(crate) const fn stat(name: &'static str, description: &'static str) -> Statistic {
    Statistic { name, description }
}

/// The body of one pass: the operation it runs on, its options, its report;
/// what it did on success.
pub(crate) type PassFn =
    fn(OperationRef<'_, '_>, &PassOptions, &mut Report) -> Result<PassOutcome, ()>;

/// Every pass implemented in Rust, by command-line name.
pub(crate) const PASSES: &[(&str, PassFn)] = &[
    ("spmd-print-cfg-analysis", print_cfg_analysis::run),
    ("spmd-view-cfg", view_cfg::run),
    ("spmd-print-uniformity", print_uniformity::run),
    ("spmd-annotate-uniformity", annotate_uniformity::run),
    ("spmd-verify-reconverging", verify_reconverging::run),
    ("spmd-reconverge", reconverge::run),
    ("spmd-fix-irreducible", fix_irreducible::run),
    ("spmd-unify-loop-exits", unify_loop_exits::run),
    ("spmd-structurize", structurize::run),
    ("spmd-verify-structured", verify_structured::run),
    ("spmd-lower-to-cf", lower_to_cf::run),
    ("spmd-lower-to-nvvm", lower_to_nvvm::run),
    ("spmd-lower-to-rocdl", lower_to_nvvm::run_rocdl),
    ("spmd-branch-fold", branch_fold::run),
    ("spmd-predicate", predicate::run),
];

/// The statistics of every pass, by command-line name, in the order of
/// their `let statistics` in `SpmdPasses.td`.
pub(crate) const STATISTICS: &[(&str, &[Statistic])] = &[
    ("spmd-print-cfg-analysis", print_cfg_analysis::STATISTICS),
    ("spmd-view-cfg", view_cfg::STATISTICS),
    ("spmd-print-uniformity", print_uniformity::STATISTICS),
    ("spmd-annotate-uniformity", annotate_uniformity::STATISTICS),
    ("spmd-verify-reconverging", verify_reconverging::STATISTICS),
    ("spmd-reconverge", reconverge::STATISTICS),
    ("spmd-fix-irreducible", fix_irreducible::STATISTICS),
    ("spmd-unify-loop-exits", unify_loop_exits::STATISTICS),
    ("spmd-structurize", structurize::STATISTICS),
    ("spmd-verify-structured", verify_structured::STATISTICS),
    ("spmd-lower-to-cf", lower_to_cf::STATISTICS),
    ("spmd-lower-to-nvvm", lower_to_nvvm::STATISTICS),
    ("spmd-lower-to-rocdl", lower_to_nvvm::STATISTICS),
    ("spmd-branch-fold", branch_fold::STATISTICS),
    ("spmd-predicate", predicate::STATISTICS),
];

/// The command-line names of every spmd pass (`spmd-reconverge`, ...), as
/// textual pipelines and `spmd-opt` know them after
/// [`register_all_passes`].
pub fn pass_names() -> impl Iterator<Item = &'static str> {
    PASSES.iter().map(|(name, _)| *name)
}

/// The statistics of the pass called `name` (none for an unknown name), as
/// `--mlir-pass-statistics` prints them.
pub fn statistics_of(name: &str) -> &'static [Statistic] {
    STATISTICS
        .iter()
        .find(|(known, _)| *known == name)
        .map_or(&[], |(_, statistics)| statistics)
}

/// Installs the Rust runner and registers every spmd pass with MLIR's global
/// registry. Idempotent (the registration happens once; the runner is
/// installed again on every call); call it before building pass pipelines
/// by name.
pub fn register_all_passes() {
    pass_runner::install(run_pass);
}

/// Runs the pass called `name` (`None` if there is none) with its options
/// parsed from `options`.
fn run_pass(
    name: &str,
    op: OperationRef<'_, '_>,
    options: &str,
    report: &mut Report,
) -> Option<Result<PassOutcome, ()>> {
    let (_, pass) = PASSES.iter().find(|(known, _)| *known == name)?;
    Some(pass(op, &PassOptions::parse(options), report))
}

/// After a transform of `function`: the blocks it inserted (those not in
/// `before`, the region's blocks before it ran) get the locations of what
/// they serve, and count as the statistic `blocks-added`.
pub(crate) fn record_inserted_blocks<'c>(
    context: &'c melior::Context,
    function: &CfgRegion<'c, '_>,
    before: &crate::support::FastSet<crate::ir::key::BlockKey>,
    joining: crate::transforms::locations::InsertedKind,
    outcome: &mut PassOutcome,
) {
    crate::transforms::locations::relocate_inserted_blocks(
        context,
        function.owner,
        function.region,
        before,
        joining,
    );
    let blocks = crate::ir::edit::blocks(function.region).len();
    outcome.add("blocks-added", blocks.saturating_sub(before.len()));
}

/// Which regions a pass visits below the operation it runs on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every CFG region (function bodies and multi-block regions).
    CfgRegions,
    /// Function bodies only.
    FunctionBodies,
}

/// A region the pass could not process: the diagnostic to emit.
pub(crate) struct RegionFailure<'c> {
    pub(crate) location: Location<'c>,
    pub(crate) message: String,
}

impl<'c> RegionFailure<'c> {
    /// "cannot {verb} {label}: {error}" on the region's owner.
    pub(crate) fn cannot(
        region: &CfgRegion<'c, '_>,
        verb: &str,
        error: impl std::fmt::Display,
    ) -> Self {
        Self {
            location: region.owner.location(),
            message: format!("cannot {verb} {}: {error}", region.label),
        }
    }
}

/// Runs `body` on each region in `scope` at or below `root`. Failures are
/// reported as diagnostics; the pass fails after every region ran.
pub(crate) fn for_each_region<'c, 'a>(
    root: OperationRef<'c, 'a>,
    scope: Scope,
    mut body: impl FnMut(&CfgRegion<'c, 'a>) -> Result<(), RegionFailure<'c>>,
) -> Result<(), ()> {
    let mut failed = false;
    for region in cfg_regions(root) {
        if scope == Scope::FunctionBodies && !region.function_like {
            continue;
        }
        if let Err(failure) = body(&region) {
            diagnostics::emit_error(failure.location, &failure.message);
            failed = true;
        }
    }
    if failed {
        Err(())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `let statistics` of every pass in `SpmdPasses.td`, by pass name:
    /// (name, description) pairs in declaration order.
    fn declared_statistics() -> Vec<(String, Vec<(String, String)>)> {
        let td = include_str!("../../dialect/include/Spmd/SpmdPasses.td");
        let mut passes = Vec::new();
        for chunk in td.split("\ndef ").skip(1) {
            let header = chunk.lines().next().unwrap_or_default();
            let Some(start) = header.find("<\"") else {
                continue;
            };
            let name = header[start + 2..].split('"').next().unwrap().to_string();
            let mut statistics = Vec::new();
            for line in chunk
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("Statistic<"))
            {
                let fields: Vec<&str> = line.split('"').collect();
                // Statistic<"member", "name", "description">
                statistics.push((fields[3].to_string(), fields[5].to_string()));
            }
            passes.push((name, statistics));
        }
        passes
    }

    #[test]
    fn statistics_match_the_ods_declarations() {
        let declared = declared_statistics();
        assert_eq!(
            declared.len(),
            PASSES.len(),
            "every pass of SpmdPasses.td has a Rust implementation"
        );
        for (pass, statistics) in declared {
            assert!(
                PASSES.iter().any(|(name, _)| *name == pass),
                "{pass} is implemented"
            );
            let rust: Vec<(String, String)> = statistics_of(&pass)
                .iter()
                .map(|s| (s.name.to_string(), s.description.to_string()))
                .collect();
            assert!(!rust.is_empty(), "{pass} declares statistics");
            assert_eq!(
                rust, statistics,
                "statistics of {pass}: Rust vs SpmdPasses.td"
            );
        }
    }

    #[test]
    fn outcome_counts_declared_statistics() {
        const STATS: &[Statistic] = &[stat("a", "A"), stat("b", "B")];
        let mut outcome = PassOutcome::new(STATS);
        assert!(!outcome.changed);
        outcome.add("b", 2);
        outcome.add("b", 1);
        outcome.changed_if(false);
        assert!(!outcome.changed);
        outcome.changed_if(true);
        assert!(outcome.changed);
        assert_eq!(outcome.get("a"), 0);
        assert_eq!(outcome.get("b"), 3);
        assert_eq!(
            outcome
                .counters()
                .map(|(s, v)| (s.name, v))
                .collect::<Vec<_>>(),
            vec![("a", 0), ("b", 3)]
        );
    }

    #[test]
    #[should_panic(expected = "not declared")]
    fn undeclared_statistic_is_an_internal_error() {
        PassOutcome::new(&[]).add("nope", 1);
    }
}
