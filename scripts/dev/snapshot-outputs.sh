#!/usr/bin/env bash
# snapshot-outputs.sh: record every output spmd produces on the lit suite
# and on the random corpora, so that a refactoring can be shown to change
# none of them (issue: architecture step, "byte-identical before and after").
#
#   scripts/dev/snapshot-outputs.sh OUT [--seeds N]
#   diff -r -x bin OUT.before OUT.after   # empty when nothing changed
#
# 1. The lit suite runs with a FileCheck that first copies its input to
#    OUT/lit/<test>.<n> (n counts FileCheck calls per test), so every
#    output a RUN line checks is recorded verbatim.
# 2. Random kernels (dump_kernel; classes reducible, irreducible,
#    multi_exit_switch, uniform; the thread-level, gpu.func and llvm.func
#    renderings) go through each pass pipeline below; stdout and stderr of
#    each run are recorded under OUT/corpus/.
#
# Needs a built tree: target/debug/spmd-opt, libSpmdPlugin.so and the
# dump_kernel example (cargo build --bins --examples).
set -euo pipefail

out=${1:?usage: snapshot-outputs.sh OUT [--seeds N]}
shift
seeds=12
while (($#)); do
  case $1 in
    --seeds) seeds=${2:?}; shift ;;
    *) echo "snapshot-outputs: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${SPMD_BIN_DIR:-$root/target/debug}
dump=${DUMP_KERNEL:-$bin/examples/dump_kernel}
tools=/usr/lib/llvm-22/bin
rm -rf "$out"
mkdir -p "$out/lit" "$out/corpus" "$out/bin"
out=$(cd "$out" && pwd)

# --- 1. lit, with a recording FileCheck ------------------------------------
ln -s "$bin/spmd-opt" "$out/bin/spmd-opt"
ln -s "$bin/libSpmdPlugin.so" "$out/bin/libSpmdPlugin.so"
ln -s "$bin/spmd-compile" "$out/bin/spmd-compile"
cat > "$out/bin/FileCheck" <<EOF
#!/usr/bin/env bash
# Records stdin, then hands it to the real FileCheck.
check_file=
for arg in "\$@"; do
  case \$arg in -*) ;; *) [[ -z \$check_file ]] && check_file=\$arg ;; esac
done
name=\$(realpath --relative-to="$root/mlir-tests" "\$check_file" 2>/dev/null | tr / _)
n=0
while [[ -e "$out/lit/\$name.\$n" ]]; do n=\$((n + 1)); done
tee "$out/lit/\$name.\$n" | "$tools/FileCheck" "\$@"
EOF
chmod +x "$out/bin/FileCheck"
# -j1: the FileCheck counter per test needs RUN lines in order, which lit
# guarantees within a test; tests themselves may run in parallel.
SPMD_BIN_DIR="$out/bin" "$tools/lit" -q "$root/mlir-tests" > "$out/lit-result.txt" 2>&1 \
  || { echo "snapshot-outputs: lit failed, see $out/lit-result.txt" >&2; exit 1; }
# Temporary paths differ from run to run, and so do timings.
sed -i -E 's#/tmp/[A-Za-z0-9_./-]+#<tmp>#g; s#'"$root"'#<root>#g' "$out"/lit/* 2>/dev/null || true
sed -i -E 's#[0-9]+\.[0-9]+#<t>#g; s#  +# #g' "$out"/lit/*timing* 2>/dev/null || true

# --- 2. the random corpora through each pipeline ---------------------------
pipelines=(
  "reconverge:--spmd-reconverge"
  "structurize:--spmd-structurize"
  "structurize-fix:--spmd-structurize=irreducible=fix"
  "predicate:--spmd-reconverge --spmd-predicate"
  "branch-fold:--spmd-reconverge --spmd-branch-fold"
  "annotate:--spmd-annotate-uniformity"
  "analysis:--spmd-print-cfg-analysis"
  "nvvm:--spmd-reconverge --spmd-predicate --spmd-lower-to-nvvm"
  "gpu-to-nvvm:--spmd-gpu-to-nvvm"
)
# Not PTX: mlir-translate --mlir-to-llvmir (LLVM 22) numbers the blocks of a
# lowered llvm.switch differently from run to run, so the PTX of the same
# NVVM input is not stable; the NVVM module that kernel-to-ptx.sh hands it
# is (gpu-to-nvvm above).
cd "$out/corpus" # diagnostics name the kernel by a relative path
for class in reducible irreducible multi_exit_switch uniform; do
  for ((seed = 0; seed < seeds; seed++)); do
    for form in thread gpu llvm; do
      flag=()
      [[ $form == thread ]] || flag=("--$form")
      kernel="$class-$seed-$form.mlir"
      "$dump" "$class" "$seed" "${flag[@]}" > "$kernel"
      for entry in "${pipelines[@]}"; do
        name=${entry%%:*}
        [[ $name == *nvvm && $form == thread ]] && continue
        # shellcheck disable=SC2086
        "$bin/spmd-opt" ${entry#*:} "$kernel" > "$kernel.$name.out" 2>&1 \
          || echo "exit $?" >> "$kernel.$name.out"
      done
    done
  done
done
echo "snapshot-outputs: $(find "$out/lit" -type f | wc -l) lit outputs, $(find "$out/corpus" -type f | wc -l) corpus files in $out"
