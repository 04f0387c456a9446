//! The graph-level planner of `--spmd-reconverge`: where to insert Flow
//! blocks and which successor slots to reroute so that a CFG becomes
//! *reconverging* (the reconvergence paper, Definition 1: every divergent branch has
//! exactly two successors and one of them post-dominates it).
//!
//! It works on the IR-independent [`CfgGraph`] / [`Graph`] of the analysis
//! core; its output, a [`ReconvergePlan`], is the contract with the IR
//! applier, which creates the Flow blocks (`spmd.flow_br`) and rewires
//! terminator operands.
//!
//! ```text
//! let plan = plan_reconvergence(&g, &divergent, Some(exit), Ordering::Dfpd)?;
//! if plan.changed() { /* create plan.num_flows() Flow blocks, rewire
//!                        plan.redirect(b, slot), fill Flow phis by route */ }
//! ```
//!
//! # Input
//!
//! * a CFG; its entry is `g.entry()` (not necessarily block 0);
//! * `divergent[b]`: `b` ends in a divergent branch. Such a terminator must
//!   have exactly two successor slots (the caller lowers divergent switches
//!   to chains of two-way branches first), else
//!   [`PlanError::DivergentNotTwoWay`];
//! * `exit`: the unique return block (the caller unifies returns), `None`
//!   if the function never returns. Other blocks without successors are
//!   *dead ends* (`unreachable`, traps);
//! * an [`Ordering`] (the reconvergence paper's input orderings). All of them give a
//!   correct plan; they only change its quality. Default [`Ordering::Dfpd`].
//!
//! # What "reconverging" means here
//!
//! Post-dominance is taken on `R`, the blocks that are reachable from the
//! entry **and can reach the exit**, with the exit as the only sink. Paths
//! that never terminate (infinite loops) and paths that end in a dead end
//! impose nothing: a thread on them never returns, so there is nothing to
//! reconverge with. A divergent branch with a successor outside `R`, or with
//! both slots to one block, is trivially reconverging; divergent branches
//! outside `R` are left alone, and so is every slot into or out of a block
//! outside `R`. Without an exit nothing terminates and the plan is empty.
//!
//! Why dead ends get no virtual edge to the exit: with such edges some CFGs
//! have *no* reconverging form, e.g. `if (d) trap1(); else trap2();`
//!
//! ```text
//!       A (divergent)     A -> T1 -> (virtual) exit, A -> T2 -> (virtual) exit:
//!      / \                only the exit post-dominates A, and no Flow block can
//!    T1   T2              change that without rewriting the traps' terminators.
//! ```
//!
//! The same holds for two failing asserts on the two sides of a divergent
//! branch. Ignoring non-returning paths makes every input plannable and
//! never spends a Flow block on a trap. [`reconvergence_violations`] is this
//! definition as a checker (the one Definition-1 checker,
//! [`crate::analysis::reconverging::check_against`], with `R` and its
//! post-dominators as the model); the planner verifies its output with it.
//!
//! # Output: the plan
//!
//! * Flow blocks [`FlowId`]`(i)`: [`FlowNode`] `{ on_true, on_false, kind }`,
//!   a two-way branch on an `i1`. A [`FlowKind::Plain`] Flow sits right
//!   before its *key* block `k`: destination `k` takes `on_true =
//!   Block(k)`, every other destination `on_false`. A
//!   [`FlowKind::LoopLatch`] `{ header }` sits at the end of `header`'s
//!   cycle and follows StructurizeCFG: `on_false = Block(header)` is the
//!   back edge, `on_true` leaves the cycle. [`FlowNode::key`],
//!   [`FlowNode::takes_true`] (the routing rule). Both sides are always
//!   different and both carry some destination.
//! * [`ReconvergePlan::redirect`]`(block, slot)`: the new immediate target of
//!   every original successor slot (`Dest::Block(original)` if unchanged).
//! * Routing: every edge keeps its *destination*, its original target. A
//!   thread entering a Flow is steered by its destination alone;
//!   [`ReconvergePlan::route`] gives the `(flow, predicate)` steps until
//!   `Dest::Block(destination)`. [`ReconvergePlan::destination_sets`] lists
//!   what may pass each Flow (a test aid: quadratic), [`ReconvergePlan::flow_predecessors`] its incoming
//!   edges. Routes only go forward in [`ReconvergePlan::order`], the sweep
//!   order of `R` and the Flows (blocks of `R` in index order when nothing
//!   changed), a layout in which only back edges go backwards.
//! * [`ReconvergePlan::apply_to_graph`] materializes the planned graph:
//!   original blocks keep their ids, Flow `i` is block `n + i` with slots
//!   `[on_true, on_false]`; [`ReconvergePlan::divergence_after`] gives its
//!   divergence flags (Flows count as divergent).
//! * [`PlanStats`].
//!
//! Applier hint: give every Flow one integer "destination" phi; an incoming
//! original slot passes its destination as a constant, an incoming Flow
//! side passes that Flow's phi; the predicate is `dest == key` (`dest !=
//! header` for a latch).
//!
//! # Algorithm
//!
//! **1. Layout** (`order.rs`). `R` is laid out so that every cycle (of the
//! [`CycleForest`]) is contiguous, header first, followed by an *end marker*
//! position; inside a level (the top, or a cycle minus its header) the
//! blocks and collapsed child cycles are in a topological order of the
//! forward edges. Ties are broken by the [`Ordering`], after a soft
//! constraint that places the successors of a divergent branch before its
//! immediate post-dominator where the forward edges leave the choice (only
//! possible inside cycles). Each edge then has an *arrival* later than its
//! source: its target's position, or — for a back edge into the header of
//! a cycle containing the source — that cycle's end marker (a self loop
//! arrives right after its block).
//!
//! ```text
//!  entry  h1  a  h2  b  c  END(h2)  d  END(h1)  x  exit
//!                \__ cycle h2 ___/
//!         \____________ cycle h1 ____________/
//! ```
//!
//! **2. Sweep** (`sweep.rs`). Walk the positions in order; a slot is *open*
//! until its arrival. A placed divergent node (original branch or Flow) is
//! *armed* when its earlier slot arrives; the other slot is its *target*.
//! The node is *checked* when its target arrives, or already when its
//! immediate post-dominator (a Flow: the nearest common post-dominator of
//! its destinations) arrives if that comes first. The check collects the
//! node's *region* — everything reachable from it through slots that have
//! arrived — and its open slots. If all of them enter one node at this
//! position (the block, the header at an end marker, or the Flow placed
//! here), that node post-dominates the branch: nothing to do. Otherwise
//! every open slot of the region is rerouted into the Flow at this position
//! (at most one per position, shared by all checks there), whose key side
//! enters the position's block and whose other side carries the remaining
//! destinations to the Flow at the earliest remaining arrival (created on
//! demand): a dispatch chain ordered by the layout. Flows are divergent
//! nodes themselves and are checked later in the sweep.
//!
//! ```text
//!   Figure 2a: A -> B, A -> C, B -> D, C -> D, A divergent; layout A C B D
//!
//!        A              A            A is checked when B arrives: its region
//!       / \            / \           {A, C} also leaves to D, so A's B-slot
//!      B   C   ==>    |   C          and C's D-slot enter FLOW0 before B:
//!       \ /           |  /           true -> B (key), false -> D. FLOW0
//!        D           FLOW0           post-dominates A; D post-dominates
//!                     |  \           FLOW0 (Figure 4's walk A -> C -> B -> D).
//!                     B   |
//!                      \  |
//!                       D
//!
//!   while (u) { if (d) continue; if (e) break; D }   Dfpd layout: H B C D END(H) Z X E
//!
//!   before:  H -> B | Z;  B(d) -> H | C;  C(e) -> X | D;  D -> H;  Z -> E;  X -> E
//!   after:   B -> L | C;  C -> L | D;  D -> L;  L: false -> H, true -> F   (latch)
//!            Z -> F;  F: true -> X, false -> E                          (before X)
//!
//!   B's region (entered at C) is checked at END(H): it leaves by the back
//!   edges and by C's break, so they meet in the LoopLatch L. When X arrives,
//!   L's region (the loop, then Z) leaves to X and to E, so Z's jump to E
//!   enters F too. H's uniform exit to Z is untouched.
//! ```
//!
//! A divergent `continue`, `while (d)` condition or `continue outer` needs
//! no Flow when the loop has no other exit, and a divergent early return (a
//! slot to the exit) never needs one: their regions only leave through the
//! header or into the exit.
//!
//! Regions are collected with a union-find that collapses every checked
//! region into the node it reconverged at, so each node is scanned by about
//! one check; checks at one position whose regions meet are merged.
//!
//! **3. Natives and rounds.** A divergent node whose *earlier* successor
//! already post-dominates it (in the input; e.g. `B` in `for (;;) { x;
//! B: if (d) continue; y; if (c) break; }`: threads that continue come back
//! to `B` and must pass `y` to leave) is accepted
//! without a check — the sweep would otherwise make the later successor the
//! reconvergence point and reroute the loop's exits. Such a *native* can be
//! broken by later reroutes (a latch may merge its back edge with an exit),
//! so after the sweep every native is re-checked on the final graph (a
//! bounded search); broken ones are demoted and the sweep re-runs. The
//! fourth round allows no natives. In the property tests 0.1–1% of plans
//! need a second round; at 100k blocks one re-run is typical.
//!
//! # Invariants and why one (native-free) sweep is correct
//!
//! * *I1, closed slots are final*: only open slots are rerouted, into the
//!   Flow at the current position, so they close at once.
//! * *I2, a checked node stays reconverging*: at its check every slot
//!   leaving its region enters the node `N` entered at this position (one of
//!   its two successors); by I1 neither those slots nor the region's
//!   closed slots change again, and the exit is last in the layout (never
//!   inside a region), so every path from the branch to the exit passes `N`.
//! * *I3, every divergent node is checked or trivially reconverging*:
//!   arrivals are finite; absorbing a node's open slots sends both of its
//!   slots into the same Flow.
//! * *I4, routing is exact*: a rerouted slot adds its destination (or the
//!   pending Flow it went to) to the Flow's destinations; the key side goes
//!   straight to its block, the other side carries the rest; every Flow
//!   edge goes forward in the layout, so routes terminate.
//!
//! Natives are the only nodes not covered by I2; they are re-checked (see
//! above). With [`PlanOptions::verify`] (default) the materialized graph is
//! also checked with [`reconvergence_violations`]; a failure would be a bug
//! and is reported as [`PlanError::Internal`] (the property tests assert it
//! never happens). Inputs that already are reconverging yield an empty plan
//! (`changed() == false`, [`PlanOptions::keep_reconverging_input`]).
//!
//! # When uniform branches are rerouted
//!
//! Exactly when: a slot of a non-divergent block `u` is redirected iff `u`
//! is in the region of a divergent node `B` at `B`'s check (reachable from
//! `B` through blocks placed before `B`'s later successor and before its
//! immediate post-dominator, i.e. `u` runs while `B`'s threads are split),
//! that slot leaves the region, and the region does not leave through a
//! single node — then every leaving slot must enter the common Flow, or
//! the Flow would not post-dominate `B`. Consequences:
//!
//! * a CFG without divergent branches, or already reconverging, is never
//!   touched;
//! * a uniform block that is not strictly between a divergent `B` and
//!   `ipdom(B)` (in `R`) and not inside an irreducible cycle keeps all its
//!   slots (property-tested: 0 violations on 60 000 plans). Inside an
//!   irreducible cycle the layout may have to place a post-dominator before
//!   blocks it post-dominates (the cycle has several entries), and the
//!   region then extends to the layout's next reconvergence point;
//! * uniform loops around divergent code keep their exits and back edges
//!   unless a divergent region spans them (a divergent `break`, `continue`
//!   or `return` in them whose region leaves in two directions).
//!
//! # Edge cases
//!
//! * **Several exits / dead ends**: returns are unified by the caller; dead
//!   ends and every block that cannot return are outside `R` and untouched.
//! * **Infinite loops**: outside `R`, untouched. A loop that only *may* run
//!   forever is in `R` and handled like any loop.
//! * **Irreducible cycles**: no node splitting, no hub, no special case. The
//!   cycle forest picks a header; other entries are ordinary forward edges
//!   of the layout, and when a region must be rerouted its entries and exits
//!   go through the same dispatch Flows as anywhere else. The cycle may stay
//!   irreducible, but it is reconverging:
//!
//! ```text
//!   E (divergent) -> A, B;  A -> B, A -> X;  B -> A, B -> X;  X exit
//!   plan: E -> A | F;  A -> F, F (both slots);  F -> B | X;  B -> A | X
//!   F post-dominates E, X post-dominates F; {A, F, B} is still a cycle with
//!   two entries (A and F).
//! ```
//!
//! * **Self loops**: arrive right after their block; `do {} while (d)` on a
//!   single block reconverges at its exit without a Flow.
//! * **Duplicate successors**: a divergent branch with both slots to one
//!   block is reconverging; slots are tracked individually (a uniform switch
//!   with duplicate cases keeps the slots it does not need to change).
//! * **The entry in a cycle**, unreachable blocks, blocks that reach the
//!   exit only through infinite-loop-free detours: covered by `R` and the
//!   cycle forest; nothing special.
//!
//! # Cost
//!
//! Layout `O(E * d)` (`d` = cycle nesting depth); sweep near-linear
//! (`O((n + E) α(n) + P log P)` plus Flow heap merges, small into large);
//! plus one post-dominator tree for the pre-check and the join hints, and
//! one for the verification. `bench::run_benchmark` measures it against
//! [`CfgAnalysis`](crate::analysis::cfg::CfgAnalysis); `quality_report`
//! compares the orderings.

