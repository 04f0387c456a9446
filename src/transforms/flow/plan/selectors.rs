//! Flow chains and their selector values.
//!
//! A *chain* is a connected group of Flow blocks (joined by Flow-to-Flow
//! edges). A thread enters a chain from an original block and leaves it
//! towards its final destination `d`, deciding at each Flow on the way:
//! a Plain Flow keyed `k` sends it to `k` exactly when `d == k`, a loop
//! latch for header `h` sends it back to `h` exactly when `d == h`
//! ([`FlowNode::takes_true`]).
//!
//! Short chains thread one `i1` predicate per Flow block. Long chains
//! (more than `selector_chain_length` Flows) instead thread one `i32`
//! *selector* that stands for the destination, and each Flow block
//! compares it with the value of its own key; that keeps the edit linear
//! in the chain's length.
//!
//! ```text
//!   a ──┐      b ──┐            sel = v(d) on a's edge, v(e) on b's
//!       ▼          ▼
//!     Flow₁ ───► Flow₂ ───► e   Flow₁: sel == v(k₁) → k₁
//!       │          │            Flow₂: sel == v(k₂) → k₂, else e
//!       ▼          ▼
//!       k₁         k₂
//! ```
//!
//! # Selector values
//!
//! Values only have to tell apart destinations that meet: a thread bound
//! for `d` that passes a Flow keyed `k != d` must fail that Flow's test,
//! so `v(d) != v(k)`. Two destinations that never meet at a Flow may
//! share a value.
//!
//! The exact conflicts need the set of destinations in flight at every
//! Flow, whose total size is quadratic on long chains (93 million at 100k
//! blocks with long-range edges, issue #18). Instead each destination `d`
//! of a chain gets a *span* of sweep positions that covers every Flow it
//! may pass or be the key of:
//!
//! * it starts at the earliest Flow where a slot bound for `d` enters the
//!   chain, or where `d` leaves it if that comes earlier (a key no thread
//!   of its own reaches);
//! * it ends at the latest Flow with a side into `d` itself.
//!
//! Every Flow edge goes forward in the sweep order and a route ends at a
//! Flow with a side into its destination, so a thread bound for `d` only
//! passes Flows inside `d`'s span, and the key of a Flow `f` has a side
//! into it at `f`. Two conflicting destinations therefore have spans
//! sharing a position, and values that differ on overlapping spans are
//! sound. That is interval coloring: sweeping the positions, each span
//! takes the smallest value free in its chain when it starts and returns
//! it after it ends, which uses exactly as many values as spans overlap
//! at the busiest position (optimal for the spans; on a linear chain the
//! spans are exact, so also for the conflicts). The work is linear in the
//! plan plus a sort of the span ends.
//!
//! ```text
//!   positions   10   14   20   31          spans: d [10, 20]  e [14, 31]
//!   Flows       F₁   F₂   F₃   F₄                 k [20, 20]
//!   d enters at F₁, e at F₂; F₃ keyed k; d leaves at F₃, e at F₄
//!   v(d) = 0, v(e) = 1, v(k) = 2 (three spans meet at 20)
//! ```
//!
//! Edge cases: chains of at most `selector_chain_length` Flows get no
//! values; one value may serve several chains, since chains never share
//! a Flow block.

use super::{Dest, FlowId, ReconvergePlan};
use crate::analysis::cfg::BlockId;
use crate::support::FastMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The chains of a plan, and the selector values of the long ones.
pub(crate) struct FlowChains {
    /// Per Flow: its chain, named by one of its Flows.
    chain: Vec<usize>,
    /// Per chain name: the number of Flows.
    size: Vec<usize>,
    value: FastMap<(usize, BlockId), i64>,
    num_values: usize,
    selector_chain_length: usize,
}

impl FlowChains {
    /// The chains of `plan`; those longer than `selector_chain_length`
    /// Flows use a selector.
    pub(crate) fn new(plan: &ReconvergePlan, selector_chain_length: usize) -> Self {
        let chain = chain_names(plan);
        let mut size = vec![0; chain.len()];
        for &c in &chain {
            size[c] += 1;
        }
        let mut chains = Self {
            chain,
            size,
            value: FastMap::default(),
            num_values: 0,
            selector_chain_length,
        };
        (chains.value, chains.num_values) = chains.color(plan);
        chains
    }

    /// The chain of a Flow.
    pub(crate) fn chain_of(&self, flow: FlowId) -> usize {
        self.chain[flow.index()]
    }

