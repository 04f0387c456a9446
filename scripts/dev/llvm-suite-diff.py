#!/usr/bin/env python3
"""llvm-suite-diff.py: how spmd does on a directory of LLVM IR tests, next to LLVM.

    scripts/dev/llvm-suite-diff.py DIR [--spmd-opt PATH] [--json OUT]
                                       [--llvm-bin DIR] [--timeout S] [--list-imprecise]

For every `.ll` file under DIR (recursively) it measures two things.

Uniformity differential.  LLVM's answer is
`opt -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output FILE`
(on stderr); spmd's is `spmd-opt --spmd-print-uniformity` on
`mlir-translate --import-llvm FILE`.  The importer keeps the order of the
reachable blocks (it drops unreachable ones, so the LLVM side drops them too),
turns every phi into a block argument at the same position and puts the
constants it materializes (`llvm.mlir.constant`, `llvm.mlir.poison`,
`llvm.mlir.undef`, `llvm.mlir.zero`, `llvm.mlir.addressof`, ..., and the ops of
constant expressions) at the start of the entry block.  So, per function and
per block:
  * arg:    the k-th function argument      <-> the k-th entry-block argument;
  * phi:    the k-th phi                     <-> the k-th block argument;
  * value:  the k-th non-phi instruction with a result <-> the k-th op result
            of the block that is not a materialized constant (where the counts
            of a block differ, its values count as "unmatched", no guessing);
  * branch: a conditional `br i1` / `switch` <-> the block's terminator with
            two or more successors.
Every item is "agree", "unsound" (spmd uniform, LLVM divergent), "imprecise"
(spmd divergent, LLVM uniform) or "unmatched".  A function whose number of
reachable blocks differs from the import's counts all its items unmatched.
Functions spmd cannot analyse, or on which it crashes, are counted and listed.
The structure of the LLVM side comes from `opt -S FILE`, its divergence from
the `print<uniformity>` report (a function with nothing divergent prints
`ALL VALUES UNIFORM`).

Passes.  Each imported file goes through `spmd-opt --spmd-structurize`,
`--spmd-structurize=irreducible=fix` and `--spmd-reconverge` (timeout per run,
60 s by default).  Where a whole-file run does not succeed, every function is
rerun alone (the other functions' bodies replaced by `llvm.unreachable`) so
that an error, a crash or a timeout is pinned on its function and the other
functions are still measured.  Per pass and function: ok, diagnosed (non-zero
exit with an `error:` that is not an internal error), internal (the output says
`internal error`), crash (signal, panic, `PLEASE submit a bug report`) or
timeout.  For the ok functions it adds up the blocks added (blocks of the
output minus blocks of the import), and, on the same functions, what
`opt -mtriple=amdgcn-- -passes=structurizecfg` and
`-passes='fix-irreducible,structurizecfg'` add to LLVM's own input.

It prints a summary table and the lists (unsound items, internal errors,
crashes, timeouts, functions not analysed; imprecise items with
--list-imprecise) and, with --json, writes everything as JSON.  Only the
standard library is used; tools run one at a time.
"""
import argparse
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_SPMD_OPT = ROOT / "target" / "debug" / "spmd-opt"
DEFAULT_LLVM_BIN = pathlib.Path("/usr/lib/llvm-22/bin")
TRIPLE = "-mtriple=amdgcn--"

SPMD_PASSES = [
    ("structurize", "--spmd-structurize"),
    ("structurize-fix", "--spmd-structurize=irreducible=fix"),
    ("reconverge", "--spmd-reconverge"),
]
LLVM_PIPELINES = [
    ("structurizecfg", "structurizecfg"),
    ("fix-irreducible,structurizecfg", "fix-irreducible,structurizecfg"),
]
KINDS = ("arg", "phi", "value", "branch")
VERDICTS = ("agree", "unsound", "imprecise", "unmatched")
OUTCOMES = ("ok", "diagnosed", "internal", "crash", "timeout")