#[cfg(test)]
mod bench;
#[cfg(test)]
pub(crate) mod corpus;
mod order;
#[cfg(test)]
mod quality;
mod relevant;
mod selectors;
mod sweep;

#[cfg(test)]
mod tests;

pub(crate) use crate::analysis::reconverging::Violation;
#[cfg(test)]
use quality::quality_report;
#[cfg(test)]
pub use relevant::is_reconverging;
pub(crate) use relevant::reconvergence_violations;
pub(crate) use selectors::FlowChains;

use crate::analysis::cfg::{BlockId, CfgGraph, CycleForest, Graph, Traversal};
use std::fmt;

/// The block orderings of the reconvergence paper: the order in which the
/// Flow-block planner of `--spmd-reconverge` and `--spmd-structurize`
/// (option `ordering=df|dfpd|bf|rpot`) visits the blocks. Each gives a
/// reconverging result; they differ in the Flow blocks they insert. The
/// default is `--spmd-reconverge`'s (`SpmdPasses.td`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ordering {
    /// Depth-first: ready blocks by DFS preorder number.
    Df,
    /// Depth-first obeying post-dominance: a depth-first topological sort
    /// (a join is entered only after everything flowing into it).
    Dfpd,
    /// Breadth-first: ready blocks by BFS number.
    Bf,
    /// Reverse post-order.
    Rpot,
}

