//! Differential against LLVM's UniformityAnalysis, phi by phi, value by
//! value and branch by branch, on our own kernel files.
//!
//! Each `tests/uniformity-llvm/*.ll` file (our own, on the nvptx and amdgcn
//! triples: reducible and irreducible cycles, temporal divergence,
//! divergent exits, switches, calls, inline assembly, private and generic
//! memory, values in irreducible cycles entered divergently) goes through
//! `opt -passes='print<uniformity>'` and, imported with
//! `mlir-translate --import-llvm`, through spmd's uniformity analysis; see
//! [`crate::llvm_uniformity_diff`] for how items are matched.
//!
//! Verdicts compare as **agree**, **unsound** (spmd says uniform, LLVM
//! divergent: never allowed) or **imprecise** (spmd says divergent, LLVM
//! uniform: allowed only where [`KNOWN_IMPRECISE`] lists it with its
//! reason). Counts are printed per kind (`--nocapture`).

use crate::llvm_uniformity_diff::{compare_module, Item, Tally, What};
use std::path::Path;

/// Imprecisions spmd is allowed, with their reasons:
/// (file, function, block index, item, reason).
const KNOWN_IMPRECISE: &[(&str, &str, usize, What, &str)] = &[
    (FILE_IV, "rejoins_inside", 1, What::Value(0), REJOINS_INSIDE),
    (FILE_IV, "rejoins_inside", 4, What::Value(0), REJOINS_INSIDE),
    (FILE_IV, "rejoins_inside", 4, What::Value(1), REJOINS_INSIDE),
    (FILE_IV, "rejoins_inside", 4, What::Branch, REJOINS_INSIDE),
    (FILE_IV, "rejoins_inside", 5, What::Value(0), REJOINS_INSIDE),
    (FILE_IV, "rejoins_inside", 5, What::Value(1), REJOINS_INSIDE),
    (FILE_IV, "rejoins_inside", 5, What::Branch, REJOINS_INSIDE),
    (FILE_IV, "rejoins_inside", 6, What::Phi(0), REJOINS_INSIDE),
];

const FILE_IV: &str = "irreducible-values.ll";

/// Why spmd calls the values of `@rejoins_inside` divergent.
const REJOINS_INSIDE: &str = "the divergent branch inside the irreducible cycle (entered \
    uniformly) rejoins at a block that is no entry of it; LLVM keeps the cycle uniform when the \
    entry its DFS makes the header dominates the join, which depends on the block order (LLVM's \
    own p_header and t_header tests, one CFG in two orders, get opposite answers); spmd flags \
    the cycle whenever a divergent branch sends threads to two of its blocks, whatever the order";

fn known_imprecise(item: &Item) -> bool {
    KNOWN_IMPRECISE
        .iter()
        .any(|&(file, function, block, what, _)| {
            file == item.file
                && function == item.function
                && block == item.block
                && what == item.what
        })
}

#[test]
fn uniformity_agrees_with_llvm_phi_by_phi_value_by_value_and_branch_by_branch() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/uniformity-llvm");
    let mut files: Vec<_> = std::fs::read_dir(&directory)
        .expect("tests/uniformity-llvm exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut tally = Tally::default();
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).expect("readable .ll file");
        compare_module(&file, &text, &mut tally, &known_imprecise);
    }
    eprint!("{}", tally.summary("uniformity vs LLVM"));
    let problems: Vec<String> = tally
        .kinds()
        .iter()
        .flat_map(|(_, c)| {
            c.unsound.iter().map(|w| format!("unsound: {w}")).chain(
                c.unexplained
                    .iter()
                    .map(|w| format!("imprecise, not in KNOWN_IMPRECISE: {w}")),
            )
        })
        .collect();
    let stale: Vec<String> = KNOWN_IMPRECISE
        .iter()
        .filter(|&&(file, function, block, what, _)| {
            !tally.imprecise().any(|i| {
                i.file == file && i.function == function && i.block == block && i.what == what
            })
        })
        .map(|(file, function, block, what, _)| {
            format!("{file} @{function} block {block} {what:?}")
        })
        .collect();
    if !stale.is_empty() {
        eprintln!(
            "KNOWN_IMPRECISE entries that are precise now (remove them): {}",
            stale.join("; ")
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        tally.branches.agree > 20 && tally.phis.agree > 20 && tally.values.agree > 50,
        "the corpus should exercise every kind"
    );
}
