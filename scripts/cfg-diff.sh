#!/usr/bin/env bash
# cfg-diff.sh: one SVG with the CFGs of a kernel before and after a pass
# pipeline, side by side.
#
#   scripts/cfg-diff.sh KERNEL.mlir [PIPELINE] [-o OUT.svg]
#
# PIPELINE is a textual pass pipeline, with or without the outer
# `builtin.module(...)`; the default is `spmd-reconverge`. OUT.svg defaults
# to KERNEL.cfg-diff.svg in the current directory. Both sides are drawn by
# --spmd-view-cfg (the same options before and after, legend on the right):
# divergent branches red, uniform blue, Flow blocks green diamonds, guard
# and other inserted blocks yellow, head/tail pairs joined by purple dotted
# edges. Each side is a cluster holding one cluster per function.
#
# Needs Graphviz's `dot` (Debian: graphviz, installed by scripts/setup.sh)
# and spmd-opt: $SPMD_OPT, else target/debug/spmd-opt, else the PATH.
# With SPMD_CFG_DIFF_DOT=FILE the combined DOT text is kept in FILE.
set -euo pipefail

usage() {
  echo "usage: cfg-diff.sh KERNEL.mlir [PIPELINE] [-o OUT.svg]" >&2
  exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
input=
pipeline=
output=
while (($#)); do
  case $1 in
    -o) output=${2:-}; [[ -n $output ]] || usage; shift ;;
    -h|--help) usage ;;
    *)
      if [[ -z $input ]]; then input=$1
      elif [[ -z $pipeline ]]; then pipeline=$1
      else usage
      fi ;;
  esac
  shift
done
[[ -n $input ]] || usage
[[ -f $input ]] || { echo "cfg-diff: no such file: $input" >&2; exit 1; }
pipeline=${pipeline:-spmd-reconverge}
[[ $pipeline == builtin.module\(* ]] || pipeline="builtin.module($pipeline)"
output=${output:-$(basename "${input%.mlir}").cfg-diff.svg}

if ! command -v dot >/dev/null; then
  echo "cfg-diff: Graphviz's dot is missing (apt-get install graphviz, or scripts/setup.sh)" >&2
  exit 1
fi
spmd_opt=${SPMD_OPT:-}
if [[ -z $spmd_opt ]]; then
  if [[ -x $root/target/debug/spmd-opt ]]; then spmd_opt=$root/target/debug/spmd-opt
  else spmd_opt=$(command -v spmd-opt || true)
  fi
fi
[[ -n $spmd_opt && -x $spmd_opt ]] || { echo "cfg-diff: spmd-opt not found (cargo build, or set SPMD_OPT)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The two drawings: the input, and the output of the pipeline followed by
# the same view pass.
"$spmd_opt" "$input" --spmd-view-cfg="output=$work/before.dot legend=false" -o /dev/null
"$spmd_opt" "$input" --pass-pipeline="${pipeline%)},spmd-view-cfg{output=$work/after.dot})" -o /dev/null

# The body of a drawing (its clusters, edges and legend), with node and
# cluster names made unique to the side.
body() {
  sed -e '1,4d' -e '$d' \
      -e "s/\bc\([0-9][0-9]*\)_bb/$1_c\1_bb/g" \
      -e "s/\"cluster_\([0-9][0-9]*\)\"/\"cluster_$1_\1\"/" \
      -e 's/^/  /' "$2"
}

{
  echo 'digraph "cfg-diff" {'
  echo '  compound=true; newrank=true;'
  echo '  node [shape=box, fontname="Courier", fontsize=10];'
  echo '  edge [fontname="Courier", fontsize=9];'
  echo '  subgraph "cluster_before" {'
  echo "    label=\"before: $(basename "$input")\"; fontsize=14; style=bold;"
  body before "$work/before.dot"
  echo '  }'
  echo '  subgraph "cluster_after" {'
  echo "    label=\"after: ${pipeline//\"/\\\"}\"; fontsize=14; style=bold;"
  body after "$work/after.dot" | sed '/cluster_legend/,$d'
  echo '  }'
  # The legend, outside both sides.
  sed -n '/cluster_legend/,/^  }$/p' "$work/after.dot"
  echo '}'
} > "$work/diff.dot"

[[ -z ${SPMD_CFG_DIFF_DOT:-} ]] || cp "$work/diff.dot" "$SPMD_CFG_DIFF_DOT"
dot -Tsvg "$work/diff.dot" -o "$output"
echo "cfg-diff: wrote $output"
