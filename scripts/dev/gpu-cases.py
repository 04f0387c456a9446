#!/usr/bin/env python3
"""gpu-cases.py: GPU differential cases for ../shared/gpu/run.py.

    scripts/dev/gpu-cases.py OUT [--random DIR]

Builds OUT/run.py (a copy of the shared runner) and OUT/work/{cases.json,
ptx/...}: for each kernel of the CUDA examples below, at each block size,
clang's own PTX (scripts/cuda-to-ptx.sh --reference) is the reference and
spmd's PTX (scripts/cuda-to-ptx.sh) the test; both run on identical inputs
and every buffer is compared (FORMAT.md in ../shared/gpu).

With --bench, every kernel of examples/cuda/bench/recipes.json (the
corpus of issue #29, docs/cuda-bench.md) becomes a timed case too.

With --before-bin DIR, the CUDA cases run a second time with the PTX of
DIR/spmd-opt as the test (ids before/...): a build from before a fix shows
on the GPU what the fix changed.

With --random DIR (repeatable), every DIR/<name>.mlir (an LLVM-dialect kernel
`llvm.func ptx_kernelcc @kernel(%out: !llvm.ptr, %n: i32, %ret: !llvm.ptr)`
as spmd_oracle's random generators render it, with DIR/<name>.json giving
{"out_len": per-thread slots, "n": [values]}) becomes a case too: the
reference is the kernel straight through mlir-translate and llc (the
hardware's own reconvergence), the test is scripts/kernel-to-ptx.sh.

Dry-run the result without a GPU:
    SPMD_GPU_DRY=1 python3 OUT/run.py --cases OUT/work/cases.json --out dry
(needs numpy). On the GPU machine:
    cd OUT && python3 run.py --cases work/cases.json --jobs 8 --out DIR
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
LLVM = pathlib.Path("/usr/lib/llvm-22/bin")

# (example, kernel, buffers, extra scalar args, block sizes, grid, shared)
# Buffers: (dtype, length as a function of (grid, block), init).
PER_THREAD = lambda g, b: g * b


def cuda_cases():
    ints = {"randint": [0, 64]}
    zeros = {"fill": 0}
    divergent = [
        ("tile_leaders", [32, 48, 100, 256]),
        ("active_segments", [32, 48, 100, 256]),
        ("shrinking_rounds", [32, 48, 100, 256]),
        ("match_groups", [32, 48, 100, 256]),
        ("nested_reduce", [32, 48, 100, 256]),
    ]
    cases = []
    for name, blocks in divergent:
        cases.append(dict(
            example="warp-collectives-divergent", kernel=name, blocks=blocks, grid=4,
            bufs=[("int32", PER_THREAD, ints), ("int32", PER_THREAD, zeros)], scalars=[]))
    cases.append(dict(
        example="warp-scan-partial", kernel="scan_block", blocks=[64, 256, 512], grid=4,
        bufs=[("int32", PER_THREAD, {"randint": [0, 1000]}), ("int32", PER_THREAD, zeros)],
        scalars=[]))
    n = 100_003
    cases.append(dict(
        example="warp-reduce-ballot", kernel="reduce_ballot", blocks=[48, 100, 256, 1024], grid=16,
        bufs=[("int32", lambda g, b: n, {"randint": [0, 1000]}),
              ("int32", lambda g, b: g, zeros)],
        scalars=[{"u32": n}]))
    floats = {"randfloat": [0.0, 1.0]}
    cases.append(dict(
        example="reduce-warp", kernel="reduce_warp", blocks=[64, 100, 256], grid=16,
        bufs=[("float32", lambda g, b: n, floats), ("float32", lambda g, b: 1, zeros)],
        scalars=[{"i32": n}], float_rtol=1e-4))
    cases.append(dict(
        example="reduce-shared", kernel="reduce_shared", blocks=[128, 256], grid=16,
        bufs=[("float32", lambda g, b: n, floats), ("float32", lambda g, b: g, zeros)],
        scalars=[{"u32": n}], float_rtol=1e-4))
    cases.append(dict(
        example="divergent-while", kernel="collatz_steps", blocks=[48, 128, 256], grid=64,
        bufs=[("uint32", PER_THREAD, {"randint": [1, 100000]}), ("int32", PER_THREAD, zeros)],
        scalars=[{"i32": 64 * 200}, {"i32": 300}]))
    return cases


def run(command, **kwargs):
    return subprocess.run(command, check=True, text=True, capture_output=True, **kwargs).stdout


def entry_names(ptx_text):
    return re.findall(r"\.entry\s+([A-Za-z0-9_$]+)\(", ptx_text)


def build_cuda(work, cases, label="cuda", spmd_bin=None):
    """Cases for the CUDA examples; with `spmd_bin`, the test PTX comes from
    the spmd-opt in that folder (e.g. a build from before a fix)."""
    out = []
    env = dict(__import__("os").environ)
    if spmd_bin:
        env["SPMD_BIN_DIR"] = spmd_bin
    for case in cases:
        source = ROOT / "examples" / "cuda" / f"{case['example']}.cu"
        ptx_dir = work / "ptx" / label
        ptx_dir.mkdir(parents=True, exist_ok=True)
        ref = ptx_dir / f"{case['example']}.ref.ptx"
        test = ptx_dir / f"{case['example']}.spmd.ptx"
        if not ref.exists():
            run([str(ROOT / "scripts/cuda-to-ptx.sh"), "--reference", str(source), "-o", str(ref)])
            run([str(ROOT / "scripts/cuda-to-ptx.sh"), str(source), "-o", str(test)], env=env)
        entries = [e for e in entry_names(ref.read_text()) if re.search(case["kernel"], e)]
        if len(entries) != 1:
            sys.exit(f"{case['kernel']}: entries {entries}")
        for block in case["blocks"]:
            grid = case["grid"]
            bufs = [{"dtype": d, "n": length(grid, block), "init": init}
                    for d, length, init in case["bufs"]]
            args = [{"buf": i} for i in range(len(bufs))] + case["scalars"]
            out.append({
                "id": f"{label}/{case['example']}/{case['kernel']}/block{block}",
                "ref": str(ref.relative_to(work)), "test": str(test.relative_to(work)),
                "entry": entries[0], "bufs": bufs, "args": args,
                "launches": [{"grid": [grid, 1, 1], "block": [block, 1, 1], "shared": 0}],
                "time": True,
                **({"float_rtol": case["float_rtol"]} if "float_rtol" in case else {}),
            })
    return out


def build_bench(work):
    """Cases for the corpus of issue #29 (examples/cuda/bench/recipes.json):
    clang's PTX against spmd's, each kernel timed."""
    bench = ROOT / "examples" / "cuda" / "bench"
    out = []
    ptx_dir = work / "ptx" / "bench"
    ptx_dir.mkdir(parents=True, exist_ok=True)
    for recipe in json.loads((bench / "recipes.json").read_text()):
        stem = pathlib.Path(recipe["file"]).stem
        ref = ptx_dir / f"{stem}.ref.ptx"
        test = ptx_dir / f"{stem}.spmd.ptx"
        if not ref.exists():
            source = str(bench / recipe["file"])
            run([str(ROOT / "scripts/cuda-to-ptx.sh"), "--reference", source, "-o", str(ref)])
            run([str(ROOT / "scripts/cuda-to-ptx.sh"), source, "-o", str(test)])
        case = {
            "id": f"bench/{stem}/{recipe['kernel']}",
            "ref": str(ref.relative_to(work)), "test": str(test.relative_to(work)),
            "entry": recipe["kernel"], "bufs": recipe["bufs"], "args": recipe["args"],
            "launches": [{"grid": recipe["grid"], "block": recipe["block"],
                          "shared": recipe.get("shared", 0)}],
            "time": True,
        }
        for tolerance in ("float_rtol", "float_atol"):
            if tolerance in recipe:
                case[tolerance] = recipe[tolerance]
        out.append(case)
    return out


def build_random(work, directory, blocks):
    out = []
    ptx_dir = work / "ptx" / "random"
    ptx_dir.mkdir(parents=True, exist_ok=True)
    label = pathlib.Path(directory).name
    for kernel in sorted(pathlib.Path(directory).glob("*.mlir")):
        meta = json.loads(kernel.with_suffix(".json").read_text())
        ref = ptx_dir / f"{label}.{kernel.stem}.ref.ptx"
        test = ptx_dir / f"{label}.{kernel.stem}.spmd.ptx"
        ll = run([str(LLVM / "mlir-translate"), "--mlir-to-llvmir", str(kernel)])
        ref.write_text(run([str(LLVM / "llc"), "-march=nvptx64", "-mcpu=sm_90", "-O2"], input=ll))
        run([str(ROOT / "scripts/kernel-to-ptx.sh"), str(kernel), "-o", str(test)])
        for block in blocks:
            # One block: the kernels index by tid.x only.
            launches = [{"grid": [1, 1, 1], "block": [block, 1, 1], "shared": 0}]
            threads = block
            for n in meta["n"]:
                out.append({
                    "id": f"random/{label}/{kernel.stem}/block{block}/n{n}",
                    "ref": str(ref.relative_to(work)), "test": str(test.relative_to(work)),
                    "entry": "kernel",
                    "bufs": [{"dtype": "int32", "n": threads * meta["out_len"], "init": {"fill": 0}},
                             {"dtype": "int32", "n": threads, "init": {"fill": 0}}],
                    "args": [{"buf": 0}, {"i32": n}, {"buf": 1}],
                    "launches": launches,
                })
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--random", action="append", default=[],
                        help="a folder of random LLVM-dialect kernels (repeatable)")
    parser.add_argument("--random-blocks", default="64,48,100")
    parser.add_argument("--before-bin", help="also the CUDA cases with this spmd-opt's PTX")
    parser.add_argument("--bench", action="store_true",
                        help="also the corpus of examples/cuda/bench (recipes.json)")
    options = parser.parse_args()
    out = pathlib.Path(options.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT.parent / "shared" / "gpu" / "run.py", out / "run.py")
    cases = build_cuda(work, cuda_cases())
    if options.before_bin:
        cases += build_cuda(work, cuda_cases(), "before", options.before_bin)
    if options.bench:
        cases += build_bench(work)
    blocks = [int(b) for b in options.random_blocks.split(",")]
    for directory in options.random:
        cases += build_random(work, directory, blocks)
    (work / "cases.json").write_text(json.dumps(cases, indent=1))
    print(f"{len(cases)} cases in {work / 'cases.json'}")


if __name__ == "__main__":
    main()
