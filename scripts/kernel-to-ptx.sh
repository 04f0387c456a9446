#!/usr/bin/env bash
# kernel-to-ptx.sh: a divergent thread-level kernel -> PTX text.
#
#   scripts/kernel-to-ptx.sh [options] kernel.mlir        # PTX on stdout
#   scripts/kernel-to-ptx.sh [options] -  < kernel.mlir   # kernel on stdin
#
# Two kinds of input ("front doors"):
#   * MLIR gpu dialect: a module with one gpu.module of gpu.func kernels;
#   * LLVM dialect: a module of llvm.func kernels (no gpu.module), as
#     mlir-translate --import-llvm makes of clang's CUDA output
#     (ptx_kernel calling convention, NVVM intrinsics, #tbaa aliases,
#     shared-memory globals); scripts/cuda-to-ptx.sh starts from CUDA.
#
# The steps (see README, "From a divergent kernel to PTX"):
#   1. spmd-opt, named pipeline spmd-gpu-to-nvvm:
#        spmd-reconverge -> spmd-predicate     (thread level -> wave level;
#                                               skipped with --wave-level)
#        spmd-lower-to-nvvm                    (wave level -> NVVM, warp = wave)
#        convert-scf-to-cf, gpu.module(convert-gpu-to-nvvm),
#        llvm.func(convert-to-llvm),
#        reconcile-unrealized-casts            (upstream, to the LLVM dialect)
#   2. --via llc (default): the device code (the gpu.module's body, or the
#        whole LLVM-dialect module) with its attribute aliases becomes a
#        module of its own, mlir-translate --mlir-to-llvmir,
#        llc -march=nvptx64 -mcpu=sm_90
#      --via isa: mlir-opt --nvvm-attach-target --gpu-module-to-binary
#        format=isa (the same NVPTX backend, in-process; LLVM-dialect
#        modules are first wrapped in a gpu.module), and the assembly
#        string of the gpu.binary is decoded.
#
# Options:
#   --wave-level     the input is already wave-level IR (spmd-predicate is
#                    not run)
#   --via llc|isa    how the LLVM dialect becomes PTX (default llc)
#   --mcpu SM        target GPU, sm_30 or newer (default sm_90); before
#                    sm_75 the PTX version is raised to 6.2, the first with
#                    activemask (the lowering reads the live mask with it)
#   --ptx NN         PTX ISA version as llc spells it (63 for 6.3, 78 for
#                    7.8); default: llc's for the target (at least 62)
#   --wave-size N    32 (default) or 64
#   --lane-branches true|false
#                    keep divergent branches over code that needs no
#                    converged lanes as per-lane branches, which the GPU
#                    diverges and reconverges by itself (default true);
#                    false predicates every divergent branch with exec masks
#   --emit KIND      stop early: nvvm (LLVM+NVVM dialect MLIR), llvm (LLVM IR,
#                    --via llc only) or ptx (default)
#   -o FILE          write the result to FILE instead of stdout
#
# Tools: spmd-opt from $SPMD_BIN_DIR, PATH, target/debug or target/release;
# the LLVM tools from $LLVM_TOOLS_DIR (default /usr/lib/llvm-22/bin).
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "kernel-to-ptx: $*" >&2; exit 1; }

predicate=true via=llc mcpu=sm_90 wave_size=32 emit=ptx output=- input= ptx= lane_branches=true
while (($#)); do
  case $1 in
    --wave-level) predicate=false ;;
    --via) via=${2:?}; shift ;;
    --mcpu) mcpu=${2:?}; shift ;;
    --ptx) ptx=${2:?}; shift ;;
    --wave-size) wave_size=${2:?}; shift ;;
    --lane-branches) lane_branches=${2:?}; shift ;;
    --emit) emit=${2:?}; shift ;;
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
[[ $via == llc || $via == isa ]] || die "--via must be llc or isa"
[[ $emit == nvvm || $emit == llvm || $emit == ptx ]] || die "--emit must be nvvm, llvm or ptx"
[[ $emit != llvm || $via == llc ]] || die "--emit llvm needs --via llc"
[[ $wave_size == 32 || $wave_size == 64 ]] || die "--wave-size must be 32 or 64"
[[ $lane_branches == true || $lane_branches == false ]] || die "--lane-branches must be true or false"
# The lowering votes with vote.sync and reads the live mask with activemask
# (and the CUDA front door uses the other .sync warp operations): PTX 6.2,
# available from sm_30 on; llc's own default is older before sm_75.
[[ $mcpu =~ ^sm_([0-9]+)a?$ ]] || die "--mcpu must look like sm_70 or sm_90a, not '$mcpu'"
sm=${BASH_REMATCH[1]}
((sm >= 30)) || die "--mcpu $mcpu is too old: the exec-mask lowering needs vote.sync (PTX 6.0, sm_30 or newer)"
ptx_features=
((sm >= 75)) || ptx_features=+ptx62
if [[ -n $ptx ]]; then
  [[ $ptx =~ ^[0-9]+$ ]] && ((ptx >= 62)) || die "--ptx must be a PTX ISA version of 62 (6.2) or more, as llc spells it, not '$ptx'"
  ptx_features=+ptx$ptx
