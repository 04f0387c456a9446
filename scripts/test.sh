#!/usr/bin/env bash
# Sets up the machine (scripts/setup.sh), builds spmd and runs every test:
# the Rust unit, property and integration tests, the lit/FileCheck suite,
# and the PTX gate: random divergent kernels in both front doors through
# scripts/kernel-to-ptx.sh (both routes) and ptxas (sm_70 and sm_90).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --locked --bins --examples
cargo test --locked
SPMD_BIN_DIR="$PWD/target/debug" /usr/lib/llvm-22/bin/lit -sv mlir-tests
SPMD_BIN_DIR="$PWD/target/debug" scripts/ptx-gate.sh --seeds "${SPMD_PTX_GATE_SEEDS:-75}" --forms "${SPMD_PTX_GATE_FORMS:-gpu,llvm}"
