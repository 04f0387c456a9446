#!/usr/bin/env bash
# Installs what spmd needs on a fresh Debian 12 machine, idempotently:
# LLVM/MLIR 22 (headers, static libraries, libMLIR.so, the tools), clang 22
# (the CUDA front door), CMake and Ninja, and Graphviz (`dot`, which
# scripts/cfg-diff.sh uses to draw CFGs). Packages that are already installed
# are left alone. Without root, the script uses sudo if it can, otherwise it
# prints the apt-get command for an administrator and fails.
#
# Then NVIDIA's ptxas, which checks the PTX that spmd emits (no GPU and no
# CUDA toolkit needed), nvdisasm, and the CUDA 12.9 device headers and
# libdevice: pinned wheels from PyPI in a virtual environment of the
# project's own (.venv, git-ignored). The headers and libdevice are laid out
# as a CUDA installation for clang's --cuda-path in .venv/cuda (symbolic
# links into the wheels; scripts/find-cuda.sh prints its path).
# scripts/find-ptxas.sh prints ptxas's path; $PTXAS overrides it. When the
# pinned wheels are there already, nothing is downloaded.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libclang-22-dev
  libpolly-22-dev libzstd-dev libz3-dev libxml2-dev zlib1g-dev cmake ninja-build
  clang-22 python3-venv graphviz
)

# ptxas: CUDA 12.9's. The 12.x line is the last that assembles for sm_70
# (CUDA 13 dropped Volta), and 12.9 takes PTX ISA 8.8, newer than what llc 22
# emits for sm_70..sm_90 (6.0..7.8). The unsuffixed nvidia-cuda-nvcc on PyPI
# starts at 13.0. The nvcc wheel has no nvdisasm; that one comes from its
# own wheel, 13.x only on PyPI (it still reads sm_90 cubins; used by
# scripts/compare-cuda-ptx.sh for SASS counts).
ptxas_wheel=nvidia-cuda-nvcc-cu12
ptxas_version=12.9.86
nvdisasm_wheel=nvidia-cuda-nvdisasm
nvdisasm_version=13.5.37

# The CUDA root: CUDA 12.9's headers as the wheels ship them (the runtime's
# include/ with cooperative_groups, cuda_fp16.h, cuda_bf16.h and the texture
# functions; CCCL's <nv/target> and <cuda/std/...>; cuRAND's headers, which
# clang's CUDA wrapper includes; the compiler's crt/ headers) and libdevice,
# which the nvcc wheel carries in nvvm/libdevice/. Pinned to the 12.9 release
# that ptxas above comes from.
header_wheels=(
  nvidia-cuda-runtime-cu12==12.9.79
  nvidia-cuda-cccl-cu12==12.9.27
  nvidia-curand-cu12==10.3.10.19
)
cuda_version=12.9.79

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
# rustfmt and clippy: scripts/test.sh checks formatting and lints.
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  if command -v rustup >/dev/null; then
    rustup component add rustfmt clippy
  else
    echo "spmd setup: cargo fmt and cargo clippy are needed (rustup component add rustfmt clippy)" >&2
    exit 1
  fi
fi

for tool in mlir-opt mlir-tblgen FileCheck lit not clang; do
  [[ -x /usr/lib/llvm-22/bin/$tool ]] || { echo "spmd setup: /usr/lib/llvm-22/bin/$tool missing" >&2; exit 1; }
done
command -v dot >/dev/null || { echo "spmd setup: Graphviz's dot missing (Debian package graphviz)" >&2; exit 1; }

# ptxas and nvdisasm in .venv, from the pinned wheels (40 MB and 5 MB).
venv=$root/.venv
# tool_installed GLOB VERSION: a tool matching GLOB under the venv's
# site-packages says it is VERSION.
tool_installed() {
  local tool
  for tool in "$venv"/lib/python3*/site-packages/$1; do
    # (no pipe into grep -q: with pipefail, the tool's SIGPIPE would count)
    [[ -x $tool && $("$tool" --version 2>/dev/null) == *", V$2"* ]] && return 0
  done
  return 1
}
wheels=()
tool_installed 'nvidia/cuda_nvcc/bin/ptxas' "$ptxas_version" || wheels+=("$ptxas_wheel==$ptxas_version")
tool_installed 'nvidia/cu13/bin/nvdisasm' "$nvdisasm_version" || wheels+=("$nvdisasm_wheel==$nvdisasm_version")
if ((${#wheels[@]} > 0)); then
  echo "spmd setup: installing ${wheels[*]} into $venv"
  # Debian's python3 (python3-venv above), not whatever python3 is first on PATH.
  [[ -x $venv/bin/pip ]] || /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "${wheels[@]}"
  tool_installed 'nvidia/cuda_nvcc/bin/ptxas' "$ptxas_version" &&
    tool_installed 'nvidia/cu13/bin/nvdisasm' "$nvdisasm_version" ||
    { echo "spmd setup: ptxas $ptxas_version or nvdisasm $nvdisasm_version missing after pip install" >&2; exit 1; }
fi

# wheel_installed NAME==VERSION: pip's metadata for exactly that version is there.
wheel_installed() {
  local name=${1%%==*} version=${1##*==}
  compgen -G "$venv/lib/python3*/site-packages/${name//-/_}-$version.dist-info" >/dev/null
}
wheels=()
for wheel in "${header_wheels[@]}"; do
  wheel_installed "$wheel" || wheels+=("$wheel")
done
if ((${#wheels[@]} > 0)); then
  echo "spmd setup: installing ${wheels[*]} into $venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "${wheels[@]}"
fi

# .venv/cuda, rebuilt every run (links only, so it is cheap and always
# matches the wheels).
nvidia=$(compgen -G "$venv/lib/python3*/site-packages/nvidia" | head -n 1)
cuda_root=$venv/cuda
rm -rf "$cuda_root"
mkdir -p "$cuda_root/include" "$cuda_root/nvvm" "$cuda_root/bin"
for include in cuda_runtime/include cuda_cccl/include curand/include cuda_nvcc/include; do
  [[ -d $nvidia/$include ]] || { echo "spmd setup: $nvidia/$include missing" >&2; exit 1; }
  for entry in "$nvidia/$include"/*; do
    [[ $(basename "$entry") == __* ]] || ln -sfn "$entry" "$cuda_root/include/"
  done
done
ln -s "$nvidia/cuda_nvcc/nvvm/libdevice" "$cuda_root/nvvm/libdevice"
ln -s "$nvidia/cuda_nvcc/bin/ptxas" "$cuda_root/bin/ptxas"
printf '{\n  "cuda": { "name": "CUDA SDK", "version": "%s" }\n}\n' "$cuda_version" > "$cuda_root/version.json"
for needed in include/cuda_runtime.h include/cooperative_groups.h include/cuda_fp16.h \
    include/nv/target include/curand_mtgp32_kernel.h include/crt/host_defines.h \
    nvvm/libdevice/libdevice.10.bc; do
  [[ -e $cuda_root/$needed ]] || { echo "spmd setup: $cuda_root/$needed missing" >&2; exit 1; }
done

echo "spmd setup: LLVM/MLIR $(/usr/lib/llvm-22/bin/llvm-config --version), $(cargo --version)," \
  "ptxas $ptxas_version ($("$root/scripts/find-ptxas.sh")), CUDA $cuda_version headers and libdevice ($cuda_root)"
