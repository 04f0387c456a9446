//! Differential against LLVM's UniformityAnalysis, branch by branch and
//! phi by phi.
//!
//! Each `tests/uniformity-llvm/*.ll` kernel file (our own, on the nvptx and
//! amdgcn triples: reducible and irreducible cycles, temporal divergence,
//! divergent exits, switches, calls, inline assembly, private and generic
//! memory) goes two ways:
//!
//! * `opt -passes='print<uniformity>'`, whose report lists, per block, the
//!   divergent phis and the divergent terminator;
//! * `mlir-translate --import-llvm`, then spmd's uniformity analysis on
//!   every `llvm.func`, where a phi is a block argument (same block, same
//!   position: the importer keeps the block order and the phi order).
//!
//! Verdicts compare as **agree**, **unsound** (spmd says uniform, LLVM
//! divergent: never allowed) or **imprecise** (spmd says divergent, LLVM
//! uniform: allowed only where [`KNOWN_IMPRECISE`] lists it with its
//! reason). Counts are printed.

use crate::common::{context, parse};
use melior::ir::{block::BlockLike, operation::OperationLike, RegionLike};
use spmd::{
    analysis::region_uniformity::{RegionUniformity, UniformityOptions},
    ir::function_regions::cfg_regions,
};
use std::{path::Path, process::Command};

const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";

/// What one item (a phi, or a block's conditional terminator) is called.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Item {
    file: String,
    function: String,
    block: usize,
    /// `Some(i)`: the i-th phi of the block; `None`: its terminator.
    phi: Option<usize>,
}

/// Imprecisions spmd is allowed, with their reasons:
/// (file, function, block index, phi index or `None` for the branch).
const KNOWN_IMPRECISE: &[(&str, &str, usize, Option<usize>, &str)] = &[];

/// One function's verdicts from one side: for each block, the phis'
/// divergence and, for a conditional terminator, the branch's.
#[derive(Debug, Default)]
struct Verdicts {
    blocks: Vec<(Vec<bool>, Option<bool>)>,
}

/// Parses `opt -passes='print<uniformity>'` output into verdicts by
/// function name.
fn llvm_verdicts(report: &str) -> Vec<(String, Verdicts)> {
    let mut functions: Vec<(String, Verdicts)> = Vec::new();
    let mut section = "";
    for line in report.lines() {
        if let Some(rest) = line.strip_prefix("UniformityInfo for function '") {
            functions.push((rest.trim_end_matches("':").to_string(), Verdicts::default()));
            continue;
        }
        let Some((_, verdicts)) = functions.last_mut() else {
            continue;
        };
        match line.trim() {
            text if text.starts_with("BLOCK ") => verdicts.blocks.push((Vec::new(), None)),
            "DEFINITIONS" | "TERMINATORS" | "END BLOCK" => section = line.trim(),
            text => {
                let divergent = text.starts_with("DIVERGENT:");
                let instruction = text.trim_start_matches("DIVERGENT:").trim();
                let Some(block) = verdicts.blocks.last_mut() else {
                    continue;
                };
                if section == "DEFINITIONS" && instruction.contains(" = phi ") {
                    block.0.push(divergent);
                } else if section == "TERMINATORS"
                    && (instruction.starts_with("br i1") || instruction.starts_with("switch "))
                {
                    block.1 = Some(divergent);
                }
            }
        }
    }
    functions
}

