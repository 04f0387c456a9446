//! `--spmd-reconverge` end to end: differential execution and Definition 1
//! on random kernels, for every ordering.
//!
//! Each random thread-level kernel (reducible, irreducible, several exits
//! and switches, uniform) is transformed through a real MLIR pass pipeline
//! (`builtin.module(spmd-reconverge{ordering=...})`), then:
//! * the output passes the MLIR verifier;
//! * the output is reconverging (uniformity analysis + Definition 1);
//! * the original and the output compute the same per-thread results and
//!   the same memory effects on 64 threads and several inputs;
//! * running the pass again changes nothing (idempotence).
//!
//! `SPMD_RECONVERGE_SEEDS=<n>` raises the number of seeds per class (the
//! full corpus; CI runs the default). `SPMD_TRACE_KERNELS=1` prints each
//! kernel's class and seed before it runs; `cargo run --example
//! dump_kernel -- <class> <seed>` then prints a failing kernel.

use crate::common::{assert_kernels_agree, context, parse, run_pipeline};
use melior::ir::{operation::OperationLike, Module};
use spmd::{cfg_regions, check_reconverging, Ordering, RegionUniformity, UniformityOptions};
use spmd_oracle::{KernelShape, RandomKernel};

fn assert_reconverging(module: &Module, what: &str) {
    for function in cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
    {
        let uniformity = RegionUniformity::compute(
            function.owner,
            function.region,
            &UniformityOptions::default(),
        )
        .expect("analysable");
        let violations = check_reconverging(uniformity.graph().graph(), &|b| {
            uniformity.is_divergent_branch_id(b)
        });
        assert!(
            violations.is_empty(),
            "{what}: not reconverging: {violations:?}\n{}",
            module.as_operation()
        );
    }
}

fn seeds_per_class() -> u64 {
    spmd::testing::seed_count("SPMD_RECONVERGE_SEEDS", 40)
}

#[test]
fn reconverge_preserves_semantics_and_reconverges_on_random_kernels() {
    let context = context();
    let mut checked = 0;
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
            let kernel = RandomKernel::build(seed * 13 + 5, &shape_of(3 + seed as usize % 25));
            let ordering = Ordering::ALL[seed as usize % 4];
            let what = format!("{class} seed {seed} ordering {}", ordering.name());
            if std::env::var_os("SPMD_TRACE_KERNELS").is_some() {
                eprintln!("{what}");
            }
            let original = parse(&context, &kernel.text);
            let mut transformed = parse(&context, &kernel.text);
            // Every other group of four seeds threads each Flow chain through an i32 selector.
            let selector = if (seed / 4) % 2 == 1 { 0 } else { 4 };
            let pipeline = format!(
                "builtin.module(spmd-reconverge{{ordering={} selector-chain-length={selector}}})",
                ordering.name()
            );
            run_pipeline(&context, &mut transformed, &pipeline);
            assert!(
                transformed.as_operation().verify(),
                "{what}: invalid output"
            );
            assert_reconverging(&transformed, &what);
            assert_kernels_agree(&original, &transformed, &kernel, 200_000, &what);
            let once = transformed.as_operation().to_string();
            run_pipeline(&context, &mut transformed, &pipeline);
            assert_eq!(
                once,
                transformed.as_operation().to_string(),
                "{what}: not idempotent"
            );
            checked += 1;
        }
    }
    assert!(checked >= 160);
}

/// The long-range CFGs of issue #18 (`spmd::testing::long_range`) at small
/// sizes: far-reaching forward edges, back edges guarded by the
/// accumulator (irreducible cycles), every block passing one `i32`.
fn long_range_kernels() -> impl Iterator<Item = (String, spmd_oracle::RandomKernel)> {
    use spmd::testing::long_range::LongRangeShape;
    use spmd_oracle::long_range_kernel;
    (0..seeds_per_class() / 2).map(|seed| {
        let blocks = 3 + (seed as usize * 7) % 60;
        let shape = LongRangeShape {
            blocks,
            reach: [0, 4, 12, 30][seed as usize % 4],
            back_edge_per_mille: [100, 250][seed as usize % 2],
            ..LongRangeShape::new(blocks)
        };
        (
            format!(
                "long-range seed {seed} {blocks} blocks reach {}",
                shape.reach
            ),
            long_range_kernel(seed, &shape),
        )
    })
}

#[test]
fn reconverge_preserves_semantics_on_long_range_kernels() {
    let context = context();
    for (index, (what, kernel)) in long_range_kernels().enumerate() {
        let ordering = Ordering::ALL[index % 4];
        let selector = if index % 2 == 1 { 0 } else { 4 };
        let what = format!("{what} ordering {} selector {selector}", ordering.name());
        let original = parse(&context, &kernel.text);
        let mut transformed = parse(&context, &kernel.text);
        let pipeline = format!(
            "builtin.module(spmd-reconverge{{ordering={} selector-chain-length={selector}}})",
            ordering.name()
        );
        run_pipeline(&context, &mut transformed, &pipeline);
        assert!(
            transformed.as_operation().verify(),
            "{what}: invalid output"
        );
        assert_reconverging(&transformed, &what);
        assert_kernels_agree(&original, &transformed, &kernel, 400_000, &what);
    }
}

#[test]
fn reconverging_input_is_left_unchanged() {
    let context = context();
    let source = r#"func.func @nested(%t: i1 {spmd.divergent}, %u: i1 {spmd.divergent}) {
      cf.cond_br %t, ^a, ^join
    ^a:
      cf.cond_br %u, ^b, ^inner
    ^b:
      cf.br ^inner
    ^inner:
      cf.br ^join
    ^join:
      return
    }"#;
    let mut module = parse(&context, source);
    let before = module.as_operation().to_string();
    run_pipeline(&context, &mut module, "builtin.module(spmd-reconverge)");
    assert_eq!(before, module.as_operation().to_string());
}
