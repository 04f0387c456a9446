//! The "never break the property" gate, on the IR-independent graph.
//!
//! Every CFG edit of branch folding is first applied to a [`PlannedCfg`]:
//! a copy of the current graph (successor slots per block) with per-block
//! labels (divergent branch, function exit, Flow block, Flow block holding
//! other operations). [`Gate::allows`] then runs every [`PropertyCheck`]
//! on the graph before and after the edit and refuses the edit if any
//! check reports more violations afterwards. For input that has a property
//! (zero violations) this means the output keeps it; for input that lacks
//! it, the pass never makes it worse.
//!
//! ```text
//!   current graph ---edit---> planned graph
//!        |                         |
//!   violations(before)        violations(after)     refuse if after > before
//! ```
//!
//! Checks are plain trait objects so that more properties plug in without
//! touching the pass: [`Reconverging`] (Definition 1, via
//! [`crate::analysis::reconverging::check_with_exits`]), [`Reducible`]
//! (irreducible cycles of the [`CycleForest`]) and [`FlowChains`] (Flow
//! blocks hold only their terminator and have at most one Flow successor,
//! rule 3 of the structured contract) and [`LoopTokens`] (a block holding
//! `spmd.convergence.loop` stays a cycle header). The structured-CFG checker of
//! `--spmd-verify-structured` is meant to become one more check here.
//!
//! Removed blocks stay in the planned graph as isolated nodes without
//! successors that are not exits: they are unreachable, have no branch and
//! therefore never count as violations.

use crate::analysis::{
    cfg::{BlockId, CfgGraph, CycleForest, Graph},
    reconverging,
};

/// Per-block facts the checks need besides the edges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BlockLabel {
    /// The block's terminator is a divergent branch.
    pub(crate) divergent: bool,
    /// The block ends the function normally (a return).
    pub(crate) exit: bool,
    /// The block is a Flow block (ends in `spmd.flow_br`).
    pub(crate) flow: bool,
    /// The block is a Flow block that holds operations besides its terminator.
    pub(crate) flow_impure: bool,
    /// The block holds `spmd.convergence.loop`, which must stay in a cycle header.
    pub(crate) loop_token: bool,
    /// The block ends in a conditional branch that is not marked
    /// `#spmd.uniformity<uniform>`: in a structured CFG it must reconverge.
    pub(crate) unmarked_branch: bool,
}

/// A CFG with labels, as edits will leave it.
#[derive(Clone, Debug)]
pub(crate) struct PlannedCfg {
    /// Successor slots of every block, in terminator order.
    pub(crate) successors: Vec<Vec<BlockId>>,
    /// Labels of every block.
    pub(crate) labels: Vec<BlockLabel>,
    /// The entry block.
    pub(crate) entry: BlockId,
}

impl PlannedCfg {
    /// A copy of `graph` with `labels`.
    pub(crate) fn new<G: Graph + ?Sized>(graph: &G, labels: Vec<BlockLabel>) -> Self {
        let successors = (0..graph.num_blocks())
            .map(|b| graph.successors(BlockId::new(b)).to_vec())
            .collect();
        Self {
            successors,
            labels,
            entry: graph.entry(),
        }
    }

    /// Makes slot `slot` of `block` point to `target`.
    pub(crate) fn redirect(&mut self, block: BlockId, slot: usize, target: BlockId) {
        self.successors[block.index()][slot] = target;
    }

    /// Replaces the terminator of `block` by one with `successors` and the
    /// labels of `label` (the block's other operations stay, so a loop
    /// token it holds is kept).
    pub(crate) fn set_terminator(
        &mut self,
        block: BlockId,
        successors: Vec<BlockId>,
        mut label: BlockLabel,
    ) {
        self.successors[block.index()] = successors;
        label.loop_token |= self.labels[block.index()].loop_token;
        self.labels[block.index()] = label;
    }

    /// Adds a block and returns its id.
    pub(crate) fn add_block(&mut self, successors: Vec<BlockId>, label: BlockLabel) -> BlockId {
        self.successors.push(successors);
        self.labels.push(label);
        BlockId::new(self.successors.len() - 1)
    }

    /// Turns `block` into an isolated node (a removed block).
    pub(crate) fn remove(&mut self, block: BlockId) {
        self.successors[block.index()].clear();
        self.labels[block.index()] = BlockLabel::default();
    }

    /// The graph as a [`CfgGraph`].
    pub(crate) fn graph(&self) -> CfgGraph {
        let edges: Vec<(u32, u32)> = self
            .successors
            .iter()
            .enumerate()
            .flat_map(|(b, s)| s.iter().map(move |t| (b as u32, t.as_u32())))
            .collect();
        CfgGraph::from_edges(self.successors.len(), self.entry, &edges)
    }
}

