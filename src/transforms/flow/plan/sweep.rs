//! Step 2 of the planner: the sweep over the layout (see the `plan`
//! module docs for the algorithm, its invariants and the correctness
//! argument).
//!
//! Vocabulary used in this file:
//!
//! * **node**: an original block (`0..n`) or a Flow block (`n + flow`);
//! * **slot**: one successor slot of a node (a block's terminator slots, or
//!   a Flow's `true` (0) / `false` (1) side) and its *current* target;
//! * **arrival** of a slot: the layout position at which its target is
//!   entered — the target's position, the end marker of the cycle for a
//!   back edge into the header of a cycle containing the source, the
//!   source's own position for a self loop, `NEVER` for targets outside `R`;
//! * **open / closed**: at position `p`, a slot is closed iff its arrival is
//!   `< p`; closed slots are never redirected again;
//! * **waiting / armed / done**: a placed divergent node with both slots
//!   open / whose earlier slot has arrived (the other is its *target*) /
//!   that is checked, absorbed or trivially reconverging;
//! * **join hint**: the immediate post-dominator in `R` of an original
//!   branch, or the nearest common post-dominator of a Flow's destinations;
//!   an armed node is checked when its target or its join hint arrives,
//!   whichever comes first, and is a *native* (accepted unchecked, then
//!   re-checked at the end) if the join hint is its earlier successor;
//! * **region** of a node checked at `p`: every node reachable from it
//!   through closed slots, found with a union-find that collapses each
//!   checked region into the node it reconverged at; regions of checks at
//!   the same position that meet are merged into one *group*;
//! * a Flow's **heap**: its pending destinations keyed by arrival; an entry
//!   `n + f` stands for "whatever the pending Flow `f` routes".

use super::order::{Layout, LayoutPos, OptionLayoutPos, Position};
use super::relevant::RView;
use super::{Dest, FlowId, FlowKind, FlowNode, OptionFlowId};
use crate::analysis::cfg::{BlockId, CycleForest, Graph, OptionBlockId, OptionCycleId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// "Never arrives": slots into blocks outside `R`.
const NEVER: u32 = u32::MAX;

/// The position of a block or cycle end marker placed in the layout.
fn placed(pos: OptionLayoutPos) -> u32 {
    pos.get().expect("a block or cycle of R is placed").as_u32()
}

/// The raw result of a sweep.
pub(super) struct SweepResult {
    /// Final target of every original slot, indexed by `slot_base[b] + i`.
    pub(crate) targets: Vec<Dest>,
    /// The Flow blocks, by id.
    pub(crate) flows: Vec<FlowNode>,
    /// Blocks of `R` and Flow blocks in sweep order.
    pub(crate) order: Vec<Dest>,
    /// Number of region checks performed (statistics).
    pub(crate) checks: usize,
    /// Number of divergent nodes accepted as natively reconverging
    /// (their earlier successor post-dominates them); such plans must be
    /// verified.
    pub(crate) natives: usize,
    /// Layout position of every Flow.
    pub(crate) flow_pos: Vec<u32>,
    /// Natives found broken by the final check (node ids), or `None` if
    /// that check ran out of budget (then the caller must verify).
    pub(crate) broken_natives: Option<Vec<u32>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DState {
    /// Not a (relevant) divergent node, or not placed yet.
    Inert,
    /// Placed, both slots open.
    Waiting,
    /// Earlier slot arrived; `target` is the slot still open.
    Armed { target: u8 },
    /// Reconverges (checked, absorbed, or trivially).
    Done,
}

struct FlowState {
    pos: u32,
    ctx: OptionCycleId,
    /// Pending destinations, min-heap of `(arrival << 32) | node`; a node
    /// `>= n` stands for "whatever the pending Flow at that position routes".
    heap: BinaryHeap<Reverse<u64>>,
    node: Option<FlowNode>,
}

#[derive(Default)]
struct Group {
    parent: u32,
    edges: Vec<(u32, u8)>,
    nodes: Vec<u32>,
}

pub(super) struct Sweep<'a, G: ?Sized> {
    g: &'a G,
    n: usize,
    in_r: &'a [bool],
    divergent: &'a [bool],
    layout: &'a Layout,
    forest: &'a CycleForest,
    slot_base: &'a [u32],
    view: &'a RView,
    /// Which original blocks may be accepted as natively reconverging.
    native_blocks: &'a [bool],
    /// Per position: whether a Flow placed there may be accepted as
    /// natively reconverging.
    native_flows: &'a [bool],
    /// Per node: its join hint (a block post-dominating everything the
    /// node leads to, in the input), none if unknown.
    join: Vec<OptionBlockId>,
    /// Per armed node: the position of its check.
    check_at: Vec<OptionLayoutPos>,
    natives: usize,
    /// Accepted natives: `(node, key slot)`.
    native_list: Vec<(u32, u8)>,
    /// Per block: the cycle it heads, none otherwise.
    header_of: Vec<OptionCycleId>,
    /// Per block: innermost cycle, none outside cycles.
    block_ctx: Vec<OptionCycleId>,
    targets: Vec<Dest>,
    flows: Vec<FlowState>,
    /// Per position: the Flow placed there, if any.
    flow_at: Vec<OptionFlowId>,
    state: Vec<DState>,
    events: BinaryHeap<Reverse<u64>>,
    uf: Vec<u32>,
    stamp: Vec<u32>,
    group_of: Vec<u32>,
    groups: Vec<Group>,
    num_groups: usize,
    armed_here: Vec<u32>,
    deferred: Vec<u32>,
    stack: Vec<u32>,
    unions: Vec<(u32, usize)>,
    order: Vec<Dest>,
    checks: usize,
}

/// What a sweep reads (all of it fixed across rounds).
pub(super) struct Inputs<'a, G: ?Sized> {
    pub(crate) g: &'a G,
    pub(crate) divergent: &'a [bool],
    pub(crate) view: &'a RView,
    pub(crate) layout: &'a Layout,
    pub(crate) forest: &'a CycleForest,
    pub(crate) slot_base: &'a [u32],
}