LLVM_TERMINATORS = {
    "ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable",
    "cleanupret", "catchret", "catchswitch", "callbr",
}
CRASH_MARKERS = ("PLEASE submit a bug report", "panicked at", "Stack dump", "Aborted")


# --------------------------------------------------------------------------
# Running tools


class Run:
    """The result of one command: exit status (negative: signal), output."""

    def __init__(self, rc, stdout, stderr, timed_out):
        self.rc, self.stdout, self.stderr, self.timed_out = rc, stdout, stderr, timed_out

    @property
    def text(self):
        return self.stdout + self.stderr

    @property
    def crashed(self):
        return self.rc < 0 or any(m in self.stderr for m in CRASH_MARKERS)


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, errors="replace")
        return Run(p.returncode, p.stdout, p.stderr, False)
    except subprocess.TimeoutExpired as e:
        def s(x):
            return x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
        return Run(-9, s(e.stdout), s(e.stderr), True)


def classify(r):
    """ok / diagnosed / internal / crash / timeout of one run."""
    if r.timed_out:
        return "timeout"
    if r.crashed:
        return "crash"
    if "internal error" in r.text:
        return "internal"
    if r.rc != 0:
        return "diagnosed" if "error:" in r.text else "crash"
    return "ok"


def first_error(text):
    """The first error-like line of a tool's output, without its file location."""
    for line in text.splitlines():
        if "error:" in line or "panicked at" in line or "PLEASE submit" in line:
            return re.sub(r"^\S+:\d+:\d+: ", "", line.strip())[:300]
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else ""


# --------------------------------------------------------------------------
# LLVM IR (the output of `opt -S`)

LL_NAME = r'(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)'
LL_LABEL = re.compile(r"^(" + LL_NAME + r"):(?:\s|$)")
LL_DEFINE = re.compile(r"^define\b.*?@(" + LL_NAME + r")\(")
LL_RESULT = re.compile(r"^\s*(%" + LL_NAME + r") = (\S+)")
LL_SUCC = re.compile(r"label %(" + LL_NAME + r")")


def unquote(name):
    name = name.lstrip("@%")
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        name = name[1:-1]
    return name


def split_params(text):
    """The top-level comma-separated pieces of a parameter list."""
    depth, cur, out = 0, "", []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def define_params(line, start):
    """The argument names of the `define` line whose '(' is at `start`."""
    depth = 0
    for i in range(start, len(line)):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                body = line[start + 1:i]
                break
    else:
        return []
    names = []
    for p in split_params(body):
        toks = p.split()
        names.append(unquote(toks[-1]) if toks and toks[-1].startswith("%") else None)
    return names


class LLBlock:
    def __init__(self, name):
        self.name = name
        self.phis = []      # value names
        self.values = []    # non-phi instruction results (terminator results excluded)
        self.term = ""      # terminator text (continuation lines joined)

    @property
    def successors(self):
        return [unquote(s) for s in LL_SUCC.findall(self.term)]

    @property
    def is_branch(self):
        op = self.term.split()[0] if self.term.split() else ""
        return op in ("br", "switch") and len(self.successors) >= 2


def parse_ll(text):
    """{function name: (argument names, [LLBlock])} of `opt -S` output."""
    funcs = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = LL_DEFINE.match(lines[i])
        if not m or not lines[i].rstrip().endswith("{"):
            i += 1
            continue
        name = unquote(m.group(1))
        args = define_params(lines[i], m.end() - 1)
        blocks, insts = [], []  # insts: (block, text) with continuations joined
        i += 1
        while i < len(lines) and lines[i] != "}":
            line = lines[i]
            i += 1
            if not line.strip() or line.startswith(";"):
                continue
            lm = LL_LABEL.match(line)
            if lm and not line.startswith(" "):
                blocks.append(LLBlock(unquote(lm.group(1))))
                continue
            if not blocks:
                # Unnamed entry block: numbered after the unnamed arguments.
                blocks.append(LLBlock(str(sum(1 for a in args if a and a.isdigit()))))
            if line.startswith("  ") and not line.startswith("   ") and not line.strip().startswith("]"):
                insts.append([blocks[-1], line.strip()])
            elif insts:
                insts[-1][1] += " " + line.strip()
        i += 1
        for block, inst in insts:
            rm = LL_RESULT.match(inst)
            opcode = rm.group(2) if rm else inst.split()[0]
            if opcode in LLVM_TERMINATORS:
                block.term = inst if not rm else inst[inst.index("=") + 2:]
            elif rm and opcode == "phi":
                block.phis.append(unquote(rm.group(1)))
            elif rm:
                block.values.append(unquote(rm.group(1)))
        funcs[name] = (args, blocks)
    return funcs


