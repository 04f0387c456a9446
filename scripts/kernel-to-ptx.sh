#!/usr/bin/env bash
# kernel-to-ptx.sh: a divergent thread-level gpu.func kernel -> PTX text.
#
#   scripts/kernel-to-ptx.sh [options] kernel.mlir        # PTX on stdout
#
# The steps (see README, "From a divergent kernel to PTX"):
#   1. spmd-opt, named pipeline spmd-gpu-to-nvvm:
#        spmd-reconverge -> spmd-predicate     (thread level -> wave level;
#                                               skipped with --wave-level)
#        spmd-lower-to-nvvm                    (wave level -> NVVM, warp = wave)
#        convert-scf-to-cf, gpu.module(convert-gpu-to-nvvm),
#        reconcile-unrealized-casts            (upstream, to the LLVM dialect)
#   2. --via llc (default): the gpu.module's body becomes a module of its own,
#        mlir-translate --mlir-to-llvmir, llc -march=nvptx64 -mcpu=sm_90
#      --via isa: mlir-opt --nvvm-attach-target --gpu-module-to-binary
#        format=isa (the same NVPTX backend, in-process), and the assembly
#        string of the gpu.binary is decoded.
#
# Options:
#   --wave-level     the input is already wave-level IR (spmd-predicate is
#                    not run)
#   --via llc|isa    how the LLVM dialect becomes PTX (default llc)
#   --mcpu SM        target GPU (default sm_90)
#   --wave-size N    32 (default) or 64
#   --emit KIND      stop early: nvvm (LLVM+NVVM dialect MLIR), llvm (LLVM IR,
#                    --via llc only) or ptx (default)
#   -o FILE          write the result to FILE instead of stdout
#
# Tools: spmd-opt from $SPMD_BIN_DIR, PATH, target/debug or target/release;
# the LLVM tools from $LLVM_TOOLS_DIR (default /usr/lib/llvm-22/bin).
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "kernel-to-ptx: $*" >&2; exit 1; }

predicate=true via=llc mcpu=sm_90 wave_size=32 emit=ptx output=- input=
while (($#)); do
  case $1 in
    --wave-level) predicate=false ;;
    --via) via=${2:?}; shift ;;
    --mcpu) mcpu=${2:?}; shift ;;
    --wave-size) wave_size=${2:?}; shift ;;
    --emit) emit=${2:?}; shift ;;
    -o) output=${2:?}; shift ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z $input ]] || die "one input file only"; input=$1 ;;
  esac
  shift
done
[[ -n $input ]] || usage
[[ -r $input ]] || die "cannot read '$input'"
[[ $via == llc || $via == isa ]] || die "--via must be llc or isa"
[[ $emit == nvvm || $emit == llvm || $emit == ptx ]] || die "--emit must be nvvm, llvm or ptx"
[[ $emit != llvm || $via == llc ]] || die "--emit llvm needs --via llc"

root=$(cd "$(dirname "$0")/.." && pwd)
llvm=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
find_spmd_opt() {
  local candidate
  for candidate in ${SPMD_BIN_DIR:+"$SPMD_BIN_DIR/spmd-opt"} "$(command -v spmd-opt || true)" \
      "$root/target/debug/spmd-opt" "$root/target/release/spmd-opt"; do
    [[ -n $candidate && -x $candidate ]] && { echo "$candidate"; return; }
  done
  die "spmd-opt not found: run cargo build or set SPMD_BIN_DIR"
}
spmd_opt=$(find_spmd_opt)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
finish() { if [[ $output == - ]]; then cat "$1"; else cp "$1" "$output"; fi; }

# 1. Our passes and the upstream conversion to the LLVM and NVVM dialects.
pipeline="builtin.module(spmd-gpu-to-nvvm{predicate=$predicate wave-size=$wave_size})"
"$spmd_opt" --pass-pipeline="$pipeline" "$input" -o "$work/nvvm.mlir"
[[ $emit == nvvm ]] && { finish "$work/nvvm.mlir"; exit; }

modules=$(grep -cE '^ *gpu\.module @' "$work/nvvm.mlir" || true)
[[ $modules == 1 ]] || die "expected exactly one gpu.module, found ${modules:-0}"

# 2a. The gpu.module's body as a module of its own, through llc.
if [[ $via == llc ]]; then
  awk '
    !inside && /^ *gpu\.module @.*\{$/ { inside = 1; match($0, /^ */); indent = RLENGTH; print "module {"; next }
    inside && /^ *\}$/ { match($0, /^ */); if (RLENGTH == indent) { print "}"; inside = 0; next } }
    inside { print }
  ' "$work/nvvm.mlir" > "$work/device.mlir"
  "$llvm/mlir-translate" --mlir-to-llvmir "$work/device.mlir" -o "$work/device.ll"
  [[ $emit == llvm ]] && { finish "$work/device.ll"; exit; }
  "$llvm/llc" -march=nvptx64 -mcpu="$mcpu" "$work/device.ll" -o "$work/kernel.ptx"
  finish "$work/kernel.ptx"
  exit
fi

# 2b. gpu-module-to-binary format=isa; the PTX is the gpu.object's
# `assembly` string, in which MLIR escapes bytes as \XX (hex).
"$llvm/mlir-opt" --nvvm-attach-target="chip=$mcpu" --gpu-module-to-binary=format=isa \
  "$work/nvvm.mlir" -o "$work/binary.mlir"
escaped=$(grep -o 'assembly = "[^"]*"' "$work/binary.mlir" | sed -e 's/^assembly = "//' -e 's/"$//') \
  || die "no assembly in the gpu.binary"
printf '%b' "$(printf '%s' "$escaped" | sed 's/\\\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g')" > "$work/kernel.ptx"
finish "$work/kernel.ptx"
