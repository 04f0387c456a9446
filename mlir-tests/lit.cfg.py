# -*- Python -*-
#
# lit configuration of the spmd test suite (dialect, tool, plugin, docs and
# examples). There is no lit.site.cfg: everything is discovered from this
# file's location and from the environment.
#
#   lit -v mlir-tests                      # uses target/debug, then target/release
#   SPMD_BIN_DIR=/path/to/bin lit mlir-tests
#   LLVM_TOOLS_DIR=/path/to/llvm/bin lit mlir-tests
#
# `config` and `lit_config` are injected by lit.

import os

import lit.formats

config.name = "spmd"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".c"]
config.excludes = ["Inputs", "lit.cfg.py"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
spmd_src_root = os.path.dirname(config.test_source_root)
# Keep the Output/ directories of the tests out of the source tree.
config.test_exec_root = os.path.join(spmd_src_root, "target", "lit")

# --- spmd-opt and the dialect plugin ---------------------------------------


def _find_spmd_bin_dir():
    candidates = []
    env_dir = os.environ.get("SPMD_BIN_DIR")
    if env_dir:
        candidates.append(env_dir)
    candidates.append(os.path.join(spmd_src_root, "target", "debug"))
    candidates.append(os.path.join(spmd_src_root, "target", "release"))
    for directory in candidates:
        tool = os.path.join(directory, "spmd-opt")
        if os.path.isfile(tool) and os.access(tool, os.X_OK):
            return os.path.abspath(directory)
    lit_config.fatal(
        "spmd-opt not found (looked in: %s); build it first with cargo build, "
        "or point SPMD_BIN_DIR at the directory that contains it"
        % ", ".join(candidates)
    )


spmd_bin_dir = _find_spmd_bin_dir()
spmd_plugin = os.path.join(spmd_bin_dir, "libSpmdPlugin.so")
if not os.path.isfile(spmd_plugin):
    lit_config.fatal(
        "libSpmdPlugin.so not found next to spmd-opt in %s; build it first "
        "with cargo build" % spmd_bin_dir
    )

# --- LLVM/MLIR tools ------------------------------------------------------

llvm_tools_dir = os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
for tool in ["FileCheck", "not", "mlir-opt", "mlir-translate", "mlir-tblgen"]:
    if not os.path.isfile(os.path.join(llvm_tools_dir, tool)):
        lit_config.fatal(
            "%s not found in %s; install LLVM/MLIR 22 or set LLVM_TOOLS_DIR"
            % (tool, llvm_tools_dir)
        )
# The headers belong to the same installation as the tools.
llvm_include = os.path.join(os.path.dirname(llvm_tools_dir), "include")
if not os.path.isdir(os.path.join(llvm_include, "mlir")):
    llvm_include = "/usr/lib/llvm-22/include"

# spmd-opt first, then the LLVM tools, then whatever the user had.
path = [spmd_bin_dir, llvm_tools_dir]
if config.environment.get("PATH"):
    path.append(config.environment["PATH"])
elif os.environ.get("PATH"):
    path.append(os.environ["PATH"])
config.environment["PATH"] = os.pathsep.join(path)

# Colours and crash-reporter noise would only get in FileCheck's way.
config.environment["TERM"] = "dumb"
config.environment.pop("LLVM_SYMBOLIZER_PATH", None)

config.substitutions.append(("%spmd_plugin", spmd_plugin))
config.substitutions.append(("%mlir_opt", os.path.join(llvm_tools_dir, "mlir-opt")))
config.substitutions.append(
    ("%mlir_tblgen", os.path.join(llvm_tools_dir, "mlir-tblgen"))
)
config.substitutions.append(("%spmd_src_root", spmd_src_root))
config.substitutions.append(("%llvm_include", llvm_include))

lit_config.note("using spmd-opt from %s" % spmd_bin_dir)
lit_config.note("using LLVM tools from %s" % llvm_tools_dir)

# --- optional passes --------------------------------------------------------

# Tests of the full thread-level -> PTX pipeline need --spmd-predicate; they
# say `REQUIRES: spmd-predicate`, and the test of the diagnostic a build
# without it gives says `UNSUPPORTED: spmd-predicate`.
import subprocess

try:
    _help = subprocess.run(
        [os.path.join(spmd_bin_dir, "spmd-opt"), "--help"],
        capture_output=True, text=True, timeout=60,
    ).stdout
except (OSError, subprocess.SubprocessError):
    _help = ""
if "--spmd-predicate" in _help:
    config.available_features.add("spmd-predicate")
if os.path.isfile(os.path.join(llvm_tools_dir, "llc")):
    config.available_features.add("llc")

# --- the CUDA front door: clang and ptxas -----------------------------------

# mlir-tests/cuda/*.cu are tests: CUDA kernels through scripts/cuda-to-ptx.sh,
# and a host-side test of the CUDA header's math.
config.suffixes.append(".cu")

# clang 22 (Debian package clang-22, which scripts/setup.sh installs): tests
# that compile CUDA say `REQUIRES: clang` and use %clang.
_clang = os.environ.get("CLANG", os.path.join(llvm_tools_dir, "clang"))
if os.path.isfile(_clang) and os.access(_clang, os.X_OK):
    config.available_features.add("clang")
    config.substitutions.append(("%clang", _clang))
    config.environment["CLANG"] = _clang  # for scripts/cuda-to-ptx.sh
    lit_config.note("using clang %s" % _clang)

# NVIDIA's ptxas (scripts/setup.sh installs it from a pinned wheel into
# .venv; $PTXAS overrides): tests assemble the PTX they produce with
# `%ptxas -arch=sm_70 ... -o /dev/null` and say `REQUIRES: ptxas`.
try:
    _ptxas = subprocess.run(
        [os.path.join(spmd_src_root, "scripts", "find-ptxas.sh")],
        capture_output=True, text=True, timeout=60,
    ).stdout.strip()
except (OSError, subprocess.SubprocessError):
    _ptxas = ""
if _ptxas and os.access(_ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
    lit_config.note("using ptxas %s" % _ptxas)
