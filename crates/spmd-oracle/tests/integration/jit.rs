//! Differential tests with MLIR's JIT as the oracle ([`spmd_oracle::jit`]).
//!
//! Every random kernel class and seed goes through every pipeline of
//! [`PIPELINES`]; the original and the transformed function are then
//! compiled by the JIT (one engine per batch of [`BATCH`] pairs) and must
//! return the same value and leave the same `%out` on 64 threads and
//! several values of `%n`. The executor-based test in `reconverge.rs` checks
//! the same property with our own interpreter; this one does not share its
//! semantics code.
//!
//! `SPMD_JIT_SEEDS=<n>` sets the seeds per class (default
//! [`DEFAULT_SEEDS`], which keeps the module well under a minute in a debug
//! build); the full corpus is
//!
//! ```text
//! SPMD_JIT_SEEDS=500 cargo test --locked --test integration jit:: -- --nocapture
//! ```
//!
//! which also prints the measured throughput. A mismatch names the class,
//! seed, block count and pipeline; `cargo run --example dump_kernel --
//! <class> <seed>` prints the kernel (the block count is part of the seed's
//! shape, see [`kernel_for`]).

use crate::common::{context, parse};
use melior::{
    ir::operation::OperationLike, pass::PassManager, utility::parse_pass_pipeline, Context,
};
use spmd::testing::long_range::LongRangeShape;
use spmd_oracle::long_range_kernel;
use spmd_oracle::{
    jit::{compare_batch, Difference, JitError, JitInputs, JitStats, KernelPair},
    KernelShape, RandomKernel,
};
use std::{cell::RefCell, rc::Rc, time::Duration};

/// The transforms under test, as textual pass pipelines. Add a row to test
/// another transform.
const PIPELINES: &[&str] = &[
    "builtin.module(spmd-reconverge{ordering=df})",
    "builtin.module(spmd-reconverge{ordering=dfpd})",
    "builtin.module(spmd-reconverge{ordering=bf})",
    "builtin.module(spmd-reconverge{ordering=rpot})",
    // Every Flow chain through one i32 selector instead of i1 predicates.
    "builtin.module(spmd-reconverge{ordering=dfpd selector-chain-length=0})",
    "builtin.module(spmd-reconverge{ordering=bf selector-chain-length=0})",
    // StructurizeCFG and its companions (irregular kernels need irreducible=fix).
    "builtin.module(spmd-structurize{irreducible=fix})",
    "builtin.module(spmd-structurize{irreducible=fix skip-uniform-regions=true ordering=dfpd})",
    "builtin.module(spmd-structurize{irreducible=fix selector-chain-length=1000000 ordering=bf})",
    "builtin.module(spmd-fix-irreducible)",
    "builtin.module(spmd-fix-irreducible, spmd-unify-loop-exits)",
    "builtin.module(spmd-fix-irreducible, spmd-unify-loop-exits, spmd-structurize)",
];

/// Seeds per kernel class unless `SPMD_JIT_SEEDS` says otherwise.
const DEFAULT_SEEDS: u64 = 10;

/// Pairs compiled into one execution engine.
const BATCH: usize = 128;

fn seeds_per_class() -> u64 {
    spmd::testing::seed_count("SPMD_JIT_SEEDS", DEFAULT_SEEDS)
}

/// The kernel of `class` for `seed`: seeds differ from those of
/// `reconverge.rs`, and the block count cycles through 3..=30.
fn kernel_for(shape_of: fn(usize) -> KernelShape, seed: u64) -> RandomKernel {
    RandomKernel::build(seed, &shape_of(3 + (seed as usize * 7) % 28))
}

/// Runs `pipeline` on module `text`; the output text or the diagnostics.
fn transform(context: &Context, text: &str, pipeline: &str) -> Result<String, String> {
    spmd::register_all_passes();
    let mut module = parse(context, text);
    let messages = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let handler = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(d.to_string());
        true
    });
    let manager = PassManager::new(context);
    let result = parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .map_err(|error| format!("invalid pipeline: {error}"))
        .and_then(|()| {
            manager
                .run(&mut module)
                .map_err(|_| messages.borrow().join("; "))
        });
    context.detach_diagnostic_handler(handler);
    result?;
    assert!(
        module.as_operation().verify(),
        "{pipeline} produced invalid IR"
    );
    Ok(module.as_operation().to_string())
}