    /// True if `chain` threads a selector instead of one predicate per Flow.
    pub(crate) fn uses_selector(&self, chain: usize) -> bool {
        self.size[chain] > self.selector_chain_length
    }

    /// The selector value of `destination` (a destination or key of a
    /// Flow of `chain`) in a chain that uses a selector. Panics otherwise.
    pub(crate) fn value_of(&self, chain: usize, destination: BlockId) -> i64 {
        self.value[&(chain, destination)]
    }

    /// Number of distinct selector values over all chains.
    pub(crate) fn num_values(&self) -> usize {
        self.num_values
    }

    /// Interval coloring of the spans of every selector chain's
    /// destinations (see the module docs); returns the values and how
    /// many distinct ones there are.
    fn color(&self, plan: &ReconvergePlan) -> (FastMap<(usize, BlockId), i64>, usize) {
        let spans = self.spans(plan);
        // Span starts sorted by position, ends likewise; at one position
        // every start comes before every end (spans are closed).
        let mut starts: Vec<(u32, u32)> = (0..spans.len())
            .map(|i| (spans[i].1 .0, i as u32))
            .collect();
        let mut ends: Vec<(u32, u32)> = (0..spans.len())
            .map(|i| (spans[i].1 .1, i as u32))
            .collect();
        starts.sort_unstable();
        ends.sort_unstable();
        let mut free: FastMap<usize, BinaryHeap<Reverse<u32>>> = FastMap::default();
        let mut fresh: FastMap<usize, u32> = FastMap::default();
        let mut color = vec![0u32; spans.len()];
        let mut num_values = 0;
        let mut next_end = 0;
        for &(position, i) in &starts {
            while next_end < ends.len() && ends[next_end].0 < position {
                let j = ends[next_end].1 as usize;
                let chain = spans[j].0 .0;
                free.entry(chain).or_default().push(Reverse(color[j]));
                next_end += 1;
            }
            let chain = spans[i as usize].0 .0;
            let c = match free.get_mut(&chain).and_then(BinaryHeap::pop) {
                Some(Reverse(c)) => c,
                None => {
                    let next = fresh.entry(chain).or_insert(0);
                    *next += 1;
                    *next - 1
                }
            };
            color[i as usize] = c;
            num_values = num_values.max(c as usize + 1);
        }
        let values = spans
            .into_iter()
            .zip(color)
            .map(|((key, _), c)| (key, i64::from(c)))
            .collect();
        (values, num_values)
    }

    /// The span `(first, last)` of sweep positions of every destination
    /// of every selector chain (see the module docs).
    fn spans(&self, plan: &ReconvergePlan) -> Vec<((usize, BlockId), (u32, u32))> {
        let mut position = vec![0u32; plan.num_flows()];
        for (p, &dest) in plan.order().iter().enumerate() {
            if let Dest::Flow(f) = dest {
                position[f.index()] = p as u32;
            }
        }
        let mut span: FastMap<(usize, BlockId), (u32, u32)> = FastMap::default();
        let mut widen = |chain: usize, d: BlockId, p: u32, leaves: bool| {
            let s = span.entry((chain, d)).or_insert((p, p));
            s.0 = s.0.min(p);
            if leaves {
                s.1 = s.1.max(p);
            }
        };
        for (flow, node) in plan.flows() {
            let chain = self.chain_of(flow);
            if !self.uses_selector(chain) {
                continue;
            }
            for side in [node.on_true, node.on_false] {
                if let Dest::Block(d) = side {
                    widen(chain, d, position[flow.index()], true);
                }
            }
        }
        for (block, slot, entry) in plan.redirected_slots() {
            let Dest::Flow(flow) = entry else { continue };
            let chain = self.chain_of(flow);
            if self.uses_selector(chain) {
                let d = plan.original_target(block, slot);
                widen(chain, d, position[flow.index()], false);
            }
        }
        let mut spans: Vec<_> = span.into_iter().collect();
        // Deterministic values: FastMap iteration order is not.
        spans.sort_unstable_by_key(|&((chain, d), _)| (chain, d));
        spans
    }
}

