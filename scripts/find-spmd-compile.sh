#!/usr/bin/env bash
# find-spmd-compile.sh: prints the path of the spmd-compile driver that the
# scripts use, or fails (status 1, message on stderr) if there is none.
#
# In this order: $SPMD_BIN_DIR/spmd-compile, spmd-compile on PATH,
# target/debug/spmd-compile, target/release/spmd-compile.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
for candidate in ${SPMD_BIN_DIR:+"$SPMD_BIN_DIR/spmd-compile"} "$(command -v spmd-compile || true)" \
    "$root/target/debug/spmd-compile" "$root/target/release/spmd-compile"; do
  if [[ -n $candidate && -x $candidate ]]; then
    echo "$candidate"
    exit 0
  fi
done
echo "find-spmd-compile: spmd-compile not found: run cargo build or set SPMD_BIN_DIR" >&2
exit 1