impl Default for Ordering {
    fn default() -> Self {
        Ordering::parse(crate::ir::ods::spmd_reconverge::ORDERING)
            .expect("the ODS default of spmd-reconverge's ordering is an ordering")
    }
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
        Ordering::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(s))
    }
}

crate::support::define_id! {
    /// Index of a Flow block in a [`ReconvergePlan`].
    pub struct FlowId;
    /// An optional [`FlowId`].
    pub struct OptionFlowId;
}

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "flow{}", self.0)
    }
}

/// An immediate target: an original block or a Flow block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Dest {
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
pub(crate) enum FlowKind {
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
pub(crate) struct FlowNode {
    /// Target when the predicate is true.
    pub(crate) on_true: Dest,
    /// Target when the predicate is false.
    pub(crate) on_false: Dest,
    /// Plain dispatch or loop latch.
    pub(crate) kind: FlowKind,
}

impl FlowNode {
    /// The destination this Flow singles out: the block it is placed
    /// before (`Plain`, reached by `true`) or the cycle header (`LoopLatch`,
    /// reached by `false`).
    pub(crate) fn key(&self) -> BlockId {
        match (self.kind, self.on_true) {
            (FlowKind::LoopLatch { header }, _) => header,
            (FlowKind::Plain, Dest::Block(k)) => k,
            (FlowKind::Plain, Dest::Flow(_)) => {
                unreachable!("a Plain Flow's true side is its key block")
            }
        }
    }

