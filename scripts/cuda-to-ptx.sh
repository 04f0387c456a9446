#!/usr/bin/env bash
# cuda-to-ptx.sh: CUDA device code -> PTX through spmd's passes, for every
# __global__ function of the file.
#
#   scripts/cuda-to-ptx.sh [options] kernel.cu       # PTX on stdout
#   scripts/cuda-to-ptx.sh [options] - < kernel.cu   # kernel on stdin
#
# The steps (docs/cuda.md):
#   1. clang-22 -x cuda --cuda-device-only -nocudainc -nocudalib -O2
#        -S -emit-llvm, with spmd's own CUDA header (scripts/cuda/spmd_cuda.h,
#        pre-included; <cuda_runtime.h> and <cuda.h> resolve to it) and no
#        CUDA SDK. clang targets --mcpu and the PTX version llc uses for it.
#   2. mlir-translate --import-llvm: a module of llvm.func kernels
#        (ptx_kernel calling convention, NVVM intrinsics, #tbaa aliases,
#        shared-memory globals).
#   3. scripts/kernel-to-ptx.sh on that module: spmd-reconverge,
#        spmd-predicate (exec masks), spmd-lower-to-nvvm, the upstream
#        conversions, then llc or gpu-module-to-binary.
#
# Options (as kernel-to-ptx.sh's, plus the CUDA ones):
#   --via llc|isa    how the LLVM dialect becomes PTX (default llc)
#   --mcpu SM        target GPU (default sm_90), for clang and for llc
#   --ptx NN         PTX ISA version for clang and llc (63 for 6.3); default
#                    llc's for the target, at least 62
#   --wave-size N    32 (default) or 64
#   --lane-branches true|false
#                    as kernel-to-ptx.sh's (default true)
#   --emit KIND      stop early: clang (clang's LLVM IR), import (the LLVM-
#                    dialect module, input of kernel-to-ptx.sh), nvvm (after
#                    spmd's pipeline), llvm (LLVM IR, --via llc only) or ptx
#                    (default)
#   --reference      no spmd passes: clang's own PTX, straight from the same
#                    source, header and flags (what docs/cuda.md compares
#                    against); --via and --wave-size do not apply
#   -O N             clang's optimisation level, 0..3 (default 2; -O0 keeps
#                    locals in allocas, see docs/cuda.md)
#   -I DIR, -D NAME[=VALUE]
#                    passed to clang
#   --clang-arg ARG  any other clang argument (repeatable)
#   -o FILE          write the result to FILE instead of stdout
#
# Tools: clang from $CLANG (default $LLVM_TOOLS_DIR/clang), the LLVM tools
# from $LLVM_TOOLS_DIR (default /usr/lib/llvm-22/bin), spmd-opt as
# kernel-to-ptx.sh finds it.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "cuda-to-ptx: $*" >&2; exit 1; }

via=llc mcpu=sm_90 wave_size=32 emit=ptx output=- input= opt=2 reference=false ptx_option=
lane_branches=true
clang_args=()
while (($#)); do
  case $1 in
    --via) via=${2:?}; shift ;;
    --mcpu) mcpu=${2:?}; shift ;;
    --ptx) ptx_option=${2:?}; shift ;;
    --wave-size) wave_size=${2:?}; shift ;;
    --lane-branches) lane_branches=${2:?}; shift ;;
    --emit) emit=${2:?}; shift ;;
    --reference) reference=true ;;
    -O) opt=${2:?}; shift ;;
    -O[0-3]) opt=${1#-O} ;;
    -I) clang_args+=("-I${2:?}"); shift ;;
    -I*) clang_args+=("$1") ;;
    -D) clang_args+=("-D${2:?}"); shift ;;
    -D*) clang_args+=("$1") ;;
    --clang-arg) clang_args+=("${2?}"); shift ;;
    -o) output=${2:?}; shift ;;
    -h|--help) usage ;;
    -) [[ -z $input ]] || die "one input file only"; input=- ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z $input ]] || die "one input file only"; input=$1 ;;
  esac
  shift
done
[[ -n $input ]] || usage
[[ $input == - || -r $input ]] || die "cannot read '$input'"
[[ $opt =~ ^[0-3]$ ]] || die "-O must be 0, 1, 2 or 3"
if [[ $opt == 0 ]] && ! $reference; then
  echo "cuda-to-ptx: warning: at -O0 every local lives in a per-thread alloca, and spmd's" \
    "uniformity analysis takes values loaded back from one as uniform (docs/cuda.md):" \
    "divergent branches may be missed" >&2