impl<'a, G: Graph + ?Sized> Sweep<'a, G> {
    /// A sweep that may accept the natives allowed by `native_blocks`
    /// (per block) and `native_flows` (per layout position).
    pub(super) fn new(
        cx: &Inputs<'a, G>,
        native_blocks: &'a [bool],
        native_flows: &'a [bool],
    ) -> Self {
        let Inputs {
            g,
            divergent,
            view,
            layout,
            forest,
            slot_base,
        } = *cx;
        let in_r: &'a [bool] = &view.in_r;
        let n = g.num_blocks();
        let join = (0..n)
            .map(|b| {
                let b = BlockId::new(b);
                if view.in_r[b.index()] {
                    view.ipdom(b).into()
                } else {
                    OptionBlockId::NONE
                }
            })
            .collect();
        let mut header_of = vec![OptionCycleId::NONE; n];
        for c in forest.cycles() {
            header_of[forest.header(c).index()] = OptionCycleId::some(c);
        }
        let block_ctx = (0..n)
            .map(|b| forest.innermost_cycle(BlockId::new(b)).into())
            .collect();
        let targets = (0..n)
            .flat_map(|b| {
                g.successors(BlockId::new(b))
                    .iter()
                    .map(|&s| Dest::Block(s))
            })
            .collect();
        Sweep {
            g,
            n,
            in_r,
            divergent,
            layout,
            forest,
            slot_base,
            view,
            native_blocks,
            native_flows,
            join,
            check_at: vec![OptionLayoutPos::NONE; n],
            natives: 0,
            native_list: Vec::new(),
            header_of,
            block_ctx,
            targets,
            flows: Vec::new(),
            flow_at: vec![OptionFlowId::NONE; layout.seq.len()],
            state: vec![DState::Inert; n],
            events: BinaryHeap::new(),
            uf: (0..n as u32).collect(),
            stamp: vec![0; n],
            group_of: vec![0; n],
            groups: Vec::new(),
            num_groups: 0,
            armed_here: Vec::new(),
            deferred: Vec::new(),
            stack: Vec::new(),
            unions: Vec::new(),
            order: Vec::new(),
            checks: 0,
        }
    }

