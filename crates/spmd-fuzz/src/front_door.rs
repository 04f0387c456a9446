//! [`textual_front_door`]: text, mostly mutated valid snippets, through the
//! parser and `spmd-opt`'s passes.

use crate::mlir::{self, assert_no_internal_error, fresh_context};
use arbitrary::{Arbitrary, Result, Unstructured};

/// The valid spmd/cf programs the mutations start from: divergent and
/// uniform branches, block arguments, an irreducible cycle, a divergent
/// switch, convergence tokens, Flow branches and reconvergence markers,
/// infinite loops, a GPU kernel, the LLVM dialect and nested regions.
pub const SNIPPETS: &[&str] = &[
    r#"func.func @irreducible(%t: i1 {spmd.divergent}, %u: i1 {spmd.divergent}, %n: i32 {spmd.uniform}) -> i32 {
  %c1 = arith.constant 1 : i32
  cf.cond_br %t, ^a(%n : i32), ^b(%c1 : i32)
^a(%x: i32):
  %x1 = arith.addi %x, %c1 : i32
  cf.cond_br %u, ^b(%x1 : i32), ^done(%x1 : i32)
^b(%y: i32):
  %y1 = arith.muli %y, %n : i32
  cf.cond_br %t, ^a(%y1 : i32), ^done(%y : i32)
^done(%r: i32):
  return %r : i32
}
"#,
    r#"func.func @switch_loop(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) -> i32 {
  %entry = spmd.convergence.entry : !spmd.token
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  cf.switch %t : i32, [
    default: ^header(%zero : i32),
    0: ^exit(%n : i32),
    1: ^header(%one : i32)
  ]
^header(%i: i32):
  %iter = spmd.convergence.loop %entry : !spmd.token
  %next = arith.addi %i, %one : i32
  %again = arith.cmpi slt, %next, %n : i32
  %odd = arith.cmpi eq, %t, %next : i32
  cf.cond_br %odd, ^exit(%i : i32), ^latch
^latch:
  cf.cond_br %again, ^header(%next : i32), ^exit(%next : i32)
^exit(%r: i32):
  return %r : i32
}
"#,
    r#"func.func @flow(%p: i1, %c: i1 {spmd.divergent}, %d: i1 {spmd.uniform}) {
  spmd.reconvergence.head 0
  cf.cond_br %c, ^then, ^join
^then:
  cf.cond_br %d, ^inner, ^join {spmd.uniformity = #spmd.uniformity<uniform>}
^inner:
  cf.br ^join
^join:
  spmd.reconvergence.tail 0
  cf.br ^header
^header:
  cf.br ^latch
^latch:
  spmd.flow_br loop %p, ^exit, ^header
^exit:
  return
}
"#,
    r#"func.func @no_return(%t: i1 {spmd.divergent}, %u: i1 {spmd.divergent}, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 7 : i32
  cf.br ^spin
^spin:
  memref.store %v, %out[%c0] : memref<?xi32>
  cf.cond_br %t, ^spin, ^other
^other:
  cf.cond_br %u, ^other, ^dead
^dead:
  cf.br ^dead
}
"#,
    r#"module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @divergent_if(%out: memref<?xi32>, %n: i32 {spmd.uniform}) kernel {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : i32
      %c16 = arith.constant 16 : index
      %has_work = arith.cmpi sgt, %n, %c0 : i32
      cf.cond_br %has_work, ^body, ^exit
    ^body:
      %low = arith.cmpi ult, %tid, %c16 : index
      cf.cond_br %low, ^then, ^else
    ^then:
      %t = arith.index_cast %tid : index to i32
      %sum = arith.addi %t, %n : i32
      memref.store %sum, %out[%tid] : memref<?xi32>
      cf.br ^join
    ^else:
      memref.store %n, %out[%tid] : memref<?xi32>
      cf.br ^join
    ^join:
      gpu.barrier
      cf.br ^exit
    ^exit:
      gpu.return
    }
  }
}
"#,
    r#"llvm.func @lanes(%t: i32 {spmd.divergent}, %p: !llvm.ptr) -> i32 {
  %c = llvm.mlir.constant(4 : i32) : i32
  %lt = llvm.icmp "slt" %t, %c : i32
  llvm.cond_br %lt, ^then, ^join(%c : i32)
^then:
  llvm.store %t, %p : i32, !llvm.ptr
  %s = llvm.add %t, %c : i32
  llvm.br ^join(%s : i32)
^join(%r: i32):
  llvm.return %r : i32
}
"#,
    r#"func.func private @sink(i32)
func.func @nested(%t: i32 {spmd.divergent}, %n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %b = arith.cmpi eq, %t, %c0 : i32
  %r = scf.if %b -> (i32) {
    func.call @sink(%t) : (i32) -> ()
    scf.yield %t : i32
  } else {
    scf.yield %n : i32
  }
  cf.cond_br %b, ^x, ^y(%r : i32)
^x:
  %w = arith.addi %r, %n : i32
  cf.br ^y(%w : i32)
^y(%z: i32):
  return %z : i32
}
"#,
];

