#!/usr/bin/env bash
# compare-cuda-ptx.sh: spmd's PTX against clang's own, kernel by kernel.
#
#   scripts/compare-cuda-ptx.sh [options] [kernel.cu ...]
#
# For every CUDA file (default: the kernels of examples/cuda), both
#   spmd   scripts/cuda-to-ptx.sh             (clang -O2, spmd's passes, NVPTX backend)
#   clang  scripts/cuda-to-ptx.sh --reference (clang -O2 straight to PTX)
# with the same headers, flags and target, and for every .entry prints a
# Markdown table row of
#   PTX      instructions in the entry's body (no directives, labels or
#            comments)
#   votes    vote.sync instructions in the PTX (ballot, any, all, uni)
#   SASS     instructions of the entry in the cubin (nvdisasm; NOPs left
#            out), when nvdisasm is there
#   regs, stack, spills, smem
#            ptxas -v: registers, stack frame bytes, spill stores + loads
#            (bytes), shared memory bytes
# each as "clang / spmd". docs/cuda.md shows the table this prints.
#
# Options:
#   --mcpu SM     target (default sm_90), for the compilers and for ptxas
#   -O N          clang's optimisation level for both (default 2)
#
# Tools: ptxas as scripts/find-ptxas.sh finds it; nvdisasm from $NVDISASM,
# .venv (scripts/setup.sh installs it) or PATH.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "compare-cuda-ptx: $*" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
mcpu=sm_90 opt=2 files=()
while (($#)); do
  case $1 in
    --mcpu) mcpu=${2:?}; shift ;;
    -O) opt=${2:?}; shift ;;
    -O[0-3]) opt=${1#-O} ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) files+=("$1") ;;
  esac
  shift
done
if ((${#files[@]} == 0)); then
  for name in reduce-shared reduce-warp bfs-frontier divergent-while printf coverage; do
    files+=("$root/examples/cuda/$name.cu")
  done
fi

ptxas=$("$root/scripts/find-ptxas.sh") || die "ptxas not found: run scripts/setup.sh or set PTXAS"
nvdisasm=$("$root/scripts/find-nvdisasm.sh")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The .entry names of a PTX file.
entries() { sed -n 's/^\.visible \.entry \([A-Za-z0-9_$]*\)(.*/\1/p' "$1"; }

# ptx_count FILE ENTRY PATTERN: lines of the entry's body that are
# instructions matching PATTERN (an awk regex on the line).
ptx_count() {
  awk -v entry="$2" -v pattern="$3" '
    $0 ~ "^\\.visible \\.entry " entry "\\(" { inside = 1; next }
    inside && /^}/ { inside = 0 }
    !inside { next }
    /^\t[@a-z]/ && $0 ~ pattern { n++ }
    END { print n + 0 }' "$1"
}

# ptxas_stats LOG ENTRY: "regs stack spills smem" from ptxas -v output.
ptxas_stats() {
  awk -v entry="$2" '
    $0 ~ "Compiling entry function .?" entry ".? for" { inside = 1; next }
    inside && /bytes stack frame/ {
      stack = $1; spills = $5 + $9
    }
    inside && /Used [0-9]+ registers/ {
      for (i = 1; i <= NF; i++) {
        if ($(i + 1) == "registers,") regs = $i
        if ($(i + 1) == "bytes" && $(i + 2) ~ /^smem/) smem = $i
      }
      print regs + 0, stack + 0, spills + 0, smem + 0
      exit
    }' "$1"
}

# sass_count CUBIN ENTRY: SASS instructions of the entry (its .text
# section), NOPs left out.
sass_count() {
  [[ -n $nvdisasm ]] || { echo -; return; }
  "$nvdisasm" -c "$1" 2>/dev/null | awk -v entry="$2" '
    /^[ \t]*\.section[ \t]/ { split($2, name, ","); inside = (name[1] == ".text." entry); next }
    inside && /^ +\/\*[0-9a-f]+\*\// && !/\*\/ +NOP/ { n++ }
    END { print n + 0 }'
}

echo "| kernel | PTX | votes | SASS | regs | stack | spills | smem |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for file in "${files[@]}"; do
  base=$(basename "$file" .cu)
  "$root/scripts/cuda-to-ptx.sh" --reference --mcpu "$mcpu" -O "$opt" "$file" -o "$work/$base.clang.ptx"
  if ! "$root/scripts/cuda-to-ptx.sh" --mcpu "$mcpu" -O "$opt" "$file" -o "$work/$base.spmd.ptx" \
      2> "$work/$base.err"; then
    echo "| $base | spmd fails: $(grep -m1 . "$work/$base.err" | sed 's/^[^ ]*: //' | cut -c1-100) | | | | | | |"
    continue
  fi
  for side in clang spmd; do
    "$ptxas" -v -arch="$mcpu" "$work/$base.$side.ptx" -o "$work/$base.$side.cubin" \
      2> "$work/$base.$side.log"
  done
  for entry in $(entries "$work/$base.clang.ptx"); do
    row="| \`$entry\`"
    cells=()
    for side in clang spmd; do
      ptx=$(ptx_count "$work/$base.$side.ptx" "$entry" '.')
      ballots=$(ptx_count "$work/$base.$side.ptx" "$entry" 'vote\\.sync')
      sass=$(sass_count "$work/$base.$side.cubin" "$entry")
      read -r regs stack spills smem < <(ptxas_stats "$work/$base.$side.log" "$entry")
      cells+=("$ptx $ballots $sass $regs $stack $spills $smem")
    done
    read -r -a c <<< "${cells[0]}"
    read -r -a s <<< "${cells[1]}"
    for i in 0 1 2 3 4 5 6; do row+=" | ${c[i]} / ${s[i]}"; done
    echo "$row |"
  done
done
