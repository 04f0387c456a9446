#!/usr/bin/env bash
# Sets up the machine (scripts/setup.sh), builds spmd and runs every test:
# the Rust unit, property and integration tests, then the lit/FileCheck suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --locked --bins
cargo test --locked
SPMD_BIN_DIR="$PWD/target/debug" /usr/lib/llvm-22/bin/lit -sv mlir-tests
