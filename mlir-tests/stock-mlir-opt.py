#!/usr/bin/env python3
"""`spmd-opt` for the lit suite's stock mlir-opt mode (see lit.cfg.py).

Runs $SPMD_STOCK_MLIR_OPT (Debian's mlir-opt) with $SPMD_STOCK_PLUGIN
loaded as dialect and pass plugin. Stock mlir-opt builds its `--<pass>`
flags before it loads plugins, so plugin passes are reachable only through
a pipeline: spmd-opt's `--spmd-NAME[=OPTIONS]` flags are rewritten, in
order, into `--pass-pipeline=builtin.module(spmd-NAME{OPTIONS},...)`, which
is what those flags mean in spmd-opt. Every other argument is passed on.
"""
import os
import sys


def main():
    mlir_opt = os.environ["SPMD_STOCK_MLIR_OPT"]
    plugin = os.environ["SPMD_STOCK_PLUGIN"]
    passes, rest = [], []
    for argument in sys.argv[1:]:
        name = argument.lstrip("-")
        if argument.startswith("-") and name.startswith("spmd-"):
            name, has_options, options = name.partition("=")
            passes.append(name + ("{%s}" % options if has_options else ""))
        else:
            rest.append(argument)
    if passes:
        rest.append("--pass-pipeline=builtin.module(%s)" % ",".join(passes))
    command = [
        mlir_opt,
        "--load-dialect-plugin=" + plugin,
        "--load-pass-plugin=" + plugin,
    ] + rest
    os.execv(mlir_opt, command)


if __name__ == "__main__":
    main()
