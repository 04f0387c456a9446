//! Algorithmic work of the uniformity analysis on the long-range family of
//! issue #18 (`spmd::testing::long_range`), counted, not timed: the nodes
//! all sync propagations pop must stay linear in the function's size.
//!
//! The useful-joins mode prunes each divergent branch's propagation to the
//! nodes that can still reach an unsaturated block. One block that stays
//! unsaturated far down the function keeps everything before it alive, and
//! every earlier branch then walks up to it: quadratic work. That happened
//! twice (a never-flagged irreducible header held a position frontier;
//! later, the cycle-exit rules ran only after each branch's own
//! propagation), and each time the timings showed it first at 10k blocks.
//! This test catches it at a few thousand, in a debug build.
#![cfg(feature = "testing")]

use crate::common::{context, parse};
use spmd::{
    cfg_regions,
    testing::long_range::{long_range_function, LongRangeShape, Signature},
    RegionUniformity, UniformityOptions,
};

/// Popped nodes and full re-runs of the annotate pass's analysis (the
/// useful-joins mode) on one long-range function.
fn work(seed: u64, shape: &LongRangeShape) -> (u64, usize) {
    let context = context();
    let (text, _) = long_range_function(seed, shape, Signature::Bench);
    let module = parse(&context, &text);
    let regions = cfg_regions(module.as_operation());
    let region = &regions[0];
    let uniformity =
        RegionUniformity::compute(region.owner, region.region, &UniformityOptions::default())
            .expect("the long-range function is analysable");
    let stats = uniformity.stats();
    (stats.propagation_work, stats.full_propagations)
}

#[test]
fn long_range_propagation_work_is_linear() {
    let shapes = [
        LongRangeShape::new(4000),
        LongRangeShape {
            divergent_per_mille: 300,
            ..LongRangeShape::new(4000)
        },
        LongRangeShape {
            back_edge_per_mille: 300,
            ..LongRangeShape::new(3000)
        },
        LongRangeShape {
            back_edge_per_mille: 0,
            ..LongRangeShape::new(3000)
        },
    ];
    for (seed, shape) in shapes.iter().enumerate() {
        let (popped, full_runs) = work(seed as u64 + 42, shape);
        eprintln!(
            "{} blocks, {}‰ divergent, {}‰ back edges: {popped} popped nodes, {full_runs} full re-runs",
            shape.blocks, shape.divergent_per_mille, shape.back_edge_per_mille
        );
        assert!(
            popped <= 2 * shape.blocks as u64,
            "{shape:?}: {popped} popped nodes, more than twice the blocks"
        );
        assert!(
            full_runs <= shape.blocks / 100,
            "{shape:?}: {full_runs} full re-runs"
        );
    }
}
