//! Benchmark of the CFG analyses (RPO, dominators, post-dominators, cycle
//! forest) on random code-shaped CFGs of 10k, 100k and 1M blocks, with the
//! Cooper–Harvey–Kennedy reference dominators as the anchor.
//!
//! `cargo run --release --example cfg_bench [sizes...]`

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.replace('_', "").parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    print!("{}", spmd::graph::bench::run_benchmark(&sizes));
}
