//! `--spmd-structurize`, `--spmd-fix-irreducible` and
//! `--spmd-unify-loop-exits` end to end on random kernels:
//! * the output passes the MLIR verifier and the contract check of
//!   `--spmd-verify-structured` (for the structurizer; reducibility for
//!   fix-irreducible; one exit block per cycle for unify-loop-exits);
//! * the original and the output compute the same per-thread results and
//!   memory effects (our SIMT executor, 64 threads, two inputs);
//! * running the pass again changes nothing.
//!
//! Irreducible and multi-exit kernels (which may be irreducible) go through
//! `irreducible=fix`; two seeds in three use
//! `skip-uniform-regions` (alternating strict and relaxed).
//! `SPMD_STRUCTURIZE_SEEDS=<n>` raises the seeds per class (full corpus);
//! `SPMD_TRACE_KERNELS=1` prints each kernel before it runs.

use crate::common::{assert_kernels_agree, context, parse, try_pipeline as run};
use melior::ir::{operation::OperationLike, Module};
use spmd::{
    cfg_regions,
    graph::{CfgAnalysis, Graph},
    RegionGraph,
};
use spmd_oracle::{KernelShape, RandomKernel};

fn seeds_per_class() -> u64 {
    spmd::testing::seed_count("SPMD_STRUCTURIZE_SEEDS", 30)
}

/// How a class builds its kernel shape from a size.
type ShapeOf = fn(usize) -> KernelShape;

fn classes() -> [(&'static str, ShapeOf); 4] {
    [
        ("reducible", KernelShape::reducible),
        ("irreducible", KernelShape::irreducible),
        ("multi_exit_switch", KernelShape::multi_exit_switch),
        ("uniform", KernelShape::uniform),
    ]
}

/// Runs `pipeline` on each random kernel, checks it with `check` and by
/// differential execution, then checks idempotence. Returns how many
/// kernels changed.
fn differential(pipeline_of: &dyn Fn(&str, u64) -> String, check: &dyn Fn(&Module, &str)) -> usize {
    let context = context();
    let (mut checked, mut changed) = (0, 0);
    for (class, shape_of) in classes() {
        for seed in 0..seeds_per_class() {
            let kernel = RandomKernel::build(seed * 17 + 3, &shape_of(3 + seed as usize % 25));
            let pipeline = pipeline_of(class, seed);
            let what = format!("{class} seed {seed} {pipeline}");
            if std::env::var_os("SPMD_TRACE_KERNELS").is_some() {
                eprintln!("{what}");
            }
            let original = parse(&context, &kernel.text);
            let mut transformed = parse(&context, &kernel.text);
            if let Err(messages) = run(&context, &mut transformed, &pipeline) {
                panic!("{what} failed: {messages:?}\n{}", kernel.text);
            }
            assert!(
                transformed.as_operation().verify(),
                "{what}: invalid output"
            );
            check(&transformed, &what);
            assert_kernels_agree(&original, &transformed, &kernel, 400_000, &what);
            let once = transformed.as_operation().to_string();
            changed += usize::from(once != original.as_operation().to_string());
            run(&context, &mut transformed, &pipeline).expect("second run");
            assert_eq!(
                once,
                transformed.as_operation().to_string(),
                "{what}: not idempotent"
            );
            checked += 1;
        }
    }
    assert_eq!(checked as u64, 4 * seeds_per_class());
    changed
}

fn assert_structured(module: &Module, what: &str, use_uniformity: bool) {
    let context = spmd::testing::ir::module_context(module);
    let mut copy = Module::parse(context, &module.as_operation().to_string()).expect("reparse");
    let pipeline =
        format!("builtin.module(spmd-verify-structured{{use-uniformity={use_uniformity}}})");
    if let Err(messages) = run(context, &mut copy, &pipeline) {
        panic!(
            "{what}: not structured: {messages:?}\n{}",
            module.as_operation()
        );
    }
}

#[test]
fn structurize_preserves_semantics_and_structures_random_kernels() {
    let changed = differential(
        &|class, seed| {
            let irreducible = if matches!(class, "irreducible" | "multi_exit_switch") {
                "fix"
            } else {
                "reject"
            };
            let skip = match seed % 3 {
                0 => "skip-uniform-regions=false",
                1 => "skip-uniform-regions=true relaxed-uniform-regions=true",
                _ => "skip-uniform-regions=true relaxed-uniform-regions=false",
            };
            let ordering = ["rpot", "dfpd", "df", "bf"][(seed / 3) as usize % 4];
            format!("builtin.module(spmd-structurize{{irreducible={irreducible} {skip} ordering={ordering}}})")
        },
        &|module, what| assert_structured(module, what, false),
    );
    assert!(
        changed as u64 >= 2 * seeds_per_class(),
        "only {changed} kernels changed"
    );
}

#[test]
fn structurize_preserves_semantics_on_long_range_kernels() {
    use spmd::testing::long_range::LongRangeShape;
    use spmd_oracle::long_range_kernel;
    let context = context();
    for seed in 0..seeds_per_class() / 2 {
        let blocks = 3 + (seed as usize * 5) % 60;
        let shape = LongRangeShape {
            blocks,
            reach: [0, 5, 15, 40][seed as usize % 4],
            ..LongRangeShape::new(blocks)
        };
        let kernel = long_range_kernel(seed + 100, &shape);
        let skip = ["false", "true"][seed as usize % 2];
        let pipeline = format!(
            "builtin.module(spmd-structurize{{irreducible=fix skip-uniform-regions={skip}}})"
        );
        let what = format!("long-range seed {seed} {blocks} blocks {pipeline}");
        let original = parse(&context, &kernel.text);
        let mut transformed = parse(&context, &kernel.text);
        if let Err(messages) = run(&context, &mut transformed, &pipeline) {
            panic!("{what} failed: {messages:?}\n{}", kernel.text);
        }
        assert!(
            transformed.as_operation().verify(),
            "{what}: invalid output"
        );
        assert_structured(&transformed, &what, skip == "true");
        assert_kernels_agree(&original, &transformed, &kernel, 400_000, &what);
    }
}

fn cycle_facts(module: &Module) -> Vec<(bool, usize)> {
    let mut facts = Vec::new();
    for function in cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
    {
        let graph = RegionGraph::snapshot(function.region).expect("snapshot");
        let analysis = CfgAnalysis::build(graph.graph());
        let forest = analysis.cycles();
        facts.extend(
            forest
                .cycles()
                .map(|c| (forest.is_reducible(c), forest.exit_blocks(c).len())),
        );
        let _ = graph.graph().num_blocks();
    }
    facts
}

#[test]
fn fix_irreducible_preserves_semantics_and_leaves_only_reducible_cycles() {
    let changed = differential(
        &|_, _| "builtin.module(spmd-fix-irreducible)".to_string(),
        &|module, what| {
            assert!(
                cycle_facts(module).iter().all(|&(reducible, _)| reducible),
                "{what}: still irreducible"
            );
        },
    );
    assert!(changed > 0, "no kernel was irreducible");
}

#[test]
fn unify_loop_exits_preserves_semantics_and_leaves_one_exit_per_loop() {
    let changed = differential(
        &|class, _| {
            if class == "irreducible" {
                "builtin.module(spmd-fix-irreducible, spmd-unify-loop-exits)".to_string()
            } else {
                "builtin.module(spmd-unify-loop-exits)".to_string()
            }
        },
        &|module, what| {
            assert!(
                cycle_facts(module).iter().all(|&(_, exits)| exits <= 1),
                "{what}: a loop keeps several exits"
            );
        },
    );
    assert!(changed > 0, "no kernel had a loop with several exits");
}
