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
    assert_eq!(
        analysis.num_blocks(),
        g.num_blocks(),
        "analysis computed on another graph"
    );
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
    let idom = a
        .dominators()
        .idom(b)
        .map_or("-".to_string(), |d| escape(&label(d)));
    let ipdom = a
        .post_dominators()
        .ipdom(b)
        .map_or("exit".to_string(), |d| escape(&label(d)));
    let mut text = format!(
        "rpo={rpo} idom={idom} ipdom={ipdom} depth={}",
        tag.loop_depth
    );
    let roles = [
        (BlockFlags::LOOP_HEADER, "header"),
        (BlockFlags::LATCH, "latch"),
        (BlockFlags::IRREDUCIBLE_ENTRY, "irreducible-entry"),
    ];
    let names: Vec<&str> = roles
        .iter()
        .filter(|(f, _)| tag.flags.contains(*f))
        .map(|(_, n)| *n)
        .collect();
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

/// How a block's branch behaves across the threads of a wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchLook {
    /// Threads may take different successors (red, bold border).
    Divergent,
    /// Every thread takes the same successor (blue border).
    Uniform,
}

/// What kind of block it is, as far as the transforms are concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockLook {
    /// A block of the input (a box).
    #[default]
    Plain,
    /// A Flow block, ending in `spmd.flow_br` (green diamond).
    Flow,
    /// A loop Flow block, `spmd.flow_br loop` (green double diamond).
    LoopFlow,
    /// A guard block of a hub or switch chain (yellow hexagon).
    Guard,
    /// Another inserted block, named by its kind (`rejoin`, `exit`,
    /// `tail`; yellow rounded box).
    Inserted(&'static str),
}

/// What the caller knows about one block beyond the CFG: its label (the
/// block's name; the picture adds `[guard]` or `[kind]` for inserted
/// blocks), its branch, its kind, the reconvergence markers it holds and the label of
/// each outgoing edge (in successor-slot order; missing ones are blank).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockView {
    /// The block's name as the caller spells it (e.g. `^bb3`); escaped for
    /// DOT when drawn.
    pub label: String,
    /// How its branch behaves across a wave; `None` (default border) for
    /// blocks with fewer than two successors or when uniformity is unknown.
    pub branch: Option<BranchLook>,
    /// The kind of block, which picks the node's shape and colour.
    pub look: BlockLook,
    /// Ids of the `spmd.reconvergence.head` markers in the block.
    pub heads: Vec<u64>,
    /// Ids of the `spmd.reconvergence.tail` markers in the block.
    pub tails: Vec<u64>,
    /// Label of each outgoing edge by successor slot (`T`/`F`, `case V`);
    /// missing or empty entries leave the edge unlabelled.
    pub edge_labels: Vec<String>,
}

/// One DOT graph for several CFGs: each becomes a `cluster` subgraph
/// (Graphviz draws them side by side in one picture), with an optional
/// legend. The look of every kind of block and edge:
///
/// | what | look |
/// |---|---|
/// | divergent branch | red bold border, `divergent` line |
/// | uniform branch (two or more successors) | blue border, `uniform` line |
/// | Flow block / loop Flow block | green diamond / green double diamond |
/// | guard block (hubs, switch chains) | yellow hexagon |
/// | other inserted block (rejoin, exit, tail) | yellow rounded box |
/// | loop header / irreducible-cycle entry | light blue / orange fill |
/// | unreachable block | grey, dashed |
/// | head/tail pair `N` | `head N` and `tail N` lines, purple dotted edge `rejoin N` |
/// | edge | labelled `T`/`F` (two-way), `default`/`case V` (switch) |
/// | back edge | dashed |
///
/// Output is deterministic: clusters in the order they were added, blocks
/// in index order, edges in successor-slot order.
#[derive(Default)]
pub struct DotDocument {
    out: String,
    clusters: usize,
}

impl DotDocument {
    /// An empty document.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `g`, with the annotations of `analysis` (computed on `g`) and
    /// one view per block, as a cluster labelled `name`.
    pub fn add_cluster<G: Graph + ?Sized>(
        &mut self,
        g: &G,
        analysis: &CfgAnalysis,
        name: &str,
        views: &[BlockView],
    ) {
        assert_eq!(
            analysis.num_blocks(),
            g.num_blocks(),
            "analysis computed on another graph"
        );
        assert_eq!(views.len(), g.num_blocks(), "one view per block");
        let c = self.clusters;
        self.clusters += 1;
        let out = &mut self.out;
        let _ = writeln!(out, "  subgraph \"cluster_{c}\" {{");
        let _ = writeln!(out, "    label=\"{}\";", escape(name));
        let label = |b: BlockId| views[b.index()].label.clone();
        for (i, view) in views.iter().enumerate().take(g.num_blocks()) {
            let b = BlockId::new(i);
            let kind = match view.look {
                BlockLook::Guard => " [guard]".to_string(),
                BlockLook::Inserted(kind) => format!(" [{kind}]"),
                _ => String::new(),
            };
            let mut text = format!(
                "{}{}\\n{}",
                escape(&view.label),
                escape(&kind),
                annotations(analysis, b, &label)
            );
            match view.branch {
                Some(BranchLook::Divergent) => text.push_str("\\ndivergent"),
                Some(BranchLook::Uniform) => text.push_str("\\nuniform"),
                None => {}
            }
            for id in &view.heads {
                let _ = write!(text, "\\nhead {id}");
            }
            for id in &view.tails {
                let _ = write!(text, "\\ntail {id}");
            }
            let _ = writeln!(
                out,
                "    c{c}_{b} [label=\"{text}\"{}];",
                node_style(analysis, b, view)
            );
        }
        out.push_str("  }\n");
        write_edges(out, c, g, analysis, views);
        write_rejoin_edges(out, c, views);
    }

