//! The graph-level planner of `--spmd-reconverge`: where to insert Flow
//! blocks and which successor slots to reroute so that a CFG becomes
//! *reconverging* (seed 004, Definition 1).
//!
//! The planner works on the IR-independent [`CfgGraph`] /
//! [`Graph`](crate::analysis::cfg::Graph) of the analysis core. Its output,
//! a [`ReconvergePlan`], is the contract with the IR applier, which
//! materializes Flow blocks (`spmd.flow_br`) and rewires terminators.
//!
//! # Input
//!
//! * a CFG whose entry is `g.entry()`;
//! * `divergent[b]`: `b`'s terminator is a divergent branch. Such a
//!   terminator must have exactly two successor slots (the caller lowers
//!   divergent switches to chains of two-way branches first), otherwise
//!   [`PlanError::DivergentNotTwoWay`];
//! * `exit`: the unique return block (the caller unifies returns), or
//!   `None` if the function never returns. Other blocks without
//!   successors are *dead ends* (`unreachable`, traps);
//! * an [`Ordering`] (seed 004's input orderings). Every ordering gives a
//!   correct plan; they only change its quality. Default: [`Ordering::Dfpd`].
//!
//! # What "reconverging" means here
//!
//! Definition 1: every divergent branch has exactly two successors and
//! one of them post-dominates it. Post-dominance is taken on `R`, the
//! blocks that are reachable from the entry **and can reach the exit**,
//! with the exit as the only sink:
//!
//! * paths that never terminate (infinite loops) and paths that end in a
//!   dead end impose nothing: a thread on such a path never returns, so
//!   there is nothing to reconverge with;
//! * a divergent branch with a successor outside `R`, or with both slots
//!   to one block, is trivially reconverging; divergent branches outside
//!   `R` are left alone (they never reach the return).
//!
//! Why dead ends do not get a virtual edge to the exit: with such edges
//! some CFGs have **no** reconverging form at all, e.g.
//!
//! ```text
//!        A (divergent)          A -> T1 -> (virtual) exit
//!       / \                     A -> T2 -> (virtual) exit
//!     T1   T2   (two traps)     only the exit post-dominates A, and no
//!                               Flow block can change that without
//!                               rewriting the traps' terminators.
//! ```
//!
//! The same happens for `if (d) assert(x); else assert(y);`. Ignoring
//! non-returning paths makes every input plannable and never costs a
//! Flow block for a trap. [`reconvergence_violations`] implements exactly
//! this definition; the planner verifies its own output with it.
//!
//! # Output: the plan
//!
//! * Flow blocks [`FlowId`]`(i)`, each a two-way branch on an `i1`:
//!   [`FlowNode`] `{ on_true, on_false, kind }`. A [`FlowKind::Plain`]
//!   Flow placed before block `k` sends destination `k` to
//!   `on_true = Block(k)` and everything else to `on_false`. A
//!   [`FlowKind::LoopLatch`] `{ header }` sits at the end of `header`'s
//!   cycle and follows StructurizeCFG: `on_false = Block(header)` is the
//!   back edge, `on_true` leaves the cycle. [`FlowNode::key`] is `k` /
//!   `header`; [`FlowNode::takes_true`] is the routing rule.
//! * [`ReconvergePlan::redirect`]`(block, slot)`: the new immediate target
//!   of each original successor slot (`Dest::Block(original)` if
//!   unchanged).
//! * Routing: an edge keeps its *destination* (its original target). A
//!   thread entering a Flow chain is steered by its destination alone;
//!   [`ReconvergePlan::route`] lists the `(flow, predicate)` steps until
//!   `Dest::Block(destination)`. [`ReconvergePlan::destinations`] lists
//!   what may pass through a Flow, [`ReconvergePlan::flow_predecessors`]
//!   its incoming slots.
//! * [`ReconvergePlan::order`]: the sweep order of `R`'s blocks and the
//!   Flows — a layout in which every forward edge goes forward, handy for
//!   the wave-level lowering.
//! * [`ReconvergePlan::apply_to_graph`] materializes the new graph
//!   (original blocks keep their ids, Flow `i` becomes block `n + i`,
//!   Flow slots are `[on_true, on_false]`).
//!
//! Applier hint: give every Flow an integer "destination" phi (or one
//! `i1` phi per later Flow); an incoming original slot passes its
//! destination as a constant, an incoming Flow side passes its own phi
//! through; the predicate is `dest == key` (`dest != header` for a latch).
//!
//! # Algorithm
//!
//! **1. Layout** ([`order`](self::order)): `R` is laid out so that every
//! cycle is contiguous with its header first, followed by an *end marker*
//! position; inside a level the members are in a topological order of the
//! forward edges, ties broken by the [`Ordering`]. Every edge then has an
//! *arrival* position later than its source: the target's position, or —
//! for a back edge into the header of a cycle containing the source —
//! that cycle's end marker. (So a back edge is "entered" at the end of
//! its loop; this is what lets `continue` and `break` reconverge without
//! Flow blocks.)
//!
//! **2. Sweep** ([`sweep`](self::sweep)): walk the positions in order.
//! A placed divergent node (original branch or Flow) is *armed* once its
//! earlier slot has arrived; its other slot is its *target*. When the
//! target arrives at position `p`, the node is *checked*: its region —
//! everything reachable from it through slots that have already arrived —
//! must leave only into the one node entered at `p` (the block at `p`, the
//! header for an end marker, or the Flow at `p`). If it does, that node
//! post-dominates the branch. If not, every open slot of the region is
//! rerouted into the Flow at `p` (one per position, shared by all checks
//! there), which then dispatches:
//!
//! ```text
//!   Figure 2a:  A -> B, A -> C, B -> D, C -> D; A divergent; order A C B D
//!
//!        A                A                  A is checked when B arrives:
//!       / \              / \                 its region {A, C} also leaves
//!      B   C    ==>     |   C                to D, so A's B-slot and C's
//!       \ /             |  /                 D-slot go to Flow0, placed
//!        D             Flow0                 before B: true -> B (key),
//!                       | \                  false -> D. Flow0 post-
//!                       B  |                 dominates A; B -> D makes D
//!                        \ |                 post-dominate Flow0.
//!                         D
//! ```
//!
//! A Flow's non-key side goes to the single remaining destination, or to
//! the Flow at the earliest remaining arrival (created on demand), which
//! inherits the destinations — a dispatch chain ordered by the layout. A
//! Flow at an end marker is the cycle's latch:
//!
//! ```text
//!   loop h { if (d) break to X; if (e) break to Y; }   d, e divergent
//!
//!     h <-------+          the first break's region (h's body through the
//!     |         |          closed back edge) leaves to X and Y: all exits
//!     d -> ...  |          and back edges of that region enter LoopLatch L
//!     |         |          at the end marker: L.false -> h, L.true -> Flow
//!     e -> ...  |          before X (true -> X, false -> Y).
//!     +-> L ----+
//!         |
//!         F -> X | Y
//! ```
//!
//! Regions are collected with a union-find that collapses every checked
//! region into the node it reconverged at, so each node is scanned by
//! about one check; checks at one position that meet are merged. The
//! whole sweep is near-linear: `O((n + E) * α + P log P)` plus the layout.
//!
//! **Why one sweep suffices (invariants).**
//!
//! * *I1 — closed slots are final*: rerouting only touches open slots
//!   (they arrive at `p` or later), and a rerouted slot enters the Flow
//!   at `p`, so it closes at `p`.
//! * *I2 — a checked node stays reconverging*: at its check, every slot
//!   leaving the region enters the node `N` entered at `p`; by I1 those
//!   slots and the region's internal (closed) slots never change again, and
//!   the exit is last in the layout, so every path from the branch to the
//!   exit passes `N`, one of its two successors.
//! * *I3 — every divergent node is checked*: arrivals are finite
//!   positions, Flows are divergent nodes created at or after the current
//!   position, and absorbing a divergent node's open slots makes it
//!   trivially reconverging (both slots enter the same Flow).
//! * *I4 — routing is exact*: a slot absorbed into a Flow adds its
//!   destination (or the pending Flow it went to) to the Flow's
//!   destinations; the key side goes straight to its block, the other
//!   side carries the rest forward. Routes are strictly increasing in the
//!   layout, so they terminate.
//!
//! The brief's fixed point ("repeat the sweep until verified") is thus
//! unnecessary; the planner still verifies its output
//! ([`PlanOptions::verify`], on by default) and returns
//! [`PlanError::Internal`] if that ever failed (the property tests assert
//! it never does). Inputs that are already reconverging are detected
//! first and yield an empty plan (`changed() == false`).
//!
//! # When uniform branches are rerouted
//!
//! A slot of a uniform (or non-divergent) block `u` is redirected only
//! when `u` lies in the region of a divergent node `B` at `B`'s check —
//! `u` is reachable from `B` without passing `B`'s later successor, i.e.
//! `u` executes while `B`'s threads are split — **and** that region does
//! not already leave through a single node: then every slot leaving the
//! region (including `u`'s) must enter the common Flow, or the Flow
//! would not post-dominate `B`. Uniform blocks outside every such region
//! (in particular outside "`B` .. `ipdom(B)`" for every divergent `B`)
//! keep all their slots; a CFG without divergent branches, or one that is
//! already reconverging, is never touched. Uniform loops around divergent
//! code keep their exits and back edges unless a divergent region spans
//! them (a divergent `break`/`continue`/`return` in them).
//!
//! # Edge cases
//!
//! * **Several exits / dead ends**: returns must be unified by the caller;
//!   dead ends and everything that cannot reach the exit are outside `R`:
//!   never rerouted, and slots into them are never rerouted either.
//! * **Infinite loops**: outside `R`, untouched (see above). A divergent
//!   branch that only *may* loop forever is inside `R` and handled.
//! * **Irreducible cycles**: no node splitting and no special case. The
//!   cycle forest picks a header; other entries are ordinary forward
//!   edges of the layout. When a region must be rerouted, its entries and
//!   exits go through the same Flow dispatch as anywhere else, so an
//!   irreducible cycle stays irreducible but reconverging:
//!
//! ```text
//!   E (divergent) -> A, B;  A -> B, A -> X;  B -> A, B -> X
//!
//!   E -> A | F;  A -> F, F (both slots);  F -> B | X;  B -> A | X
//!   F post-dominates E and X post-dominates F; {A, F, B} is still a
//!   two-entry cycle.
//! ```
//!
//! * **Self loops**: a self loop is a back edge of its own one-block
//!   cycle; `while (d) {}` on one block reconverges at its exit.
//! * **Duplicate successors**: a divergent branch with both slots to one
//!   block is trivially reconverging; slots are tracked individually, so a
//!   uniform switch with duplicate cases keeps unaffected slots.
//! * **Divergent loop exits, `continue outer`, early returns**: handled by
//!   arrivals at end markers, usually without any Flow (`if (d) return;`
//!   inside loops costs nothing: the exit post-dominates the branch).
//! * **No exit**: nothing terminates, the plan is empty.
//!
//! # Statistics
//!
//! [`PlanStats`]: Flows (and latches among them), rerouted slots, uniform
//! branches with a rerouted slot, region checks. [`quality_report`]
//! compares the orderings on a mixed corpus; [`bench::run_benchmark`]
//! times the planner against [`CfgAnalysis`](crate::analysis::cfg::CfgAnalysis).

