//! `spmd-opt`: mlir-opt with the spmd dialect and passes. See `--help`.

fn main() {
    std::process::exit(spmd::opt_main());
}
