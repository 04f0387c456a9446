#!/usr/bin/env bash
# find-ptxas.sh: prints the path of the ptxas that spmd's scripts and lit
# tests use, or fails (status 1, message on stderr) if there is none.
#
#   scripts/find-ptxas.sh          # e.g. .../.venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas
#
# In this order: $PTXAS (if set, it must be executable); the one
# scripts/setup.sh installs from the nvidia-cuda-nvcc-cu12 wheel into the
# project's .venv; ptxas on PATH; /usr/local/cuda/bin/ptxas.
set -euo pipefail

if [[ -n ${PTXAS:-} ]]; then
  [[ -x $PTXAS ]] || { echo "find-ptxas: PTXAS=$PTXAS is not an executable file" >&2; exit 1; }
  echo "$PTXAS"
  exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
for candidate in "$root"/.venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas \
    "$(command -v ptxas || true)" /usr/local/cuda/bin/ptxas; do
  if [[ -n $candidate && -x $candidate ]]; then
    echo "$candidate"
    exit 0
  fi
done
echo "find-ptxas: no ptxas (run scripts/setup.sh, or set PTXAS)" >&2
exit 1