    /// The predicate value a thread with final destination `d` takes here.
    pub(crate) fn takes_true(&self, d: BlockId) -> bool {
        match self.kind {
            FlowKind::Plain => d == self.key(),
            FlowKind::LoopLatch { header } => d != header,
        }
    }

    /// The target for predicate `value`.
    pub(crate) fn successor(&self, value: bool) -> Dest {
        if value {
            self.on_true
        } else {
            self.on_false
        }
    }
}

/// An edge into a Flow block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum FlowSource {
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
pub(crate) struct PlanOptions {
    /// Tie-break of the layout.
    pub(crate) ordering: Ordering,
    /// Check Definition 1 on the materialized result with
    /// [`reconvergence_violations`] (one more post-dominator tree); on by
    /// default. The plan is correct without it (see "Invariants"); it is the
    /// safety net the brief asks for and costs about a third of the planner.
    pub(crate) verify: bool,
    /// Return an empty plan when the input already is reconverging (a scan
    /// over the post-dominator tree the planner builds anyway); on by
    /// default. When off, the sweep runs anyway: natives keep most such
    /// inputs unchanged, not all (e.g. when a native breaks).
    pub(crate) keep_reconverging_input: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            ordering: Ordering::default(),
            verify: true,
            keep_reconverging_input: true,
        }
    }
}

/// Planner statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PlanStats {
    /// Divergent branches of `R` with two different successors in `R`.
    pub(crate) divergent_branches: usize,
    /// Uniform branches of `R`: non-divergent blocks with at least two
    /// different successors in `R`.
    pub(crate) uniform_branches: usize,
    /// Flow blocks inserted.
    pub(crate) flows: usize,
    /// Of which loop latches.
    pub(crate) loop_latches: usize,
    /// Original successor slots whose immediate target changed.
    pub(crate) edges_rerouted: usize,
    /// Uniform branches (as counted above) with at least one rerouted slot.
    pub(crate) uniform_branches_rerouted: usize,
    /// Rerouted slots of non-divergent blocks (branches and jumps).
    pub(crate) uniform_slots_rerouted: usize,
    /// Region checks performed by the sweep.
    pub(crate) checks: usize,
    /// Divergent nodes accepted without a check because their earlier
    /// successor already post-dominates them (see module docs).
    pub(crate) natives: usize,
    /// Sweeps run: 0 if none was needed (no divergence, or already
    /// reconverging), else 1 plus one per round that demoted broken natives
    /// (at most 4; the last one accepts no natives).
    pub(crate) rounds: usize,
}

/// Why the Flow-block planner of [`reconverge_function`](crate::reconverge_function)
/// and [`structurize_function`](crate::structurize_function) produced no plan.
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
pub(crate) struct NodeMap {
    num_blocks: usize,
    num_flows: usize,
}

impl NodeMap {
    /// Number of nodes of the materialized graph.
    pub(crate) fn len(&self) -> usize {
        self.num_blocks + self.num_flows
    }

    /// The materialized id of a block or Flow.
    pub(crate) fn id(&self, d: Dest) -> BlockId {
        match d {
            Dest::Block(b) => b,
            Dest::Flow(f) => BlockId::new(self.num_blocks + f.index()),
        }
    }

    /// True if the materialized node is a Flow block.
    #[cfg(test)]
    pub fn is_flow(&self, id: BlockId) -> bool {
        id.index() >= self.num_blocks
    }
}

/// The result of planning (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct ReconvergePlan {
    /// The ordering the plan was made with (the unit tests replan with it).
    #[cfg_attr(not(test), allow(dead_code))]
    ordering: Ordering,
    /// Per block `b`: its slots are `slot_base[b]..slot_base[b + 1]`.
    slot_base: Vec<u32>,
    original: Vec<BlockId>,
    targets: Vec<Dest>,
    flows: Vec<FlowNode>,
    pred_start: Vec<u32>,
    preds: Vec<FlowSource>,
    order: Vec<Dest>,
    stats: PlanStats,
}