def reachable(blocks):
    if not blocks:
        return []
    index = {b.name: b for b in blocks}
    seen, work = {blocks[0].name}, [blocks[0]]
    while work:
        for s in work.pop().successors:
            if s in index and s not in seen:
                seen.add(s)
                work.append(index[s])
    return [b for b in blocks if b.name in seen]


def parse_llvm_uniformity(text):
    """{function: {"args", "values", "terms"}}: the divergent ones, by name."""
    out, cur, block, section = {}, None, None, None
    for line in text.splitlines():
        m = re.match(r"^UniformityInfo for function '(.*)':$", line)
        if m:
            cur = out.setdefault(m.group(1), {"args": set(), "values": set(), "terms": set()})
            block, section = None, "head"
            continue
        if cur is None:
            continue
        if line.startswith("BLOCK "):
            block, section = unquote(line[6:].strip()), None
        elif line == "DEFINITIONS":
            section = "defs"
        elif line == "TERMINATORS":
            section = "terms"
        elif line == "END BLOCK":
            section = None
        elif line.startswith("  DIVERGENT:"):
            rest = line[len("  DIVERGENT:"):].strip()
            if section == "head":
                cur["args"].add(unquote(rest.split()[-1]))
            elif section == "defs":
                rm = re.match(r"(%" + LL_NAME + r") = ", rest)
                if rm:
                    cur["values"].add(unquote(rm.group(1)))
            elif section == "terms":
                cur["terms"].add(block)
    return out


def count_ll_blocks(text):
    return {f: len(blocks) for f, (_, blocks) in parse_ll(text).items()}


# --------------------------------------------------------------------------
# MLIR (the import, and spmd-opt's outputs)

MLIR_NAME = r'(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)'
MLIR_FUNC = re.compile(r"^  (?:llvm\.func|func\.func)\b.*?@(" + MLIR_NAME + r")\(")
MLIR_LABEL = re.compile(r"^  \^(\w+)(?:\((.*)\))?:")
MLIR_OP = re.compile(r'^(?:(%[\w$.-]+)(?::\d+)? = )?"?([\w.]+)')
MLIR_VALUE = re.compile(r"%[\w$.-]+")


def is_constant_op(name):
    return name.startswith("llvm.mlir.") or name in (
        "llvm.dso_local_equivalent", "arith.constant")


class MBlock:
    def __init__(self, label, args):
        # ops: [result (None if none, or of type !llvm.void), name, operands, successors]
        self.label, self.args, self.ops = label, args, []


def parse_mlir(text):
    """{function: (entry arguments, [MBlock], (first line, last line))}."""
    funcs = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = MLIR_FUNC.match(lines[i])
        if not m or not lines[i].rstrip().endswith("{"):
            i += 1
            continue
        start = i
        name = unquote(m.group(1))
        args = re.findall(r"(%[\w$.-]+): ", lines[i][m.end():])
        blocks, ops = [MBlock("bb0", args)], []
        i += 1
        while i < len(lines) and lines[i] != "  }":
            line = lines[i]
            i += 1
            lm = MLIR_LABEL.match(line)
            if lm:
                blocks.append(MBlock(lm.group(1), re.findall(r"(%[\w$.-]+): ", lm.group(2) or "")))
            elif (line.startswith("    ") and not line.startswith("     ")
                  and not line.strip().startswith("]")):
                ops.append([blocks[-1], line.strip()])
            elif ops and line.strip():
                ops[-1][1] += " " + line.strip()
        for block, op in ops:
            om = MLIR_OP.match(op)
            result, opname = (om.group(1), om.group(2)) if om else (None, "")
            body = op[om.end():] if om else op
            body = body.split(" : ")[0] if opname.startswith("llvm.mlir.") else body
            operands = [v for v in MLIR_VALUE.findall(body)]
            nsucc = len(re.findall(r"\^\w+", op))
            if re.search(r"->\s*!llvm\.void\s*$", op):
                result = None  # e.g. a void inline asm: no LLVM value
            block.ops.append([result, opname, operands, nsucc])
        funcs[name] = (args, blocks, (start, i))
        i += 1
    return funcs