    /// The DOT text: one `digraph` holding every cluster, and the legend if
    /// `legend` holds.
    pub fn finish(mut self, legend: bool) -> String {
        let mut text = String::from("digraph \"spmd\" {\n");
        text.push_str("  compound=true;\n  node [shape=box, fontname=\"Courier\", fontsize=10];\n");
        text.push_str("  edge [fontname=\"Courier\", fontsize=9];\n");
        text.push_str(&self.out);
        if legend {
            text.push_str(LEGEND);
        }
        text.push_str("}\n");
        self.out.clear();
        text
    }
}

/// The legend cluster: one sample per look, stacked by invisible edges.
const LEGEND: &str = r#"  subgraph "cluster_legend" {
    label="legend"; style=dashed; color=gray;
    node [fontsize=9];
    legend_divergent [label="divergent branch", color=red, penwidth=2.5];
    legend_uniform [label="uniform branch", color=blue, penwidth=1.5];
    legend_flow [label="Flow block", shape=diamond, style=filled, fillcolor=palegreen];
    legend_loop_flow [label="loop Flow block", shape=diamond, peripheries=2, style=filled, fillcolor=palegreen];
    legend_guard [label="guard block", shape=hexagon, style=filled, fillcolor=lightyellow];
    legend_inserted [label="inserted block\n(rejoin, exit, tail)", style="filled,rounded", fillcolor=lightyellow];
    legend_header [label="loop header", style=filled, fillcolor=lightblue];
    legend_irreducible [label="irreducible entry", style=filled, fillcolor=orange, penwidth=2];
    legend_unreachable [label="unreachable", color=gray, fontcolor=gray, style=dashed];
    legend_head [label="head N"];
    legend_tail [label="tail N"];
    legend_divergent -> legend_uniform -> legend_flow -> legend_loop_flow -> legend_guard -> legend_inserted -> legend_header -> legend_irreducible -> legend_unreachable -> legend_head [style=invis];
    legend_head -> legend_tail [style=dotted, color=purple, fontcolor=purple, label="rejoin N"];
    legend_tail -> legend_back [label="T", style=dashed];
    legend_back [label="edge T/F, case V;\nback edge dashed", shape=plaintext];
  }
"#;

/// The attributes of a node after its label.
fn node_style(a: &CfgAnalysis, b: BlockId, view: &BlockView) -> String {
    let tag = a.tag(b);
    let mut attributes: Vec<String> = Vec::new();
    let mut style: Vec<&str> = Vec::new();
    let fill = match view.look {
        BlockLook::Flow => {
            attributes.push("shape=diamond".into());
            Some("palegreen")
        }
        BlockLook::LoopFlow => {
            attributes.push("shape=diamond".into());
            attributes.push("peripheries=2".into());
            Some("palegreen")
        }
        BlockLook::Guard => {
            attributes.push("shape=hexagon".into());
            Some("lightyellow")
        }
        BlockLook::Inserted(_) => {
            style.push("rounded");
            Some("lightyellow")
        }
        BlockLook::Plain => None,
    };
    let fill = if tag.flags.contains(BlockFlags::IRREDUCIBLE_ENTRY) {
        Some("orange")
    } else if tag.is_loop_header() && fill.is_none() {
        Some("lightblue")
    } else {
        fill
    };
    if tag.is_unreachable() {
        attributes.push("color=gray".into());
        attributes.push("fontcolor=gray".into());
        style.push("dashed");
    } else {
        match view.branch {
            Some(BranchLook::Divergent) => {
                attributes.push("color=red".into());
                attributes.push("penwidth=2.5".into());
            }
            Some(BranchLook::Uniform) => {
                attributes.push("color=blue".into());
                attributes.push("penwidth=1.5".into());
            }
            None if tag.flags.contains(BlockFlags::IRREDUCIBLE_ENTRY) => {
                attributes.push("penwidth=2".into())
            }
            None => {}
        }
    }
    if let Some(color) = fill {
        style.insert(0, "filled");
        attributes.push(format!("fillcolor={color}"));
    }
    if !style.is_empty() {
        attributes.push(format!("style=\"{}\"", style.join(",")));
    }
    if attributes.is_empty() {
        String::new()
    } else {
        format!(", {}", attributes.join(", "))
    }
}

