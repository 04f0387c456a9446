#!/usr/bin/env bash
# Sets up the machine, builds spmd-opt and runs the main job on the shipped
# example kernel (examples/divergent-kernel.mlir): which branches diverge,
# then the kernel made reconverging (Flow blocks, i1 predicates, uniform
# branch kept), checked by --spmd-verify-reconverging.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --locked --quiet --bin spmd-opt
echo "== uniformity of examples/divergent-kernel.mlir"
./target/debug/spmd-opt --spmd-print-uniformity examples/divergent-kernel.mlir -o /dev/null
echo "== spmd-opt --spmd-reconverge examples/divergent-kernel.mlir"
./target/debug/spmd-opt --spmd-reconverge examples/divergent-kernel.mlir \
  | ./target/debug/spmd-opt --spmd-verify-reconverging