def isolate(text, keep):
    """The module `text` with every function body but `keep`'s replaced by
    `llvm.unreachable` (so that a run only concerns `keep`)."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        m = MLIR_FUNC.match(lines[i])
        if m and lines[i].rstrip().endswith("{") and unquote(m.group(1)) != keep:
            out.append(lines[i])
            out.append("    llvm.unreachable")
            i += 1
            while i < len(lines) and lines[i] != "  }":
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out) + "\n"


def value_ops(block, is_entry, llvm_count):
    """The op results of `block` that stand for LLVM instructions: not the
    materialized constants, and in the entry block (when there are more of them
    than LLVM instructions) not the ops of constant expressions either."""
    ops = [o for o in block.ops if o[0] is not None and o[3] == 0]
    vals = [o for o in ops if not is_constant_op(o[1])]
    if is_entry and len(vals) > llvm_count:
        constant = {o[0] for o in ops if is_constant_op(o[1])}
        for o in block.ops:
            if o[0] is None or o[3] != 0:
                break
            if is_constant_op(o[1]):
                continue
            if o[2] and all(v in constant for v in o[2]):
                constant.add(o[0])
            else:
                break
        vals = [o for o in vals if o[0] not in constant]
    return [o[0] for o in vals]


def parse_spmd_uniformity(text):
    """{function: {"values": {name: divergent}, "branches": [divergent]}} and
    {function: message} of the functions spmd could not analyse."""
    out, failed, cur = {}, {}, None
    for line in text.splitlines():
        m = re.match(r"^// uniformity @(" + MLIR_NAME + r")\s*$", line)
        if m:
            cur = out.setdefault(unquote(m.group(1)), {"values": {}, "branches": []})
            continue
        e = re.search(r"error: cannot \w+ @(" + MLIR_NAME + r"): (.*)$", line)
        if e:
            failed[unquote(e.group(1))] = e.group(2)[:300]
            continue
        if cur is None:
            continue
        m = re.match(r"^\^\w+ arguments: (.*)$", line)
        if m:
            for part in m.group(1).split(", "):
                toks = part.split()
                if len(toks) == 2:
                    cur["values"][toks[0]] = toks[1] == "divergent"
            continue
        m = re.match(r"^(divergent|uniform) branch: ", line)
        if m:
            cur["branches"].append(m.group(1) == "divergent")
            continue
        m = re.match(r"^(divergent|uniform): (%[\w$.-]+)", line)
        if m:
            cur["values"][m.group(2)] = m.group(1) == "divergent"
    return out, failed


# --------------------------------------------------------------------------
# The measurement


class Measure:
    def __init__(self, args):
        self.a = args
        self.opt = str(args.llvm_bin / "opt")
        self.translate = str(args.llvm_bin / "mlir-translate")
        self.spmd = str(args.spmd_opt)
        self.files = collections.Counter()
        self.skipped = []                       # (file, why)
        self.functions = collections.Counter()
        self.uni = {k: collections.Counter() for k in KINDS}
        self.items = {"unsound": [], "imprecise": [], "unmatched": []}
        self.unmatched_blocks = 0
        self.unmatched_functions = []            # (file, function, why)
        self.not_analysed = []                   # (file, function, why)
        self.uni_crashes = []                    # (file, function, why)
        self.passes = {p: collections.Counter() for p, _ in SPMD_PASSES}
        self.pass_events = {p: [] for p, _ in SPMD_PASSES}  # (outcome, file, function, message)
        self.diagnosed = {p: [] for p, _ in SPMD_PASSES}    # (file, function, message)
        self.diag_reasons = {p: collections.Counter() for p, _ in SPMD_PASSES}
        self.added = {p: collections.Counter() for p, _ in SPMD_PASSES}
        self.llvm_failures = {p: [] for p, _ in LLVM_PIPELINES}

    # -- uniformity ------------------------------------------------------

    def item(self, kind, spmd_div, llvm_div, where):
        verdict = ("agree" if spmd_div == llvm_div
                   else "unsound" if llvm_div else "imprecise")
        self.uni[kind][verdict] += 1
        if verdict != "agree":
            self.items[verdict].append(where)

    def compare_function(self, rel, fname, ll, lu, mf, su):
        args, llblocks = ll
        margs, mblocks, _ = mf
        blocks = reachable(llblocks)
        div = lu or {"args": set(), "values": set(), "terms": set()}
        sval = su["values"]
        if len(blocks) != len(mblocks):
            why = f"{len(blocks)} reachable LLVM blocks, {len(mblocks)} imported"
            self.unmatched_functions.append((rel, fname, why))
            self.functions["unmatched"] += 1
            for b in blocks:
                self.uni["phi"]["unmatched"] += len(b.phis)
                self.uni["value"]["unmatched"] += len(b.values)
                self.uni["branch"]["unmatched"] += int(b.is_branch)
            self.uni["arg"]["unmatched"] += len(args)
            self.unmatched_blocks += len(blocks)
            return
        self.functions["compared"] += 1
        if len(args) == len(margs):
            for a, m in zip(args, margs):
                self.item("arg", sval.get(m, False), a in div["args"],
                          f"{rel} {fname} (args) %{a} [spmd {m}]")
        else:
            self.uni["arg"]["unmatched"] += len(args)
            self.items["unmatched"].append(
                f"{rel} {fname} (args): {len(args)} in LLVM, {len(margs)} imported")
        branch_iter = iter(su["branches"])
        for bi, (b, mb) in enumerate(zip(blocks, mblocks)):
            where = f"{rel} {fname} {b.name}"
            phis = mb.args if bi > 0 else []
            if len(phis) == len(b.phis):
                for p, m in zip(b.phis, phis):
                    self.item("phi", sval.get(m, False), p in div["values"],
                              f"{where} %{p} [spmd ^{mb.label} {m}]")
            else:
                self.uni["phi"]["unmatched"] += max(len(b.phis), 1)
                self.items["unmatched"].append(
                    f"{where} phis: {len(b.phis)} in LLVM, {len(phis)} block arguments")
            vals = value_ops(mb, bi == 0, len(b.values))
            if len(vals) == len(b.values):
                for v, m in zip(b.values, vals):
                    self.item("value", sval.get(m, False), v in div["values"],
                              f"{where} %{v} [spmd {m}]")
            else:
                self.uni["value"]["unmatched"] += len(b.values)
                self.unmatched_blocks += 1
                self.items["unmatched"].append(
                    f"{where} values: {len(b.values)} in LLVM, {len(vals)} op results")
            mbranch = bool(mb.ops) and mb.ops[-1][3] >= 2
            sdiv = next(branch_iter, False) if mbranch else None
            if b.is_branch and mbranch:
                self.item("branch", sdiv, b.name in div["terms"],
                          f"{where} {b.term.split(',')[0]} [spmd ^{mb.label}]")
            elif b.is_branch or mbranch:
                self.uni["branch"]["unmatched"] += 1
                self.items["unmatched"].append(
                    f"{where} branch: LLVM '{b.term[:60]}', spmd "
                    f"{'a' if mbranch else 'no'} conditional terminator")

    def uniformity(self, rel, path, mlir_path, mlir_text, llfuncs, mfuncs):
        r = run([self.opt, TRIPLE, "-passes=print<uniformity>", "-disable-output", path],
                self.a.timeout)
        if r.rc != 0:
            self.skipped.append((rel, "opt print<uniformity>: " + first_error(r.text)))
            self.files["llvm uniformity failed"] += 1
            return
        lu = parse_llvm_uniformity(r.stderr)
        s = run([self.spmd, "--spmd-print-uniformity", "-o", os.devnull, mlir_path],
                self.a.timeout)
        spmd, failed = parse_spmd_uniformity(s.stderr + s.stdout)
        crashed = s.crashed or s.timed_out
        for fname, mf in mfuncs.items():
            if fname not in spmd and crashed and fname not in failed:
                # Run it alone to tell which function crashes.
                with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as t:
                    t.write(isolate(mlir_text, fname))
                try:
                    s1 = run([self.spmd, "--spmd-print-uniformity", "-o", os.devnull, t.name],
                             self.a.timeout)
                finally:
                    os.unlink(t.name)
                one, f1 = parse_spmd_uniformity(s1.stderr + s1.stdout)
                spmd.update({k: v for k, v in one.items() if k == fname})
                failed.update({k: v for k, v in f1.items() if k == fname})
                if fname not in spmd and fname not in failed:
                    why = "timeout" if s1.timed_out else first_error(s1.text)
                    self.uni_crashes.append((rel, fname, why))
                    self.functions["spmd crashed"] += 1
                    continue
            if fname in failed:
                self.not_analysed.append((rel, fname, failed[fname]))
                self.functions["spmd cannot analyse"] += 1
                continue
            if fname not in spmd:
                self.not_analysed.append((rel, fname, "no report: " + first_error(s.text)))
                self.functions["spmd cannot analyse"] += 1
                continue
            if fname not in llfuncs:
                self.functions["not in LLVM output"] += 1
                continue
            self.compare_function(rel, fname, llfuncs[fname], lu.get(fname), mf, spmd[fname])

    # -- passes ----------------------------------------------------------

    def passes_for(self, rel, path, mlir_path, mlir_text, llfuncs, mfuncs):
        llvm_added = {}
        for pname, pipeline in LLVM_PIPELINES:
            r = run([self.opt, TRIPLE, f"-passes={pipeline}", "-S", path], self.a.timeout)
            if r.rc != 0 or r.timed_out:
                self.llvm_failures[pname].append((rel, classify(r), first_error(r.text)))
                continue
            after = count_ll_blocks(r.stdout)
            llvm_added[pname] = {f: after[f] - len(llfuncs[f][1])
                                 for f in after if f in llfuncs}
        before = {f: len(mf[1]) for f, mf in mfuncs.items()}
        for pname, flag in SPMD_PASSES:
            r = run([self.spmd, flag, mlir_path], self.a.timeout)
            results = {}  # function -> (outcome, message, blocks after)
            if classify(r) == "ok":
                after = {f: len(v[1]) for f, v in parse_mlir(r.stdout).items()}
                for f in mfuncs:
                    results[f] = ("ok", "", after.get(f))
            else:
                for f in mfuncs:
                    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as t:
                        t.write(isolate(mlir_text, f))
                    try:
                        r1 = run([self.spmd, flag, t.name], self.a.timeout)
                    finally:
                        os.unlink(t.name)
                    outcome = classify(r1)
                    blocks = None
                    if outcome == "ok":
                        blocks = len(parse_mlir(r1.stdout).get(f, (None, [None]))[1])
                    results[f] = (outcome, first_error(r1.text) if outcome != "ok" else "", blocks)
            for f, (outcome, msg, blocks) in results.items():
                self.passes[pname][outcome] += 1
                if outcome == "diagnosed":
                    self.diagnosed[pname].append((rel, f, msg))
                    reason = re.sub(r"^.*?cannot \w+ @\S+: ", "", msg.split("error:", 1)[-1].strip())
                    self.diag_reasons[pname][reason.split(":")[0].split(" (")[0][:80]] += 1
                if outcome in ("internal", "crash", "timeout"):
                    self.pass_events[pname].append((outcome, rel, f, msg))
                if outcome == "ok" and blocks is not None:
                    c = self.added[pname]
                    c["functions"] += 1
                    c["spmd"] += blocks - before[f]
                    for lname, _ in LLVM_PIPELINES:
                        if f in llvm_added.get(lname, {}):
                            c["llvm " + lname] += llvm_added[lname][f]
                            c["llvm functions " + lname] += 1

    # -- files -----------------------------------------------------------

    def file(self, path, rel, tmpdir):
        self.files["found"] += 1
        r = run([self.opt, TRIPLE, "-S", path], self.a.timeout)
        if r.rc != 0:
            self.skipped.append((rel, "opt -S: " + first_error(r.text)))
            self.files["parse failed"] += 1
            return
        llfuncs = parse_ll(r.stdout)
        mlir_path = os.path.join(tmpdir, "import.mlir")
        t = run([self.translate, "--import-llvm", path, "-o", mlir_path], self.a.timeout)
        if t.rc != 0:
            self.skipped.append((rel, "import: " + first_error(t.text)))
            self.files["import failed"] += 1
            return
        mlir_text = pathlib.Path(mlir_path).read_text()
        mfuncs = parse_mlir(mlir_text)
        self.files["measured"] += 1
        self.functions["defined"] += len(mfuncs)
        self.uniformity(rel, path, mlir_path, mlir_text, llfuncs, mfuncs)
        self.passes_for(rel, path, mlir_path, mlir_text, llfuncs, mfuncs)

    def all(self, root):
        paths = sorted(p for p in pathlib.Path(root).rglob("*.ll") if p.is_file())
        with tempfile.TemporaryDirectory() as tmpdir:
            for p in paths:
                rel = str(p.relative_to(root))
                if self.a.verbose:
                    print(f"... {rel}", file=sys.stderr)
                self.file(str(p), rel, tmpdir)

    # -- report ----------------------------------------------------------

    def summary(self):
        out = []
        f = self.files
        out.append(f"files: {f['found']} found, {f['measured']} measured, "
                   f"{f['parse failed']} not parsed by opt, {f['import failed']} not imported, "
                   f"{f['llvm uniformity failed']} without LLVM uniformity")
        fn = self.functions
        out.append(f"functions: {fn['defined']} imported, {fn['compared']} compared, "
                   f"{fn['unmatched']} unmatched (block counts differ), "
                   f"{fn['spmd cannot analyse']} not analysed by spmd, "
                   f"{fn['spmd crashed']} crashed spmd")
        out.append("")
        out.append("uniformity   " + "".join(f"{v:>11}" for v in VERDICTS))
        for k in KINDS:
            out.append(f"  {k:<10} " + "".join(f"{self.uni[k][v]:>11}" for v in VERDICTS))
        tot = {v: sum(self.uni[k][v] for k in KINDS) for v in VERDICTS}
        out.append(f"  {'total':<10} " + "".join(f"{tot[v]:>11}" for v in VERDICTS))
        out.append(f"  (blocks whose values could not be matched: {self.unmatched_blocks})")
        out.append("")
        out.append("passes (per function) " + "".join(f"{o:>10}" for o in OUTCOMES))
        for p, _ in SPMD_PASSES:
            out.append(f"  {p:<20}" + "".join(f"{self.passes[p][o]:>10}" for o in OUTCOMES))
        out.append("")
        out.append("blocks added on the ok functions:")
        for p, flag in SPMD_PASSES:
            c = self.added[p]
            line = f"  {flag:<38} spmd {c['spmd']:>5} on {c['functions']:>4} functions"
            for lname, _ in LLVM_PIPELINES:
                line += (f" | llvm {lname} {c['llvm ' + lname]:>5}"
                         f" ({c['llvm functions ' + lname]})")
            out.append(line)
        for p, _ in SPMD_PASSES:
            if self.diag_reasons[p]:
                out.append(f"  diagnosed by {p}: " + ", ".join(
                    f"{r} x{n}" for r, n in self.diag_reasons[p].most_common()))
        for lname, _ in LLVM_PIPELINES:
            if self.llvm_failures[lname]:
                out.append(f"  opt -passes={lname} failed on {len(self.llvm_failures[lname])} files")
        return "\n".join(out)

    def lists(self, imprecise):
        out = []

        def section(title, rows):
            out.append("")
            out.append(f"{title} ({len(rows)}):")
            out.extend("  " + r for r in rows)

        section("unsound (spmd uniform, LLVM divergent)", self.items["unsound"])
        if imprecise:
            section("imprecise (spmd divergent, LLVM uniform)", self.items["imprecise"])
        section("unmatched items", self.items["unmatched"])
        for p, flag in SPMD_PASSES:
            ev = self.pass_events[p]
            section(f"{flag}: internal errors, crashes, timeouts",
                    [f"{o}: {f} @{fn}: {m}" for o, f, fn, m in ev])
        section("functions spmd could not analyse",
                [f"{f} @{fn}: {m}" for f, fn, m in self.not_analysed])
        section("functions spmd crashed on (print-uniformity)",
                [f"{f} @{fn}: {m}" for f, fn, m in self.uni_crashes])
        section("functions not matched (block counts)",
                [f"{f} @{fn}: {m}" for f, fn, m in self.unmatched_functions])
        section("files skipped", [f"{f}: {m}" for f, m in self.skipped])
        for lname, _ in LLVM_PIPELINES:
            if self.llvm_failures[lname]:
                section(f"opt -passes={lname} failures",
                        [f"{f}: {o}: {m}" for f, o, m in self.llvm_failures[lname]])
        return "\n".join(out)

    def to_json(self):
        return {
            "files": dict(self.files),
            "functions": dict(self.functions),
            "uniformity": {k: {v: self.uni[k][v] for v in VERDICTS} for k in KINDS},
            "unmatched_blocks": self.unmatched_blocks,
            "unsound": self.items["unsound"],
            "imprecise": self.items["imprecise"],
            "unmatched": self.items["unmatched"],
            "not_analysed": self.not_analysed,
            "uniformity_crashes": self.uni_crashes,
            "unmatched_functions": self.unmatched_functions,
            "skipped": self.skipped,
            "passes": {p: {o: self.passes[p][o] for o in OUTCOMES} for p, _ in SPMD_PASSES},
            "pass_events": {p: self.pass_events[p] for p, _ in SPMD_PASSES},
            "diagnosed": {p: self.diagnosed[p] for p, _ in SPMD_PASSES},
            "diagnosed_reasons": {p: dict(self.diag_reasons[p]) for p, _ in SPMD_PASSES},
            "blocks_added": {p: dict(self.added[p]) for p, _ in SPMD_PASSES},
            "llvm_failures": self.llvm_failures,
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="directory searched recursively for .ll files")
    ap.add_argument("--spmd-opt", type=pathlib.Path, default=DEFAULT_SPMD_OPT)
    ap.add_argument("--llvm-bin", type=pathlib.Path, default=DEFAULT_LLVM_BIN,
                    help="directory of opt and mlir-translate (LLVM 22)")
    ap.add_argument("--json", type=pathlib.Path, help="also write the results here")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per tool run")
    ap.add_argument("--list-imprecise", action="store_true",
                    help="list the imprecise items too (always in the JSON)")
    ap.add_argument("-v", "--verbose", action="store_true", help="name each file as it goes")
    a = ap.parse_args()
    for tool in (a.spmd_opt, a.llvm_bin / "opt", a.llvm_bin / "mlir-translate"):
        if not os.access(tool, os.X_OK):
            sys.exit(f"llvm-suite-diff: {tool} is not an executable (cargo build --bins?)")
    m = Measure(a)
    m.all(a.dir)
    print(m.summary())
    print(m.lists(a.list_imprecise))
    if a.json:
        a.json.write_text(json.dumps(m.to_json(), indent=1) + "\n")


if __name__ == "__main__":
    main()
