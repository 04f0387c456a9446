#!/usr/bin/env bash
# Installs what spmd needs on a fresh Debian 12 machine, idempotently:
# LLVM/MLIR 22 (headers, static libraries, libMLIR.so, the tools), CMake and
# Ninja. Packages that are already installed are left alone. Without root,
# the script uses sudo if it can, otherwise it prints the apt-get command for
# an administrator and fails.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libclang-22-dev
  libpolly-22-dev libzstd-dev libz3-dev libxml2-dev zlib1g-dev cmake ninja-build
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "spmd setup: installing ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo)
  else
    echo "spmd setup: these Debian packages are missing and I am not root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    echo "Ask an administrator to run that, then re-run this script." >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "spmd setup: cargo not found; install Rust (https://rustup.rs) and re-run." >&2
  exit 1
fi

for tool in mlir-opt mlir-tblgen FileCheck lit not; do
  [[ -x /usr/lib/llvm-22/bin/$tool ]] || { echo "spmd setup: /usr/lib/llvm-22/bin/$tool missing" >&2; exit 1; }
done
echo "spmd setup: LLVM/MLIR $(/usr/lib/llvm-22/bin/llvm-config --version), $(cargo --version)"