fi

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
if [[ $input == - ]]; then
  cat > "$work/input.mlir"
  input=$work/input.mlir
fi

# 1. Our passes and the upstream conversion to the LLVM and NVVM dialects.
pipeline="builtin.module(spmd-gpu-to-nvvm{predicate=$predicate wave-size=$wave_size lane-branches=$lane_branches})"
"$spmd_opt" --pass-pipeline="$pipeline" "$input" -o "$work/nvvm.mlir"
[[ $emit == nvvm ]] && { finish "$work/nvvm.mlir"; exit; }

modules=$(grep -cE '^ *gpu\.module @' "$work/nvvm.mlir" || true)
if ((modules == 0)); then
  grep -qE '^ *llvm\.func ' "$work/nvvm.mlir" || die "no gpu.module and no llvm.func: nothing to compile"
  form=llvm
elif ((modules == 1)); then
  form=gpu
else
  die "expected at most one gpu.module, found $modules"
fi

# Top-level attribute and type aliases (#tbaa_tag = ..., !s = ...) that the
# device code refers to; they are printed before the module.
aliases() { grep -E '^[#!]' "$1" || true; }

# The device code as a module of its own, with the aliases.
device_module() {
  aliases "$work/nvvm.mlir"
  if [[ $form == llvm ]]; then
    grep -vE '^[#!]' "$work/nvvm.mlir"
    return
  fi
  awk '
    !inside && /^ *gpu\.module @.*\{$/ { inside = 1; match($0, /^ */); indent = RLENGTH; print "module {"; next }
    inside && /^ *\}$/ { match($0, /^ */); if (RLENGTH == indent) { print "}"; inside = 0; next } }
    inside { print }
  ' "$work/nvvm.mlir"
}

# Intrinsics the NVPTX backend cannot select abort llc; say so instead.
check_intrinsics() {
  local missing
  missing=$(grep -oE '@llvm\.(sin|cos|exp|exp10|log|log2|log10|pow)\.f(16|32|64)\(' "$1" | sort -u | tr -d '(@' | tr '\n' ' ' || true)
  [[ -z $missing ]] || die "the kernel calls ${missing}which NVPTX cannot select without libdevice (not linked by spmd); use exp2 or the nvvm *.approx intrinsics"
}

# 2a. The device module through mlir-translate and llc.
if [[ $via == llc ]]; then
  device_module > "$work/device.mlir"
  "$llvm/mlir-translate" --mlir-to-llvmir "$work/device.mlir" -o "$work/device.ll"
  [[ $emit == llvm ]] && { finish "$work/device.ll"; exit; }
  check_intrinsics "$work/device.ll"
  "$llvm/llc" -march=nvptx64 -mcpu="$mcpu" ${ptx_features:+-mattr=$ptx_features} "$work/device.ll" -o "$work/kernel.ptx"
  finish "$work/kernel.ptx"
  exit
fi

# 2b. gpu-module-to-binary format=isa; the PTX is the gpu.object's
# `assembly` string, in which MLIR escapes bytes as \XX (hex). An
# LLVM-dialect module is wrapped in a gpu.module first (its own module
# attributes, data layout and triple, are the NVVM target's business).
if [[ $form == llvm ]]; then
  {
    aliases "$work/nvvm.mlir"
    echo 'module attributes {gpu.container_module} {'
    echo 'gpu.module @spmd_device {'
    # The body of the top-level module: after its first line, before its
    # closing brace.
    awk '/^[#!]/ { next } { lines[++n] = $0 } /^}$/ { last = n }
      END { start = (lines[1] ~ /^module/) ? 2 : 1; for (i = start; i < last; i++) print lines[i] }' "$work/nvvm.mlir"
    echo '}'
    echo '}'
  } > "$work/wrapped.mlir"
else
  cp "$work/nvvm.mlir" "$work/wrapped.mlir"
fi
"$llvm/mlir-opt" --nvvm-attach-target="chip=$mcpu${ptx_features:+ features=$ptx_features}" \
  --gpu-module-to-binary=format=isa "$work/wrapped.mlir" -o "$work/binary.mlir"
escaped=$(grep -o 'assembly = "[^"]*"' "$work/binary.mlir" | sed -e 's/^assembly = "//' -e 's/"$//') \
  || die "no assembly in the gpu.binary"
printf '%b' "$(printf '%s' "$escaped" | sed 's/\\\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g')" > "$work/kernel.ptx"
finish "$work/kernel.ptx"