pub mod bench;
pub mod corpus;
mod order;
mod quality;
mod sweep;
mod verify;

#[cfg(test)]
mod tests;

pub use quality::quality_report;
pub use verify::{is_reconverging, reconvergence_violations, Violation};

use crate::analysis::cfg::{BlockId, CfgGraph, CycleForest, Graph, Traversal};
use std::fmt;

/// The block orderings of seed 004 (see the `order` module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ordering {
    /// Depth-first: ready blocks by DFS preorder number.
    Df,
    /// Depth-first obeying post-dominance: a depth-first topological sort
    /// (a join is entered only after everything flowing into it).
    #[default]
    Dfpd,
    /// Breadth-first: ready blocks by BFS number.
    Bf,
    /// Reverse post-order.
    Rpot,
}

impl Ordering {
    /// All orderings, in a fixed order.
    pub const ALL: [Ordering; 4] = [Ordering::Df, Ordering::Dfpd, Ordering::Bf, Ordering::Rpot];

    /// The option spelling: `df`, `dfpd`, `bf`, `rpot`.
    pub fn name(self) -> &'static str {
        match self {
            Ordering::Df => "df",
            Ordering::Dfpd => "dfpd",
            Ordering::Bf => "bf",
            Ordering::Rpot => "rpot",
        }
    }

    /// Parses [`Ordering::name`] (case-insensitive).
    pub fn parse(s: &str) -> Option<Ordering> {
        Ordering::ALL.into_iter().find(|o| o.name().eq_ignore_ascii_case(s))
    }
}