fn attribute_list(attributes: &[String]) -> String {
    if attributes.is_empty() {
        String::new()
    } else {
        format!(" [{}]", attributes.join(", "))
    }
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

/// The edges of cluster `c`: labelled per slot, gray when unreachable,
/// dashed when a back edge.
fn write_edges<G: Graph + ?Sized>(
    out: &mut String,
    c: usize,
    g: &G,
    analysis: &CfgAnalysis,
    views: &[BlockView],
) {
    for (i, view) in views.iter().enumerate().take(g.num_blocks()) {
        let b = BlockId::new(i);
        for (slot, &s) in g.successors(b).iter().enumerate() {
            let mut attributes = Vec::new();
            if let Some(text) = view.edge_labels.get(slot).filter(|t| !t.is_empty()) {
                attributes.push(format!("label=\"{}\"", escape(text)));
            }
            if !analysis.traversal().is_reachable(b) {
                attributes.push("color=gray".to_string());
            } else if analysis.traversal().is_back_edge(b, s) {
                attributes.push("style=dashed".to_string());
            }
            let _ = writeln!(
                out,
                "  c{c}_{b} -> c{c}_{s}{};",
                attribute_list(&attributes)
            );
        }
    }
}

/// Head/tail pairs of cluster `c`: the purple dotted edge does not shape
/// the layout.
fn write_rejoin_edges(out: &mut String, c: usize, views: &[BlockView]) {
    for (h, head) in views.iter().enumerate() {
        for id in &head.heads {
            for (t, tail) in views.iter().enumerate() {
                if tail.tails.contains(id) {
                    let _ = writeln!(
                        out,
                        "  c{c}_bb{h} -> c{c}_bb{t} [style=dotted, color=purple, fontcolor=purple, constraint=false, label=\"rejoin {id}\"];"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::CfgGraph;
    use super::*;

    #[test]
    fn document_has_one_cluster_per_graph_and_a_legend() {
        // 0 -> {1, 2} -> 3 (a divergent diamond), 2 is a Flow block.
        let g = CfgGraph::from_edges(4, BlockId::new(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let a = CfgAnalysis::build(&g);
        let mut views: Vec<BlockView> = (0..4)
            .map(|i| BlockView {
                label: format!("^bb{i}"),
                ..Default::default()
            })
            .collect();
        views[0].branch = Some(BranchLook::Divergent);
        views[0].heads = vec![7];
        views[0].edge_labels = vec!["T".into(), "F".into()];
        views[2].look = BlockLook::Flow;
        views[3].tails = vec![7];
        let mut doc = DotDocument::new();
        doc.add_cluster(&g, &a, "@f", &views);
        views[0].branch = Some(BranchLook::Uniform);
        views[0].heads.clear();
        views[2].look = BlockLook::Guard;
        doc.add_cluster(&g, &a, "@g \"q\"", &views);
        let dot = doc.finish(true);
        assert_eq!(dot.matches("digraph").count(), 1);
        assert!(dot.contains("subgraph \"cluster_0\" {\n    label=\"@f\";"));
        assert!(dot.contains("subgraph \"cluster_1\" {\n    label=\"@g \\\"q\\\"\";"));
        assert!(dot.contains("c0_bb0 [label=\"^bb0\\nrpo=0 idom=- ipdom=^bb3 depth=0\\ndivergent\\nhead 7\", color=red, penwidth=2.5];"));
        assert!(dot.contains("c0_bb2 [label=\"^bb2\\nrpo=1 idom=^bb0 ipdom=^bb3 depth=0\", shape=diamond, fillcolor=palegreen, style=\"filled\"];"));
        assert!(dot.contains("c1_bb2 [label=\"^bb2 [guard]\\nrpo=1 idom=^bb0 ipdom=^bb3 depth=0\", shape=hexagon, fillcolor=lightyellow, style=\"filled\"];"));
        assert!(dot.contains("c1_bb0 [label=\"^bb0\\nrpo=0 idom=- ipdom=^bb3 depth=0\\nuniform\", color=blue, penwidth=1.5];"));
        assert!(
            dot.contains("  c0_bb0 -> c0_bb1 [label=\"T\"];\n  c0_bb0 -> c0_bb2 [label=\"F\"];")
        );
        assert!(dot.contains("c0_bb0 -> c0_bb3 [style=dotted, color=purple, fontcolor=purple, constraint=false, label=\"rejoin 7\"];"));
        assert!(
            !dot.contains("c1_bb0 -> c1_bb3"),
            "no head in the second cluster"
        );
        assert!(dot.contains("cluster_legend"));
        assert!(!DotDocument::new().finish(false).contains("legend"));
    }

    #[test]
    fn escapes_labels() {
        assert_eq!(escape("a\"b\\c\nd\re\tf"), "a\\\"b\\\\c\\nde f");
    }

    #[test]
    fn renders_seed_000_irreducible_example() {
        // Entry(0) -> A(1), Entry -> B(2), A -> B, B -> C(3), C -> A; 4 dead.
        let g = CfgGraph::from_edges(
            5,
            BlockId::new(0),
            &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 1), (4, 3)],
        );
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
        assert_eq!(
            render_dot(&g, &a, "f", &|b| names[b.index()].to_string()),
            dot
        );
    }
}
