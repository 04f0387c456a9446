#!/usr/bin/env bash
# Regenerates the Markdown reference of the spmd dialect and passes from the
# ODS sources:
#   docs/dialect/SpmdDialect.md  <- dialect/include/Spmd/SpmdOps.td
#   docs/dialect/SpmdPasses.md   <- dialect/include/Spmd/SpmdPasses.td
# mlir-tests/docs/docs-up-to-date.mlir fails when these files are stale.
#
# Usage: scripts/gen-docs.sh   (LLVM_TOOLS_DIR overrides /usr/lib/llvm-22/bin)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
llvm_tools_dir="${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}"
llvm_include="$(dirname "$llvm_tools_dir")/include"
tblgen="$llvm_tools_dir/mlir-tblgen"

if [[ ! -x "$tblgen" ]]; then
  echo "gen-docs.sh: $tblgen not found (set LLVM_TOOLS_DIR)" >&2
  exit 1
fi

include_dir="$repo_root/dialect/include"
out_dir="$repo_root/docs/dialect"
mkdir -p "$out_dir"

# Write to a temporary file first so that a failing mlir-tblgen never leaves
# a truncated document behind.
generate() {
  local out="$1"
  shift
  local tmp
  tmp="$(mktemp "$out.XXXXXX")"
  if ! "$tblgen" "$@" -I "$include_dir" -I "$llvm_include" -o "$tmp"; then
    rm -f "$tmp"
    return 1
  fi
  chmod 644 "$tmp"
  mv "$tmp" "$out"
  echo "wrote ${out#"$repo_root"/}"
}

generate "$out_dir/SpmdDialect.md" -gen-dialect-doc -dialect=spmd \
  "$include_dir/Spmd/SpmdOps.td"
generate "$out_dir/SpmdPasses.md" -gen-pass-doc \
  "$include_dir/Spmd/SpmdPasses.td"