fn run(tool: &str, args: &[&str]) -> String {
    let output = Command::new(format!("{LLVM_BIN}/{tool}"))
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {tool}: {error} (run scripts/setup.sh)"));
    assert!(
        output.status.success(),
        "{tool} {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // `print<uniformity>` reports on stderr.
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

#[derive(Debug, Default)]
struct Counts {
    agree: usize,
    unsound: Vec<String>,
    imprecise: Vec<String>,
    unexplained: Vec<String>,
}

fn compare_file(path: &Path, counts_branches: &mut Counts, counts_phis: &mut Counts) {
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let path_text = path.to_string_lossy();
    let llvm = llvm_verdicts(&run(
        "opt",
        &["-passes=print<uniformity>", "-disable-output", &path_text],
    ));
    let imported = run("mlir-translate", &["--import-llvm", &path_text]);
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
        let blocks: Vec<_> = {
            let mut blocks = Vec::new();
            let mut next = function.region.first_block();
            while let Some(block) = next {
                blocks.push(block);
                next = block.next_in_region();
            }
            blocks
        };
        // LLVM prints no blocks for a function without divergence.
        let expected = if expected.blocks.is_empty() {
            all_uniform(&blocks)
        } else {
            expected
        };
        assert_eq!(
            blocks.len(),
            expected.blocks.len(),
            "{file} {label}: the import changed the number of blocks"
        );
        for (index, (block, (phis, branch))) in blocks.iter().zip(&expected.blocks).enumerate() {
            // The entry block's arguments are the function's, not phis.
            let first_phi = if index == 0 {
                block.argument_count()
            } else {
                0
            };
            assert_eq!(
                block.argument_count() - first_phi,
                phis.len(),
                "{file} {label} block {index}: phis and block arguments differ"
            );
            for (position, &llvm_divergent) in phis.iter().enumerate() {
                let ours =
                    uniformity.is_divergent(block.argument(first_phi + position).unwrap().into());
                let item = Item {
                    file: file.clone(),
                    function: name.clone(),
                    block: index,
                    phi: Some(position),
                };
                tally(counts_phis, &item, ours, llvm_divergent);
            }
            if let Some(llvm_divergent) = *branch {
                let terminator = block.terminator().expect("a block ends with a terminator");
                assert!(
                    terminator.successor_count() >= 2,
                    "{file} {label} block {index}: not a branch after import"
                );
                let ours = uniformity.is_divergent_branch(*block);
                let item = Item {
                    file: file.clone(),
                    function: name.clone(),
                    block: index,
                    phi: None,
                };
                tally(counts_branches, &item, ours, llvm_divergent);
            }
        }
    }
}

/// The verdicts of a function LLVM found nothing divergent in.
fn all_uniform(blocks: &[melior::ir::BlockRef<'_, '_>]) -> Verdicts {
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
            (vec![false; phis], branch)
        })
        .collect();
    Verdicts { blocks }
}

fn tally(counts: &mut Counts, item: &Item, ours: bool, llvm: bool) {
    let what = match item.phi {
        Some(phi) => format!(
            "{} @{} block {} phi {phi}",
            item.file, item.function, item.block
        ),
        None => format!(
            "{} @{} block {} branch",
            item.file, item.function, item.block
        ),
    };
    match (ours, llvm) {
        (false, true) => counts.unsound.push(what),
        (true, false) => {
            let known = KNOWN_IMPRECISE.iter().any(|&(f, func, b, p, _)| {
                f == item.file && func == item.function && b == item.block && p == item.phi
            });
            if known {
                counts.imprecise.push(what);
            } else {
                counts.unexplained.push(what);
            }
        }
        _ => counts.agree += 1,
    }
}

#[test]
fn uniformity_agrees_with_llvm_branch_by_branch_and_phi_by_phi() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/uniformity-llvm");
    let mut files: Vec<_> = std::fs::read_dir(&directory)
        .expect("tests/uniformity-llvm exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let (mut branches, mut phis) = (Counts::default(), Counts::default());
    for path in &files {
        compare_file(path, &mut branches, &mut phis);
    }
    for (what, counts) in [("branches", &branches), ("phis", &phis)] {
        eprintln!(
            "uniformity vs LLVM, {what}: {} agree, {} unsound, {} imprecise (known), {} imprecise (unexplained)",
            counts.agree,
            counts.unsound.len(),
            counts.imprecise.len(),
            counts.unexplained.len()
        );
    }
    let problems: Vec<String> = [&branches, &phis]
        .iter()
        .flat_map(|c| {
            c.unsound.iter().map(|w| format!("unsound: {w}")).chain(
                c.unexplained
                    .iter()
                    .map(|w| format!("imprecise, not in KNOWN_IMPRECISE: {w}")),
            )
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        branches.agree > 20 && phis.agree > 20,
        "the corpus should exercise both"
    );
}
