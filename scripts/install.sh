#!/usr/bin/env bash
# Installs spmd into a prefix: bin/spmd-opt, bin/spmd-compile, lib/libspmd.a, the mlir-opt
# plugin lib/libSpmdPlugin.so, include/spmd-c/{Dialect,Internal}.h and the CMake package
# lib/cmake/spmd (find_package(SPMD)). See docs/embedding.md.
#
#   scripts/install.sh <prefix>
#
# SPMD_CARGO_PROFILE=dev installs debug builds of the Rust parts (faster to
# build; CI uses it); the default is release. MLIR_DIR overrides
# /usr/lib/llvm-22/lib/cmake/mlir. The build tree is build/install-<profile>.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ $# -ne 1 || $1 == -* ]]; then
  echo "usage: $0 <prefix>" >&2
  exit 2
fi
prefix=$(mkdir -p "$1" && cd "$1" && pwd)
profile=${SPMD_CARGO_PROFILE:-release}
case $profile in
  release | dev) ;;
  *) echo "$0: SPMD_CARGO_PROFILE must be release or dev, not '$profile'" >&2; exit 2 ;;
esac
mlir_dir=${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}
build=$root/build/install-$profile

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR="$mlir_dir" -DSPMD_CARGO_PROFILE="$profile" \
  -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$build"
cmake --install "$build" >/dev/null
echo "spmd installed into $prefix"
