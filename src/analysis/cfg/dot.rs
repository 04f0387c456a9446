//! Graphviz DOT rendering of a CFG annotated with the analysis results.
//!
//! Each block becomes a box labelled with the caller's label plus
//! `rpo`, `idom`, `ipdom` (`exit` = the virtual exit) and loop `depth`,
//! then its header / latch / irreducible-entry tags. Styling:
//! loop headers are filled light blue, entries of irreducible cycles are
//! filled orange with a thick border, unreachable blocks are grey and
//! dashed; back edges are dashed. Output is deterministic: blocks in index
//! order, edges in successor-slot order (duplicates drawn as parallel
//! edges). Labels are escaped, so any string is safe.

use super::analysis::CfgAnalysis;
use super::graph::{BlockId, Graph};
use super::tags::BlockFlags;
use std::fmt::Write;

/// Renders `g` with the annotations of `analysis` (which must have been
/// computed on `g`) as a DOT digraph called `name`; `label` gives each
/// block's display text (for a slice of names, pass
/// `&|b| names[b.index()].clone()`).
pub fn render_dot<G: Graph + ?Sized>(
    g: &G,
    analysis: &CfgAnalysis,
    name: &str,
    label: &dyn Fn(BlockId) -> String,
) -> String {
    render_dot_with_flow(g, analysis, name, label, &|_| false)
}

/// Like [`render_dot`], and draws the blocks for which `is_flow` holds
/// (Flow blocks inserted by structurization or reconvergence) as green
/// diamonds.
pub fn render_dot_with_flow<G: Graph + ?Sized>(
    g: &G,
    analysis: &CfgAnalysis,
    name: &str,
    label: &dyn Fn(BlockId) -> String,
    is_flow: &dyn Fn(BlockId) -> bool,
) -> String {
    assert_eq!(analysis.num_blocks(), g.num_blocks(), "analysis computed on another graph");
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(name));
    out.push_str("  node [shape=box, fontname=\"Courier\", fontsize=10];\n");
    for i in 0..g.num_blocks() {
        write_node(&mut out, analysis, BlockId::new(i), label, is_flow);
    }
    for i in 0..g.num_blocks() {
        let b = BlockId::new(i);
        for &s in g.successors(b) {
            write_edge(&mut out, analysis, b, s);
        }
    }
    out.push_str("}\n");
    out
}

fn write_node(
    out: &mut String,
    a: &CfgAnalysis,
    b: BlockId,
    label: &dyn Fn(BlockId) -> String,
    is_flow: &dyn Fn(BlockId) -> bool,
) {
    let tag = a.tag(b);
    let text = format!("{}\\n{}", escape(&label(b)), annotations(a, b, label));
    let style = if tag.is_unreachable() {
        ", color=gray, fontcolor=gray, style=dashed"
    } else if tag.flags.contains(BlockFlags::IRREDUCIBLE_ENTRY) {
        ", style=filled, fillcolor=orange, penwidth=2"
    } else if is_flow(b) {
        ", shape=diamond, style=filled, fillcolor=palegreen"
    } else if tag.is_loop_header() {
        ", style=filled, fillcolor=lightblue"
    } else {
        ""
    };
    let _ = writeln!(out, "  {b} [label=\"{text}\"{style}];");
}

/// The analysis line(s) of a node label (already DOT-safe).
fn annotations(a: &CfgAnalysis, b: BlockId, label: &dyn Fn(BlockId) -> String) -> String {
    let tag = a.tag(b);
    let Some(rpo) = tag.rpo else {
        return "unreachable".to_string();
    };
    let idom = a.dominators().idom(b).map_or("-".to_string(), |d| escape(&label(d)));
    let ipdom = a.post_dominators().ipdom(b).map_or("exit".to_string(), |d| escape(&label(d)));
    let mut text = format!("rpo={rpo} idom={idom} ipdom={ipdom} depth={}", tag.loop_depth);
    let roles = [
        (BlockFlags::LOOP_HEADER, "header"),
        (BlockFlags::LATCH, "latch"),
        (BlockFlags::IRREDUCIBLE_ENTRY, "irreducible-entry"),
    ];
    let names: Vec<&str> = roles.iter().filter(|(f, _)| tag.flags.contains(*f)).map(|(_, n)| *n).collect();
    if !names.is_empty() {
        text.push_str("\\n");
        text.push_str(&names.join(" "));
    }
    text
}

fn write_edge(out: &mut String, a: &CfgAnalysis, from: BlockId, to: BlockId) {
    let style = if !a.traversal().is_reachable(from) {
        " [color=gray]"
    } else if a.traversal().is_back_edge(from, to) {
        " [style=dashed]"
    } else {
        ""
    };
    let _ = writeln!(out, "  {from} -> {to}{style};");
}

/// Escapes a string for use inside a double-quoted DOT string: backslash
/// and quote are escaped, line breaks become `\n`, other control
/// characters become spaces.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::graph::CfgGraph;
    use super::*;

    #[test]
    fn escapes_labels() {
        assert_eq!(escape("a\"b\\c\nd\re\tf"), "a\\\"b\\\\c\\nde f");
    }

    #[test]
    fn renders_seed_000_irreducible_example() {
        // Entry(0) -> A(1), Entry -> B(2), A -> B, B -> C(3), C -> A; 4 dead.
        let g = CfgGraph::from_edges(5, BlockId::new(0), &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 1), (4, 3)]);
        let a = CfgAnalysis::build(&g);
        let names = ["Entry", "A", "B", "C \"dead\"", "X"];
        let dot = render_dot(&g, &a, "f", &|b| names[b.index()].to_string());
        let expected = r#"digraph "f" {
  node [shape=box, fontname="Courier", fontsize=10];
  bb0 [label="Entry\nrpo=0 idom=- ipdom=B depth=0"];
  bb1 [label="A\nrpo=1 idom=Entry ipdom=B depth=1\nheader irreducible-entry", style=filled, fillcolor=orange, penwidth=2];
  bb2 [label="B\nrpo=2 idom=Entry ipdom=C \"dead\" depth=1\nirreducible-entry", style=filled, fillcolor=orange, penwidth=2];
  bb3 [label="C \"dead\"\nrpo=3 idom=B ipdom=exit depth=1\nlatch"];
  bb4 [label="X\nunreachable", color=gray, fontcolor=gray, style=dashed];
  bb0 -> bb1;
  bb0 -> bb2;
  bb1 -> bb2;
  bb2 -> bb3;
  bb3 -> bb1 [style=dashed];
  bb4 -> bb3 [color=gray];
}
"#;
        assert_eq!(dot, expected);
        assert_eq!(render_dot(&g, &a, "f", &|b| names[b.index()].to_string()), dot);
    }
}