/// Plans with default options and the given ordering (see module docs).
#[cfg(test)]
pub fn plan_reconvergence<G: Graph + ?Sized>(
    g: &G,
    divergent: &[bool],
    exit: Option<BlockId>,
    ordering: Ordering,
) -> Result<ReconvergePlan, PlanError> {
    plan_reconvergence_with(
        g,
        divergent,
        exit,
        &PlanOptions {
            ordering,
            ..PlanOptions::default()
        },
    )
}

/// [`plan_reconvergence`] for a transform that checks the IR it produces
/// (and plans another round if that check fails): the planner skips its
/// own check of the result, which the IR check subsumes (a third of the
/// planner's time), but still re-checks natives when it has to.
pub(crate) fn plan_reconvergence_checked_later<G: Graph + ?Sized>(
    g: &G,
    divergent: &[bool],
    exit: Option<BlockId>,
    ordering: Ordering,
) -> Result<ReconvergePlan, PlanError> {
    plan_reconvergence_with(
        g,
        divergent,
        exit,
        &PlanOptions {
            ordering,
            verify: false,
            ..PlanOptions::default()
        },
    )
}

/// Plans with explicit options (see the module docs): the general form of
/// [`plan_reconvergence`]. `divergent` has one flag per block of `g`;
/// `exit` is the function's unique return block, if any. Fails on inputs
/// the planner does not accept (see [`PlanError`]).
pub(crate) fn plan_reconvergence_with<G: Graph + ?Sized>(
    g: &G,
    divergent: &[bool],
    exit: Option<BlockId>,
    options: &PlanOptions,
) -> Result<ReconvergePlan, PlanError> {
    check_plan_inputs(g, divergent, exit)?;
    let n = g.num_blocks();
    let (slot_base, original) = slot_tables(g);
    let view = relevant::RView::build(g, exit);
    let in_r = &view.in_r;
    let stats = count_branches(g, divergent, in_r);
    if stats.divergent_branches == 0
        || (options.keep_reconverging_input
            && crate::analysis::reconverging::check_against(g, &|b| divergent[b.index()], &view)
                .is_empty())
    {
        let targets = original.iter().map(|&b| Dest::Block(b)).collect();
        let order = (0..n)
            .filter(|&b| in_r[b])
            .map(|b| Dest::Block(BlockId::new(b)))
            .collect();
        return Ok(ReconvergePlan {
            ordering: options.ordering,
            slot_base,
            original,
            targets,
            flows: Vec::new(),
            pred_start: vec![0],
            preds: Vec::new(),
            order,
            stats,
        });
    }
    let soft = soft_constraints(g, divergent, &view);
    let dfs = Traversal::build(g);
    let mut forest = CycleForest::new();
    forest.compute_nesting(g, &dfs);
    let layout = order::build_layout(g, in_r, &dfs, &forest, options.ordering, &soft);
    let planning = Planning {
        g,
        divergent,
        exit,
        options,
        view: &view,
        layout: &layout,
        forest: &forest,
        slot_base: &slot_base,
        original: &original,
        stats,
    };
    planning.sweep_rounds()
}

/// The checks of [`plan_reconvergence_with`] on its inputs.
fn check_plan_inputs<G: Graph + ?Sized>(
    g: &G,
    divergent: &[bool],
    exit: Option<BlockId>,
) -> Result<(), PlanError> {
    let n = g.num_blocks();
    if divergent.len() != n {
        return Err(PlanError::DivergenceLength {
            expected: n,
            got: divergent.len(),
        });
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
    Ok(())
}

/// Every successor slot of `g` in block order, and per block the index of
/// its first slot (one more entry than blocks).
fn slot_tables<G: Graph + ?Sized>(g: &G) -> (Vec<u32>, Vec<BlockId>) {
    let n = g.num_blocks();
    let mut slot_base = Vec::with_capacity(n + 1);
    slot_base.push(0u32);
    let mut original = Vec::new();
    for b in (0..n).map(BlockId::new) {
        original.extend_from_slice(g.successors(b));
        slot_base.push(original.len() as u32);
    }
    (slot_base, original)
}

/// Soft layout constraints: the successors of a divergent branch before
/// its immediate post-dominator (only decides ties inside cycles).
fn soft_constraints<G: Graph + ?Sized>(
    g: &G,
    divergent: &[bool],
    view: &relevant::RView,
) -> Vec<(BlockId, BlockId)> {
    let mut soft = Vec::new();
    for b in (0..g.num_blocks()).map(BlockId::new) {
        if divergent[b.index()] && view.is_relevant_divergent(g, b) {
            if let Some(p) = view.ipdom(b) {
                soft.extend(g.successors(b).iter().filter(|&&s| s != p).map(|&s| (s, p)));
            }
        }
    }
    soft
}

/// What the sweep rounds of [`plan_reconvergence_with`] work on.
struct Planning<'p, G: Graph + ?Sized> {
    g: &'p G,
    divergent: &'p [bool],
    exit: Option<BlockId>,
    options: &'p PlanOptions,
    view: &'p relevant::RView,
    layout: &'p order::Layout,
    forest: &'p CycleForest,
    slot_base: &'p [u32],
    original: &'p [BlockId],
    stats: PlanStats,
}

