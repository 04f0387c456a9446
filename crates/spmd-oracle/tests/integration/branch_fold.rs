//! `--spmd-branch-fold` end to end: differential execution, the verifier,
//! the reconverging property and idempotence on random kernels, after
//! each pipeline of [`PIPELINES`].
//!
//! For every random thread-level kernel of every class and every pipeline
//! `base` (e.g. `spmd-reconverge`):
//! * `base` and `base,spmd-branch-fold` both run through melior;
//! * the folded output passes the MLIR verifier;
//! * when `base` produces a reconverging CFG, so does the folded output
//!   (fresh uniformity analysis + Definition 1);
//! * original and folded kernel compute the same per-thread results and
//!   memory effects on 64 threads and two inputs;
//! * folding again changes nothing (the pass reached its fixed point).
//!
//! `SPMD_BRANCH_FOLD_SEEDS=<n>` raises the number of seeds per class and
//! pipeline (the full corpus); the default keeps a debug run short.
//! After `spmd-structurize`, the folded output must also pass
//! `--spmd-verify-structured`. Pipelines whose passes are not registered
//! are skipped.

use crate::common::{assert_kernels_agree, context, parse, try_pipeline};

/// `try_pipeline` with the diagnostics joined into one message.
fn run_pipeline(context: &Context, module: &mut Module, pipeline: &str) -> Result<(), String> {
    try_pipeline(context, module, pipeline)
        .map_err(|m| format!("pipeline {pipeline} failed: {m:?}"))
}
use melior::{
    ir::{operation::OperationLike, Module},
    Context,
};
use spmd::{
    cfg_regions,
    testing::{checks::check_reconverging_with_exits, ir::is_function_exit},
    RegionUniformity, UniformityOptions,
};
use spmd_oracle::{KernelShape, RandomKernel};

/// (name, pipeline before folding, passes it needs, output is reconverging).
const PIPELINES: &[(&str, &str, &[&str], bool)] = &[
    ("none", "", &[], false),
    ("reconverge", "spmd-reconverge", &["spmd-reconverge"], true),
    (
        "reconverge-bf",
        "spmd-reconverge{ordering=bf selector-chain-length=0}",
        &["spmd-reconverge"],
        true,
    ),
    (
        "structurize",
        "spmd-structurize{irreducible=fix}",
        &["spmd-structurize"],
        true,
    ),
];

fn available(passes: &[&str]) -> bool {
    passes
        .iter()
        .all(|p| spmd::pass_names().any(|name| name == *p))
}

fn is_reconverging(module: &Module) -> bool {
    cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
        .all(|function| {
            let uniformity = RegionUniformity::compute(
                function.owner,
                function.region,
                &UniformityOptions::default(),
            )
            .expect("analysable");
            let graph = uniformity.graph();
            check_reconverging_with_exits(
                graph.graph(),
                &|b| uniformity.is_divergent_branch_id(b),
                &|b| is_function_exit(graph.terminator(b)),
            )
            .is_empty()
        })
}

fn seeds_per_class() -> u64 {
    spmd::testing::seed_count("SPMD_BRANCH_FOLD_SEEDS", 6)
}

fn pipeline_text(base: &str, fold: bool) -> String {
    let mut passes: Vec<&str> = Vec::new();
    if !base.is_empty() {
        passes.push(base);
    }
    if fold {
        passes.push("spmd-branch-fold");
    }
    format!("builtin.module({})", passes.join(","))
}

#[test]
fn branch_fold_preserves_semantics_and_properties_on_random_kernels() {
    let context = context();
    let mut checked = 0;
    for &(name, base, needs, reconverges) in PIPELINES {
        if !available(needs) {
            eprintln!("branch_fold: skipping pipeline '{name}' (not implemented yet)");
            continue;
        }
        for (class, shape_of) in [
            (
                "reducible",
                KernelShape::reducible as fn(usize) -> KernelShape,
            ),
            ("irreducible", KernelShape::irreducible),
            ("multi_exit_switch", KernelShape::multi_exit_switch),
            ("uniform", KernelShape::uniform),
        ] {
            for seed in 0..seeds_per_class() {
                let kernel = RandomKernel::build(seed * 31 + 3, &shape_of(3 + seed as usize % 25));
                let what = format!("{name}: {class} seed {seed}");
                let original = parse(&context, &kernel.text);
                let mut based = parse(&context, &kernel.text);
                if !base.is_empty() {
                    run_pipeline(&context, &mut based, &pipeline_text(base, false))
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                let based_reconverging = is_reconverging(&based);
                let mut folded = parse(&context, &kernel.text);
                run_pipeline(&context, &mut folded, &pipeline_text(base, true))
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(
                    folded.as_operation().verify(),
                    "{what}: invalid output\n{}",
                    folded.as_operation()
                );
                if reconverges || based_reconverging {
                    assert!(
                        based_reconverging,
                        "{what}: the base pipeline should reconverge"
                    );
                    assert!(
                        is_reconverging(&folded),
                        "{what}: folding broke reconvergence\n{}",
                        folded.as_operation()
                    );
                }
                assert_kernels_agree(&original, &folded, &kernel, 200_000, &what);
                if name == "structurize" {
                    let mut copy = parse(&context, &folded.as_operation().to_string());
                    run_pipeline(
                        &context,
                        &mut copy,
                        "builtin.module(spmd-verify-structured)",
                    )
                    .unwrap_or_else(|e| {
                        panic!(
                            "{what}: folding broke the structured contract: {e}\n{}",
                            folded.as_operation()
                        )
                    });
                }
                let once = folded.as_operation().to_string();
                run_pipeline(&context, &mut folded, "builtin.module(spmd-branch-fold)").unwrap();
                assert_eq!(
                    once,
                    folded.as_operation().to_string(),
                    "{what}: not at a fixed point"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 3 * 4 * seeds_per_class());
}