/// Words the mutations insert or put in place of a word.
const DICTIONARY: &[&str] = &[
    "%t",
    "%n",
    "%c",
    "%p",
    "%r",
    "%x",
    "%entry",
    "%iter",
    "^a",
    "^b",
    "^x",
    "^y",
    "^bb0",
    "^exit",
    "^header",
    "^join",
    "^dead",
    "cf.br",
    "cf.cond_br",
    "cf.switch",
    "spmd.flow_br",
    "spmd.flow_br loop",
    "loop",
    "spmd.convergence.entry",
    "spmd.convergence.loop",
    "spmd.convergence.anchor",
    "spmd.reconvergence.head 0",
    "spmd.reconvergence.tail 0",
    "spmd.reconvergence.head 1",
    "{spmd.divergent}",
    "{spmd.uniform}",
    "{spmd.uniformity = #spmd.uniformity<uniform>}",
    "{spmd.uniformity = #spmd.uniformity<divergent>}",
    "!spmd.token",
    "!spmd.mask",
    "i1",
    "i32",
    "i64",
    "index",
    "return",
    "gpu.return",
    "llvm.return",
    "llvm.unreachable",
    "ub.poison",
    "gpu.barrier",
    "gpu.thread_id x",
    "kernel",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "=",
    "\n",
    "\n^x:\n  cf.br ^x\n",
    "\n^y:\n  return\n",
    "%q = arith.constant true\n",
    "%q = arith.constant 0 : i32\n",
];

/// Numbers the mutations put in place of a number.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "7",
    "64",
    "2147483647",
    "2147483648",
    "-9223372036854775808",
    "18446744073709551616",
    "0x7fffffff",
];

/// One edit of the text.
#[derive(Clone, Debug, Arbitrary)]
enum Mutation {
    /// Replace the word at the `at`-th word boundary by a dictionary word.
    ReplaceWord { at: u16, word: u8 },
    /// Insert a dictionary word at byte offset `at` (modulo the length).
    InsertWord { at: u16, word: u8 },
    /// Replace the `at`-th number by another.
    ReplaceNumber { at: u16, number: u8 },
    /// Delete line `line`.
    DeleteLine { line: u16 },
    /// Copy line `line` before line `to`.
    DuplicateLine { line: u16, to: u16 },
    /// Swap two lines.
    SwapLines { a: u16, b: u16 },
    /// Delete `len` bytes at `at`.
    DeleteBytes { at: u16, len: u8 },
    /// Overwrite the byte at `at`.
    SetByte { at: u16, byte: u8 },
}

/// The passes a pipeline step may run, by pipeline text.
const PASSES: &[&str] = &[
    "spmd-reconverge",
    "spmd-reconverge{ordering=bf selector-chain-length=0}",
    "spmd-reconverge{lane-branches=true}",
    "spmd-structurize{irreducible=fix}",
    "spmd-structurize{irreducible=reject skip-uniform-regions=true}",
    "spmd-fix-irreducible",
    "spmd-unify-loop-exits",
    "spmd-verify-reconverging",
    "spmd-verify-structured",
    "spmd-annotate-uniformity",
    "spmd-branch-fold",
    "spmd-predicate",
    "spmd-lower-to-cf",
    "spmd-lower-to-nvvm",
    "spmd-lower-to-rocdl",
];

/// One input of [`textual_front_door`].
#[derive(Clone, Debug)]
pub struct FrontDoorInput {
    /// The program text (no NUL bytes).
    pub source: String,
    /// The passes to run, one after the other (indices into the pass list).
    pub passes: Vec<usize>,
}

