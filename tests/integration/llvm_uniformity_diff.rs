//! The differential against LLVM's UniformityAnalysis that
//! `uniformity_llvm.rs` (our hand-written corpus) and `irreducible_gate.rs`
//! (random irreducible cycle nests) share: run the LLVM tools, parse
//! `print<uniformity>`, run spmd's analysis on the imported module and
//! compare phi by phi, value by value and branch by branch.
//!
//! An LLVM IR module goes two ways:
//!
//! * `opt -passes='print<uniformity>'`, whose report lists, per block, every
//!   definition (phis first, then the other instructions, `DIVERGENT:` in
//!   front of the divergent ones) and the terminator;
//! * `mlir-translate --import-llvm`, then [`RegionUniformity`] on every
//!   `llvm.func` with a body.
//!
//! The importer keeps the block order and the phi order, so a phi is the
//! block argument at the same position. It materializes constants (and
//! global addresses) as ops at the start of the entry block, and turns each
//! other result-producing instruction into one op of the same block, in the
//! same order. So the k-th result-producing instruction of a block that is
//! not a phi is the k-th op of the block that has a result and is not one of
//! [`MATERIALIZED`]. The counts must match per block, and each pair must
//! agree on the opcode ([`same_opcode`]); a mismatch panics rather than
//! skipping values.
//!
//! Verdicts compare as **agree**, **unsound** (spmd says uniform, LLVM
//! divergent: never allowed) or **imprecise** (spmd says divergent, LLVM
//! uniform).

use crate::common::{context, parse};
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionLike};
use spmd::{cfg_regions, RegionUniformity, UniformityOptions};
use std::{
    io::Write,
    process::{Command, Stdio},
};

const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";

/// Ops the importer creates for constants and global addresses, at the
/// start of the entry block; they are no instruction of the LLVM function.
pub(crate) const MATERIALIZED: &[&str] = &[
    "llvm.mlir.constant",
    "llvm.mlir.poison",
    "llvm.mlir.undef",
    "llvm.mlir.zero",
    "llvm.mlir.addressof",
];

/// What an item of a block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum What {
    /// The i-th phi of the block.
    Phi(usize),
    /// The i-th result-producing instruction of the block that is not a phi.
    Value(usize),
    /// The block's conditional terminator (`br i1` or `switch`).
    Branch,
}

/// One compared item.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Item {
    pub file: String,
    pub function: String,
    pub block: usize,
    pub what: What,
}

impl std::fmt::Display for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} @{} block {} ", self.file, self.function, self.block)?;
        match self.what {
            What::Phi(i) => write!(f, "phi {i}"),
            What::Value(i) => write!(f, "value {i}"),
            What::Branch => write!(f, "branch"),
        }
    }
}

/// One block's verdicts as LLVM prints them.
#[derive(Debug, Default)]
struct BlockVerdicts {
    phis: Vec<bool>,
    /// (the instruction's text, divergent) for each non-phi definition
    /// with a result.
    values: Vec<(String, bool)>,
    /// The conditional terminator's divergence, if the block has one.
    branch: Option<bool>,
}

/// One function's verdicts from LLVM's report. No blocks: LLVM printed
/// `ALL VALUES UNIFORM`.
#[derive(Debug, Default)]
struct Verdicts {
    blocks: Vec<BlockVerdicts>,
    /// LLVM lists a cycle under `CYCLES ASSUMED DIVERGENT`.
    assumed_divergent: bool,
}

/// Parses `opt -passes='print<uniformity>'` output into verdicts by
/// function name.
fn llvm_verdicts(report: &str) -> Vec<(String, Verdicts)> {
    let mut functions: Vec<(String, Verdicts)> = Vec::new();
    let mut section = "";
    for line in report.lines() {
        if let Some(rest) = line.strip_prefix("UniformityInfo for function '") {
            functions.push((rest.trim_end_matches("':").to_string(), Verdicts::default()));
            section = "";
            continue;
        }
        let Some((_, verdicts)) = functions.last_mut() else {
            continue;
        };
        match line.trim() {
            text if text.starts_with("BLOCK ") => {
                verdicts.blocks.push(BlockVerdicts::default());
                section = "";
            }
            "CYCLES ASSUMED DIVERGENT:" => verdicts.assumed_divergent = true,
            "DEFINITIONS" | "TERMINATORS" | "END BLOCK" => section = line.trim(),
            text => {
                let divergent = text.starts_with("DIVERGENT:");
                let instruction = text.trim_start_matches("DIVERGENT:").trim();
                let Some(block) = verdicts.blocks.last_mut() else {
                    continue;
                };
                if section == "DEFINITIONS" {
                    // Stores and void calls are listed too; they define
                    // nothing.
                    if !(instruction.starts_with('%') && instruction.contains(" = ")) {
                        continue;
                    }
                    if instruction.contains(" = phi ") {
                        block.phis.push(divergent);
                    } else {
                        block.values.push((instruction.to_string(), divergent));
                    }
                } else if section == "TERMINATORS"
                    && (instruction.starts_with("br i1") || instruction.starts_with("switch "))
                {
                    block.branch = Some(divergent);
                }
            }
        }
    }
    functions
}