/// Which blocks and Flow positions may reconverge natively.
struct Natives {
    blocks: Vec<bool>,
    flows: Vec<bool>,
}

impl<G: Graph + ?Sized> Planning<'_, G> {
    /// Natively reconverging nodes (their earlier successor post-dominates
    /// them in the input) are accepted without a check. That is not
    /// guaranteed to survive the other reroutes, so such plans are verified;
    /// natives found broken are demoted and the sweep re-runs. The last
    /// round allows no natives: the plain sweep, correct by construction.
    fn sweep_rounds(&self) -> Result<ReconvergePlan, PlanError> {
        let n = self.g.num_blocks();
        let mut natives = Natives {
            blocks: vec![true; n],
            flows: vec![true; self.layout.seq.len()],
        };
        let mut rounds = 0;
        loop {
            rounds += 1;
            let last = rounds == MAX_ROUNDS;
            if last {
                natives.blocks.iter_mut().for_each(|x| *x = false);
                natives.flows.iter_mut().for_each(|x| *x = false);
            }
            let inputs = sweep::Inputs {
                g: self.g,
                divergent: self.divergent,
                view: self.view,
                layout: self.layout,
                forest: self.forest,
                slot_base: self.slot_base,
            };
            let result = sweep::Sweep::new(&inputs, &natives.blocks, &natives.flows).run();
            let flow_pos = result.flow_pos.clone();
            if let Some(broken) = &result.broken_natives {
                if !broken.is_empty() && !last {
                    for &x in broken {
                        if (x as usize) < n {
                            natives.blocks[x as usize] = false;
                        } else {
                            natives.flows[flow_pos[x as usize - n] as usize] = false;
                        }
                    }
                    continue;
                }
            }
            let natives_checked = result.broken_natives.is_some();
            let mut plan = assemble(
                self.options.ordering,
                self.slot_base,
                self.original,
                result,
                self.stats,
                self.divergent,
                n,
            );
            plan.stats.rounds = rounds;
            if let Some(done) =
                self.verified(plan, rounds, natives_checked, &mut natives, &flow_pos)
            {
                return done;
            }
        }
    }

    /// The end of a round: `Some` with the plan when it is accepted (or an
    /// error in the last round), `None` after demoting the natives that
    /// broke it, for another round.
    fn verified(
        &self,
        plan: ReconvergePlan,
        rounds: usize,
        natives_checked: bool,
        natives: &mut Natives,
        flow_pos: &[u32],
    ) -> Option<Result<ReconvergePlan, PlanError>> {
        let n = self.g.num_blocks();
        if !self.options.verify && (plan.stats.natives == 0 || natives_checked) {
            return Some(Ok(plan));
        }
        let (h, _) = plan.apply_to_graph(self.g);
        let flags = plan.divergence_after(self.divergent);
        let violations = reconvergence_violations(&h, &|b| flags[b.index()], self.exit);
        let Some(first) = violations.first() else {
            return Some(Ok(plan));
        };
        if rounds == MAX_ROUNDS || plan.stats.natives == 0 || natives_checked {
            return Some(Err(PlanError::Internal(format!(
                "output not reconverging ({} violations, first: {first}); ordering {}, round {rounds}",
                violations.len(),
                self.options.ordering.name()
            ))));
        }
        // The native re-check ran out of budget. Only natives can be broken
        // (every checked node is correct by construction): demote them, by
        // block or by Flow position.
        for v in &violations {
            if let Violation::NoPostDominatingSuccessor { block, .. } = v {
                if block.index() < n {
                    natives.blocks[block.index()] = false;
                } else {
                    natives.flows[flow_pos[block.index() - n] as usize] = false;
                }
            }
        }
        None
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

/// A dispatch hub for [`ReconvergePlan::from_hubs`]: the successor slots
/// to route through it and the blocks it dispatches to, in chain order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HubSpec {
    /// Successor slots `(block, slot)` entering the hub; each slot's original
    /// target must be one of `targets`.
    pub(crate) slots: Vec<(BlockId, usize)>,
    /// The distinct destinations; at least two.
    pub(crate) targets: Vec<BlockId>,
}

