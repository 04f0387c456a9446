//! A random code-shaped CFG ([`realistic_cfg`]) printed as an MLIR
//! function, for measuring transforms on 1k..1M-block inputs.
//!
//! ```text
//! func.func @big(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) {
//!   cf.br ^bb0
//!   ^bbI: %cI = arith.cmpi slt, %t|%n, K : i32      (divergent|uniform)
//!         cf.cond_br %cI, ^bbA, ^bbB | cf.br ^bbA | cf.switch | return
//! ```
//!
//! Each branch is divergent (conditions on `%t`) with probability
//! `divergent_per_mille`/1000, uniform (on `%n`) otherwise.
//! [`thread_id_form`] gives the same function with `%t` read from the AMDGPU
//! thread id instead, for lowering to LLVM IR (`spmd_bench::llvm_ir`).

use crate::analysis::cfg::{
    random::{realistic_cfg, SplitMix64},
    BlockId, CfgGraph, Graph,
};
use std::fmt::Write;

/// The first line of every function [`random_function`] prints.
const SIGNATURE: &str = "func.func @big(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) {\n";

/// The MLIR text of a random `blocks`-block function, and its graph.
pub fn random_function(seed: u64, blocks: usize, divergent_per_mille: u64) -> (String, CfgGraph) {
    let mut rng = SplitMix64::new(seed);
    let graph = realistic_cfg(&mut rng, blocks.max(2));
    let text = function_text(&mut rng, &graph, divergent_per_mille);
    (text, graph)
}

/// Like [`random_function`], with extra loops: each block ending in a
/// plain jump becomes, with probability `loop_per_mille / 1000`, a
/// conditional branch whose second successor is one of the 40 blocks
/// before it — a back edge that closes a loop (irreducible when that block
/// does not dominate it). `realistic_cfg` alone has about 2% back edges;
/// `loop_per_mille = 250` brings that to about 10%.
pub fn random_function_with_loops(
    seed: u64,
    blocks: usize,
    divergent_per_mille: u64,
    loop_per_mille: u64,
) -> (String, CfgGraph) {
    let mut rng = SplitMix64::new(seed);
    let base = realistic_cfg(&mut rng, blocks.max(2));
    let mut edges = Vec::with_capacity(base.num_edges() + blocks / 4);
    for b in (0..base.num_blocks()).map(BlockId::new) {
        let successors = base.successors(b);
        edges.extend(successors.iter().map(|s| (b.as_u32(), s.as_u32())));
        if successors.len() == 1 && b.index() > 0 && rng.chance(loop_per_mille) {
            let back = b.index().saturating_sub(1 + rng.below(40) as usize);
            edges.push((b.as_u32(), back as u32));
        }
    }
    let graph = CfgGraph::from_edges(base.num_blocks(), base.entry(), &edges);
    let text = function_text(&mut rng, &graph, divergent_per_mille);
    (text, graph)
}

fn function_text(rng: &mut SplitMix64, graph: &CfgGraph, divergent_per_mille: u64) -> String {
    // A separate entry block, since the graph's block 0 may be a loop header
    // (MLIR's entry block cannot have predecessors).
    let mut text = format!("{SIGNATURE}  cf.br ^bb0\n");
    for index in 0..graph.num_blocks() {
        let block = BlockId::new(index);
        let _ = writeln!(text, "^bb{index}:");
        let source = if rng.chance(divergent_per_mille) {
            "%t"
        } else {
            "%n"
        };
        let successors = graph.successors(block);
        match successors {
            [] => text.push_str("  return\n"),
            [only] => {
                let _ = writeln!(text, "  cf.br ^bb{}", only.index());
            }
            [a, b] => {
                let _ = writeln!(
                    text,
                    "  %k{index} = arith.constant {} : i32",
                    rng.below(100)
                );
                let _ = writeln!(
                    text,
                    "  %c{index} = arith.cmpi slt, {source}, %k{index} : i32"
                );
                let _ = writeln!(
                    text,
                    "  cf.cond_br %c{index}, ^bb{}, ^bb{}",
                    a.index(),
                    b.index()
                );
            }
            [default, cases @ ..] => {
                let _ = write!(
                    text,
                    "  cf.switch {source} : i32, [\n    default: ^bb{}",
                    default.index()
                );
                for (value, case) in cases.iter().enumerate() {
                    let _ = write!(text, ",\n    {value}: ^bb{}", case.index());
                }
                text.push_str("\n  ]\n");
            }
        }
    }
    text.push_str("}\n");
    text
}

/// `text` from [`random_function`] with the divergent value `%t` computed by
/// `rocdl.workitem.id.x` (the AMDGPU thread id) in the entry block instead of
/// being a `spmd.divergent` argument; `%n` stays an argument. The CFG and
/// every other operation are unchanged. Lowered to LLVM IR this becomes a
/// call of `llvm.amdgcn.workitem.id.x`, which LLVM's uniformity analysis
/// knows to be divergent. `None` if `text` does not start with the signature
/// [`random_function`] prints.
pub fn thread_id_form(text: &str) -> Option<String> {
    let body = text.strip_prefix(SIGNATURE)?;
    Some(format!(
        "func.func @big(%n: i32 {{spmd.uniform}}) {{\n  %t = rocdl.workitem.id.x : i32\n{body}"
    ))
}
