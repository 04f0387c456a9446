#!/usr/bin/env bash
# Builds and installs the plugin for Debian's stock mlir-opt and prints its
# path on the last line:
#
#   plugin=$(scripts/build-plugin.sh | tail -n1)
#   mlir-opt --load-dialect-plugin="$plugin" --load-pass-plugin="$plugin" \
#            --pass-pipeline='builtin.module(spmd-reconverge)' in.mlir
#
# The plugin goes into the prefix given as the argument (default:
# build/prefix), with the rest of the installation (scripts/install.sh);
# SPMD_CARGO_PROFILE is passed on.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$root/build/prefix}
"$root/scripts/install.sh" "$prefix" >&2
plugin=$(cd "$prefix" && pwd)/lib/libSpmdPlugin.so
[[ -f $plugin ]] || { echo "$0: $plugin was not installed" >&2; exit 1; }
echo "$plugin"
