#!/usr/bin/env bash
# Sets up the machine, builds spmd-opt and runs it on the shipped example
# kernel (examples/divergent-kernel.mlir): the CFG analyses of the kernel,
# then the kernel itself, verified and printed.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --locked --quiet --bin spmd-opt
./target/debug/spmd-opt --spmd-print-cfg-analysis examples/divergent-kernel.mlir
