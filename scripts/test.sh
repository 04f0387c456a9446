#!/usr/bin/env bash
# Sets up the machine (scripts/setup.sh), checks formatting, clippy and the
# rules for `unsafe`, builds spmd and runs every test:
# the Rust unit, property and integration tests, the lit/FileCheck suite,
# the embedding checks (scripts/install.sh, scripts/test-embedding.sh, the
# Rust example, cargo doc). The PTX gate (random divergent kernels in both
# front doors and the CUDA corpus through the spmd-compile driver, both
# routes, and ptxas for sm_70 and sm_90) is a cargo test of
# crates/spmd-compile; scripts/ptx-gate.sh runs it bigger.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# Habits the tree keeps (docs/architecture.md): rustfmt's layout, no
# clippy warning, and `unsafe` only in src/ir/ and the oracle's JIT, each
# with a SAFETY comment.
cargo fmt --all -- --check
python3 scripts/check-unsafe.py
cargo clippy --locked --workspace --all-targets -- -D warnings
# The workspace: spmd, crates/spmd-oracle, crates/spmd-bench, crates/spmd-compile
# (docs/architecture.md); every unit and integration test of the four.
cargo build --locked --workspace --bins --examples
cargo test --locked --workspace
SPMD_BIN_DIR="$PWD/target/debug" /usr/lib/llvm-22/bin/lit -sv mlir-tests
# Embedding from an installed prefix (docs/embedding.md): the C++ example,
# the C API test, the one-copy-of-MLIR checks, stock mlir-opt + plugin on
# part of mlir-tests/, and the Rust example (README's snippet).
SPMD_CARGO_PROFILE=dev scripts/install.sh "$PWD/build/ci-prefix"
scripts/test-embedding.sh "$PWD/build/ci-prefix"
cargo run --locked --quiet --example embed | /usr/lib/llvm-22/bin/FileCheck tests/embedding/embed-rust.check
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps --workspace --lib
# The shipped library alone, without the `testing` feature the other
# crates turn on: it must build and document cleanly by itself.
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps -p spmd --lib