    /// Runs the sweep over every position and returns the result.
    pub(super) fn run(mut self) -> SweepResult {
        for p in 0..self.layout.seq.len() as u32 {
            self.process_events(p);
            if !self.armed_here.is_empty() {
                self.run_checks(p);
            }
            self.visit(p);
            self.apply_unions();
        }
        debug_assert!(self
            .state
            .iter()
            .all(|s| matches!(s, DState::Inert | DState::Done)));
        let broken_natives = self.broken_natives();
        let flow_pos = self.flows.iter().map(|f| f.pos).collect();
        let flows = self
            .flows
            .into_iter()
            .map(|f| f.node.expect("every Flow is placed"))
            .collect();
        SweepResult {
            targets: self.targets,
            flows,
            order: self.order,
            checks: self.checks,
            natives: self.natives,
            flow_pos,
            broken_natives,
        }
    }

    /// Re-checks every accepted native on the final graph: its key
    /// successor must still post-dominate it, i.e. no path from its other
    /// successor reaches the exit without passing the key successor.
    /// Work is bounded by a few times the graph size; `None` when exceeded.
    fn broken_natives(&mut self) -> Option<Vec<u32>> {
        let mut broken = Vec::new();
        if self.native_list.is_empty() {
            return Some(broken);
        }
        let exit = match self.layout.seq.last() {
            Some(Position::Block(e)) => e.as_u32(),
            _ => return Some(broken),
        };
        let mut budget = 4 * (self.uf.len() + self.targets.len()) + 1024;
        let mut seen = vec![0u32; self.uf.len()];
        let list = std::mem::take(&mut self.native_list);
        for (k, &(x, key)) in list.iter().enumerate() {
            let mark = k as u32 + 1;
            let key_target = self.dest_node(self.slot(x, key as usize));
            let other = self.dest_node(self.slot(x, 1 - key as usize));
            if key_target == other {
                continue;
            }
            self.stack.clear();
            self.stack.push(other);
            seen[other as usize] = mark;
            let mut reached = false;
            while let Some(y) = self.stack.pop() {
                if y == exit {
                    reached = true;
                    break;
                }
                for i in 0..self.num_slots(y) {
                    budget = budget.checked_sub(1)?;
                    let t = self.slot(y, i);
                    if self.arrival(y, t) == NEVER {
                        continue;
                    }
                    let z = self.dest_node(t);
                    if z != key_target && seen[z as usize] != mark {
                        seen[z as usize] = mark;
                        self.stack.push(z);
                    }
                }
            }
            if reached {
                broken.push(x);
            }
        }
        Some(broken)
    }

    // ----- nodes and slots ---------------------------------------------

    fn dest_node(&self, d: Dest) -> u32 {
        match d {
            Dest::Block(b) => b.as_u32(),
            Dest::Flow(f) => (self.n + f.index()) as u32,
        }
    }

    fn num_slots(&self, x: u32) -> usize {
        if (x as usize) < self.n {
            self.g.successors(BlockId::new(x as usize)).len()
        } else {
            2
        }
    }

    fn slot(&self, x: u32, i: usize) -> Dest {
        if (x as usize) < self.n {
            self.targets[self.slot_base[x as usize] as usize + i]
        } else {
            let node = self.flows[x as usize - self.n]
                .node
                .as_ref()
                .expect("placed Flow");
            if i == 0 {
                node.on_true
            } else {
                node.on_false
            }
        }
    }

    fn set_slot(&mut self, x: u32, i: usize, d: Dest) {
        if (x as usize) < self.n {
            self.targets[self.slot_base[x as usize] as usize + i] = d;
        } else {
            let node = self.flows[x as usize - self.n]
                .node
                .as_mut()
                .expect("placed Flow");
            if i == 0 {
                node.on_true = d;
            } else {
                node.on_false = d;
            }
        }
    }

    fn ctx(&self, x: u32) -> OptionCycleId {
        if (x as usize) < self.n {
            self.block_ctx[x as usize]
        } else {
            self.flows[x as usize - self.n].ctx
        }
    }

