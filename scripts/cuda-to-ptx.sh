#!/usr/bin/env bash
# cuda-to-ptx.sh: CUDA device code -> PTX through spmd's passes, for every
# __global__ function of the file. A thin wrapper of the spmd-compile driver
# (`spmd-compile -x cuda ...`; see `spmd-compile --help` and docs/cuda.md).
#
#   scripts/cuda-to-ptx.sh [options] kernel.cu       # PTX on stdout
#   scripts/cuda-to-ptx.sh [options] - < kernel.cu   # kernel on stdin
#
# The stages:
#   1. clang-22 -x cuda --cuda-device-only -O2 -S -emit-llvm against NVIDIA's
#        CUDA 12.9 headers and libdevice (the CUDA root that scripts/setup.sh
#        lays out in .venv/cuda; scripts/find-cuda.sh). libdevice's math is
#        linked and inlined by clang, so it goes through spmd's passes too.
#   2. the LLVM IR import: a module of llvm.func kernels (ptx_kernel calling
#        convention, NVVM intrinsics, #tbaa aliases, shared-memory globals).
#   3. spmd-reconverge, spmd-predicate, spmd-lower-to-nvvm, the upstream
#        conversions, then LLVM's NVPTX backend (--via llc) or
#        gpu-module-to-binary (--via isa). Stages 2 and 3 run in the
#        driver's process.
#
# Options (the driver's; these are the ones this script always had):
#   --via llc|isa    how the LLVM dialect becomes PTX (default llc)
#   --mcpu SM        target GPU (default sm_90), for clang and the backend
#   --ptx NN         PTX ISA version for clang and the backend (63 for 6.3);
#                    default the backend's for the target, at least 62
#   --wave-size N    32 (default) or 64
#   --lane-branches true|false
#                    as kernel-to-ptx.sh's (default true)
#   --emit KIND      stop early: clang (clang's LLVM IR), import (the LLVM-
#                    dialect module, input of kernel-to-ptx.sh), wave (after
#                    spmd-predicate), nvvm (after spmd's pipeline), llvm
#                    (LLVM IR, --via llc only) or ptx (default)
#   --reference      no spmd passes: clang's own PTX, straight from the same
#                    source, headers and flags (what docs/cuda.md compares
#                    against); --via and --wave-size do not apply
#   -O N             clang's optimisation level, 0..3 (default 2; -O0 keeps
#                    locals in allocas, see docs/cuda.md)
#   -I DIR, -D NAME[=VALUE]
#                    passed to clang
#   --clang-arg ARG  any other clang argument (repeatable)
#   -o FILE          write the result to FILE instead of stdout
#
# Tools: clang from $CLANG (default /usr/lib/llvm-22/bin/clang); the CUDA
# root from $SPMD_CUDA_PATH or .venv/cuda; the driver as
# scripts/find-spmd-compile.sh finds it.
set -euo pipefail

case ${1:-} in
  -h|--help|'') sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
driver=$("$(dirname "$0")/find-spmd-compile.sh") || exit 1
exec "$driver" -x cuda "$@"
