#!/usr/bin/env python3
"""kernel-quality.py: blocks added by --spmd-reconverge, by
--spmd-structurize=irreducible=fix and by LLVM's structurizer on the
oracle's random kernels, per shape class (issue #34's "random kernels of
every class"), as a Markdown table on stdout.

  scripts/kernel-quality.py [--seeds N] [--no-cuda]   (default 25 per class)

Each kernel is the AMDGPU LLVM-dialect rendering of dump_kernel (`llvm.func
amdgpu_kernelcc`, the thread id from `llvm.amdgcn.workitem.id.x`). spmd's
passes run on it with spmd-opt; LLVM's side translates it to LLVM IR
(`mlir-translate --mlir-to-llvmir`) and runs `opt -passes=mergereturn,
lower-switch,fix-irreducible,unify-loop-exits,structurizecfg` (every branch
structurized, the function's exits unified first, as AMDGPU does). Blocks
are counted per function (entry included) before and after. Two more rows
do the same for the LLVM IR files written in the style of LLVM's lit tests
(tests/uniformity-llvm, imported by `mlir-translate --import-llvm`) and
for the CUDA examples and corpus (examples/cuda, tests/cuda-corpus),
imported by `spmd-compile --emit import` (clang-22
against NVIDIA's headers: the LLVM dialect as the import gives it). Needs
the release build (target/release/spmd-opt, spmd-compile,
examples/dump_kernel).
"""
import argparse
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPMD_OPT = ROOT / "target/release/spmd-opt"
DUMP = ROOT / "target/release/examples/dump_kernel"
COMPILE = ROOT / "target/release/spmd-compile"
CUDA_DIRS = [ROOT / "examples/cuda", ROOT / "tests/cuda-corpus"]
LIT_SHAPES = ROOT / "tests/uniformity-llvm"
LLVM_BIN = pathlib.Path("/usr/lib/llvm-22/bin")
CLASSES = ["reducible", "irreducible", "multi_exit_switch", "uniform"]
LLVM_PIPELINE = "mergereturn,lower-switch,fix-irreducible,unify-loop-exits,structurizecfg"


def run(arguments, text):
    done = subprocess.run(arguments, input=text, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{arguments[0]}: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout


def mlir_blocks(text):
    """Blocks of the functions with a body: one entry each, plus ^bbN labels."""
    functions = len(re.findall(r"^\s*llvm\.func .*\{\s*$", text, re.M))
    return functions + len(re.findall(r"^\s*\^bb\d+", text, re.M))


def llvm_blocks(text):
    """Blocks of the defined functions: one entry each, plus labels."""
    functions = len(re.findall(r"^define ", text, re.M))
    return functions + len(re.findall(r"^[A-Za-z0-9_.$-]+:", text, re.M))


def measure(kernel):
    """(input blocks, added by reconverge, by structurize, by LLVM)."""
    base = mlir_blocks(kernel)
    reconverged = mlir_blocks(run([str(SPMD_OPT), "--spmd-reconverge"], kernel))
    structurized = mlir_blocks(run([str(SPMD_OPT), "--spmd-structurize=irreducible=fix"], kernel))
    ll = run([str(LLVM_BIN / "mlir-translate"), "--mlir-to-llvmir"], kernel)
    llvm_in = llvm_blocks(ll)
    llvm_out = llvm_blocks(run([str(LLVM_BIN / "opt"), "-S", f"-passes={LLVM_PIPELINE}"], ll))
    return base, reconverged - base, structurized - base, llvm_out - llvm_in


def cuda_modules():
    """The imported CUDA files that import (texture references do not)."""
    for directory in CUDA_DIRS:
        for path in sorted(directory.glob("*.cu")):
            try:
                yield run([str(COMPILE), "--emit", "import", str(path)], "")
            except RuntimeError:
                continue


def lit_shapes():
    """The LLVM IR files in LLVM's lit style (tests/uniformity-llvm: loops,
    irreducible cycles, calls, switches as LLVM's own uniformity tests write
    them), imported by `mlir-translate --import-llvm`."""
    for path in sorted(LIT_SHAPES.glob("*.ll")):
        try:
            yield run([str(LLVM_BIN / "mlir-translate"), "--import-llvm", str(path)], "")
        except RuntimeError:
            continue


def row(name, rows):
    """One table row over `rows` of measure()."""
    blocks, llvm = sum(r[0] for r in rows), sum(r[3] for r in rows)
    structurize, reconverge = sum(r[2] for r in rows), sum(r[1] for r in rows)
    fewer = sum(1 for r in rows if r[1] < r[3] or r[1] == r[3] == 0)
    at_most = sum(1 for r in rows if r[2] <= r[3])
    print(f"| {name} | {len(rows)} | {blocks} | {llvm} | {structurize} | {reconverge} "
          f"| {fewer} | {at_most} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=25)
    parser.add_argument("--no-cuda", action="store_true")
    arguments = parser.parse_args()
    seeds = arguments.seeds
    print("| class | kernels | blocks | added by LLVM | by structurize | by reconverge "
          "| reconverge fewer than LLVM (or both none) | structurize at most LLVM |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    everything = []
    for cls in CLASSES:
        rows = [measure(run([str(DUMP), cls, str(seed), "--amdgpu"], ""))
                for seed in range(seeds)]
        row(cls, rows)
        everything += rows
    row("**all random**", everything)
    row("LLVM lit-style IR (tests/uniformity-llvm, files)", [measure(t) for t in lit_shapes()])
    if not arguments.no_cuda:
        row("CUDA examples and corpus (files)", [measure(text) for text in cuda_modules()])


if __name__ == "__main__":
    main()