/// Index of a Flow block in a [`ReconvergePlan`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(u32);

impl FlowId {
    /// The Flow with the given index.
    pub const fn new(index: usize) -> Self {
        assert!(index < u32::MAX as usize, "FlowId index out of range");
        FlowId(index as u32)
    }

    /// Its dense index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "flow{}", self.0)
    }
}

/// An immediate target: an original block or a Flow block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dest {
    /// An original block.
    Block(BlockId),
    /// A Flow block of the plan.
    Flow(FlowId),
}

impl fmt::Display for Dest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dest::Block(b) => write!(f, "{b}"),
            Dest::Flow(x) => write!(f, "{x}"),
        }
    }
}

/// What a Flow block is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FlowKind {
    /// A dispatch Flow placed before its key block: `true` enters the key
    /// block, `false` carries every other destination on.
    Plain,
    /// The latch of `header`'s cycle (StructurizeCFG convention): `false`
    /// is the back edge to `header`, `true` leaves the cycle.
    LoopLatch {
        /// The header of the cycle.
        header: BlockId,
    },
}

/// A Flow block: a two-way branch on an `i1` predicate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlowNode {
    /// Target when the predicate is true.
    pub on_true: Dest,
    /// Target when the predicate is false.
    pub on_false: Dest,
    /// Plain dispatch or loop latch.
    pub kind: FlowKind,
}