/// Per Flow, the name of its chain: union-find over Flow-to-Flow edges.
fn chain_names(plan: &ReconvergePlan) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..plan.num_flows()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (flow, node) in plan.flows() {
        for dest in [node.on_true, node.on_false] {
            if let Dest::Flow(next) = dest {
                let (a, b) = (
                    find(&mut parent, flow.index()),
                    find(&mut parent, next.index()),
                );
                parent[a] = b;
            }
        }
    }
    (0..parent.len()).map(|f| find(&mut parent, f)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::corpus::{sample, Class};
    use super::super::{plan_reconvergence_with, FlowKind, PlanOptions};
    use super::*;
    use crate::analysis::cfg::random::SplitMix64;

    /// Replays, with selector comparisons only, the route of every edge
    /// that enters a chain: it must reach the slot's original target,
    /// through the same Flows as the plan's own route.
    fn check_selector_routes(plan: &ReconvergePlan, chains: &FlowChains) -> usize {
        let mut checked = 0;
        for (block, slot, entry) in plan.redirected_slots() {
            let Dest::Flow(first) = entry else { continue };
            let chain = chains.chain_of(first);
            let destination = plan.original_target(block, slot);
            let selector = chains.value_of(chain, destination);
            let mut at = entry;
            let mut path = Vec::new();
            while let Dest::Flow(flow) = at {
                assert!(
                    path.len() <= plan.num_flows(),
                    "selector route of {block}#{slot} loops"
                );
                let node = plan.flow(flow);
                let taken = match node.kind {
                    FlowKind::Plain => selector == chains.value_of(chain, node.key()),
                    FlowKind::LoopLatch { header } => selector != chains.value_of(chain, header),
                };
                path.push((flow, taken));
                at = node.successor(taken);
            }
            assert_eq!(
                at,
                Dest::Block(destination),
                "{block}#{slot} arrives elsewhere"
            );
            assert_eq!(
                path,
                plan.route(entry, destination),
                "{block}#{slot} takes another route"
            );
            checked += 1;
        }
        checked
    }

    #[test]
    fn property_selector_values_route_every_thread_to_its_destination() {
        let seeds: usize = crate::testing::seed_count("SPMD_SELECTOR_SEEDS", 1500);
        let mut rng = SplitMix64::new(0x5E1E_C702);
        let (mut routes, mut shared) = (0, 0);
        for i in 0..seeds {
            let class = [
                Class::Reducible,
                Class::Irreducible,
                Class::UnifiedExits,
                Class::InfiniteLoops,
            ][i % 4];
            let n = rng.range(4, 40);
            let s = sample(&mut rng, class, n, 700);
            let Ok(plan) =
                plan_reconvergence_with(&s.graph, &s.divergent, s.exit, &PlanOptions::default())
            else {
                continue;
            };
            // Every chain uses a selector.
            let chains = FlowChains::new(&plan, 0);
            routes += check_selector_routes(&plan, &chains);
            let destinations: std::collections::HashSet<_> =
                plan.destination_sets().into_iter().flatten().collect();
            assert!(chains.num_values() <= destinations.len().max(1) + 1);
            shared += usize::from(chains.num_values() < destinations.len());
        }
        // The corpus must exercise chains, and values must get shared.
        assert!(routes > seeds, "only {routes} routes entered a chain");
        assert!(
            shared * 4 > seeds / 2,
            "values shared in only {shared} plans"
        );
    }

    #[test]
    fn a_ladder_of_divergent_exits_needs_no_more_values_than_destinations_in_flight() {
        // Blocks 1..=4 each branch to their own target and to the next;
        // the reconverging form routes everything through one chain.
        // Whatever the plan, the values must keep every route intact.
        let edges = [
            (0, 1),
            (0, 9),
            (1, 2),
            (1, 5),
            (2, 3),
            (2, 6),
            (3, 4),
            (3, 7),
            (4, 8),
            (4, 9),
            (5, 9),
            (6, 9),
            (7, 9),
            (8, 9),
        ];
        let g = crate::analysis::cfg::CfgGraph::from_edges(10, BlockId::new(0), &edges);
        let mut divergent = vec![false; 10];
        divergent[..5].fill(true);
        let plan = plan_reconvergence_with(
            &g,
            &divergent,
            Some(BlockId::new(9)),
            &PlanOptions::default(),
        )
        .unwrap();
        let chains = FlowChains::new(&plan, 0);
        check_selector_routes(&plan, &chains);
        let in_flight = plan
            .destination_sets()
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        assert!(
            chains.num_values() <= in_flight.max(1),
            "{} values, {in_flight} in flight",
            chains.num_values()
        );
    }
}