/// How a corpus class builds its kernel shape from a size.
type ShapeOf = fn(usize) -> KernelShape;

/// Every (class, seed, pipeline) pair of the corpus.
fn corpus(context: &Context, seeds: u64) -> Vec<KernelPair> {
    let classes: [(&str, ShapeOf); 4] = [
        ("reducible", KernelShape::reducible),
        ("irreducible", KernelShape::irreducible),
        ("multi_exit_switch", KernelShape::multi_exit_switch),
        ("uniform", KernelShape::uniform),
    ];
    let mut pairs = Vec::new();
    for (class, shape_of) in classes {
        for seed in 1000..1000 + seeds {
            let kernel = kernel_for(shape_of, seed);
            for pipeline in PIPELINES {
                let label = format!(
                    "{class} seed {seed} ({} blocks) {pipeline}",
                    kernel.num_blocks
                );
                let transformed =
                    transform(context, &kernel.text, pipeline).unwrap_or_else(|error| {
                        panic!("{label}: pipeline failed: {error}\n{}", kernel.text)
                    });
                pairs.push(KernelPair::of_random(label, &kernel, transformed));
            }
        }
    }
    // The long-range CFGs of issue #18 at small sizes.
    for seed in 2000..2000 + seeds / 2 {
        let blocks = 3 + (seed as usize * 7) % 50;
        let shape = LongRangeShape {
            blocks,
            reach: [0, 6, 20][seed as usize % 3],
            ..LongRangeShape::new(blocks)
        };
        let kernel = long_range_kernel(seed, &shape);
        for pipeline in PIPELINES {
            let label = format!("long-range seed {seed} ({blocks} blocks) {pipeline}");
            let transformed = transform(context, &kernel.text, pipeline).unwrap_or_else(|error| {
                panic!("{label}: pipeline failed: {error}\n{}", kernel.text)
            });
            pairs.push(KernelPair::of_random(label, &kernel, transformed));
        }
    }
    pairs
}

#[test]
fn transforms_agree_with_the_originals_under_the_jit() {
    let context = context();
    let seeds = seeds_per_class();
    let started = std::time::Instant::now();
    let pairs = corpus(&context, seeds);
    let transform_time = started.elapsed();
    let inputs = JitInputs::default();
    let mut stats = JitStats::default();
    for batch in pairs.chunks(BATCH) {
        match compare_batch(&context, batch, &inputs) {
            Ok(batch_stats) => stats.absorb(&batch_stats),
            Err(JitError::Mismatch(mismatch)) => {
                let pair = batch
                    .iter()
                    .find(|p| p.label == mismatch.label)
                    .expect("a pair of the batch");
                panic!(
                    "{mismatch}\noriginal:\n{}\ntransformed:\n{}",
                    pair.original, pair.transformed
                );
            }
            Err(error) => panic!("{error}"),
        }
    }
    assert_eq!(
        stats.kernels,
        (4 * seeds + seeds / 2) as usize * PIPELINES.len()
    );
    let runs_per_pair = 2 * inputs.num_threads as usize * inputs.n_values.len();
    assert_eq!(stats.calls, stats.kernels * runs_per_pair);
    let per_kernel = |d: Duration| d.as_secs_f64() * 1e3 / stats.kernels as f64;
    eprintln!(
        "jit oracle: {} pairs, {} calls; per pair: transform {:.2} ms, merge {:.2} ms, lower {:.2} ms, \
         compile {:.2} ms, run {:.3} ms; JIT total {:.1} pairs/s",
        stats.kernels,
        stats.calls,
        per_kernel(transform_time),
        per_kernel(stats.prepare_time),
        per_kernel(stats.lower_time),
        per_kernel(stats.compile_time),
        per_kernel(stats.run_time),
        stats.kernels as f64 / stats.total_time().as_secs_f64(),
    );
}

// ---------------------------------------------------------------------------
// The oracle itself: it must see differences, not only agree.
// ---------------------------------------------------------------------------