impl FlowNode {
    /// The destination this Flow singles out: the block it is placed
    /// before (`Plain`, reached by `true`) or the cycle header (`LoopLatch`,
    /// reached by `false`).
    pub fn key(&self) -> BlockId {
        match (self.kind, self.on_true) {
            (FlowKind::LoopLatch { header }, _) => header,
            (FlowKind::Plain, Dest::Block(k)) => k,
            (FlowKind::Plain, Dest::Flow(_)) => unreachable!("a Plain Flow's true side is its key block"),
        }
    }

    /// The predicate value a thread with final destination `d` takes here.
    pub fn takes_true(&self, d: BlockId) -> bool {
        match self.kind {
            FlowKind::Plain => d == self.key(),
            FlowKind::LoopLatch { header } => d != header,
        }
    }

    /// The target for predicate `value`.
    pub fn successor(&self, value: bool) -> Dest {
        if value {
            self.on_true
        } else {
            self.on_false
        }
    }
}

/// An edge into a Flow block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FlowSource {
    /// Successor slot `slot` of an original block.
    Slot {
        /// The block.
        block: BlockId,
        /// The slot index in its terminator.
        slot: u32,
    },
    /// The `value` side of another Flow.
    Flow {
        /// The Flow.
        flow: FlowId,
        /// Which side.
        value: bool,
    },
}

/// Planner options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanOptions {
    /// Tie-break of the layout.
    pub ordering: Ordering,
    /// Check Definition 1 on the result (one post-dominator tree); on by
    /// default.
    pub verify: bool,
    /// Return an empty plan when the input already is reconverging (one
    /// post-dominator tree); on by default. When off, the sweep may still
    /// insert Flows in rare loop shapes whose post-dominating successor is
    /// the one the layout enters first.
    pub keep_reconverging_input: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { ordering: Ordering::default(), verify: true, keep_reconverging_input: true }
    }
}

/// Planner statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanStats {
    /// Divergent branches of `R` with two different successors in `R`.
    pub divergent_branches: usize,
    /// Uniform branches of `R`: non-divergent blocks with at least two
    /// different successors in `R`.
    pub uniform_branches: usize,
    /// Flow blocks inserted.
    pub flows: usize,
    /// Of which loop latches.
    pub loop_latches: usize,
    /// Original successor slots whose immediate target changed.
    pub edges_rerouted: usize,
    /// Uniform branches (as counted above) with at least one rerouted slot.
    pub uniform_branches_rerouted: usize,
    /// Rerouted slots of non-divergent blocks (branches and jumps).
    pub uniform_slots_rerouted: usize,
    /// Region checks performed by the sweep.
    pub checks: usize,
    /// Divergent nodes accepted without a check because their earlier
    /// successor already post-dominates them (see module docs).
    pub natives: usize,
    /// Sweeps run: 1, or 2 if the first result with natives did not verify.
    pub rounds: usize,
}

impl PlanStats {
    /// Percentage of uniform branches that kept all their slots.
    pub fn uniform_preserved_percent(&self) -> f64 {
        if self.uniform_branches == 0 {
            100.0
        } else {
            100.0 * (self.uniform_branches - self.uniform_branches_rerouted) as f64 / self.uniform_branches as f64
        }
    }
}