fi
case $emit in
  clang|import|nvvm|llvm|ptx) ;;
  *) die "--emit must be clang, import, nvvm, llvm or ptx" ;;
esac
[[ $via == llc || $via == isa ]] || die "--via must be llc or isa"
[[ $emit != llvm || $via == llc ]] || die "--emit llvm needs --via llc"
if $reference; then
  [[ $emit == ptx || $emit == clang ]] || die "--reference gives clang's PTX (or, with --emit clang, its LLVM IR)"
fi
[[ $mcpu =~ ^sm_([0-9]+)a?$ ]] || die "--mcpu must look like sm_70 or sm_90a, not '$mcpu'"
sm=${BASH_REMATCH[1]}

root=$(cd "$(dirname "$0")/.." && pwd)
llvm=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
clang=${CLANG:-$llvm/clang}
[[ -x $clang ]] || die "clang not found at $clang: run scripts/setup.sh (Debian package clang-22) or set CLANG"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
finish() { if [[ $output == - ]]; then cat "$1"; else cp "$1" "$output"; fi; }
if [[ $input == - ]]; then
  cat > "$work/input.cu"
  input=$work/input.cu
fi

# The PTX version: the one llc picks for --mcpu (its minimum for that GPU),
# raised to 6.2 (activemask) before sm_75 as kernel-to-ptx.sh does. clang needs it spelled
# out: without a CUDA installation it would assume PTX 4.2. clang and llc must
# agree, since llc writes the .version line from its own default.
ptx=$(printf 'target triple = "nvptx64-nvidia-cuda"\n' |
  "$llvm/llc" -march=nvptx64 -mcpu="$mcpu" -o - 2>/dev/null | sed -n 's/^\.version \([0-9]*\)\.\([0-9]\)$/\1\2/p') ||
  true
[[ -n $ptx ]] || die "llc does not know --mcpu $mcpu"
((ptx >= 62)) || ptx=62
if [[ -n $ptx_option ]]; then
  [[ $ptx_option =~ ^[0-9]+$ ]] && ((ptx_option >= 62)) || die "--ptx must be a PTX ISA version of 62 (6.2) or more, as llc spells it, not '$ptx_option'"
  ptx=$ptx_option
fi

# 1. clang, device side only, with our header and no CUDA SDK.
clang_cmd=("$clang" -x cuda --cuda-device-only -nocudainc -nocudalib
  --cuda-gpu-arch="$mcpu" --cuda-feature=+ptx"$ptx"
  -I "$root/scripts/cuda" -include spmd_cuda.h "-O$opt" "${clang_args[@]}")

if $reference; then
  if [[ $emit == clang ]]; then
    "${clang_cmd[@]}" -S -emit-llvm "$input" -o "$work/clang.ll"
    finish "$work/clang.ll"
  else
    "${clang_cmd[@]}" -S "$input" -o "$work/kernel.ptx"
    finish "$work/kernel.ptx"
  fi
  exit
fi

"${clang_cmd[@]}" -S -emit-llvm "$input" -o "$work/clang.ll"
[[ $emit == clang ]] && { finish "$work/clang.ll"; exit; }
grep -qE '^define .*ptx_kernel ' "$work/clang.ll" || die "no __global__ function in '$input'"

# 2. Into MLIR's LLVM dialect. The data layout goes: it is the NVPTX
# target's own (llc and the NVVM target put it back), and the importer
# would only warn about its vector entries.
sed '/^target datalayout = /d' "$work/clang.ll" > "$work/device.ll"
"$llvm/mlir-translate" --import-llvm "$work/device.ll" -o "$work/import.mlir"
[[ $emit == import ]] && { finish "$work/import.mlir"; exit; }

# 3. spmd's pipeline and the NVPTX backend.
# --ptx "$ptx": the same version clang compiled for.
"$root/scripts/kernel-to-ptx.sh" --via "$via" --mcpu "$mcpu" --ptx "$ptx" --wave-size "$wave_size" \
  --lane-branches "$lane_branches" --emit "$emit" -o "$work/out" "$work/import.mlir"
finish "$work/out"
