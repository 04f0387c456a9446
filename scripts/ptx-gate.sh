#!/usr/bin/env bash
# ptx-gate.sh: the PTX gate at any size. Random divergent kernels (both
# front doors), the kernels of mlir-tests/nvvm/Inputs and the CUDA corpus
# through the spmd-compile driver (both --via routes) and ptxas (sm_70 and
# sm_90), zero failures allowed. A wrapper of the cargo test
# crates/spmd-compile/tests/ptx_gate.rs, which `cargo test` runs at CI size;
# every failure is listed with the command that reproduces it.
#
#   scripts/ptx-gate.sh [options]
#
# Options:
#   --seeds N     random kernels per shape class and front door (default 50)
#   --first N     first seed (default 0)
#   -j N          parallel compilations (default: number of CPUs)
#   --release     build the driver with optimisations (faster for big runs)
#
# ptxas is $PTXAS, or the one scripts/setup.sh installs.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "ptx-gate: $*" >&2; exit 1; }

seeds=50 first=0 jobs= profile=()
while (($#)); do
  case $1 in
    --seeds) seeds=${2:?}; shift ;;
    --first) first=${2:?}; shift ;;
    -j) jobs=${2:?}; shift ;;
    --release) profile=(--release) ;;
    -h|--help) usage ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
cd "$(dirname "$0")/.."
export SPMD_PTX_GATE_SEEDS=$seeds SPMD_PTX_GATE_FIRST=$first
[[ -z $jobs ]] || export SPMD_PTX_GATE_JOBS=$jobs
exec cargo test --locked "${profile[@]}" -p spmd-compile --test ptx_gate -- --nocapture
