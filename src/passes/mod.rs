//! The spmd passes and the runner that connects them to MLIR.
//!
//! Each pass is declared once, in `dialect/include/Spmd/SpmdPasses.td`, which
//! gives it its name, options (with their defaults), statistics and
//! documentation. The generated C++ class is a shell whose `runOnOperation`
//! calls the runner of [`crate::ir::pass_runner`] through the function
//! pointer that [`register_all_passes`] installs, with the typed values of
//! its option members; the runner checks them against the ODS table
//! ([`crate::ir::ods`]) into a [`PassOptions`] and finds the pass in
//! [`PASSES`]. Hence spmd passes
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
//! changed. The statistics of each pass come from the table that build.rs
//! generates from the `.td` ([`crate::ir::ods`], see [`statistics_of`]):
//! a pass adds to them by name, and adding to a name its pass does not
//! declare is an internal error.

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
pub(crate) use options::{OptionValue, PassOptions};

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

/// The command-line names of every spmd pass (`spmd-reconverge`, ...), as
/// textual pipelines and `spmd-opt` know them after
/// [`register_all_passes`].
pub fn pass_names() -> impl Iterator<Item = &'static str> {
    PASSES.iter().map(|(name, _)| *name)
}

/// The statistics of the pass called `name` (none for an unknown name), as
/// `SpmdPasses.td` declares them.
pub fn statistics_of(name: &str) -> &'static [Statistic] {
    crate::ir::ods::statistics_of(name)
}

/// Installs the Rust runner and registers every spmd pass with MLIR's global
/// registry. Idempotent (the registration happens once; the runner is
/// installed again on every call); call it before building pass pipelines
/// by name.
pub fn register_all_passes() {
    pass_runner::install(run_pass);
}

/// Runs the pass called `name` (`None` if there is none) with the option
/// values its shell handed over. Panics (an internal error) if they are not
/// the options the pass declares, or if its outcome does not hold exactly
/// the statistics it declares.
fn run_pass(
    name: &str,
    op: OperationRef<'_, '_>,
    options: Vec<(String, OptionValue)>,
    report: &mut Report,
) -> Option<Result<PassOutcome, ()>> {
    let (_, pass) = PASSES.iter().find(|(known, _)| *known == name)?;
    let options = PassOptions::from_shell(name, options);
    #[cfg(test)]
    tests::record_options(name, &options);
    let result = pass(op, &options, report);
    if let Ok(outcome) = &result {
        assert!(
            outcome
                .counters()
                .map(|(statistic, _)| statistic)
                .eq(statistics_of(name).iter().copied()),
            "pass '{name}' reports other statistics than SpmdPasses.td declares"
        );
    }
    Some(result)
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

    use crate::ir::ods::{self, OdsDefault};
    use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline};
    use std::cell::RefCell;

    thread_local! {
        /// The options of the passes run on this thread, by pass name (the
        /// last run of each). A pass on `builtin.module` runs on the thread
        /// that runs the pass manager, so tests running in parallel do not
        /// see each other's.
        static SEEN: RefCell<Vec<(String, PassOptions)>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn record_options(name: &str, options: &PassOptions) {
        SEEN.with_borrow_mut(|seen| {
            seen.retain(|(known, _)| known != name);
            seen.push((name.to_string(), options.clone()));
        });
    }

    #[test]
    fn every_ods_pass_is_implemented_and_declares_statistics() {
        assert_eq!(ods::PASSES.len(), PASSES.len());
        for pass in ods::PASSES {
            assert!(
                PASSES.iter().any(|(name, _)| *name == pass.argument),
                "{} is implemented",
                pass.argument
            );
            assert!(
                !pass.statistics.is_empty(),
                "{} declares statistics",
                pass.argument
            );
        }
    }

    /// Runs `pipeline` on an empty module; the options its pass `name` saw.
    fn options_seen(name: &str, pipeline: &str) -> PassOptions {
        let context = crate::dialect::context_with_all_dialects();
        register_all_passes();
        let mut module = Module::parse(&context, "module {}").expect("empty module");
        let manager = PassManager::new(&context);
        parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
            .expect("the pass is registered");
        manager
            .run(&mut module)
            .expect("the pass runs on an empty module");
        SEEN.with_borrow(|seen| {
            let (_, options) = seen
                .iter()
                .find(|(known, _)| known == name)
                .unwrap_or_else(|| panic!("{name} ran on this thread"));
            options.clone()
        })
    }

    /// The option values the C++ shell of each pass hands over when the
    /// pipeline sets none are the ODS defaults of the generated table (what
    /// the transforms' `Default` impls read): build.rs read the `.td` as
    /// mlir-tblgen did for the C++ option members.
    #[test]
    fn default_constructed_shells_hand_over_the_ods_defaults() {
        for pass in ods::PASSES {
            // The DOT text of spmd-view-cfg would go to stderr.
            let quiet = pass.argument == "spmd-view-cfg";
            let pipeline = if quiet {
                format!("builtin.module({}{{output=/dev/null}})", pass.argument)
            } else {
                format!("builtin.module({})", pass.argument)
            };
            let options = options_seen(pass.argument, &pipeline);
            let values: Vec<(&str, OptionValue)> = options
                .values()
                .map(|(key, value)| (key, value.clone()))
                .collect();
            let defaults: Vec<(&str, OptionValue)> = pass
                .options
                .iter()
                .map(|option| {
                    let value = match option.default {
                        _ if quiet && option.key == "output" => {
                            OptionValue::Text("/dev/null".into())
                        }
                        OdsDefault::Flag(value) => OptionValue::Flag(value),
                        OdsDefault::Unsigned(value) => OptionValue::Unsigned(value),
                        OdsDefault::Text(value) => OptionValue::Text(value.to_string()),
                        OdsDefault::TextList => OptionValue::TextList(Vec::new()),
                    };
                    (option.key, value)
                })
                .collect();
            assert_eq!(values, defaults, "defaults of {}", pass.argument);
        }
    }

    /// What a pipeline sets reaches the pass typed, as MLIR parsed it.
    #[test]
    fn shells_hand_over_the_values_the_pipeline_sets() {
        let options = options_seen(
            "spmd-structurize",
            "builtin.module(spmd-structurize{ordering=df selector-chain-length=7 \
             skip-uniform-regions divergent-ops=acme.lane,acme.warp* irreducible=fix})",
        );
        assert_eq!(options.text("ordering"), "df");
        assert_eq!(options.unsigned("selector-chain-length"), 7);
        assert!(options.flag("skip-uniform-regions"));
        assert!(options.flag("relaxed-uniform-regions"));
        assert_eq!(options.text("irreducible"), "fix");
        assert_eq!(
            options.list("divergent-ops"),
            ["acme.lane".to_string(), "acme.warp*".to_string()]
        );
        assert!(options.list("uniform-ops").is_empty());
    }

    #[test]
    fn outcome_counts_declared_statistics() {
        const STATS: &[Statistic] = &[
            Statistic {
                name: "a",
                description: "A",
            },
            Statistic {
                name: "b",
                description: "B",
            },
        ];
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