impl ReconvergePlan {
    /// A plan made of dispatch hubs instead of a sweep (used by
    /// `--spmd-fix-irreducible` and `--spmd-unify-loop-exits`). Hub `h` with
    /// targets `t1..tk` is the chain of `k - 1` Plain Flows `F1..F(k-1)`:
    /// `Fi` enters `ti` on `true` and goes on to `F(i+1)` on `false`, the
    /// last one to `tk`. Every listed slot enters `F1`; a thread heading for
    /// `ti` takes `false` at `F1..F(i-1)` and `true` at `Fi`.
    ///
    /// Panics if a hub has fewer than two targets, a slot does not exist, a
    /// slot's original target is not among its hub's targets, or a slot is
    /// listed twice: those are bugs of the caller.
    pub(crate) fn from_hubs<G: Graph + ?Sized>(g: &G, hubs: &[HubSpec]) -> ReconvergePlan {
        let n = g.num_blocks();
        let mut slot_base = Vec::with_capacity(n + 1);
        slot_base.push(0u32);
        let mut original = Vec::new();
        for b in (0..n).map(BlockId::new) {
            original.extend_from_slice(g.successors(b));
            slot_base.push(original.len() as u32);
        }
        let mut targets: Vec<Dest> = original.iter().map(|&b| Dest::Block(b)).collect();
        let mut flows = Vec::new();
        let mut order: Vec<Dest> = (0..n).map(|b| Dest::Block(BlockId::new(b))).collect();
        for hub in hubs {
            assert!(hub.targets.len() >= 2, "a hub needs at least two targets");
            let first = FlowId::new(flows.len());
            let last = hub.targets.len() - 2;
            for (i, &t) in hub.targets[..=last].iter().enumerate() {
                let on_false = if i == last {
                    Dest::Block(hub.targets[last + 1])
                } else {
                    Dest::Flow(FlowId::new(flows.len() + 1))
                };
                order.push(Dest::Flow(FlowId::new(flows.len())));
                flows.push(FlowNode {
                    on_true: Dest::Block(t),
                    on_false,
                    kind: FlowKind::Plain,
                });
            }
            for &(b, slot) in &hub.slots {
                let k = slot_base[b.index()] as usize + slot;
                assert!(
                    k < slot_base[b.index() + 1] as usize,
                    "{b} has no slot {slot}"
                );
                assert!(
                    hub.targets.contains(&original[k]),
                    "slot target not among the hub's targets"
                );
                assert_eq!(targets[k], Dest::Block(original[k]), "slot routed twice");
                targets[k] = Dest::Flow(first);
            }
        }
        let divergent = vec![false; n];
        let mut plan = ReconvergePlan {
            ordering: Ordering::default(),
            slot_base,
            original,
            targets,
            flows,
            pred_start: Vec::new(),
            preds: Vec::new(),
            order,
            stats: PlanStats::default(),
        };
        plan.finish(&divergent, n);
        plan
    }

