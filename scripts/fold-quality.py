#!/usr/bin/env python3
"""fold-quality.py: issue #34's branch-folding goal and output sizes, per
corpus, as Markdown tables on stdout.

  scripts/fold-quality.py [--seeds N] [--bench-dir DIR] [--max-blocks N] [--no-cuda]

For every input of a corpus, each base pass (`--spmd-reconverge`,
`--spmd-structurize=irreducible=fix`) runs with spmd-opt, then each
cleanup on its output: `--spmd-branch-fold` and upstream
`--canonicalize`. The first table counts blocks and operations in function
bodies after the base and after each cleanup, and how many cleaned outputs
still pass the verifier of the base's contract
(`--spmd-verify-reconverging` after reconverge,
`--spmd-verify-structured=use-uniformity` after structurize).

The second table gives output bytes as ratios: to the input file as
written, and to the input parsed and printed by spmd-opt (the same printer
as every output, so printer style -- indentation, `// N preds` comments,
SSA names -- cancels out).

Corpora: the oracle's random kernels per shape class (dump_kernel
`--amdgpu`), the LLVM IR files in LLVM's lit style (tests/uniformity-llvm,
`mlir-translate --import-llvm`), the CUDA examples and corpus (`spmd-compile --emit import`),
and the generated `code` and `long-range` functions that
`structurize_bench` leaves in its directory (`$TMPDIR/spmd-structurize-bench`
by default: run it first, as scripts/bench-reconverge-quality.sh does).
Needs the release build.
"""
import argparse
import os
import pathlib
import re
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(os.environ.get("SPMD_BIN_DIR", ROOT / "target/release"))
SPMD_OPT = BIN / "spmd-opt"
DUMP = BIN / "examples/dump_kernel"
COMPILE = BIN / "spmd-compile"
CUDA_DIRS = [ROOT / "examples/cuda", ROOT / "tests/cuda-corpus"]
LIT_SHAPES = ROOT / "tests/uniformity-llvm"
LLVM_BIN = pathlib.Path("/usr/lib/llvm-22/bin")
CLASSES = ["reducible", "irreducible", "multi_exit_switch", "uniform"]
BASES = [
    ("reconverge", "--spmd-reconverge", "--spmd-verify-reconverging"),
    ("structurize", "--spmd-structurize=irreducible=fix",
     "--spmd-verify-structured=use-uniformity"),
]
CLEANUPS = [("branch-fold", "--spmd-branch-fold"), ("canonicalize", "--canonicalize")]

OP_LINE = re.compile(r"^\s+(?:%[^=]*= )?\"?[A-Za-z_][\w]*\.[\w.]+")
FUNCTION_LINE = re.compile(r"^\s*(?:func\.func|llvm\.func|gpu\.func|gpu\.module|module)\b")