/// A kernel: stores `%n + %tid` to its first slot and returns `%tid * 2`.
const STRAIGHT: &str = r#"func.func @kernel(%out: memref<?xi32>, %n: i32, %tid: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %base = arith.muli %tid, %c4 : i32
  %i = arith.index_cast %base : i32 to index
  %v = arith.addi %n, %tid : i32
  memref.store %v, %out[%i] : memref<?xi32>
  %r = arith.muli %tid, %c2 : i32
  return %r : i32
}"#;

fn pair(label: &str, transformed: &str) -> KernelPair {
    KernelPair {
        label: label.into(),
        original: STRAIGHT.into(),
        transformed: transformed.into(),
        slots: 4,
    }
}

fn quick_inputs() -> JitInputs {
    JitInputs {
        num_threads: 8,
        n_values: vec![0, 3],
        ..JitInputs::default()
    }
}

/// `STRAIGHT` with its body before the return replaced by `tail`.
fn straight_with(tail: &str) -> String {
    STRAIGHT.replace("  %r = arith.muli %tid, %c2 : i32\n  return %r : i32", tail)
}

#[test]
fn identical_kernels_agree_and_are_all_called() {
    let context = context();
    let pairs = vec![pair("same", STRAIGHT), pair("same again", STRAIGHT)];
    let stats = compare_batch(&context, &pairs, &quick_inputs()).expect("identical kernels agree");
    assert_eq!(stats.kernels, 2);
    assert_eq!(stats.calls, 2 * 2 * 8 * 2);
}

#[test]
fn a_different_result_is_reported_with_thread_and_input() {
    let context = context();
    // Thread 5 returns 0 instead of 10.
    let wrong = straight_with(
        "  %r = arith.muli %tid, %c2 : i32\n  %c5 = arith.constant 5 : i32\n  %is5 = arith.cmpi eq, %tid, %c5 : i32\n  \
         %c0 = arith.constant 0 : i32\n  %s = arith.select %is5, %c0, %r : i32\n  return %s : i32",
    );
    let pairs = vec![pair("fine", STRAIGHT), pair("thread five", &wrong)];
    let Err(JitError::Mismatch(mismatch)) = compare_batch(&context, &pairs, &quick_inputs()) else {
        panic!("the wrong result was not noticed");
    };
    assert_eq!(mismatch.label, "thread five");
    assert_eq!((mismatch.n, mismatch.tid), (0, 5));
    assert_eq!(
        mismatch.difference,
        Difference::Result {
            original: 10,
            transformed: 0
        }
    );
    assert!(
        mismatch.to_string().contains("thread five: n=0 tid=5"),
        "{mismatch}"
    );
}

#[test]
fn a_different_store_is_reported_with_the_owning_thread() {
    let context = context();
    // Thread 3 also writes 0 to its second slot, for n = 3 only.
    let wrong = straight_with(
        "  %c1 = arith.constant 1 : i32\n  %c3 = arith.constant 3 : i32\n  %t3 = arith.cmpi eq, %tid, %c3 : i32\n  \
         %n3 = arith.cmpi eq, %n, %c3 : i32\n  %both = arith.andi %t3, %n3 : i1\n  \
         cf.cond_br %both, ^store, ^done\n^store:\n  %j = arith.addi %base, %c1 : i32\n  \
         %ji = arith.index_cast %j : i32 to index\n  %z = arith.constant 0 : i32\n  \
         memref.store %z, %out[%ji] : memref<?xi32>\n  cf.br ^done\n^done:\n  \
         %r = arith.muli %tid, %c2 : i32\n  return %r : i32",
    );
    let Err(JitError::Mismatch(mismatch)) =
        compare_batch(&context, &[pair("store", &wrong)], &quick_inputs())
    else {
        panic!("the extra store was not noticed");
    };
    assert_eq!((mismatch.n, mismatch.tid), (3, 3));
    let Difference::Memory {
        index,
        original,
        transformed,
    } = mismatch.difference
    else {
        panic!("expected a memory difference, got {mismatch}");
    };
    assert_eq!((index, transformed), (13, 0));
    assert_ne!(
        original, 0,
        "buffers start non-zero, so storing 0 is visible"
    );
}