    /// Fills predecessors and the rerouting statistics. (The destination
    /// sets are not stored: their total size grows with the product of
    /// Flows and destinations in flight, 93 million at 100k blocks of
    /// long-range edges; see [`ReconvergePlan::destination_sets`].)
    fn finish(&mut self, divergent: &[bool], n: usize) {
        let m = self.flows.len();
        let mut pred_pairs: Vec<(u32, FlowSource)> = Vec::new();
        for (b, &is_divergent) in divergent.iter().enumerate().take(n) {
            let (lo, hi) = (self.slot_base[b] as usize, self.slot_base[b + 1] as usize);
            let mut rerouted = 0;
            for k in lo..hi {
                if self.targets[k] == Dest::Block(self.original[k]) {
                    continue;
                }
                rerouted += 1;
                if let Dest::Flow(f) = self.targets[k] {
                    pred_pairs.push((
                        f.0,
                        FlowSource::Slot {
                            block: BlockId::new(b),
                            slot: (k - lo) as u32,
                        },
                    ));
                }
            }
            self.stats.edges_rerouted += rerouted;
            if rerouted > 0 && !is_divergent {
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
                    pred_pairs.push((
                        t.0,
                        FlowSource::Flow {
                            flow: FlowId(i as u32),
                            value,
                        },
                    ));
                }
            }
        }
        (self.pred_start, self.preds) = csr_by_row(m, pred_pairs);
        self.stats.flows = m;
        self.stats.loop_latches = self
            .flows
            .iter()
            .filter(|f| matches!(f.kind, FlowKind::LoopLatch { .. }))
            .count();
    }

    /// True if the plan changes anything.
    pub(crate) fn changed(&self) -> bool {
        !self.flows.is_empty()
            || self
                .targets
                .iter()
                .zip(&self.original)
                .any(|(t, &o)| *t != Dest::Block(o))
    }

    /// The ordering the plan was made with.
    #[cfg(test)]
    pub fn ordering(&self) -> Ordering {
        self.ordering
    }

    /// Number of original blocks.
    pub(crate) fn num_blocks(&self) -> usize {
        self.slot_base.len() - 1
    }

    /// Number of Flow blocks.
    pub(crate) fn num_flows(&self) -> usize {
        self.flows.len()
    }

    /// A Flow block.
    pub(crate) fn flow(&self, f: FlowId) -> &FlowNode {
        &self.flows[f.index()]
    }

    /// All Flow blocks with their ids.
    pub(crate) fn flows(&self) -> impl Iterator<Item = (FlowId, &FlowNode)> + '_ {
        self.flows
            .iter()
            .enumerate()
            .map(|(i, f)| (FlowId(i as u32), f))
    }

    /// Number of successor slots of an original block.
    pub(crate) fn num_slots(&self, b: BlockId) -> usize {
        (self.slot_base[b.index() + 1] - self.slot_base[b.index()]) as usize
    }

    /// The original target of a slot.
    pub(crate) fn original_target(&self, b: BlockId, slot: usize) -> BlockId {
        assert!(slot < self.num_slots(b), "{b} has no slot {slot}");
        self.original[self.slot_base[b.index()] as usize + slot]
    }

    /// The new immediate target of a slot (`Dest::Block(original)` if
    /// unchanged).
    pub(crate) fn redirect(&self, b: BlockId, slot: usize) -> Dest {
        assert!(slot < self.num_slots(b), "{b} has no slot {slot}");
        self.targets[self.slot_base[b.index()] as usize + slot]
    }

    /// True if the slot's immediate target changed.
    #[cfg(test)]
    pub fn is_redirected(&self, b: BlockId, slot: usize) -> bool {
        self.redirect(b, slot) != Dest::Block(self.original_target(b, slot))
    }

    /// Every redirected slot `(block, slot, new target)`, in block order.
    pub(crate) fn redirected_slots(&self) -> impl Iterator<Item = (BlockId, usize, Dest)> + '_ {
        (0..self.num_blocks()).flat_map(move |b| {
            let lo = self.slot_base[b] as usize;
            (lo..self.slot_base[b + 1] as usize)
                .filter(move |&k| self.targets[k] != Dest::Block(self.original[k]))
                .map(move |k| (BlockId::new(b), k - lo, self.targets[k]))
        })
    }

    /// The route of a thread with final destination `d` entering at
    /// `entry`: the Flows it passes and the predicate taken at each,
    /// until `Dest::Block(d)`; `None` if it does not arrive at `d` (the
    /// pair is not a valid use of the plan).
    pub(crate) fn try_route(&self, entry: Dest, d: BlockId) -> Option<Vec<(FlowId, bool)>> {
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
    pub(crate) fn route(&self, entry: Dest, d: BlockId) -> Vec<(FlowId, bool)> {
        self.try_route(entry, d)
            .unwrap_or_else(|| panic!("destination {d} is not routed from {entry}"))
    }

    /// Per Flow, every final destination that may pass through it,
    /// sorted. Destinations are propagated along the Flows in sweep order
    /// (every Flow edge goes forward in it): a Flow carries what its
    /// incoming slots carry, and passes everything but its key on.
    ///
    /// For tests and debugging: the total size is the sum over Flows of
    /// the destinations in flight, quadratic on long dispatch chains, so
    /// the transforms never call it ([`FlowChains`] bounds each
    /// destination's span by positions instead).
    #[cfg(test)]
    pub fn destination_sets(&self) -> Vec<Vec<BlockId>> {
        let mut carried: Vec<Vec<BlockId>> = vec![Vec::new(); self.flows.len()];
        for (block, slot, entry) in self.redirected_slots() {
            if let Dest::Flow(f) = entry {
                carried[f.index()].push(self.original_target(block, slot));
            }
        }
        for &d in &self.order {
            let Dest::Flow(f) = d else { continue };
            let mut own = std::mem::take(&mut carried[f.index()]);
            own.sort_unstable();
            own.dedup();
            let node = self.flows[f.index()];
            let key = node.key();
            if let Dest::Flow(next) = node.successor(!node.takes_true(key)) {
                debug_assert!(next.index() != f.index());
                let carry = &mut carried[next.index()];
                carry.extend(own.iter().copied().filter(|&x| x != key));
            }
            carried[f.index()] = own;
        }
        carried
    }

    /// The edges entering a Flow, sorted.
    #[cfg(test)]
    pub fn flow_predecessors(&self, f: FlowId) -> &[FlowSource] {
        &self.preds[self.pred_start[f.index()] as usize..self.pred_start[f.index() + 1] as usize]
    }

    /// The blocks of `R` and the Flows in sweep order (every forward edge
    /// of the planned graph goes forward in it; back edges go to headers).
    pub(crate) fn order(&self) -> &[Dest] {
        &self.order
    }

    /// Statistics.
    #[cfg(test)]
    pub fn stats(&self) -> &PlanStats {
        &self.stats
    }

    /// Divergence flags of the materialized graph: the original flags,
    /// then `true` for every Flow.
    pub(crate) fn divergence_after(&self, divergent: &[bool]) -> Vec<bool> {
        let mut flags = divergent.to_vec();
        flags.resize(divergent.len() + self.flows.len(), true);
        flags
    }

    /// Materializes the planned graph (see module docs) and returns it with
    /// the id mapping. `g` must be the planned graph.
    pub(crate) fn apply_to_graph<G: Graph + ?Sized>(&self, g: &G) -> (CfgGraph, NodeMap) {
        let n = g.num_blocks();
        assert_eq!(n, self.num_blocks(), "plan made for another graph");
        let map = NodeMap {
            num_blocks: n,
            num_flows: self.flows.len(),
        };
        let mut edges = Vec::with_capacity(self.targets.len() + 2 * self.flows.len());
        for b in 0..n {
            debug_assert_eq!(
                g.successors(BlockId::new(b)).len(),
                self.num_slots(BlockId::new(b))
            );
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

/// CSR rows from `(row, item)` pairs; items keep their relative order
/// within a row (a counting sort).
pub(super) fn csr_by_row<T: Copy>(rows: usize, pairs: Vec<(u32, T)>) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; rows + 1];
    for &(r, _) in &pairs {
        start[r as usize + 1] += 1;
    }
    for i in 0..rows {
        start[i + 1] += start[i];
    }
    let Some(&(_, first)) = pairs.first() else {
        return (start, Vec::new());
    };
    let mut items = vec![first; pairs.len()];
    let mut fill = start.clone();
    for (r, t) in pairs {
        items[fill[r as usize] as usize] = t;
        fill[r as usize] += 1;
    }
    (start, items)
}
