//! Benchmark of the uniformity analysis on a random program of ~1M ops
//! (≈100k blocks), with the CFG analyses of the same graph as the anchor.
//!
//! `cargo run --release --example uniformity_bench [num_ops]`

fn main() {
    let num_ops = std::env::args()
        .nth(1)
        .and_then(|a| a.replace('_', "").parse().ok())
        .unwrap_or(1_000_000);
    print!(
        "{}",
        spmd::testing::uniformity_bench::run_benchmark(num_ops)
    );
}
