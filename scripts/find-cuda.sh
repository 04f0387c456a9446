#!/usr/bin/env bash
# find-cuda.sh: prints the CUDA installation (root directory) that spmd's
# CUDA front door hands to clang as --cuda-path, or fails (status 1, message
# on stderr) if there is none.
#
#   scripts/find-cuda.sh          # e.g. /path/to/spmd/.venv/cuda
#
# In this order: $SPMD_CUDA_PATH (if set, it must hold include/cuda_runtime.h
# and nvvm/libdevice/libdevice.10.bc); the root that scripts/setup.sh lays
# out in the project's .venv from NVIDIA's pinned CUDA 12.9 wheels.
set -euo pipefail

usable() { [[ -r $1/include/cuda_runtime.h && -r $1/nvvm/libdevice/libdevice.10.bc ]]; }

if [[ -n ${SPMD_CUDA_PATH:-} ]]; then
  usable "$SPMD_CUDA_PATH" ||
    { echo "find-cuda: SPMD_CUDA_PATH=$SPMD_CUDA_PATH has no include/cuda_runtime.h or nvvm/libdevice/libdevice.10.bc" >&2; exit 1; }
  echo "$SPMD_CUDA_PATH"
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
if usable "$root/.venv/cuda"; then
  echo "$root/.venv/cuda"
  exit 0
fi
echo "find-cuda: no CUDA headers and libdevice (run scripts/setup.sh, or set SPMD_CUDA_PATH)" >&2
exit 1
