//! Irreducibility detection by the back-edge/dominance rule, with
//! per-cycle reports for diagnostics.
//!
//! # Rule
//!
//! A CFG is reducible iff the target of every back edge dominates the
//! edge's source. A back edge `u -> h` whose target does not dominate its
//! source is *offending*: some path from the entry reaches `u` without
//! passing `h`, i.e. the cycle through `u` and `h` is entered somewhere
//! other than `h`.
//!
//! # Agreement with the cycle forest
//!
//! With the same DFS, the target `h` of any back edge is the header of a
//! cycle `C` of the [`CycleForest`] and the source lies in `C`. Then
//! `C` has more than one entry iff some back edge into `h` is offending:
//! * if `C`'s only entry is `h`, every path into `C` passes `h`, so `h`
//!   dominates all of `C` and no back edge into `h` offends;
//! * if `C` has another entry `e` (with a reachable outside predecessor,
//!   hence a path from the entry to `e` avoiding `h`), follow a path
//!   inside `C` from `e` to `h`; its last edge enters `h` from a block of
//!   `C` — a back edge, since all of `C` lies in `h`'s DFS subtree — whose
//!   source is reached without passing `h`: offending.
//!
//! So the offending back edges, grouped by target, name exactly the
//! irreducible cycles; the report adds each cycle's entry blocks.

use super::csr::Csr;
use super::cycles::{CycleForest, CycleId};
use super::dominators::DominatorTree;
use super::graph::BlockId;
use super::traversal::Traversal;

/// One irreducible cycle, as reported for diagnostics.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IrreducibleCycle<'a> {
    /// The cycle in the forest.
    pub cycle: CycleId,
    /// Its header (first block in DFS preorder; target of the back edges).
    pub header: BlockId,
    /// All entry blocks, header first (always at least two).
    pub entries: &'a [BlockId],
    /// Back edges into the header whose source the header does not
    /// dominate (one per terminator slot).
    pub offending_back_edges: &'a [(BlockId, BlockId)],
}

/// The first offending back edge in DFS examination order, if any: the
/// reject-early check a structurizer needs (`None` = reducible).
pub fn first_offending_back_edge(
    dfs: &Traversal,
    dom: &DominatorTree,
) -> Option<(BlockId, BlockId)> {
    dfs.back_edges()
        .iter()
        .copied()
        .find(|&(u, h)| !dom.dominates(h, u))
}

/// All irreducible cycles of a CFG, found by the back-edge rule.
///
/// Lifecycle: [`Irreducibility::compute`] (reusing buffers) after the
/// traversal, dominator tree and cycle forest of the same graph.
#[derive(Clone, Debug, Default)]
pub struct Irreducibility {
    cycles: Vec<CycleId>,
    edges_by_cycle: Csr<(BlockId, BlockId)>,
    pairs: Vec<(u32, (BlockId, BlockId))>,
    entries: Csr<BlockId>,
}

impl Irreducibility {
    /// An empty report (reducible).
    pub fn new() -> Self {
        Self::default()
    }

    /// Recomputes the report from analyses of one graph.
    pub fn compute(&mut self, dfs: &Traversal, dom: &DominatorTree, forest: &CycleForest) {
        self.pairs.clear();
        for &(u, h) in dfs.back_edges() {
            if !dom.dominates(h, u) {
                let c = forest
                    .innermost_cycle(h)
                    .expect("back-edge target heads a cycle");
                debug_assert_eq!(forest.header(c), h);
                self.pairs.push((c.index() as u32, (u, h)));
            }
        }
        self.edges_by_cycle
            .rebuild_by(forest.num_cycles(), &self.pairs, |p| p.0 as usize, |p| p.1);
        self.cycles.clear();
        self.entries.start();
        for c in forest.cycles() {
            if !self.edges_by_cycle.row(c.index()).is_empty() {
                self.cycles.push(c);
                self.entries.extend(forest.entries(c));
                self.entries.end_row();
            }
        }
    }

    /// Forgets the report (keeps capacity).
    pub fn clear(&mut self) {
        self.cycles.clear();
        self.edges_by_cycle.clear();
        self.entries.clear();
    }

    /// True if no back edge offends (the CFG is reducible).
    pub fn is_reducible(&self) -> bool {
        self.cycles.is_empty()
    }

    /// Number of irreducible cycles.
    pub fn len(&self) -> usize {
        self.cycles.len()
    }

    /// True if there is no irreducible cycle.
    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }

    /// The irreducible cycles, in cycle-forest preorder.
    pub fn cycles(&self) -> impl Iterator<Item = IrreducibleCycle<'_>> + '_ {
        self.cycles.iter().enumerate().map(move |(i, &c)| {
            let entries = self.entries.row(i);
            IrreducibleCycle {
                cycle: c,
                header: entries[0],
                entries,
                offending_back_edges: self.edges_by_cycle.row(c.index()),
            }
        })
    }

    /// One human-readable line per irreducible cycle, naming blocks with
    /// `name`, e.g. `irreducible cycle headed by A: entries A, B; back edge
    /// C -> A does not dominate its source`.
    pub fn diagnostics(&self, name: &dyn Fn(BlockId) -> String) -> Vec<String> {
        self.cycles().map(|c| describe(&c, name)).collect()
    }
}

fn describe(c: &IrreducibleCycle<'_>, name: &dyn Fn(BlockId) -> String) -> String {
    let entries: Vec<String> = c.entries.iter().map(|&e| name(e)).collect();
    let (u, h) = c.offending_back_edges[0];
    format!(
        "irreducible cycle headed by {}: entries {}; target of back edge {} -> {} does not dominate its source",
        name(c.header),
        entries.join(", "),
        name(u),
        name(h)
    )
}

#[cfg(test)]
mod tests {
    use super::super::graph::CfgGraph;
    use super::*;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    fn analyze(g: &CfgGraph) -> (Traversal, DominatorTree, CycleForest, Irreducibility) {
        let t = Traversal::build(g);
        let mut d = DominatorTree::new();
        d.compute(g, &t);
        let mut f = CycleForest::new();
        f.compute(g, &t);
        let mut irr = Irreducibility::new();
        irr.compute(&t, &d, &f);
        (t, d, f, irr)
    }

    #[test]
    fn seed_000_example_is_rejected_with_entries() {
        // Entry(0) -> A(1), Entry -> B(2), A -> B, B -> C(3), C -> A.
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 1)]);
        let (t, d, _, irr) = analyze(&g);
        assert_eq!(first_offending_back_edge(&t, &d), Some((b(3), b(1))));
        assert!(!irr.is_reducible());
        let reports: Vec<_> = irr.cycles().collect();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].entries, &[b(1), b(2)]);
        assert_eq!(reports[0].offending_back_edges, &[(b(3), b(1))]);
        let names = ["Entry", "A", "B", "C"];
        let msg = irr.diagnostics(&|x| names[x.index()].to_string());
        assert_eq!(
            msg,
            vec!["irreducible cycle headed by A: entries A, B; target of back edge C -> A does not dominate its source"]
        );
    }

    #[test]
    fn natural_loop_is_reducible() {
        let g = CfgGraph::from_edges(3, b(0), &[(0, 1), (1, 1), (1, 2)]);
        let (t, d, _, irr) = analyze(&g);
        assert_eq!(first_offending_back_edge(&t, &d), None);
        assert!(irr.is_reducible() && irr.is_empty());
        assert_eq!(irr.len(), 0);
    }
}
