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
//! share a value. The conflict graph has exactly the edges
//! (key of `f`, `d`) for every Flow `f` and every destination `d != key`
//! whose threads pass `f` ([`ReconvergePlan::destinations`]), so it is
//! built in time linear in the plan. The values are a greedy coloring of
//! it, visiting destinations in sweep order. On a linear chain the
//! conflicts form an interval graph and that order is optimal: the
//! number of values is the largest number of destinations in flight at
//! one Flow, not the number of destinations. (At 100k blocks: about a
//! hundred values instead of 31k, hence as many `arith.constant`s.)
//!
//! Edge cases: a key no thread of its own reaches still gets a value
//! distinct from every destination that passes its Flow; chains of at
//! most `selector_chain_length` Flows get no values; one value may serve
//! several chains, since chains never share a Flow block.

use super::{Dest, FlowId, ReconvergePlan};
use crate::analysis::cfg::BlockId;
use crate::support::FastMap;

/// The chains of a plan, and the selector values of the long ones.
pub struct FlowChains {
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
    pub fn new(plan: &ReconvergePlan, selector_chain_length: usize) -> Self {
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
    pub fn chain_of(&self, flow: FlowId) -> usize {
        self.chain[flow.index()]
    }

    /// True if `chain` threads a selector instead of one predicate per Flow.
    pub fn uses_selector(&self, chain: usize) -> bool {
        self.size[chain] > self.selector_chain_length
    }

    /// The selector value of `destination` (a destination or key of a
    /// Flow of `chain`) in a chain that uses a selector. Panics otherwise.
    pub fn value_of(&self, chain: usize, destination: BlockId) -> i64 {
        self.value[&(chain, destination)]
    }

    /// Number of distinct selector values over all chains.
    pub fn num_values(&self) -> usize {
        self.num_values
    }

    /// Greedy coloring of the conflict graph of every selector chain (see
    /// the module docs), in sweep order; returns the values and how many
    /// distinct ones there are.
    fn color(&self, plan: &ReconvergePlan) -> (FastMap<(usize, BlockId), i64>, usize) {
        let mut vertex: FastMap<(usize, BlockId), u32> = FastMap::default();
        let mut vertices: Vec<(usize, BlockId)> = Vec::new();
        let mut vertex_of = |chain: usize, block: BlockId| {
            *vertex.entry((chain, block)).or_insert_with(|| {
                vertices.push((chain, block));
                (vertices.len() - 1) as u32
            })
        };
        let mut conflicts: Vec<(u32, u32)> = Vec::new();
        for &dest in plan.order() {
            let Dest::Flow(flow) = dest else { continue };
            let chain = self.chain_of(flow);
            if !self.uses_selector(chain) {
                continue;
            }
            let key = plan.flow(flow).key();
            let k = vertex_of(chain, key);
            for &d in plan.destinations(flow) {
                if d != key {
                    let v = vertex_of(chain, d);
                    conflicts.extend([(k, v), (v, k)]);
                }
            }
        }
        let (start, neighbours) = super::csr_by_row(vertices.len(), conflicts);
        let mut color: Vec<u32> = Vec::with_capacity(vertices.len());
        // taken_by[c] == v + 1: a neighbour of v already has color c.
        let mut taken_by: Vec<u32> = Vec::new();
        for v in 0..vertices.len() {
            let stamp = v as u32 + 1;
            for &w in &neighbours[start[v] as usize..start[v + 1] as usize] {
                if let Some(&c) = color.get(w as usize) {
                    taken_by[c as usize] = stamp;
                }
            }
            let free = taken_by
                .iter()
                .position(|&by| by != stamp)
                .unwrap_or(taken_by.len());
            if free == taken_by.len() {
                taken_by.push(0);
            }
            color.push(free as u32);
        }
        let values = vertices
            .into_iter()
            .zip(color)
            .map(|(key, c)| (key, i64::from(c)))
            .collect();
        (values, taken_by.len())
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
            let destinations: std::collections::HashSet<_> = plan
                .flows()
                .flat_map(|(f, _)| plan.destinations(f).iter().copied())
                .collect();
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
            .flows()
            .map(|(f, _)| plan.destinations(f).len())
            .max()
            .unwrap_or(0);
        assert!(
            chains.num_values() <= in_flight.max(1),
            "{} values, {in_flight} in flight",
            chains.num_values()
        );
    }
}
