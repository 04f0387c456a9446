//! [`graph_core`]: spmd-graph's fast analyses against reference twins and
//! brute-force definitions on one arbitrary CFG.
//!
//! The oracles are [`spmd_graph::checks`], the same brute-force definitions
//! `spmd-graph`'s own property tests use: the Cooper–Harvey–Kennedy
//! reference dominators on the graph and on its reverse with the virtual
//! exit, dominance by deleting a block, the cycle forest by nested strongly
//! connected components, reducibility by T1/T2 reduction. This target adds
//! what a random generator cannot: arbitrary graphs, stale state across
//! recomputation, the standalone builds, the builder and DFS roots.

// Brute-force oracles index several per-block arrays with one loop index.
#![allow(clippy::needless_range_loop)]

use crate::cfg_input::FuzzCfg;
use arbitrary::{Arbitrary, Unstructured};
use spmd_graph::checks::{check_all, reach, succ_fn};
use spmd_graph::{
    render_dot, BlockId, CfgAnalysis, CfgBuilder, CfgGraph, CycleForest, CycleId, DominatorTree,
    Graph, PostDominatorTree, Traversal,
};

/// Builds an arbitrary CFG from `data` and checks every analysis of
/// `spmd-graph` on it against its reference twin or a brute-force
/// definition; panics on the first disagreement.
///
/// Also checks that an analysis object first computed on a second
/// arbitrary graph and then recomputed on this one agrees with a fresh
/// one (no stale state), that the standalone `build`s agree with
/// [`CfgAnalysis`], that [`CfgBuilder`] builds the same graph as
/// [`CfgGraph::from_edges`], and that a DFS from an arbitrary root reaches
/// exactly the blocks reachable from it.
pub fn graph_core(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(cfg) = FuzzCfg::arbitrary(&mut u) else {
        return;
    };
    let previous = FuzzCfg::arbitrary(&mut u).ok();
    let root: usize = u.int_in_range(0..=cfg.num_blocks() - 1).unwrap_or(0);
    let g = cfg.graph();

    let fresh = CfgAnalysis::build(&g);
    check_all(&g, &fresh);

    let mut reused = CfgAnalysis::new();
    if let Some(previous) = previous {
        reused.compute(&previous.graph());
    }
    reused.compute(&g);
    assert_eq!(
        Summary::of(&g, &reused),
        Summary::of(&g, &fresh),
        "a recomputed CfgAnalysis differs from a fresh one"
    );

    check_standalone_builds(&g, &fresh);
    check_builder(&cfg, &g);
    check_traversal_from(&g, b(root));
    let dot = render_dot(&g, &fresh, "fuzz", &|x| format!("bb{}", x.index()));
    assert!(dot.starts_with("digraph"), "DOT output:\n{dot}");
}

fn b(i: usize) -> BlockId {
    BlockId::new(i)
}

// ---------------------------------------------------------------------------
// Everything an analysis computes, to compare two computations.

#[derive(Debug, PartialEq, Eq)]
struct Summary {
    preorder: Vec<BlockId>,
    postorder: Vec<BlockId>,
    rpo: Vec<BlockId>,
    back_edges: Vec<(BlockId, BlockId)>,
    idom: Vec<Option<BlockId>>,
    ipdom: Vec<Option<BlockId>>,
    exits: Vec<BlockId>,
    extra_roots: Vec<BlockId>,
    cycles: Vec<CycleSummary>,
    innermost: Vec<Option<CycleId>>,
    irreducible: Vec<(CycleId, Vec<(BlockId, BlockId)>)>,
    tags: Vec<String>,
}

#[derive(Debug, PartialEq, Eq)]
struct CycleSummary {
    blocks: Vec<BlockId>,
    entries: Vec<BlockId>,
    latches: Vec<BlockId>,
    exiting: Vec<BlockId>,
    exits: Vec<BlockId>,
    parent: Option<CycleId>,
    children: Vec<CycleId>,
    depth: u32,
}