#[test]
fn a_store_past_the_buffer_is_caught_by_the_guards() {
    let context = context();
    // Thread 7 (the last of 8) writes slot 4, one past the end of %out.
    let wrong = straight_with(
        "  %c7 = arith.constant 7 : i32\n  %t7 = arith.cmpi eq, %tid, %c7 : i32\n  cf.cond_br %t7, ^oob, ^done\n\
         ^oob:\n  %end = arith.addi %base, %c4 : i32\n  %ei = arith.index_cast %end : i32 to index\n  \
         memref.store %n, %out[%ei] : memref<?xi32>\n  cf.br ^done\n^done:\n  \
         %r = arith.muli %tid, %c2 : i32\n  return %r : i32",
    );
    let Err(JitError::Mismatch(mismatch)) =
        compare_batch(&context, &[pair("oob", &wrong)], &quick_inputs())
    else {
        panic!("the out-of-bounds store was not noticed");
    };
    assert_eq!(mismatch.tid, 7);
    assert_eq!(
        mismatch.difference,
        Difference::OutOfBounds {
            transformed_side: true,
            offset: 32
        }
    );
}

#[test]
fn a_transform_that_runs_too_long_is_reported_as_a_hang() {
    let context = context();
    // 2^26 iterations: far longer than the timeout, short enough that the
    // abandoned worker thread soon finishes.
    let slow = straight_with(
        "  %limit = arith.constant 67108864 : i32\n  %c1 = arith.constant 1 : i32\n  %c0 = arith.constant 0 : i32\n  \
         cf.br ^loop(%c0 : i32)\n^loop(%k: i32):\n  %next = arith.addi %k, %c1 : i32\n  \
         %more = arith.cmpi slt, %next, %limit : i32\n  cf.cond_br %more, ^loop(%next : i32), ^done\n^done:\n  \
         %r = arith.muli %tid, %c2 : i32\n  return %r : i32",
    );
    let inputs = JitInputs {
        timeout: Duration::from_millis(1),
        ..quick_inputs()
    };
    match compare_batch(&context, &[pair("slow", &slow)], &inputs) {
        Err(JitError::Hang { label, n }) => assert_eq!((label.as_str(), n), ("slow", 0)),
        other => panic!("expected a hang, got {other:?}"),
    }
}

#[test]
fn a_module_without_the_kernel_is_an_input_error() {
    let context = context();
    let renamed = STRAIGHT.replace("@kernel", "@other");
    match compare_batch(&context, &[pair("renamed", &renamed)], &quick_inputs()) {
        Err(JitError::Input { label, message }) => {
            assert_eq!(label, "renamed");
            assert!(message.contains("no func.func @kernel"), "{message}");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn a_kernel_of_another_type_is_an_input_error() {
    let context = context();
    let narrow = "func.func @kernel(%out: memref<?xi32>, %n: i32, %tid: i32) -> i64 {\n  \
                  %c = arith.constant 0 : i64\n  return %c : i64\n}";
    match compare_batch(&context, &[pair("i64", narrow)], &quick_inputs()) {
        Err(JitError::Input { message, .. }) => assert!(
            message.contains("expected (memref<?xi32>, i32, i32) -> i32"),
            "{message}"
        ),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn a_wave_level_op_fails_the_lowering_and_names_its_pair() {
    let context = context();
    let wave = straight_with(
        "  %t = arith.constant true\n  %m = spmd.ballot %t : !spmd.mask\n  \
         %r = arith.muli %tid, %c2 : i32\n  return %r : i32",
    );
    let pairs = vec![pair("fine", STRAIGHT), pair("ballot", &wave)];
    match compare_batch(&context, &pairs, &quick_inputs()) {
        Err(JitError::Lowering { label, diagnostics }) => {
            assert_eq!(label.as_deref(), Some("ballot"));
            let text = diagnostics.join("\n");
            assert!(
                text.contains("wave-level op 'spmd.ballot' has no thread-level lowering"),
                "{text}"
            );
        }
        other => panic!("expected a lowering error, got {other:?}"),
    }
}
