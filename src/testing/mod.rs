//! Test inputs, compiled only with the `testing` feature (and in the
//! library's own unit tests): random function texts and the seed-count
//! helper of the property tests. The random CFGs themselves are
//! [`crate::analysis::cfg::random`], the random uniformity programs
//! [`crate::analysis::uniformity::bench`]; the kernels of the differential
//! tests and the executor that runs them are in the `spmd-oracle` crate.

pub mod long_range;
pub mod mlir_cfg;

/// Seeds a property test runs: the value of the environment variable `var`
/// (e.g. `SPMD_JIT_SEEDS=500`) when it parses as a number, else `default`.
pub fn seed_count<T: std::str::FromStr>(var: &str, default: T) -> T {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
