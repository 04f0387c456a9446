//! Property tests of the hub planners on random CFGs, at the graph level:
//! every round's plan must deliver each rerouted thread to its original
//! target, the rounds must terminate, and the end result must have the
//! promised shape.

use super::{fix_irreducible::irreducible_hubs, unify_loop_exits::loop_exit_hubs};
use crate::{
    analysis::cfg::{random::SplitMix64, CfgGraph, CycleForest, Graph, Traversal},
    transforms::flow::plan::{
        corpus::{sample, Class},
        HubSpec, ReconvergePlan,
    },
};

/// Runs `planner` to a fixed point on `g`; checks each round's routes and
/// returns the final graph with the number of guard blocks added.
fn rounds(g: &CfgGraph, planner: fn(&CfgGraph) -> Vec<HubSpec>) -> (CfgGraph, usize) {
    let mut current = g.clone();
    let mut added = 0;
    for _ in 0..=g.num_blocks() {
        let hubs = planner(&current);
        if hubs.is_empty() {
            return (current, added);
        }
        let plan = ReconvergePlan::from_hubs(&current, &hubs);
        for (b, slot, dest) in plan.redirected_slots() {
            let target = plan.original_target(b, slot);
            assert!(
                plan.try_route(dest, target).is_some(),
                "{b} slot {slot} does not reach {target}"
            );
        }
        let expected: usize = hubs.iter().map(|h| h.targets.len() - 1).sum();
        assert_eq!(
            plan.num_flows(),
            expected,
            "one guard per target but the last"
        );
        added += plan.num_flows();
        current = plan.apply_to_graph(&current).0;
    }
    panic!("hub rounds did not terminate");
}

fn forest(g: &CfgGraph) -> CycleForest {
    let dfs = Traversal::build(g);
    let mut forest = CycleForest::new();
    forest.compute(g, &dfs);
    forest
}

fn corpus(seed: u64) -> impl Iterator<Item = CfgGraph> {
    let mut rng = SplitMix64::new(seed);
    (0..1500).map(move |i| {
        let class = [
            Class::Irreducible,
            Class::Reducible,
            Class::UnifiedExits,
            Class::InfiniteLoops,
        ][i % 4];
        let n = 3 + rng.below(60) as usize;
        sample(&mut rng, class, n, 500).graph
    })
}

#[test]
fn fix_irreducible_makes_every_cycle_reducible() {
    let (mut fixed, mut guards) = (0, 0);
    for g in corpus(11) {
        let before = forest(&g);
        let (h, added) = rounds(&g, irreducible_hubs);
        let after = forest(&h);
        assert!(after.all_reducible(), "still irreducible after fixing");
        if before.all_reducible() {
            assert_eq!(added, 0, "a reducible CFG was changed");
        } else {
            fixed += 1;
        }
        guards += added;
        // Linear growth: a guard per entry but one, per cycle and round.
        assert!(
            added <= g.num_edges(),
            "{added} guards for {} edges",
            g.num_edges()
        );
    }
    assert!(
        fixed > 100,
        "only {fixed} irreducible samples: the test is not exercising the planner"
    );
    assert!(guards > fixed);
}

#[test]
fn unify_loop_exits_leaves_one_exit_block_per_cycle() {
    let mut changed = 0;
    for g in corpus(12) {
        let was_reducible = forest(&g).all_reducible();
        let (h, added) = rounds(&g, loop_exit_hubs);
        let after = forest(&h);
        for c in after.cycles() {
            assert!(
                after.exit_blocks(c).len() <= 1,
                "cycle headed by {} keeps {} exits",
                after.header(c),
                after.exit_blocks(c).len()
            );
        }
        if was_reducible {
            assert!(
                after.all_reducible(),
                "unifying exits made a reducible CFG irreducible"
            );
        }
        changed += usize::from(added > 0);
    }
    assert!(changed > 100, "only {changed} samples needed a hub");
}

#[test]
fn fix_then_unify_compose() {
    for g in corpus(13).take(400) {
        let (h, _) = rounds(&g, irreducible_hubs);
        let (k, _) = rounds(&h, loop_exit_hubs);
        let after = forest(&k);
        assert!(after.all_reducible());
        assert!(after.cycles().all(|c| after.exit_blocks(c).len() <= 1));
    }
}

/// Hand example: `E -> A, B; A <-> B; A, B -> X`.
#[test]
fn two_entry_cycle_gets_one_hub_with_both_entries() {
    let g = CfgGraph::from_edges(
        4,
        crate::analysis::cfg::BlockId::new(0),
        &[(0, 1), (0, 2), (1, 2), (2, 1), (1, 3), (2, 3)],
    );
    let hubs = irreducible_hubs(&g);
    assert_eq!(hubs.len(), 1);
    assert_eq!(hubs[0].targets.len(), 2);
    // E's two slots and the two inner edges all enter the hub.
    assert_eq!(hubs[0].slots.len(), 4);
    let (h, added) = rounds(&g, irreducible_hubs);
    assert_eq!(added, 1);
    assert!(forest(&h).all_reducible());
}
