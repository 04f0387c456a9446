#!/usr/bin/env bash
# ptx-gate.sh: random divergent kernels through the whole user path:
# scripts/kernel-to-ptx.sh (both --via routes) and ptxas (each --arch).
# Zero failures are allowed; every failure is listed with the command that
# reproduces it.
#
#   scripts/ptx-gate.sh [options]
#
# Options:
#   --seeds N         kernels per shape class and form (default 50)
#   --first N         first seed (default 0)
#   --forms LIST      gpu (gpu.func kernels), llvm (llvm.func kernels in
#                     the form mlir-translate --import-llvm gives), or both
#                     (default gpu,llvm)
#   --vias LIST       llc, isa or both (default llc,isa)
#   --archs LIST      ptxas targets (default sm_70,sm_90); the PTX is
#                     generated with --mcpu of the same target
#   -j N              parallel jobs (default: number of CPUs)
#   --keep DIR        keep every kernel and PTX under DIR
#   --inputs DIR      instead of random kernels, every DIR/*.mlir (a kernel
#                     in either front door's form)
#
# The kernels come from `dump_kernel` (crates/spmd-oracle/examples/dump_kernel.rs), the same
# generator as the Rust test corpus: classes reducible, irreducible,
# multi_exit_switch and uniform. ptxas is $PTXAS, or the one scripts/setup.sh
# installs (scripts/find-ptxas.sh).
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "ptx-gate: $*" >&2; exit 1; }

seeds=50 first=0 forms=gpu,llvm vias=llc,isa archs=sm_70,sm_90 jobs=$(nproc) keep= inputs=
while (($#)); do
  case $1 in
    --seeds) seeds=${2:?}; shift ;;
    --first) first=${2:?}; shift ;;
    --forms) forms=${2:?}; shift ;;
    --vias) vias=${2:?}; shift ;;
    --archs) archs=${2:?}; shift ;;
    -j) jobs=${2:?}; shift ;;
    --keep) keep=${2:?}; shift ;;
    --inputs) inputs=${2:?}; shift ;;
    -h|--help) usage ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
ptxas=${PTXAS:-$("$root/scripts/find-ptxas.sh" 2>/dev/null || true)}
[[ -n $ptxas && -x $ptxas ]] || die "ptxas not found: run scripts/setup.sh or set PTXAS"
dump=$root/target/debug/examples/dump_kernel
if [[ -z $inputs && ! -x $dump ]]; then
  (cd "$root" && cargo build --quiet --example dump_kernel) || die "cannot build dump_kernel"
fi

work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[[ -n $keep ]] || trap 'rm -rf "$work"' EXIT

# One kernel file through every route and target; prints one line per
# route and target: ok, or FAIL with what reproduces it.
check_kernel() {
  local kernel=$1 how=$2 via arch base
  base="$work/$(basename "$kernel" .mlir)"
  for via in ${vias//,/ }; do
    for arch in ${archs//,/ }; do
      local repro="$how | scripts/kernel-to-ptx.sh --via $via --mcpu $arch -"
      if ! "$root/scripts/kernel-to-ptx.sh" --via "$via" --mcpu "$arch" "$kernel" -o "$base.$via.$arch.ptx" 2> "$base.$via.$arch.err"; then
        echo "FAIL kernel-to-ptx: $repro: $(head -1 "$base.$via.$arch.err")"
      elif ! "$ptxas" -arch="$arch" "$base.$via.$arch.ptx" -o /dev/null 2> "$base.$via.$arch.err"; then
        echo "FAIL ptxas -arch=$arch: $repro: $(head -1 "$base.$via.$arch.err")"
      else
        echo "ok"
      fi
    done
  done
}

# A random kernel, then check_kernel.
check_random() {
  local class=$1 seed=$2 form=$3 kernel="$work/$1-$2-$3.mlir"
  if ! "$dump" "$class" "$seed" "--$form" > "$kernel"; then
    echo "FAIL dump_kernel $class $seed --$form"
    return
  fi
  check_kernel "$kernel" "dump_kernel $class $seed --$form"
}
export -f check_kernel check_random
export work dump root ptxas vias archs

if [[ -n $inputs ]]; then
  shopt -s nullglob
  files=("$inputs"/*.mlir)
  ((${#files[@]})) || die "no .mlir file in '$inputs'"
  for file in "${files[@]}"; do echo "$file"; done \
    | xargs -P "$jobs" -I{} bash -c 'check_kernel "$1" "cat $1"' _ {} > "$work/results.txt"
  what="${#files[@]} kernels from $inputs"
else
  for form in ${forms//,/ }; do
    for class in reducible irreducible multi_exit_switch uniform; do
      for ((seed = first; seed < first + seeds; seed++)); do
        echo "$class $seed $form"
      done
    done
  done | xargs -P "$jobs" -n 3 bash -c 'check_random "$@"' _ > "$work/results.txt"
  what="$((seeds * 4 * $(tr ',' '\n' <<< "$forms" | wc -l))) random kernels ($forms)"
fi

passed=$(grep -c '^ok$' "$work/results.txt" || true)
failed=$(grep -c '^FAIL' "$work/results.txt" || true)
echo "ptx-gate: $what, routes $vias, targets $archs: $passed compiled and assembled, $failed failed"
if ((failed > 0 || passed == 0)); then
  grep '^FAIL' "$work/results.txt" | head -20 >&2
  exit 1
fi