/// One property of a labelled CFG, measured as a number of violations.
pub(crate) trait PropertyCheck {
    /// Short name for statistics and messages.
    fn name(&self) -> &'static str;
    /// How many violations `cfg` (whose graph is `graph`) has.
    fn violations(&self, graph: &CfgGraph, cfg: &PlannedCfg) -> usize;
}

/// Definition 1: every divergent branch is two-way with a post-dominating successor.
pub(crate) struct Reconverging;

impl PropertyCheck for Reconverging {
    fn name(&self) -> &'static str {
        "reconverging"
    }
    fn violations(&self, graph: &CfgGraph, cfg: &PlannedCfg) -> usize {
        reconverging::check_with_exits(graph, &|b| cfg.labels[b.index()].divergent, &|b| {
            cfg.labels[b.index()].exit
        })
        .len()
    }
}

/// The structured contract's reconvergence rule: every conditional branch
/// not marked uniform has a post-dominating successor (rule 2 of
/// [`crate::analysis::structured`]). Only used when the input satisfies it,
/// i.e. after `--spmd-structurize`; reducibility and the Flow-chain shape
/// (the other rules) are separate checks.
pub(crate) struct StructuredBranches;

impl PropertyCheck for StructuredBranches {
    fn name(&self) -> &'static str {
        "structured"
    }
    fn violations(&self, graph: &CfgGraph, cfg: &PlannedCfg) -> usize {
        reconverging::check_with_exits(graph, &|b| cfg.labels[b.index()].unmarked_branch, &|b| {
            cfg.labels[b.index()].exit
        })
        .len()
    }
}

/// Every cycle has a single entry.
pub(crate) struct Reducible;

impl PropertyCheck for Reducible {
    fn name(&self) -> &'static str {
        "reducible"
    }
    fn violations(&self, graph: &CfgGraph, _: &PlannedCfg) -> usize {
        let forest = CycleForest::build(graph);
        forest.cycles().filter(|&c| !forest.is_reducible(c)).count()
    }
}

/// Flow blocks hold only their terminator and form linear chains.
pub(crate) struct FlowChains;

impl PropertyCheck for FlowChains {
    fn name(&self) -> &'static str {
        "flow-chains"
    }
    fn violations(&self, _: &CfgGraph, cfg: &PlannedCfg) -> usize {
        let mut count = 0;
        for (block, label) in cfg.labels.iter().enumerate() {
            if !label.flow {
                continue;
            }
            count += usize::from(label.flow_impure);
            let mut flow_successors: Vec<BlockId> = cfg.successors[block]
                .iter()
                .copied()
                .filter(|s| cfg.labels[s.index()].flow)
                .collect();
            flow_successors.sort();
            flow_successors.dedup();
            count += usize::from(flow_successors.len() > 1);
        }
        count
    }
}

/// Reachable blocks holding a loop convergence token stay cycle headers
/// (the op's verifier requires it). A block that an edit makes unreachable
/// does not count: OptimizeBranches deletes it, token and all, next.
pub(crate) struct LoopTokens;

impl PropertyCheck for LoopTokens {
    fn name(&self) -> &'static str {
        "loop-tokens"
    }
    fn violations(&self, graph: &CfgGraph, cfg: &PlannedCfg) -> usize {
        if !cfg.labels.iter().any(|l| l.loop_token) {
            return 0;
        }
        let forest = CycleForest::build(graph);
        let reachable = reachable_from_entry(graph);
        (0..cfg.labels.len())
            .filter(|&b| {
                cfg.labels[b].loop_token && reachable[b] && !forest.is_header(BlockId::new(b))
            })
            .count()
    }
}

/// Which blocks of `graph` the entry reaches.
pub(super) fn reachable_from_entry(graph: &CfgGraph) -> Vec<bool> {
    let mut seen = vec![false; graph.num_blocks()];
    let mut stack = vec![graph.entry()];
    seen[graph.entry().index()] = true;
    while let Some(block) = stack.pop() {
        for &next in graph.successors(block) {
            if !seen[next.index()] {
                seen[next.index()] = true;
                stack.push(next);
            }
        }
    }
    seen
}

/// A set of checks and the violation counts of the current graph.
pub(crate) struct Gate {
    checks: Vec<Box<dyn PropertyCheck>>,
    before: Vec<usize>,
}

impl Gate {
    /// The default checks: reconverging, reducible, Flow chains, loop tokens.
    pub(crate) fn default_checks() -> Vec<Box<dyn PropertyCheck>> {
        vec![
            Box::new(Reconverging),
            Box::new(Reducible),
            Box::new(FlowChains),
            Box::new(LoopTokens),
        ]
    }

    /// The default checks, plus [`StructuredBranches`] when `current`
    /// satisfies it (structurized input must stay structured; a merely
    /// reconverging input may leave uniform branches unstructured).
    pub(crate) fn checks_for(current: &PlannedCfg) -> Vec<Box<dyn PropertyCheck>> {
        let mut checks = Self::default_checks();
        if StructuredBranches.violations(&current.graph(), current) == 0 {
            checks.push(Box::new(StructuredBranches));
        }
        checks
    }

