#!/usr/bin/env python3
"""check-unsafe.py: the project's rules for `unsafe`, checked on every .rs file.

  python3 scripts/check-unsafe.py          # exit 1 and a list if a rule is broken

1. `unsafe` appears only in the IR boundary layer (`src/ir/`), in the
   oracle's JIT (`crates/spmd-oracle/src/jit.rs`) and in the driver's MLIR
   session and its C++ bindings (`crates/spmd-compile/src/mlir.rs`,
   `ffi.rs`); everything else goes through their safe functions. The one
   exception: the IR-freeing edits of `ir::edit` (`FREEING`: erasing an
   operation, a block, a block argument or the unreachable blocks,
   replacing a Flow branch, running the folders) are
   `unsafe fn`s, because any other copy of a melior handle to what they
   destroy dangles and only the caller can tell that none is used again.
   Elsewhere an `unsafe { ... }` block may call them, and do nothing else:
   its body is one or more `edit::NAME(args)` calls (optionally
   `crate::ir::edit::`) whose arguments are plain names, fields, indexing
   and references (no calls, blocks, macros or dereferences, so no other
   unsafe operation can hide in it).
2. Every `unsafe` block, function, impl, extern block or attribute says why
   it is sound: a `// SAFETY:` comment on the same line or in the comment
   block right above it (a `# Safety` section in the doc comment of an
   `unsafe fn`, which states the caller's obligations, counts too).

Comments and string literals are ignored.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
ALLOWED = (
    "src/ir/",
    "crates/spmd-oracle/src/jit.rs",
    "crates/spmd-compile/src/mlir.rs",
    "crates/spmd-compile/src/ffi.rs",
)
UNSAFE = re.compile(r"\bunsafe\b")
# The IR-freeing `unsafe fn`s of `src/ir/edit.rs` that code outside ALLOWED
# may call (rule 1).
FREEING = (
    "erase_operation",
    "erase_block",
    "erase_argument",
    "replace_flow_branch",
    "fold_operations",
    "erase_unreachable_blocks",
)
FREEING_CALL = re.compile(
    r"(?:crate::ir::)?edit::(?:" + "|".join(FREEING) + r")\(\s*[\w.\[\]&\s,]*\)"
)


def code_part(line):
    """The line without string literals and without a trailing // comment."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def unsafe_block_body(lines, index, column):
    """The code inside the `unsafe { ... }` block that opens on line
    `index` at `column` (comments and strings removed), or None if the
    `unsafe` there does not open a block or the block does not close."""
    rest = code_part(lines[index])[column:]
    opened = re.match(r"unsafe\s*\{", rest)
    if not opened:
        return None
    body, depth = [], 1
    text, row = rest[opened.end():], index
    while True:
        for position, char in enumerate(text):
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    body.append(text[:position])
                    return " ".join(body)
        body.append(text)
        row += 1
        if row == len(lines):
            return None
        text = code_part(lines[row])


def only_frees(lines, index):
    """True if every `unsafe` on line `index` opens a block that does
    nothing but call the IR-freeing functions of `ir::edit` (rule 1)."""
    code = code_part(lines[index])
    for found in UNSAFE.finditer(code):
        body = unsafe_block_body(lines, index, found.start())
        if body is None:
            return False
        statements = [part.strip() for part in body.split(";")]
        calls = [part for part in statements if part]
        if not calls or not all(FREEING_CALL.fullmatch(call) for call in calls):
            return False
    return True


def justified(lines, index):
    """A SAFETY comment on the line, or above it within the same statement
    (the lines of a statement that rustfmt split), directly before it."""
    if "SAFETY" in lines[index]:
        return True
    above = index - 1
    while above >= 0 and index - above <= 12:
        text = lines[above].strip()
        if text.startswith("//") or text.startswith("#["):
            if "SAFETY:" in text or "# Safety" in text:
                return True
            above -= 1
            continue
        # The line above ends a statement or opens/closes a block: the
        # comment, if any, had to come before this statement.
        if not text or text.endswith((";", "{", "}")):
            return False
        above -= 1
    return False


def main():
    problems = []
    files = sorted(
        path
        for pattern in ("src/**/*.rs", "crates/**/*.rs", "tests/**/*.rs", "examples/**/*.rs")
        for path in ROOT.glob(pattern)
        if "/target/" not in str(path)
    )
    for path in files:
        relative = path.relative_to(ROOT).as_posix()
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            code = code_part(line)
            if not UNSAFE.search(code):
                continue
            # A function pointer type (`unsafe extern "C" fn(...)`) is not
            # an unsafe operation; the code that calls through it is.
            if not re.search(r"\bunsafe\b(?!\s+extern\s+\"\"\s+fn\s*\()(?!\s+fn\s*\()", code):
                continue
            where = f"{relative}:{index + 1}"
            if not relative.startswith(ALLOWED) and not only_frees(lines, index):
                problems.append(
                    f"{where}: `unsafe` outside src/ir/ and the oracle's JIT (only a block "
                    f"that just calls edit::{{{', '.join(FREEING)}}} may be there)"
                )
            if not justified(lines, index):
                problems.append(f"{where}: `unsafe` without a `// SAFETY:` comment")
    for problem in problems:
        print(problem)
    print(f"check-unsafe: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
