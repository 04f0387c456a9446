#!/usr/bin/env bash
# kernel-to-ptx.sh: a divergent thread-level kernel in MLIR -> PTX text. A
# thin wrapper of the spmd-compile driver (`spmd-compile -x mlir ...`; see
# `spmd-compile --help` and README, "From a divergent kernel to PTX").
#
#   scripts/kernel-to-ptx.sh [options] kernel.mlir        # PTX on stdout
#   scripts/kernel-to-ptx.sh [options] -  < kernel.mlir   # kernel on stdin
#
# Two kinds of input ("front doors"):
#   * MLIR gpu dialect: a module with one gpu.module of gpu.func kernels;
#   * LLVM dialect: a module of llvm.func kernels (no gpu.module), as
#     the LLVM IR import makes of clang's CUDA output (ptx_kernel calling
#     convention, NVVM intrinsics, #tbaa aliases, shared-memory globals);
#     scripts/cuda-to-ptx.sh starts from CUDA.
#
# The stages: spmd-reconverge and spmd-predicate (thread level -> wave
# level; skipped with --wave-level), spmd-lower-to-nvvm and the upstream
# conversions to the LLVM and NVVM dialects, then LLVM's NVPTX backend on
# the device code (--via llc) or MLIR's gpu-module-to-binary{format=isa}
# (--via isa); all in the driver's process.
#
# Options (the driver's; these are the ones this script always had):
#   --wave-level     the input is already wave-level IR
#   --via llc|isa    how the LLVM dialect becomes PTX (default llc)
#   --mcpu SM        target GPU, sm_30 or newer (default sm_90); before
#                    sm_75 the PTX version is raised to 6.2, the first with
#                    activemask (the lowering reads the live mask with it)
#   --ptx NN         PTX ISA version as LLVM spells it (63 for 6.3, 78 for
#                    7.8); default: the backend's for the target (at least 62)
#   --wave-size N    32 (default) or 64
#   --lane-branches true|false
#                    keep divergent branches over code that needs no
#                    converged lanes as per-lane branches (default true);
#                    false predicates every divergent branch with exec masks
#   --emit KIND      stop early: wave (after spmd-predicate), nvvm (LLVM+NVVM
#                    dialect MLIR), llvm (LLVM IR, --via llc only) or ptx
#                    (default)
#   -o FILE          write the result to FILE instead of stdout
#
# The driver: $SPMD_BIN_DIR/spmd-compile, spmd-compile on PATH, or
# target/{debug,release}/spmd-compile (scripts/find-spmd-compile.sh).
set -euo pipefail

case ${1:-} in
  -h|--help|'') sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
driver=$("$(dirname "$0")/find-spmd-compile.sh") || exit 1
exec "$driver" -x mlir "$@"