    /// Measures `current` with `checks`.
    pub(crate) fn new(checks: Vec<Box<dyn PropertyCheck>>, current: &PlannedCfg) -> Self {
        let graph = current.graph();
        let before = checks
            .iter()
            .map(|c| c.violations(&graph, current))
            .collect();
        Self { checks, before }
    }

    /// `Ok` with the violation counts of `planned` if it has no more
    /// violations than the baseline for every check; otherwise the name of
    /// the first check that got worse.
    pub(crate) fn allows(&self, planned: &PlannedCfg) -> Result<Vec<usize>, &'static str> {
        let graph = planned.graph();
        let mut counts = Vec::with_capacity(self.checks.len());
        for (check, &before) in self.checks.iter().zip(&self.before) {
            let after = check.violations(&graph, planned);
            if after > before {
                return Err(check.name());
            }
            counts.push(after);
        }
        Ok(counts)
    }

    /// Makes `counts` (from [`Gate::allows`] on an accepted plan) the
    /// baseline for the next edits.
    pub(crate) fn accept(&mut self, counts: Vec<usize>) {
        debug_assert_eq!(counts.len(), self.before.len());
        self.before = counts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    fn labelled(
        n: usize,
        edges: &[(u32, u32)],
        divergent: &[usize],
        exits: &[usize],
    ) -> PlannedCfg {
        let graph = CfgGraph::from_edges(n, b(0), edges);
        let labels = (0..n)
            .map(|i| BlockLabel {
                divergent: divergent.contains(&i),
                exit: exits.contains(&i),
                ..Default::default()
            })
            .collect();
        PlannedCfg::new(&graph, labels)
    }

    #[test]
    fn removing_the_flow_block_of_figure_2b_is_refused() {
        // A(0) -> C(2), Flow(4); C -> Flow; Flow -> B(1), D(3); B -> D.
        let mut cfg = labelled(
            5,
            &[(0, 2), (0, 4), (2, 4), (4, 1), (4, 3), (1, 3)],
            &[0, 4],
            &[3],
        );
        let gate = Gate::new(Gate::default_checks(), &cfg);
        assert!(gate.allows(&cfg).is_ok());
        // Threading A's edge past the Flow block straight to B gives figure 2a's shape.
        cfg.redirect(b(0), 1, b(1));
        assert_eq!(gate.allows(&cfg), Err("reconverging"));
    }

    #[test]
    fn merging_two_tails_into_a_shared_block_is_allowed() {
        // 0 -> 1, 2 (divergent); 1 -> 3; 2 -> 3: not reconverging, one violation.
        let mut cfg = labelled(4, &[(0, 1), (0, 2), (1, 3), (2, 3)], &[0], &[3]);
        let gate = Gate::new(Gate::default_checks(), &cfg);
        let shared = cfg.add_block(vec![b(3)], BlockLabel::default());
        cfg.redirect(b(1), 0, shared);
        cfg.redirect(b(2), 0, shared);
        assert!(gate.allows(&cfg).is_ok());
    }

    #[test]
    fn a_second_loop_entry_is_refused() {
        // 0 -> 1 -> 2 -> 1 (loop with header 1), 2 -> 3; 0 also -> 4 -> 3.
        let mut cfg = labelled(
            5,
            &[(0, 1), (0, 4), (1, 2), (2, 1), (2, 3), (4, 3)],
            &[],
            &[3],
        );
        let gate = Gate::new(Gate::default_checks(), &cfg);
        cfg.redirect(b(4), 0, b(2));
        assert_eq!(gate.allows(&cfg), Err("reducible"));
    }

    #[test]
    fn flow_blocks_stay_pure_and_linear() {
        let mut cfg = labelled(4, &[(0, 1), (0, 2), (1, 3), (2, 3)], &[], &[3]);
        cfg.labels[0].flow = true;
        let gate = Gate::new(Gate::default_checks(), &cfg);
        cfg.labels[0].flow_impure = true;
        assert_eq!(gate.allows(&cfg), Err("flow-chains"));
        cfg.labels[0].flow_impure = false;
        cfg.labels[1].flow = true;
        cfg.labels[2].flow = true;
        assert_eq!(gate.allows(&cfg), Err("flow-chains"));
    }

    #[test]
    fn a_loop_token_keeps_its_cycle() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3; block 1 holds the loop token.
        let mut cfg = labelled(4, &[(0, 1), (1, 2), (2, 1), (2, 3)], &[], &[3]);
        cfg.labels[1].loop_token = true;
        let gate = Gate::new(Gate::default_checks(), &cfg);
        cfg.set_terminator(b(2), vec![b(3)], BlockLabel::default());
        assert_eq!(gate.allows(&cfg), Err("loop-tokens"));
    }
}
