//! Soundness of the uniformity analysis, checked by execution.
//!
//! Random thread-level kernels (`spmd_oracle::RandomKernel`, thread id as an
//! argument marked `spmd.divergent`) run for 64 threads and several values
//! of the uniform argument `%n` in the reference executor, which records
//! every branch decision with its *dynamic instance*.
//!
//! **"Together"**, precisely: two threads reach a branch together when they
//! execute it in the same dynamic instance: same call stack (calling
//! operation and visit number of the caller's block, per frame), same
//! branch, and same visit number of the branch's block in the current frame
//! (the n-th time this frame enters the block). This is the conservative
//! notion the issue allows: threads that arrive with identical call paths
//! and identical loop-iteration counts.
//!
//! **Soundness**: for every branch the analysis calls uniform, all threads
//! that reach it together take the same successor. A violation means a
//! divergent branch was called uniform — a miscompile for every transform
//! that trusts the analysis.

use crate::common::{context, parse};
use spmd::{cfg_regions, graph::BlockId, RegionUniformity, UniformityOptions};
use spmd_oracle::{
    trace::{BranchSite, DynamicInstance, Tracer},
    ElementType, Executor, KernelShape, Memory, RandomKernel,
};
use std::collections::HashMap;

const THREADS: u32 = 64;
const FUEL: u64 = 100_000;

/// Records, per (block, dynamic instance), the first successor taken, and
/// every later disagreement.
#[derive(Default)]
struct SplitDetector {
    first: HashMap<(usize, DynamicInstance), usize>,
    splits: Vec<usize>,
}

impl Tracer for SplitDetector {
    fn on_branch(&mut self, site: &BranchSite<'_>, chosen: usize) {
        let key = (site.block, site.instance());
        match self.first.get(&key) {
            Some(&taken) if taken != chosen => self.splits.push(site.block),
            Some(_) => {}
            None => {
                self.first.insert(key, chosen);
            }
        }
    }
}

#[test]
fn branches_called_uniform_never_split_threads_that_arrive_together() {
    let context = context();
    let (mut kernels, mut uniform_branches_checked, mut divergent_branches_that_split) = (0, 0, 0);
    for (class, shape_of) in [
        (
            "reducible",
            KernelShape::reducible as fn(usize) -> KernelShape,
        ),
        ("irreducible", KernelShape::irreducible),
        ("multi_exit_switch", KernelShape::multi_exit_switch),
        ("uniform", KernelShape::uniform),
    ] {
        for seed in 0..120u64 {
            let kernel = RandomKernel::build(seed * 7 + 3, &shape_of(3 + seed as usize % 30));
            let module = parse(&context, &kernel.text);
            let function = cfg_regions(module.as_operation())
                .into_iter()
                .find(|r| r.label == "@kernel")
                .expect("kernel function");
            let uniformity = RegionUniformity::compute(
                function.owner,
                function.region,
                &UniformityOptions::default(),
            )
            .expect("analysable");
            let executor = Executor::new(&module);
            let mut splits = Vec::new();
            // One detector per input: "together" only relates threads of one run.
            for n in [0, 7, 40] {
                let mut detector = SplitDetector::default();
                let mut memory = Memory::new();
                let out = memory.alloc(ElementType::Int(32), &[kernel.out_len(THREADS)]);
                let run = executor.run_grid_traced(
                    "kernel",
                    &spmd_oracle::GridDims::linear(THREADS),
                    &|t| RandomKernel::arguments(out, n, t.x),
                    &mut memory,
                    &mut detector,
                    FUEL,
                );
                assert!(
                    run.first_error().is_none(),
                    "{class} seed {seed}: {:?}",
                    run.first_error()
                );
                splits.extend(detector.splits);
            }
            for &block in &splits {
                let divergent = uniformity.is_divergent_branch_id(BlockId::new(block));
                assert!(
                    divergent,
                    "{class} seed {seed}: ^bb{block} was called uniform but split threads that arrived together\n{}",
                    kernel.text
                );
                divergent_branches_that_split += 1;
            }
            uniform_branches_checked += (0..uniformity.graph().num_blocks())
                .filter(|&b| !uniformity.is_divergent_branch_id(BlockId::new(b)))
                .count();
            kernels += 1;
        }
    }
    assert!(kernels >= 480);
    // The corpus must exercise both outcomes for the check to mean anything.
    assert!(
        divergent_branches_that_split > 100,
        "{divergent_branches_that_split}"
    );
    assert!(
        uniform_branches_checked > 1000,
        "{uniform_branches_checked}"
    );
}