impl Summary {
    fn of(g: &CfgGraph, a: &CfgAnalysis) -> Self {
        let n = g.num_blocks();
        let (t, d, p) = (a.traversal(), a.dominators(), a.post_dominators());
        Self {
            preorder: t.preorder().to_vec(),
            postorder: t.postorder().to_vec(),
            rpo: t.rpo().to_vec(),
            back_edges: t.back_edges().to_vec(),
            idom: (0..n).map(|x| d.idom(b(x))).collect(),
            ipdom: (0..n).map(|x| p.ipdom(b(x))).collect(),
            exits: p.exits().to_vec(),
            extra_roots: p.extra_roots().to_vec(),
            cycles: cycle_summaries(a.cycles()),
            innermost: (0..n).map(|x| a.cycles().innermost_cycle(b(x))).collect(),
            irreducible: a
                .irreducibility()
                .cycles()
                .map(|c| (c.cycle, c.offending_back_edges.to_vec()))
                .collect(),
            tags: (0..n).map(|x| format!("{:?}", a.tag(b(x)))).collect(),
        }
    }
}

fn cycle_summaries(f: &CycleForest) -> Vec<CycleSummary> {
    f.cycles()
        .map(|c| CycleSummary {
            blocks: f.blocks(c).to_vec(),
            entries: f.entries(c).to_vec(),
            latches: f.latches(c).to_vec(),
            exiting: f.exiting_blocks(c).to_vec(),
            exits: f.exit_blocks(c).to_vec(),
            parent: f.parent(c),
            children: f.children(c).to_vec(),
            depth: f.depth(c),
        })
        .collect()
}

/// The standalone `build`s of each analysis agree with [`CfgAnalysis`].
fn check_standalone_builds(g: &CfgGraph, a: &CfgAnalysis) {
    let n = g.num_blocks();
    let t = Traversal::build(g);
    assert_eq!(t.rpo(), a.traversal().rpo(), "Traversal::build");
    assert_eq!(t.preorder(), a.traversal().preorder(), "Traversal::build");
    let d = DominatorTree::build(g);
    let p = PostDominatorTree::build(g);
    for x in (0..n).map(b) {
        assert_eq!(d.idom(x), a.dominators().idom(x), "DominatorTree::build");
        assert_eq!(
            p.ipdom(x),
            a.post_dominators().ipdom(x),
            "PostDominatorTree::build"
        );
    }
    let f = CycleForest::build(g);
    assert_eq!(
        cycle_summaries(&f),
        cycle_summaries(a.cycles()),
        "CycleForest::build"
    );
}

/// [`CfgBuilder`] builds the graph [`CfgGraph::from_edges`] does.
fn check_builder(cfg: &FuzzCfg, g: &CfgGraph) {
    let mut builder = CfgBuilder::new();
    builder.set_num_blocks(cfg.num_blocks());
    builder.set_entry(b(0));
    for (from, to) in cfg.edges() {
        builder.add_edge(b(from as usize), b(to as usize));
    }
    let built = builder.finish();
    assert_eq!(built.num_blocks(), g.num_blocks());
    for x in (0..g.num_blocks()).map(b) {
        assert_eq!(
            built.successors(x),
            g.successors(x),
            "CfgBuilder successors"
        );
        assert_eq!(
            built.predecessors(x),
            g.predecessors(x),
            "CfgBuilder predecessors"
        );
    }
}

/// [`Traversal::compute_from`] an arbitrary root reaches exactly the blocks
/// reachable from it, and its orders start and end at the root.
fn check_traversal_from(g: &CfgGraph, root: BlockId) {
    let n = g.num_blocks();
    let mut t = Traversal::new();
    t.compute_from(g, root);
    let all = |_: usize| true;
    let reachable = reach(n, root.index(), None, &all, &succ_fn(g));
    assert_eq!(t.root(), root);
    for x in 0..n {
        assert_eq!(t.is_reachable(b(x)), reachable[x], "from {root}: {x}");
    }
    assert_eq!(t.preorder().first(), Some(&root));
    assert_eq!(t.postorder().last(), Some(&root));
}
