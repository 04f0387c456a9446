#!/usr/bin/env bash
# find-nvdisasm.sh: prints the path of the nvdisasm that the SASS counts of
# scripts/compare-cuda-ptx.sh and scripts/bench-cuda.sh use, or prints
# nothing (status 0) if there is none: the counts are then left out.
#
#   scripts/find-nvdisasm.sh       # e.g. .../.venv/lib/python3.11/site-packages/nvidia/cuda_nvdisasm/bin/nvdisasm
#
# In this order: $NVDISASM (if set); the one scripts/setup.sh installs from
# the nvidia-cuda-nvdisasm wheel into the project's .venv; nvdisasm on PATH.
set -euo pipefail

if [[ -n ${NVDISASM:-} ]]; then
  echo "$NVDISASM"
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
for candidate in "$root"/.venv/lib/python3*/site-packages/nvidia/cu*/bin/nvdisasm \
    "$(command -v nvdisasm || true)"; do
  if [[ -n $candidate && -x $candidate ]]; then
    echo "$candidate"
    exit 0
  fi
done
