#!/usr/bin/env bash
# Checks an installed prefix the way an embedder uses it (docs/embedding.md):
#  1. examples/embed-cxx, a C++ tool built with find_package(MLIR) and
#     find_package(SPMD), runs spmd-reconverge,spmd-predicate (FileCheck);
#  2. tests/capi, a C program that calls every function of spmd-c/Dialect.h and spmd-c/Internal.h;
#  3. one copy of MLIR: libspmd.a defines no MLIR symbol, the C++ tool does
#     not load libMLIR.so (its MLIR is the static one of find_package(MLIR))
#     and defines MLIRContext once; the plugin loads libMLIR.so and defines
#     no MLIR C++ function of its own;
#  4. Debian's stock mlir-opt with the plugin runs part of mlir-tests/
#     through the same FileCheck lines as spmd-opt;
# and prints the sizes. Usage: scripts/test-embedding.sh <prefix>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -eq 1 ]] || { echo "usage: $0 <prefix>" >&2; exit 2; }
prefix=$(cd "$1" && pwd)
llvm=/usr/lib/llvm-22
build=$root/build/test-embedding
mkdir -p "$build"
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMLIR_DIR=$llvm/lib/cmake/mlir
            -DSPMD_DIR="$prefix/lib/cmake/spmd")

echo "== C++ host: examples/embed-cxx"
cmake -S "$root/examples/embed-cxx" -B "$build/embed-cxx" "${cmake_args[@]}" >/dev/null
cmake --build "$build/embed-cxx" >/dev/null
tool=$build/embed-cxx/spmd-embed-cxx
"$tool" "$root/examples/divergent-kernel.mlir" | $llvm/bin/FileCheck "$root/tests/embedding/embed-cxx.check"
# Bad input: a diagnostic and exit 1, no crash.
if "$tool" /nonexistent.mlir 2>"$build/err.txt"; then
  echo "spmd-embed-cxx accepted a missing file" >&2; exit 1
fi
grep -q "nonexistent.mlir" "$build/err.txt"
if "$tool" "$root/examples/divergent-kernel.mlir" 'builtin.module(spmd-no-such-pass)' 2>"$build/err.txt"; then
  echo "spmd-embed-cxx accepted an unknown pass" >&2; exit 1
fi
grep -q "spmd-no-such-pass" "$build/err.txt"

echo "== C host: tests/capi (every function of Dialect.h and Internal.h)"
cmake -S "$root/tests/capi" -B "$build/capi" "${cmake_args[@]}" >/dev/null
cmake --build "$build/capi" >/dev/null
mkdir -p "$build/capi/scratch"
"$build/capi/spmd-capi-test" "$build/capi/scratch"

echo "== one copy of MLIR"
lib=$prefix/lib/libspmd.a
plugin=$prefix/lib/libSpmdPlugin.so
# libspmd.a: no strong definition of an MLIR symbol (C API or C++ outside
# the spmd namespace); weak ones are inline header code, merged at link.
strong=$(nm -C --defined-only "$lib" 2>/dev/null \
  | grep -E ' [TDBR] ' | grep -E ' (mlir[A-Z][A-Za-z]*$|mlir::|llvm::)' \
  | grep -vE 'mlir::spmd::|mlirGetDialectHandle__spmd__' || true)
if [[ -n $strong ]]; then
  echo "libspmd.a defines MLIR symbols:" >&2; echo "$strong" | head >&2; exit 1
fi
echo "libspmd.a: no MLIR definitions ($(nm -u "$lib" 2>/dev/null | grep -c ' U mlir[A-Z]') MLIR C API references left to the host)"
# ldd's output is read whole: `grep -q` stopping early would SIGPIPE ldd,
# which pipefail reports as a failure.
tool_libraries=$(ldd "$tool")
if grep -q 'libMLIR' <<<"$tool_libraries"; then
  echo "spmd-embed-cxx loads a shared MLIR next to its static one:" >&2; ldd "$tool" >&2; exit 1
fi
# (the complete and base constructors are aliases: count addresses)
contexts=$(nm -C "$tool" | grep -E ' T mlir::MLIRContext::MLIRContext\(mlir::DialectRegistry const&' \
  | awk '{print $1}' | sort -u | wc -l)
[[ $contexts -eq 1 ]] || { echo "spmd-embed-cxx defines MLIRContext $contexts times" >&2; exit 1; }
echo "spmd-embed-cxx: static MLIR, MLIRContext defined once, no libMLIR.so"
plugin_libraries=$(ldd "$plugin")
grep -q 'libMLIR.so' <<<"$plugin_libraries" || { echo "the plugin does not use libMLIR.so" >&2; exit 1; }
own=$(nm -C --defined-only "$plugin" | grep -E ' T mlir::' | grep -v 'mlir::spmd::' || true)
if [[ -n $own ]]; then
  echo "the plugin defines MLIR functions of its own:" >&2; echo "$own" | head >&2; exit 1
fi
echo "libSpmdPlugin.so: MLIR from libMLIR.so, no MLIR C++ function of its own"

echo "== stock mlir-opt + plugin"
$llvm/bin/mlir-opt --load-pass-plugin="$plugin" --load-dialect-plugin="$plugin" \
  --pass-pipeline='builtin.module(spmd-reconverge)' "$root/examples/divergent-kernel.mlir" \
  | $llvm/bin/FileCheck "$root/tests/embedding/stock-mlir-opt.check"
SPMD_STOCK_PLUGIN=$plugin $llvm/bin/lit -sv \
  "$root"/mlir-tests/{reconverge,predicate,structurize,uniformity,analysis,lower-to-cf,branch-fold,dialect,plugin,nvvm,llvm-dialect}

echo "== installed spmd-compile"
"$prefix/bin/spmd-compile" "$root/examples/divergent-kernel.mlir" | grep -q '^.visible .entry divergent_if' \
  || { echo "the installed spmd-compile makes no PTX" >&2; exit 1; }
echo "spmd-compile: MLIR kernel to PTX from the prefix"

echo "== sizes"
size() { awk -v n="$(stat -c %s "$2")" -v l="$1" 'BEGIN { printf "%-28s %7.1f MB\n", l, n / 1048576 }'; }
strip -o "$build/spmd-embed-cxx.stripped" "$tool"
size "spmd-embed-cxx" "$tool"
size "spmd-embed-cxx (stripped)" "$build/spmd-embed-cxx.stripped"
size "libSpmdPlugin.so" "$plugin"
size "libspmd.a" "$lib"
size "spmd-opt" "$prefix/bin/spmd-opt"
size "spmd-compile" "$prefix/bin/spmd-compile"