def spmd_opt(arguments, text):
    """spmd-opt's stdout, or None if it failed."""
    done = subprocess.run([str(SPMD_OPT), *arguments], input=text, capture_output=True,
                          text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def counts(text):
    """(blocks, operations) of the printed functions: one entry block per
    function with a body plus ^bb labels; operations are lines that start
    with an op name (after results), function headers excluded."""
    bodies = len(re.findall(r"^\s*(?:func\.func|llvm\.func|gpu\.func) .*\{\s*$", text, re.M))
    labels = len(re.findall(r"^\s*\^bb\d+", text, re.M))
    ops = sum(1 for line in text.splitlines()
              if OP_LINE.match(line) and not FUNCTION_LINE.match(line))
    return bodies + labels, ops


class Totals:
    """Sums over one corpus, per base pass. An input counts in a base's
    row when the base and both cleanups produced IR; a cleanup that failed
    (upstream `--canonicalize` moves constants above spmd's reconvergence
    markers, which their verifier rejects) is counted in its `failed`."""

    def __init__(self):
        names = [name for name, _, _ in BASES]
        self.inputs = {name: 0 for name in names}
        self.base_failed = {name: 0 for name in names}
        # blocks, ops, bytes; and the input's bytes, as written and printed
        self.base = {name: [0, 0, 0] for name in names}
        self.bytes_in = {name: [0, 0] for name in names}
        # blocks, ops, bytes, verified, failed
        self.clean = {(b, c): [0, 0, 0, 0, 0] for b in names for c, _ in CLEANUPS}

    def add(self, text):
        sizes = (len(text.encode()), len(spmd_opt([], text).encode()))
        for base, flag, verify in BASES:
            out = spmd_opt([flag], text)
            if out is None:
                self.base_failed[base] += 1
                continue
            cleaned = {}
            for cleanup, cflag in CLEANUPS:
                done = spmd_opt([cflag], out)
                if done is None:
                    self.clean[(base, cleanup)][4] += 1
                else:
                    cleaned[cleanup] = (done, spmd_opt([verify], done) is not None)
            if len(cleaned) < len(CLEANUPS):
                continue
            self.inputs[base] += 1
            self.bytes_in[base] = [t + v for t, v in zip(self.bytes_in[base], sizes)]
            self.base[base] = [t + v for t, v in zip(self.base[base], counts(out) + (len(out.encode()),))]
            for cleanup, (done, valid) in cleaned.items():
                measured = counts(done) + (len(done.encode()), int(valid), 0)
                key = (base, cleanup)
                self.clean[key] = [t + v for t, v in zip(self.clean[key], measured)]


def kernels(cls, seeds):
    for seed in range(seeds):
        done = subprocess.run([str(DUMP), cls, str(seed), "--amdgpu"], capture_output=True,
                              text=True, check=True)
        yield done.stdout


def cuda_modules():
    for directory in CUDA_DIRS:
        for path in sorted(directory.glob("*.cu")):
            done = subprocess.run([str(COMPILE), "--emit", "import", str(path)],
                                  capture_output=True, text=True, check=False)
            if done.returncode == 0:
                yield done.stdout


def lit_shapes():
    for path in sorted(LIT_SHAPES.glob("*.ll")):
        done = subprocess.run([str(LLVM_BIN / "mlir-translate"), "--import-llvm", str(path)],
                              capture_output=True, text=True, check=False)
        if done.returncode == 0:
            yield done.stdout


def generated(bench_dir, max_blocks):
    """(name, text) of the structurize_bench inputs present, by size, from
    1k to `max_blocks` blocks."""
    for family, stem in [("code", "cfg"), ("long-range", "long")]:
        paths = sorted(bench_dir.glob(f"{stem}-*.mlir"), key=lambda p: int(p.stem.split("-")[1]))
        for path in paths:
            size = int(path.stem.split("-")[1])
            if 1000 <= size <= max_blocks:
                yield f"{family} {size // 1000}k", path.read_text()


def print_tables(corpora):
    print("| corpus | base | inputs | blocks | ops | branch-fold blocks | ops | verified "
          "| canonicalize blocks | ops | verified | canonicalize failed "
          "| branch-fold at most canonicalize |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, totals in corpora:
        for base, _, _ in BASES:
            n = totals.inputs[base]
            b = totals.base[base]
            f = totals.clean[(base, "branch-fold")]
            c = totals.clean[(base, "canonicalize")]
            verdict = "yes" if f[0] <= c[0] and f[1] <= c[1] else "**no**"
            print(f"| {name} | {base} | {n} | {b[0]} | {b[1]} | {f[0]} | {f[1]} | {f[3]}/{n} "
                  f"| {c[0]} | {c[1]} | {c[3]}/{n} | {c[4]} | {verdict} |")
    print()
    print("Output bytes over the inputs a row counts (structurize: those where both "
          "cleanups ran).")
    print()
    print("| corpus | input bytes | printed input × input | reconverge × input | × printed "
          "| + branch-fold × printed | structurize × input | × printed "
          "| + branch-fold × printed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, totals in corpora:
        written, printed = totals.bytes_in["reconverge"]
        if written == 0:
            continue
        cells = [f"{written}", f"{printed / written:.2f}×"]
        for base, _, _ in BASES:
            written, printed = totals.bytes_in[base]
            out = totals.base[base][2]
            folded = totals.clean[(base, "branch-fold")][2]
            if written == 0:
                cells += ["-", "-", "-"]
                continue
            cells += [f"{out / written:.2f}×", f"{out / printed:.2f}×",
                      f"{folded / printed:.2f}×"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    failed = {base: sum(t.base_failed[base] for _, t in corpora) for base, _, _ in BASES}
    for base, count in failed.items():
        if count:
            print(f"\n{count} inputs failed in {base}.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=25)
    parser.add_argument("--bench-dir", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("TMPDIR", tempfile.gettempdir()))
                        / "spmd-structurize-bench")
    parser.add_argument("--max-blocks", type=int, default=10000)
    parser.add_argument("--no-cuda", action="store_true")
    arguments = parser.parse_args()
    corpora = []
    for cls in CLASSES:
        totals = Totals()
        for kernel in kernels(cls, arguments.seeds):
            totals.add(kernel)
        corpora.append((f"random {cls}", totals))
    totals = Totals()
    for module in lit_shapes():
        totals.add(module)
    corpora.append(("LLVM lit-style IR", totals))
    if not arguments.no_cuda:
        totals = Totals()
        for module in cuda_modules():
            totals.add(module)
        corpora.append(("CUDA examples and corpus", totals))
    for name, text in generated(arguments.bench_dir, arguments.max_blocks):
        totals = Totals()
        totals.add(text)
        corpora.append((name, totals))
    print_tables(corpora)


if __name__ == "__main__":
    main()