/// Why no plan was produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// `divergent` does not have one entry per block.
    DivergenceLength {
        /// Number of blocks.
        expected: usize,
        /// Length given.
        got: usize,
    },
    /// A divergent block does not end in a two-way branch.
    DivergentNotTwoWay {
        /// The block.
        block: BlockId,
        /// Its number of successor slots.
        slots: usize,
    },
    /// The exit block id is out of range.
    ExitOutOfRange(BlockId),
    /// The exit block has successors (it must be the unified return).
    ExitHasSuccessors(BlockId),
    /// The planner's own verification failed: a bug.
    Internal(String),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::DivergenceLength { expected, got } => {
                write!(f, "divergence flags for {got} blocks, graph has {expected}")
            }
            PlanError::DivergentNotTwoWay { block, slots } => write!(
                f,
                "divergent {block} has {slots} successor slots; lower divergent switches to two-way branches first"
            ),
            PlanError::ExitOutOfRange(b) => write!(f, "exit {b} out of range"),
            PlanError::ExitHasSuccessors(b) => write!(f, "exit {b} has successors; it must be the unified return"),
            PlanError::Internal(msg) => write!(f, "internal planner error: {msg}"),
        }
    }
}

impl std::error::Error for PlanError {}

/// Ids of the materialized graph of [`ReconvergePlan::apply_to_graph`]:
/// original blocks keep their ids, Flow `i` is block `num_blocks + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeMap {
    num_blocks: usize,
    num_flows: usize,
}

impl NodeMap {
    /// Number of original blocks.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// Number of nodes of the materialized graph.
    pub fn len(&self) -> usize {
        self.num_blocks + self.num_flows
    }

    /// True if the materialized graph has no nodes (never: it has the entry).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What a materialized node is.
    pub fn node(&self, id: BlockId) -> Dest {
        if id.index() < self.num_blocks {
            Dest::Block(id)
        } else {
            Dest::Flow(FlowId::new(id.index() - self.num_blocks))
        }
    }

    /// The materialized id of a block or Flow.
    pub fn id(&self, d: Dest) -> BlockId {
        match d {
            Dest::Block(b) => b,
            Dest::Flow(f) => BlockId::new(self.num_blocks + f.index()),
        }
    }

    /// True if the materialized node is a Flow block.
    pub fn is_flow(&self, id: BlockId) -> bool {
        id.index() >= self.num_blocks
    }
}

/// The result of planning (see the module docs).
#[derive(Clone, Debug)]
pub struct ReconvergePlan {
    ordering: Ordering,
    /// Per block `b`: its slots are `slot_base[b]..slot_base[b + 1]`.
    slot_base: Vec<u32>,
    original: Vec<BlockId>,
    targets: Vec<Dest>,
    flows: Vec<FlowNode>,
    dest_start: Vec<u32>,
    dests: Vec<BlockId>,
    pred_start: Vec<u32>,
    preds: Vec<FlowSource>,
    order: Vec<Dest>,
    stats: PlanStats,
}

/// Plans with default options and the given ordering (see module docs).
pub fn plan_reconvergence<G: Graph + ?Sized>(
    g: &G,
    divergent: &[bool],
    exit: Option<BlockId>,
    ordering: Ordering,
) -> Result<ReconvergePlan, PlanError> {
    plan_reconvergence_with(g, divergent, exit, &PlanOptions { ordering, ..PlanOptions::default() })
}