    /// Arrival position of a slot of `x` whose target is `d`.
    fn arrival(&self, x: u32, d: Dest) -> u32 {
        match d {
            Dest::Flow(f) => self.flows[f.index()].pos,
            // A self loop is entered right after its block: it is the
            // tightest cycle around the block, whatever cycle it heads.
            Dest::Block(w) if w.as_u32() == x => placed(self.layout.block_pos[w.index()]),
            Dest::Block(w) => self.arrival_from_ctx(self.ctx(x), w),
        }
    }

    fn arrival_from_ctx(&self, ctx: OptionCycleId, w: BlockId) -> u32 {
        if !self.in_r[w.index()] {
            return NEVER;
        }
        match (self.header_of[w.index()].get(), ctx.get()) {
            (Some(c), Some(ctx)) if self.forest.contains_cycle(c, ctx) => {
                placed(self.layout.cycle_end[c.index()])
            }
            _ => placed(self.layout.block_pos[w.index()]),
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.uf[x as usize] != x {
            let up = self.uf[self.uf[x as usize] as usize];
            self.uf[x as usize] = up;
            x = up;
        }
        x
    }

    fn push_event(&mut self, pos: u32, x: u32) {
        self.events.push(Reverse(((pos as u64) << 32) | x as u64));
    }

    fn create_flow(&mut self, pos: u32) -> u32 {
        let f = self.flows.len() as u32;
        self.flows.push(FlowState {
            pos,
            ctx: self.layout.flow_ctx[pos as usize],
            heap: BinaryHeap::new(),
            node: None,
        });
        self.flow_at[pos as usize] = OptionFlowId::some(FlowId(f));
        let id = self.n as u32 + f;
        self.uf.push(id);
        self.state.push(DState::Inert);
        self.stamp.push(0);
        self.group_of.push(0);
        self.join.push(OptionBlockId::NONE);
        self.check_at.push(OptionLayoutPos::NONE);
        f
    }

    /// `x`'s earlier slot `early` has arrived at `p`: arm it with the other
    /// slot as target. It is checked when the target arrives, or earlier
    /// at its join hint if that comes first. If the hint is the earlier
    /// successor itself, `x` already reconverges there (in the input) and
    /// is accepted without a check when natives are allowed.
    fn arm(&mut self, x: u32, early: usize, p: u32) {
        let late = 1 - early;
        let at = self.arrival(x, self.slot(x, late));
        let mut check = at;
        if let Some(jb) = self.join[x as usize].get() {
            let allowed = if (x as usize) < self.n {
                self.native_blocks[x as usize]
            } else {
                self.native_flows[self.flows[x as usize - self.n].pos as usize]
            };
            if allowed && self.slot(x, early) == Dest::Block(jb) {
                self.state[x as usize] = DState::Done;
                self.natives += 1;
                self.native_list.push((x, early as u8));
                return;
            }
            let aj = self.arrival_from_ctx(self.ctx(x), jb);
            if aj > p && aj < at {
                check = aj;
            }
        }
        self.state[x as usize] = DState::Armed { target: late as u8 };
        self.check_at[x as usize] = OptionLayoutPos::some(LayoutPos::new(check as usize));
        self.push_event(check, x);
    }

    // ----- events ------------------------------------------------------

    /// Arms waiting nodes whose earlier slot arrives at `p` and collects
    /// armed nodes whose target arrives at `p` into `armed_here`.
    fn process_events(&mut self, p: u32) {
        self.armed_here.clear();
        while let Some(&Reverse(e)) = self.events.peek() {
            if (e >> 32) as u32 != p {
                debug_assert!(((e >> 32) as u32) > p, "event in the past");
                break;
            }
            self.events.pop();
            let x = e as u32;
            match self.state[x as usize] {
                DState::Waiting => {
                    let a0 = self.arrival(x, self.slot(x, 0));
                    let a1 = self.arrival(x, self.slot(x, 1));
                    debug_assert!(a0.min(a1) >= p);
                    if a0.min(a1) != p {
                        continue;
                    }
                    if a0 == a1 {
                        // Both sides enter the same node here: one successor.
                        debug_assert_eq!(self.slot(x, 0), self.slot(x, 1));
                        self.state[x as usize] = DState::Done;
                        continue;
                    }
                    let early = if a0 == p { 0 } else { 1 };
                    self.arm(x, early, p);
                }
                DState::Armed { target } => {
                    debug_assert!(self.arrival(x, self.slot(x, target as usize)) >= p);
                    if self.check_at[x as usize]
                        == OptionLayoutPos::some(LayoutPos::new(p as usize))
                    {
                        self.armed_here.push(x);
                    }
                }
                DState::Inert | DState::Done => {}
            }
        }
    }

    // ----- region checks -----------------------------------------------

    fn new_group(&mut self) -> u32 {
        let id = self.num_groups;
        if self.groups.len() == id {
            self.groups.push(Group::default());
        }
        let g = &mut self.groups[id];
        g.parent = id as u32;
        g.edges.clear();
        g.nodes.clear();
        self.num_groups += 1;
        id as u32
    }

    fn find_group(&mut self, mut g: u32) -> u32 {
        while self.groups[g as usize].parent != g {
            let up = self.groups[self.groups[g as usize].parent as usize].parent;
            self.groups[g as usize].parent = up;
            g = up;
        }
        g
    }

    fn merge_groups(&mut self, a: u32, b: u32) -> u32 {
        let (ra, rb) = (self.find_group(a), self.find_group(b));
        if ra == rb {
            return ra;
        }
        let (big, small) =
            if self.groups[ra as usize].nodes.len() >= self.groups[rb as usize].nodes.len() {
                (ra, rb)
            } else {
                (rb, ra)
            };
        let mut edges = std::mem::take(&mut self.groups[small as usize].edges);
        let mut nodes = std::mem::take(&mut self.groups[small as usize].nodes);
        self.groups[big as usize].edges.append(&mut edges);
        self.groups[big as usize].nodes.append(&mut nodes);
        self.groups[small as usize].edges = edges;
        self.groups[small as usize].nodes = nodes;
        self.groups[small as usize].parent = big;
        big
    }

    /// Collects the region of `x0` (nodes reachable through closed slots,
    /// by union-find representatives) and its open slots into group `gid`,
    /// merging with groups of other checks at `p` whose regions it meets.
    fn traverse(&mut self, x0: u32, gid: u32, p: u32) {
        let mark = p + 1;
        self.stamp[x0 as usize] = mark;
        self.group_of[x0 as usize] = gid;
        self.stack.clear();
        self.stack.push(x0);
        while let Some(y) = self.stack.pop() {
            let root = self.find_group(gid);
            self.groups[root as usize].nodes.push(y);
            for i in 0..self.num_slots(y) {
                let t = self.slot(y, i);
                let a = self.arrival(y, t);
                if a == NEVER {
                    continue;
                }
                if a < p {
                    let z = self.find(self.dest_node(t));
                    if self.stamp[z as usize] == mark {
                        let other = self.group_of[z as usize];
                        self.merge_groups(gid, other);
                    } else {
                        self.stamp[z as usize] = mark;
                        self.group_of[z as usize] = gid;
                        self.stack.push(z);
                    }
                } else {
                    let root = self.find_group(gid);
                    self.groups[root as usize].edges.push((y, i as u8));
                }
            }
        }
    }

    /// Checks every armed node whose target arrives at `p` (see module
    /// docs of `plan`): regions whose open slots do not all enter the same
    /// node at `p` are rerouted into the Flow block at `p`.
    fn run_checks(&mut self, p: u32) {
        self.num_groups = 0;
        let armed = std::mem::take(&mut self.armed_here);
        for &b in &armed {
            self.checks += 1;
            debug_assert_eq!(
                self.find(b),
                b,
                "an armed node is never summarized before its check"
            );
            if self.stamp[b as usize] == p + 1 {
                continue; // already inside another check's region
            }
            let gid = self.new_group();
            self.traverse(b, gid, p);
        }
        let key = self.layout.key_block(self.forest, p);
        let mut deferred = std::mem::take(&mut self.deferred);
        deferred.clear();
        for gid in 0..self.num_groups as u32 {
            if self.groups[gid as usize].parent != gid {
                continue;
            }
            let fp = self.flow_at[p as usize].get();
            let (mut all_direct, mut all_flow, mut any_here) = (true, true, false);
            for k in 0..self.groups[gid as usize].edges.len() {
                let (y, i) = self.groups[gid as usize].edges[k];
                let t = self.slot(y, i as usize);
                let here = self.arrival(y, t) == p;
                any_here |= here;
                all_direct &= t == Dest::Block(key) && here;
                all_flow &= fp.is_some_and(|f| t == Dest::Flow(f));
            }
            if !any_here {
                // Only early checks (at a join hint) whose region does not
                // enter the join here: check them at their targets instead.
                deferred.push(gid);
                continue;
            }
            let target = if all_direct {
                key.as_u32()
            } else if let (true, Some(fp)) = (all_flow, fp) {
                self.n as u32 + fp.as_u32()
            } else {
                let f = match fp {
                    None => self.create_flow(p),
                    Some(fp) => fp.as_u32(),
                };
                for k in 0..self.groups[gid as usize].edges.len() {
                    let (y, i) = self.groups[gid as usize].edges[k];
                    self.absorb(y, i as usize, f);
                }
                self.n as u32 + f
            };
            self.unions.push((target, gid as usize));
        }
        for &b in &armed {
            let g = self.find_group(self.group_of[b as usize]);
            if deferred.contains(&g) {
                let DState::Armed { target } = self.state[b as usize] else {
                    unreachable!()
                };
                let at = self.arrival(b, self.slot(b, target as usize));
                debug_assert!(
                    at > p,
                    "a check at its target always has an edge arriving here"
                );
                self.check_at[b as usize] = OptionLayoutPos::some(LayoutPos::new(at as usize));
                self.push_event(at, b);
            } else {
                self.state[b as usize] = DState::Done;
            }
        }
        self.deferred = deferred;
        self.armed_here = armed;
    }

    /// Redirects slot `i` of `y` into Flow `f` (placed at the current
    /// position), recording its destination(s) in the Flow's heap.
    fn absorb(&mut self, y: u32, i: usize, f: u32) {
        let t = self.slot(y, i);
        if t == Dest::Flow(FlowId(f)) {
            return;
        }
        let entry = match t {
            Dest::Block(w) => {
                let a = self.arrival(y, t);
                debug_assert_eq!(a, self.arrival_from_ctx(self.flows[f as usize].ctx, w));
                ((a as u64) << 32) | w.as_u32() as u64
            }
            Dest::Flow(h) => {
                ((self.flows[h.index()].pos as u64) << 32) | (self.n + h.index()) as u64
            }
        };
        self.flows[f as usize].heap.push(Reverse(entry));
        self.set_slot(y, i, Dest::Flow(FlowId(f)));
        if matches!(
            self.state[y as usize],
            DState::Waiting | DState::Armed { .. }
        ) {
            // Its region lies inside the absorbed one: it reconverges here.
            self.state[y as usize] = DState::Done;
        }
    }

    fn apply_unions(&mut self) {
        let unions = std::mem::take(&mut self.unions);
        for &(target, gid) in &unions {
            let r = self.find(target);
            for k in 0..self.groups[gid].nodes.len() {
                let y = self.groups[gid].nodes[k];
                if y != r {
                    debug_assert_eq!(self.uf[y as usize], y);
                    self.uf[y as usize] = r;
                }
            }
        }
        self.unions = unions;
        self.unions.clear();
    }

    // ----- placing nodes -----------------------------------------------

    fn visit(&mut self, p: u32) {
        if let Some(f) = self.flow_at[p as usize].get() {
            self.place_flow(f.as_u32(), p);
        }
        if let Position::Block(v) = self.layout.seq[p as usize] {
            self.order.push(Dest::Block(v));
            if self.is_relevant_divergent(v) {
                let x = v.as_u32();
                self.state[x as usize] = DState::Waiting;
                let a0 = self.arrival(x, self.slot(x, 0));
                let a1 = self.arrival(x, self.slot(x, 1));
                if a0.min(a1) == p {
                    // A self loop has already arrived: armed right away.
                    self.arm(x, if a0 == p { 0 } else { 1 }, p);
                } else {
                    self.push_event(a0.min(a1), x);
                }
            }
        }
    }

    /// A divergent block whose two slots lead to two different blocks of
    /// `R` (otherwise one successor trivially post-dominates it in `R`).
    fn is_relevant_divergent(&self, v: BlockId) -> bool {
        if !self.divergent[v.index()] {
            return false;
        }
        let s = self.g.successors(v);
        s.len() == 2 && s[0] != s[1] && self.in_r[s[0].index()] && self.in_r[s[1].index()]
    }

    /// Places Flow `f` at position `p`: its key side enters the position's
    /// block (or loops back to the ending cycle's header), the other side
    /// carries every other pending destination further down the layout.
    fn place_flow(&mut self, f: u32, p: u32) {
        let mut heap = std::mem::take(&mut self.flows[f as usize].heap);
        let key = self.layout.key_block(self.forest, p);
        let self_code = self.n as u64 + f as u64;
        let mut saw_key = false;
        while let Some(&Reverse(e)) = heap.peek() {
            if (e >> 32) as u32 != p {
                break;
            }
            heap.pop();
            let code = e & 0xffff_ffff;
            if code == key.as_u32() as u64 {
                saw_key = true;
            } else {
                debug_assert_eq!(
                    code, self_code,
                    "only the key block arrives at a Flow's position"
                );
            }
        }
        assert!(saw_key, "a Flow always routes the block at its position");
        self.join[self.n + f as usize] = self.join_of(key, &heap);
        let rest = self.forward(heap, p);
        let latch = matches!(self.layout.seq[p as usize], Position::CycleEnd(_));
        let node = if latch {
            FlowNode {
                on_true: rest,
                on_false: Dest::Block(key),
                kind: FlowKind::LoopLatch { header: key },
            }
        } else {
            FlowNode {
                on_true: Dest::Block(key),
                on_false: rest,
                kind: FlowKind::Plain,
            }
        };
        self.flows[f as usize].node = Some(node);
        self.order.push(Dest::Flow(FlowId(f)));
        let x = self.n as u32 + f;
        debug_assert!(self.arrival(x, rest) > p);
        self.arm(x, if latch { 1 } else { 0 }, p);
    }

    /// Join hint of a Flow: the nearest common post-dominator (in the
    /// input) of its destinations; none if one of them is only known as
    /// "whatever a pending Flow routes".
    fn join_of(&self, key: BlockId, heap: &BinaryHeap<Reverse<u64>>) -> OptionBlockId {
        let mut j = Some(key);
        for &Reverse(e) in heap.iter() {
            let code = (e & 0xffff_ffff) as usize;
            if code >= self.n {
                return OptionBlockId::NONE;
            }
            let Some(cur) = j else {
                return OptionBlockId::NONE;
            };
            j = self
                .view
                .nearest_common_post_dominator(cur, BlockId::new(code));
        }
        j.into()
    }

    /// The target for the non-key destinations of a Flow at `p`: the single
    /// remaining destination, or the Flow at the earliest remaining arrival
    /// (created on demand) which inherits all of them.
    fn forward(&mut self, mut heap: BinaryHeap<Reverse<u64>>, p: u32) -> Dest {
        let Reverse(first) = heap.pop().expect("a Flow has at least two destinations");
        while heap.peek() == Some(&Reverse(first)) {
            heap.pop();
        }
        let code = (first & 0xffff_ffff) as usize;
        if heap.is_empty() {
            return if code < self.n {
                Dest::Block(BlockId::new(code))
            } else {
                Dest::Flow(FlowId((code - self.n) as u32))
            };
        }
        let at = (first >> 32) as u32;
        debug_assert!(at > p);
        let target = if code >= self.n {
            (code - self.n) as u32
        } else if let Some(f) = self.flow_at[at as usize].get() {
            f.as_u32()
        } else {
            self.create_flow(at)
        };
        if code != self.n + target as usize {
            heap.push(Reverse(first));
        }
        let mut merged = std::mem::take(&mut self.flows[target as usize].heap);
        if merged.len() < heap.len() {
            std::mem::swap(&mut merged, &mut heap);
        }
        merged.append(&mut heap);
        self.flows[target as usize].heap = merged;
        Dest::Flow(FlowId(target))
    }
}
