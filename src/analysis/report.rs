//! Text report of a [`CfgAnalysis`], as printed by
//! `--spmd-print-cfg-analysis`. IR-independent: blocks are named by a
//! caller-supplied function, so the same report serves MLIR regions and
//! edge-list graphs in tests.
//!
//! Format (one line per block in region order, then the summaries):
//!
//! ```text
//! ^bb0: rpo=0 idom=none ipdom=^bb3 depth=0 cycle=none tags=[reachable]
//! ^bb1: rpo=1 idom=^bb0 ipdom=^bb3 depth=1 cycle=0 tags=[reachable, header, in-loop]
//! back-edges: ^bb2->^bb1
//! cycle 0: header=^bb1 entries=[^bb1] latches=[^bb2] exiting=[^bb2] exits=[^bb3] depth=1 parent=none reducible
//! irreducible: none
//! unreachable: none
//! ```
//!
//! `ipdom=exit` means the virtual exit post-dominates the block directly
//! (several returns, or an infinite loop connected to the virtual exit);
//! `ipdom=none` only appears for blocks unreachable from the entry.

use super::cfg::{BlockId, CfgAnalysis, CycleId, Graph};
use std::fmt::Write;

/// Renders the analysis of `graph` as text, naming blocks with `name`.
pub(crate) fn render_text<G: Graph + ?Sized>(
    graph: &G,
    analysis: &CfgAnalysis,
    name: &dyn Fn(BlockId) -> String,
) -> String {
    let mut out = String::new();
    for index in 0..graph.num_blocks() {
        render_block(&mut out, analysis, BlockId::new(index), name);
    }
    render_back_edges(&mut out, analysis, name);
    render_cycles(&mut out, analysis, name);
    render_irreducible(&mut out, analysis, name);
    let unreachable: Vec<BlockId> = (0..graph.num_blocks())
        .map(BlockId::new)
        .filter(|&b| analysis.tag(b).is_unreachable())
        .collect();
    let _ = writeln!(out, "unreachable: {}", list_or_none(&unreachable, name));
    out
}

fn render_block(
    out: &mut String,
    analysis: &CfgAnalysis,
    b: BlockId,
    name: &dyn Fn(BlockId) -> String,
) {
    let tag = analysis.tag(b);
    let rpo = tag.rpo.map_or("none".to_string(), |n| n.to_string());
    let idom = analysis
        .dominators()
        .idom(b)
        .map_or("none".to_string(), name);
    let post = analysis.post_dominators();
    let ipdom = if tag.is_unreachable() {
        "none".to_string()
    } else {
        match post.ipdom(b) {
            Some(p) => name(p),
            None => "exit".to_string(),
        }
    };
    let cycle = analysis
        .cycles()
        .innermost_cycle(b)
        .map_or("none".to_string(), |c| c.index().to_string());
    let tags: Vec<&str> = tag.flags.names().collect();
    let _ = writeln!(
        out,
        "{}: rpo={rpo} idom={idom} ipdom={ipdom} depth={} cycle={cycle} tags=[{}]",
        name(b),
        tag.loop_depth,
        tags.join(", ")
    );
}

fn render_back_edges(out: &mut String, analysis: &CfgAnalysis, name: &dyn Fn(BlockId) -> String) {
    let edges: Vec<String> = analysis
        .traversal()
        .back_edges()
        .iter()
        .map(|&(from, to)| format!("{}->{}", name(from), name(to)))
        .collect();
    let text = if edges.is_empty() {
        "none".to_string()
    } else {
        edges.join(" ")
    };
    let _ = writeln!(out, "back-edges: {text}");
}

fn render_cycles(out: &mut String, analysis: &CfgAnalysis, name: &dyn Fn(BlockId) -> String) {
    let forest = analysis.cycles();
    for c in forest.cycles() {
        let parent = forest
            .parent(c)
            .map_or("none".to_string(), |p: CycleId| p.index().to_string());
        let kind = if forest.is_reducible(c) {
            "reducible"
        } else {
            "irreducible"
        };
        let _ = writeln!(
            out,
            "cycle {}: header={} entries={} latches={} exiting={} exits={} depth={} parent={parent} {kind}",
            c.index(),
            name(forest.header(c)),
            bracketed(forest.entries(c), name),
            bracketed(forest.latches(c), name),
            bracketed(forest.exiting_blocks(c), name),
            bracketed(forest.exit_blocks(c), name),
            forest.depth(c),
        );
    }
}

fn render_irreducible(out: &mut String, analysis: &CfgAnalysis, name: &dyn Fn(BlockId) -> String) {
    let lines = analysis.irreducibility().diagnostics(name);
    if lines.is_empty() {
        let _ = writeln!(out, "irreducible: none");
    }
    for line in lines {
        let _ = writeln!(out, "irreducible: {line}");
    }
}

fn bracketed(blocks: &[BlockId], name: &dyn Fn(BlockId) -> String) -> String {
    let names: Vec<String> = blocks.iter().map(|&b| name(b)).collect();
    format!("[{}]", names.join(", "))
}

fn list_or_none(blocks: &[BlockId], name: &dyn Fn(BlockId) -> String) -> String {
    if blocks.is_empty() {
        return "none".to_string();
    }
    blocks
        .iter()
        .map(|&b| name(b))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::render_text;
    use crate::analysis::cfg::{BlockId, CfgAnalysis, CfgGraph};

    #[test]
    fn reports_a_loop_with_an_exit_and_an_unreachable_block() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3; 4 unreachable.
        let graph = CfgGraph::from_edges(
            5,
            BlockId::new(0),
            &[(0, 1), (1, 2), (2, 1), (2, 3), (4, 3)],
        );
        let analysis = CfgAnalysis::build(&graph);
        let text = render_text(&graph, &analysis, &|b| format!("b{}", b.index()));
        assert!(
            text.contains("b1: rpo=1 idom=b0 ipdom=b2 depth=1 cycle=0"),
            "{text}"
        );
        assert!(text.contains("back-edges: b2->b1"), "{text}");
        assert!(
            text.contains("cycle 0: header=b1 entries=[b1] latches=[b2] exiting=[b2] exits=[b3]"),
            "{text}"
        );
        assert!(text.contains("unreachable: b4"), "{text}");
        assert!(text.contains("b4: rpo=none idom=none ipdom=none"), "{text}");
    }
}