/// Plans with explicit options (see module docs).
pub fn plan_reconvergence_with<G: Graph + ?Sized>(
    g: &G,
    divergent: &[bool],
    exit: Option<BlockId>,
    options: &PlanOptions,
) -> Result<ReconvergePlan, PlanError> {
    let n = g.num_blocks();
    if divergent.len() != n {
        return Err(PlanError::DivergenceLength { expected: n, got: divergent.len() });
    }
    if let Some(e) = exit {
        if e.index() >= n {
            return Err(PlanError::ExitOutOfRange(e));
        }
        if !g.successors(e).is_empty() {
            return Err(PlanError::ExitHasSuccessors(e));
        }
    }
    for b in (0..n).map(BlockId::new) {
        let slots = g.successors(b).len();
        if divergent[b.index()] && slots != 2 {
            return Err(PlanError::DivergentNotTwoWay { block: b, slots });
        }
    }
    let mut slot_base = Vec::with_capacity(n + 1);
    slot_base.push(0u32);
    let mut original = Vec::new();
    for b in (0..n).map(BlockId::new) {
        original.extend_from_slice(g.successors(b));
        slot_base.push(original.len() as u32);
    }
    let view = verify::RView::build(g, exit);
    let in_r = &view.in_r;
    let stats = count_branches(g, divergent, in_r);
    let targets: Vec<Dest> = original.iter().map(|&b| Dest::Block(b)).collect();
    if stats.divergent_branches == 0
        || (options.keep_reconverging_input && view.violations(g, &|b| divergent[b.index()]).is_empty())
    {
        let order = (0..n).filter(|&b| in_r[b]).map(|b| Dest::Block(BlockId::new(b))).collect();
        return Ok(ReconvergePlan {
            ordering: options.ordering,
            slot_base,
            original,
            targets,
            flows: Vec::new(),
            dest_start: vec![0],
            dests: Vec::new(),
            pred_start: vec![0],
            preds: Vec::new(),
            order,
            stats,
        });
    }
    // Soft layout constraints: the successors of a divergent branch before
    // its immediate post-dominator (only decides ties inside cycles).
    let mut soft = Vec::new();
    for b in (0..n).map(BlockId::new) {
        if divergent[b.index()] && view.is_relevant_divergent(g, b) {
            if let Some(p) = view.ipdom(b) {
                soft.extend(g.successors(b).iter().filter(|&&s| s != p).map(|&s| (s, p)));
            }
        }
    }
    let dfs = Traversal::build(g);
    let mut forest = CycleForest::new();
    forest.compute(g, &dfs);
    let layout = order::build_layout(g, in_r, &dfs, &forest, options.ordering, &soft);
    // Natively reconverging nodes (their earlier successor post-dominates
    // them in the input) are accepted without a check. That is not
    // guaranteed to survive the other reroutes, so such plans are verified;
    // natives found broken are demoted and the sweep re-runs. The last
    // round allows no natives: the plain sweep, correct by construction.
    let mut native_blocks = vec![true; n];
    let mut native_flows = vec![true; layout.seq.len()];
    let mut rounds = 0;
    loop {
        rounds += 1;
        let last = rounds == MAX_ROUNDS;
        if last {
            native_blocks.iter_mut().for_each(|x| *x = false);
            native_flows.iter_mut().for_each(|x| *x = false);
        }
        let result =
            sweep::Sweep::new(g, in_r, divergent, &layout, &forest, &slot_base, &view, &native_blocks, &native_flows)
                .run();
        let flow_pos = result.flow_pos.clone();
        let mut plan = assemble(options.ordering, &slot_base, &original, result, stats, divergent, n);
        plan.stats.rounds = rounds;
        if !options.verify && plan.stats.natives == 0 {
            return Ok(plan);
        }
        let (h, _) = plan.apply_to_graph(g);
        let flags = plan.divergence_after(divergent);
        let violations = reconvergence_violations(&h, &|b| flags[b.index()], exit);
        let Some(first) = violations.first() else { return Ok(plan) };
        if last || plan.stats.natives == 0 {
            return Err(PlanError::Internal(format!(
                "output not reconverging ({} violations, first: {first}); ordering {}, round {rounds}",
                violations.len(),
                options.ordering.name()
            )));
        }
        // Only natives can be broken (every checked node is correct by
        // construction): demote them, by block or by Flow position.
        for v in &violations {
            if let Violation::NoPostDominatingSuccessor { block, .. } = v {
                if block.index() < n {
                    native_blocks[block.index()] = false;
                } else {
                    native_flows[flow_pos[block.index() - n] as usize] = false;
                }
            }
        }
    }
}

/// Sweeps at most this many times (the last one without natives).
const MAX_ROUNDS: usize = 4;

fn assemble(
    ordering: Ordering,
    slot_base: &[u32],
    original: &[BlockId],
    result: sweep::SweepResult,
    mut stats: PlanStats,
    divergent: &[bool],
    n: usize,
) -> ReconvergePlan {
    stats.checks = result.checks;
    stats.natives = result.natives;
    let mut plan = ReconvergePlan {
        ordering,
        slot_base: slot_base.to_vec(),
        original: original.to_vec(),
        targets: result.targets,
        flows: result.flows,
        dest_start: Vec::new(),
        dests: Vec::new(),
        pred_start: Vec::new(),
        preds: Vec::new(),
        order: result.order,
        stats,
    };
    plan.finish(divergent, n);
    plan
}