/// Runs LLVM tool `tool` with `args`, feeding it `input` on stdin; its
/// stdout and stderr (`print<uniformity>` reports on stderr).
pub(crate) fn run_tool(tool: &str, args: &[&str], input: &str) -> String {
    let mut child = Command::new(format!("{LLVM_BIN}/{tool}"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot run {tool}: {error} (run scripts/setup.sh)"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let output = std::thread::scope(|scope| {
        scope.spawn(move || {
            stdin
                .write_all(input.as_bytes())
                .expect("write the tool's input")
        });
        child.wait_with_output().expect("wait for the tool")
    });
    assert!(
        output.status.success(),
        "{tool} {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

/// `mlir-translate --import-llvm` of LLVM IR text.
pub(crate) fn import_llvm(llvm_ir: &str) -> String {
    run_tool("mlir-translate", &["--import-llvm", "-"], llvm_ir)
}

/// The comparison of one kind of item.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub agree: usize,
    pub unsound: Vec<Item>,
    /// Imprecise and listed as allowed by the caller.
    pub imprecise: Vec<Item>,
    /// Imprecise and not listed.
    pub unexplained: Vec<Item>,
}

/// The comparison of every kind of item.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub phis: Counts,
    pub values: Counts,
    pub branches: Counts,
    /// Functions compared.
    pub functions: usize,
    /// Functions with a cycle LLVM assumes divergent.
    pub assumed_divergent: usize,
}

impl Tally {
    /// (kind name, counts) for each kind.
    pub fn kinds(&self) -> [(&'static str, &Counts); 3] {
        [
            ("phis", &self.phis),
            ("values", &self.values),
            ("branches", &self.branches),
        ]
    }

    /// Every unsound item.
    pub fn unsound(&self) -> impl Iterator<Item = &Item> {
        self.kinds().into_iter().flat_map(|(_, c)| c.unsound.iter())
    }

    /// Every imprecise item, listed as allowed or not.
    pub fn imprecise(&self) -> impl Iterator<Item = &Item> {
        self.kinds()
            .into_iter()
            .flat_map(|(_, c)| c.imprecise.iter().chain(&c.unexplained))
    }

    /// One line per kind: `what, values: N agree, N unsound, N imprecise
    /// (N of them unexplained)`.
    pub fn summary(&self, what: &str) -> String {
        self.kinds()
            .iter()
            .map(|(kind, c)| {
                format!(
                    "{what}, {kind}: {} agree, {} unsound, {} imprecise ({} of them unexplained)\n",
                    c.agree,
                    c.unsound.len(),
                    c.imprecise.len() + c.unexplained.len(),
                    c.unexplained.len()
                )
            })
            .collect()
    }

    fn counts(&mut self, what: What) -> &mut Counts {
        match what {
            What::Phi(_) => &mut self.phis,
            What::Value(_) => &mut self.values,
            What::Branch => &mut self.branches,
        }
    }

    fn record(&mut self, item: Item, ours: bool, llvm: bool, allowed: &dyn Fn(&Item) -> bool) {
        let counts = self.counts(item.what);
        match (ours, llvm) {
            (false, true) => counts.unsound.push(item),
            (true, false) if allowed(&item) => counts.imprecise.push(item),
            (true, false) => counts.unexplained.push(item),
            _ => counts.agree += 1,
        }
    }
}

/// The ops of `block` that stand for a result-producing LLVM instruction
/// other than a phi: those with a result, minus the materialized constants
/// and the terminator.
fn value_ops<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        if op.result_count() > 0 && !MATERIALIZED.contains(&name) && next.is_some() {
            ops.push(op);
        }
    }
    ops
}

/// Whether the MLIR op `name` is the import of the LLVM instruction `text`
/// (`%x = add nsw i32 %a, 1`). Panics on an instruction it does not know,
/// so that a new instruction in a test file extends the table rather than
/// matching anything.
fn same_opcode(text: &str, name: &str) -> bool {
    let after = text.split_once(" = ").map_or("", |(_, rest)| rest);
    let mut words = after
        .split_whitespace()
        .skip_while(|w| matches!(*w, "tail" | "musttail" | "notail"));
    let opcode = words.next().unwrap_or_default();
    match opcode {
        "call" => {
            name == "llvm.call"
                || name == "llvm.call_intrinsic"
                || name == "llvm.inline_asm"
                || name.starts_with("llvm.intr.")
                || name.starts_with("nvvm.")
                || name.starts_with("rocdl.")
        }
        "add" | "sub" | "mul" | "udiv" | "sdiv" | "urem" | "srem" | "and" | "or" | "xor"
        | "shl" | "lshr" | "ashr" | "fadd" | "fsub" | "fmul" | "fdiv" | "frem" | "fneg"
        | "icmp" | "fcmp" | "select" | "getelementptr" | "load" | "alloca" | "atomicrmw"
        | "cmpxchg" | "extractvalue" | "insertvalue" | "extractelement" | "insertelement"
        | "shufflevector" | "freeze" | "zext" | "sext" | "trunc" | "bitcast" | "ptrtoint"
        | "inttoptr" | "addrspacecast" | "fptrunc" | "fpext" | "fptoui" | "fptosi" | "uitofp"
        | "sitofp" | "va_arg" => name == format!("llvm.{opcode}"),
        _ => panic!(
            "same_opcode: unknown instruction `{text}` (imported as {name}); extend the table"
        ),
    }
}