impl<'a> Arbitrary<'a> for FrontDoorInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let steps = u.int_in_range(1..=3)?;
        let passes = (0..steps)
            .map(|_| u.choose_index(PASSES.len()))
            .collect::<Result<Vec<usize>>>()?;
        let bytes = if u.ratio(1u8, 8u8)? {
            u.bytes(u.len())?.to_vec()
        } else {
            let mut bytes = SNIPPETS[u.choose_index(SNIPPETS.len())?]
                .as_bytes()
                .to_vec();
            for _ in 0..u.int_in_range(0..=4)? {
                apply(&mut bytes, &Mutation::arbitrary(u)?);
            }
            bytes
        };
        // melior's parser entry takes a C string.
        let source = String::from_utf8_lossy(&bytes).replace('\0', " ");
        Ok(Self { source, passes })
    }
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    let len = bytes.len().max(1);
    match *mutation {
        Mutation::ReplaceWord { at, word } => {
            let words = spans(bytes, |c| {
                c.is_ascii_alphanumeric() || b"%^._!#$-".contains(&c)
            });
            if let Some(&(start, end)) = nth(&words, at) {
                let word = DICTIONARY[word as usize % DICTIONARY.len()].as_bytes();
                bytes.splice(start..end, word.iter().copied());
            }
        }
        Mutation::InsertWord { at, word } => {
            let word = DICTIONARY[word as usize % DICTIONARY.len()].as_bytes();
            let at = (at as usize % len).min(bytes.len());
            bytes.splice(at..at, word.iter().copied());
        }
        Mutation::ReplaceNumber { at, number } => {
            let numbers = spans(bytes, |c| c.is_ascii_digit());
            if let Some(&(start, end)) = nth(&numbers, at) {
                let number = NUMBERS[number as usize % NUMBERS.len()].as_bytes();
                bytes.splice(start..end, number.iter().copied());
            }
        }
        Mutation::DeleteLine { line } => {
            let lines = line_spans(bytes);
            if let Some(&(start, end)) = nth(&lines, line) {
                bytes.drain(start..end);
            }
        }
        Mutation::DuplicateLine { line, to } => {
            let lines = line_spans(bytes);
            if let (Some(&(start, end)), Some(&(at, _))) = (nth(&lines, line), nth(&lines, to)) {
                let copy = bytes[start..end].to_vec();
                bytes.splice(at..at, copy);
            }
        }
        Mutation::SwapLines { a, b } => {
            let lines = line_spans(bytes);
            if let (Some(&x), Some(&y)) = (nth(&lines, a), nth(&lines, b)) {
                let ((s1, e1), (s2, e2)) = if x.0 <= y.0 { (x, y) } else { (y, x) };
                if e1 <= s2 {
                    let mut out = bytes[..s1].to_vec();
                    out.extend_from_slice(&bytes[s2..e2]);
                    out.extend_from_slice(&bytes[e1..s2]);
                    out.extend_from_slice(&bytes[s1..e1]);
                    out.extend_from_slice(&bytes[e2..]);
                    *bytes = out;
                }
            }
        }
        Mutation::DeleteBytes { at, len: n } => {
            let at = (at as usize % len).min(bytes.len());
            let end = (at + n as usize % 16 + 1).min(bytes.len());
            bytes.drain(at..end);
        }
        Mutation::SetByte { at, byte } => {
            if !bytes.is_empty() {
                let at = at as usize % bytes.len();
                bytes[at] = byte;
            }
        }
    }
}

/// The `at`-th element, modulo the length; `None` if empty.
fn nth<T>(items: &[T], at: u16) -> Option<&T> {
    (!items.is_empty()).then(|| &items[at as usize % items.len()])
}

/// Maximal runs of bytes for which `inside` holds, as `(start, end)`.
fn spans(bytes: &[u8], inside: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &c) in bytes.iter().enumerate() {
        match (inside(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, bytes.len()));
    }
    out
}

/// Each line with its newline, as `(start, end)`.
fn line_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push((start, bytes.len()));
    }
    out
}

/// Parses a program from `data` (raw bytes, or a few mutations of one of
/// [`SNIPPETS`]) in a fresh context and runs one to three of `spmd-opt`'s
/// passes on it, one pipeline each, without MLIR's verifier in between.
///
/// Property: nothing panics or aborts; either the parse fails, or each
/// pass succeeds and leaves IR that verifies, or a pass fails with at least
/// one error diagnostic (then the rest are skipped); no diagnostic is an
/// "internal error" (a panic the pass runner caught).
pub fn textual_front_door(data: &[u8]) {
    let Ok(input) = FrontDoorInput::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let context = fresh_context();
    let Ok(mut module) = mlir::parse(&context, &input.source) else {
        return;
    };
    if let Err(messages) = mlir::verify(&context, &module) {
        panic!(
            "the parser accepted IR that does not verify: {messages:#?}\n{}",
            input.source
        );
    }
    for (step, &pass) in input.passes.iter().enumerate() {
        let pass = PASSES[pass];
        let pipeline = format!("builtin.module({pass})");
        let before = mlir::text(&module);
        let what = || {
            format!(
                "step {step}, {pipeline}\ninput of the step:\n{before}\noriginal input:\n{}",
                input.source
            )
        };
        match mlir::run_pipeline(&context, &mut module, &pipeline) {
            Ok(()) => {
                if let Err(messages) = mlir::verify(&context, &module) {
                    panic!(
                        "{}\nsucceeded with IR that does not verify: {messages:#?}\n{}",
                        what(),
                        mlir::text(&module)
                    );
                }
            }
            Err(messages) => {
                assert_no_internal_error(&messages, &what);
                assert!(
                    messages.iter().any(|m| m.error),
                    "{}\nfailed without an error diagnostic: {messages:#?}",
                    what()
                );
                return;
            }
        }
    }
}