/// Divergent and uniform branch counts of `R`.
fn count_branches<G: Graph + ?Sized>(g: &G, divergent: &[bool], in_r: &[bool]) -> PlanStats {
    let mut stats = PlanStats::default();
    for b in (0..g.num_blocks()).filter(|&b| in_r[b]) {
        let s = g.successors(BlockId::new(b));
        let mut inside = s.iter().filter(|t| in_r[t.index()]);
        let Some(first) = inside.next() else { continue };
        if inside.any(|t| t != first) {
            if divergent[b] {
                stats.divergent_branches += 1;
            } else {
                stats.uniform_branches += 1;
            }
        }
    }
    stats
}

impl ReconvergePlan {
    /// Fills destinations, predecessors and the rerouting statistics.
    fn finish(&mut self, divergent: &[bool], n: usize) {
        let mut pairs: Vec<(u32, BlockId)> = Vec::new();
        let mut pred_pairs: Vec<(u32, FlowSource)> = Vec::new();
        for b in 0..n {
            let (lo, hi) = (self.slot_base[b] as usize, self.slot_base[b + 1] as usize);
            let mut rerouted = 0;
            for k in lo..hi {
                let d = self.original[k];
                if self.targets[k] == Dest::Block(d) {
                    continue;
                }
                rerouted += 1;
                if let Dest::Flow(f) = self.targets[k] {
                    pred_pairs.push((f.0, FlowSource::Slot { block: BlockId::new(b), slot: (k - lo) as u32 }));
                }
                for (f, _) in self.route(self.targets[k], d) {
                    pairs.push((f.0, d));
                }
            }
            self.stats.edges_rerouted += rerouted;
            if rerouted > 0 && !divergent[b] {
                self.stats.uniform_slots_rerouted += rerouted;
                let s = &self.original[lo..hi];
                if s.iter().any(|&t| t != s[0]) {
                    self.stats.uniform_branches_rerouted += 1;
                }
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            for value in [true, false] {
                if let Dest::Flow(t) = f.successor(value) {
                    pred_pairs.push((t.0, FlowSource::Flow { flow: FlowId(i as u32), value }));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pred_pairs.sort_unstable();
        let m = self.flows.len();
        (self.dest_start, self.dests) = csr(m, pairs);
        (self.pred_start, self.preds) = csr(m, pred_pairs);
        self.stats.flows = m;
        self.stats.loop_latches = self.flows.iter().filter(|f| matches!(f.kind, FlowKind::LoopLatch { .. })).count();
    }

    /// True if the plan changes anything.
    pub fn changed(&self) -> bool {
        !self.flows.is_empty() || self.targets.iter().zip(&self.original).any(|(t, &o)| *t != Dest::Block(o))
    }

    /// The ordering the plan was made with.
    pub fn ordering(&self) -> Ordering {
        self.ordering
    }

    /// Number of original blocks.
    pub fn num_blocks(&self) -> usize {
        self.slot_base.len() - 1
    }

    /// Number of Flow blocks.
    pub fn num_flows(&self) -> usize {
        self.flows.len()
    }

    /// A Flow block.
    pub fn flow(&self, f: FlowId) -> &FlowNode {
        &self.flows[f.index()]
    }

    /// All Flow blocks with their ids.
    pub fn flows(&self) -> impl Iterator<Item = (FlowId, &FlowNode)> + '_ {
        self.flows.iter().enumerate().map(|(i, f)| (FlowId(i as u32), f))
    }

    /// Number of successor slots of an original block.
    pub fn num_slots(&self, b: BlockId) -> usize {
        (self.slot_base[b.index() + 1] - self.slot_base[b.index()]) as usize
    }

    /// The original target of a slot.
    pub fn original_target(&self, b: BlockId, slot: usize) -> BlockId {
        assert!(slot < self.num_slots(b), "{b} has no slot {slot}");
        self.original[self.slot_base[b.index()] as usize + slot]
    }

    /// The new immediate target of a slot (`Dest::Block(original)` if
    /// unchanged).
    pub fn redirect(&self, b: BlockId, slot: usize) -> Dest {
        assert!(slot < self.num_slots(b), "{b} has no slot {slot}");
        self.targets[self.slot_base[b.index()] as usize + slot]
    }

    /// True if the slot's immediate target changed.
    pub fn is_redirected(&self, b: BlockId, slot: usize) -> bool {
        self.redirect(b, slot) != Dest::Block(self.original_target(b, slot))
    }

    /// Every redirected slot `(block, slot, new target)`, in block order.
    pub fn redirected_slots(&self) -> impl Iterator<Item = (BlockId, usize, Dest)> + '_ {
        (0..self.num_blocks()).flat_map(move |b| {
            let lo = self.slot_base[b] as usize;
            (lo..self.slot_base[b + 1] as usize).filter_map(move |k| {
                (self.targets[k] != Dest::Block(self.original[k])).then(|| (BlockId::new(b), k - lo, self.targets[k]))
            })
        })
    }

    /// The route of a thread with final destination `d` entering at
    /// `entry`: the Flows it passes and the predicate taken at each,
    /// until `Dest::Block(d)`; `None` if it does not arrive at `d` (the
    /// pair is not a valid use of the plan).
    pub fn try_route(&self, entry: Dest, d: BlockId) -> Option<Vec<(FlowId, bool)>> {
        let mut path = Vec::new();
        let mut cur = entry;
        while let Dest::Flow(f) = cur {
            if path.len() > self.flows.len() {
                return None;
            }
            let node = &self.flows[f.index()];
            let value = node.takes_true(d);
            path.push((f, value));
            cur = node.successor(value);
        }
        (cur == Dest::Block(d)).then_some(path)
    }

    /// Like [`ReconvergePlan::try_route`]; panics if the route does not
    /// arrive at `d`.
    pub fn route(&self, entry: Dest, d: BlockId) -> Vec<(FlowId, bool)> {
        self.try_route(entry, d).unwrap_or_else(|| panic!("destination {d} is not routed from {entry}"))
    }

    /// Every final destination that may pass through a Flow, sorted.
    pub fn destinations(&self, f: FlowId) -> &[BlockId] {
        &self.dests[self.dest_start[f.index()] as usize..self.dest_start[f.index() + 1] as usize]
    }

    /// The edges entering a Flow, sorted.
    pub fn flow_predecessors(&self, f: FlowId) -> &[FlowSource] {
        &self.preds[self.pred_start[f.index()] as usize..self.pred_start[f.index() + 1] as usize]
    }

    /// The blocks of `R` and the Flows in sweep order (every forward edge
    /// of the planned graph goes forward in it; back edges go to headers).
    pub fn order(&self) -> &[Dest] {
        &self.order
    }

    /// Statistics.
    pub fn stats(&self) -> &PlanStats {
        &self.stats
    }

    /// Divergence flags of the materialized graph: the original flags,
    /// then `true` for every Flow.
    pub fn divergence_after(&self, divergent: &[bool]) -> Vec<bool> {
        let mut flags = divergent.to_vec();
        flags.resize(divergent.len() + self.flows.len(), true);
        flags
    }

    /// Materializes the planned graph (see module docs) and returns it with
    /// the id mapping. `g` must be the planned graph.
    pub fn apply_to_graph<G: Graph + ?Sized>(&self, g: &G) -> (CfgGraph, NodeMap) {
        let n = g.num_blocks();
        assert_eq!(n, self.num_blocks(), "plan made for another graph");
        let map = NodeMap { num_blocks: n, num_flows: self.flows.len() };
        let mut edges = Vec::with_capacity(self.targets.len() + 2 * self.flows.len());
        for b in 0..n {
            debug_assert_eq!(g.successors(BlockId::new(b)).len(), self.num_slots(BlockId::new(b)));
            for k in self.slot_base[b] as usize..self.slot_base[b + 1] as usize {
                edges.push((b as u32, map.id(self.targets[k]).as_u32()));
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            let id = (n + i) as u32;
            edges.push((id, map.id(f.on_true).as_u32()));
            edges.push((id, map.id(f.on_false).as_u32()));
        }
        (CfgGraph::from_edges(map.len(), g.entry(), &edges), map)
    }
}

fn csr<T: Copy>(rows: usize, pairs: Vec<(u32, T)>) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; rows + 1];
    for &(r, _) in &pairs {
        start[r as usize + 1] += 1;
    }
    for i in 0..rows {
        start[i + 1] += start[i];
    }
    (start, pairs.into_iter().map(|(_, t)| t).collect())
}