/// LLVM's verdicts for a function it printed as `ALL VALUES UNIFORM`, in the
/// shape of `blocks`.
fn all_uniform(blocks: &[BlockRef<'_, '_>]) -> Verdicts {
    let blocks = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| {
            let phis = if index == 0 {
                0
            } else {
                block.argument_count()
            };
            let branch = block
                .terminator()
                .is_some_and(|t| t.successor_count() >= 2)
                .then_some(false);
            BlockVerdicts {
                phis: vec![false; phis],
                values: vec![(String::new(), false); value_ops(*block).len()],
                branch,
            }
        })
        .collect();
    Verdicts {
        blocks,
        assumed_divergent: false,
    }
}

/// Compares spmd's and LLVM's verdicts on every function of the LLVM IR
/// module `llvm_ir` (named `file` in the items) and records them in
/// `tally`. `allowed` says which imprecise items are expected.
pub(crate) fn compare_module(
    file: &str,
    llvm_ir: &str,
    tally: &mut Tally,
    allowed: &dyn Fn(&Item) -> bool,
) {
    let llvm = llvm_verdicts(&run_tool(
        "opt",
        &["-passes=print<uniformity>", "-disable-output", "-"],
        llvm_ir,
    ));
    let imported = import_llvm(llvm_ir);
    let context = context();
    let module = parse(&context, &imported);
    let regions = cfg_regions(module.as_operation());
    for (name, expected) in llvm {
        let label = format!("@{name}");
        let function = regions
            .iter()
            .find(|r| r.label == label)
            .unwrap_or_else(|| panic!("{file}: no {label} after import"));
        let uniformity = RegionUniformity::compute(
            function.owner,
            function.region,
            &UniformityOptions::default(),
        )
        .unwrap_or_else(|error| panic!("{file} {label}: {error}"));
        let blocks: Vec<BlockRef> =
            std::iter::successors(function.region.first_block(), |b| b.next_in_region()).collect();
        let (expected, check_opcodes) = if expected.blocks.is_empty() {
            (all_uniform(&blocks), false)
        } else {
            (expected, true)
        };
        assert_eq!(
            blocks.len(),
            expected.blocks.len(),
            "{file} {label}: the import changed the number of blocks"
        );
        tally.functions += 1;
        tally.assumed_divergent += usize::from(expected.assumed_divergent);
        for (index, (block, verdicts)) in blocks.iter().zip(&expected.blocks).enumerate() {
            let item = |what| Item {
                file: file.to_string(),
                function: name.clone(),
                block: index,
                what,
            };
            // The entry block's arguments are the function's, not phis.
            let first_phi = if index == 0 {
                block.argument_count()
            } else {
                0
            };
            assert_eq!(
                block.argument_count() - first_phi,
                verdicts.phis.len(),
                "{file} {label} block {index}: phis and block arguments differ"
            );
            for (position, &llvm_divergent) in verdicts.phis.iter().enumerate() {
                let ours =
                    uniformity.is_divergent(block.argument(first_phi + position).unwrap().into());
                tally.record(item(What::Phi(position)), ours, llvm_divergent, allowed);
            }
            let ops = value_ops(*block);
            assert_eq!(
                ops.len(),
                verdicts.values.len(),
                "{file} {label} block {index}: {} result-producing instructions besides phis in LLVM, \
                 {} ops with results besides constants after import:\nLLVM: {:#?}\nMLIR: {:#?}",
                verdicts.values.len(),
                ops.len(),
                verdicts.values.iter().map(|(t, _)| t).collect::<Vec<_>>(),
                ops.iter().map(|op| op.name().as_string_ref().as_str().unwrap_or_default().to_string()).collect::<Vec<_>>(),
            );
            for (position, (op, (text, llvm_divergent))) in
                ops.iter().zip(&verdicts.values).enumerate()
            {
                let op_name = op.name();
                let op_name = op_name.as_string_ref().as_str().unwrap_or_default();
                assert!(
                    !check_opcodes || same_opcode(text, op_name),
                    "{file} {label} block {index} value {position}: `{text}` does not match {op_name}"
                );
                assert_eq!(
                    op.result_count(),
                    1,
                    "{file} {label} block {index}: {op_name} has several results"
                );
                let result = op.result(0).unwrap();
                let ours = uniformity.is_divergent(result.into());
                tally.record(item(What::Value(position)), ours, *llvm_divergent, allowed);
            }
            if let Some(llvm_divergent) = verdicts.branch {
                let terminator = block.terminator().expect("a block ends with a terminator");
                assert!(
                    terminator.successor_count() >= 2,
                    "{file} {label} block {index}: not a branch after import"
                );
                let ours = uniformity.is_divergent_branch(*block);
                tally.record(item(What::Branch), ours, llvm_divergent, allowed);
            }
        }
    }
}
