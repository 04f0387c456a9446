use super::corpus::{sample, Class};
use super::*;
use crate::analysis::cfg::random::SplitMix64;
use crate::analysis::cfg::{CfgAnalysis, CfgGraph, Graph, OptionBlockId, PostDominatorTree};

fn b(i: usize) -> BlockId {
    BlockId::new(i)
}

fn graph(n: usize, edges: &[(u32, u32)]) -> CfgGraph {
    CfgGraph::from_edges(n, b(0), edges)
}

fn flags(n: usize, div: &[usize]) -> Vec<bool> {
    let mut v = vec![false; n];
    for &d in div {
        v[d] = true;
    }
    v
}

fn sweep_only(ordering: Ordering) -> PlanOptions {
    PlanOptions {
        ordering,
        verify: true,
        keep_reconverging_input: false,
    }
}

/// Plans with `options` and checks every property; returns the plan.
fn plan_checked(
    g: &CfgGraph,
    divergent: &[bool],
    exit: Option<BlockId>,
    options: &PlanOptions,
) -> ReconvergePlan {
    let plan =
        plan_reconvergence_with(g, divergent, exit, options).unwrap_or_else(|e| panic!("{e}"));
    check_plan(g, divergent, exit, &plan);
    plan
}

/// Properties (1), (4), (5) and the Flow-node shape; (2) and (3) are
/// checked by `random_walks_replay` and `uniform_violations`.
fn check_plan(g: &CfgGraph, divergent: &[bool], exit: Option<BlockId>, plan: &ReconvergePlan) {
    let n = g.num_blocks();
    let (h, map) = plan.apply_to_graph(g);
    // (5) no node splitting: same original blocks, same slot counts.
    assert_eq!(h.num_blocks(), n + plan.num_flows());
    for x in 0..n {
        assert_eq!(plan.num_slots(b(x)), g.successors(b(x)).len());
        for (s, &t) in g.successors(b(x)).iter().enumerate() {
            assert_eq!(plan.original_target(b(x), s), t);
            assert_eq!(h.successors(b(x))[s], map.id(plan.redirect(b(x), s)));
            plan.route(plan.redirect(b(x), s), t);
        }
    }
    // (1) the materialized graph is reconverging.
    let div2 = plan.divergence_after(divergent);
    let v = reconvergence_violations(&h, &|x| div2[x.index()], exit);
    assert!(v.is_empty(), "not reconverging: {v:?}");
    // Flow nodes: two distinct successors, both used by some destination,
    // entered by someone, reachable from the entry.
    let reach = crate::analysis::cfg::Traversal::build(&h);
    let destination_sets = plan.destination_sets();
    for (f, node) in plan.flows() {
        assert_ne!(node.on_true, node.on_false, "{f}");
        let dests = &destination_sets[f.index()];
        assert!(
            dests.iter().any(|&d| node.takes_true(d)),
            "{f}: true side unused {dests:?}"
        );
        assert!(
            dests.iter().any(|&d| !node.takes_true(d)),
            "{f}: false side unused {dests:?}"
        );
        assert!(
            !plan.flow_predecessors(f).is_empty(),
            "{f} has no predecessor"
        );
        assert!(reach.is_reachable(map.id(Dest::Flow(f))), "{f} unreachable");
        if let FlowKind::LoopLatch { header } = node.kind {
            assert_eq!(node.on_false, Dest::Block(header));
        }
    }
    // Only back edges into original cycle headers go backwards in order().
    let forest = crate::analysis::cfg::CycleForest::build(g);
    let mut pos = vec![usize::MAX; h.num_blocks()];
    for (i, &d) in plan.order().iter().enumerate() {
        pos[map.id(d).index()] = i;
    }
    for (u, v) in h.edges() {
        let (pu, pv) = (pos[u.index()], pos[v.index()]);
        if plan.stats().rounds > 0 && pu != usize::MAX && pv != usize::MAX && pv <= pu {
            assert!(
                !map.is_flow(v) && forest.is_header(v),
                "{u} -> {v} goes backwards in order()\n{}",
                dump(g, divergent, plan)
            );
        }
    }
    // Slots into / out of blocks that cannot return are never touched.
    let in_r = relevant::relevant_blocks(g, exit);
    for (x, s, _) in plan.redirected_slots() {
        assert!(in_r[x.index()], "slot of non-returning {x} rerouted");
        assert!(
            in_r[plan.original_target(x, s).index()],
            "slot into non-returning block rerouted"
        );
    }
    // (4) planning the output again changes nothing.
    let again = plan_reconvergence(&h, &div2, exit, plan.ordering()).unwrap();
    assert!(!again.changed(), "planning the output again changed it");
}

/// (2) Random walks on the original graph replayed on the plan: from block
/// `u` taking slot `s` towards `d`, the planned graph must take the redirect
/// then the route, visiting only Flows, and arrive at `d`.
fn random_walks_replay(rng: &mut SplitMix64, g: &CfgGraph, plan: &ReconvergePlan, walks: usize) {
    let (h, map) = plan.apply_to_graph(g);
    let limit = 3 * g.num_blocks() + 3;
    for _ in 0..walks {
        let mut u = g.entry();
        for _ in 0..limit {
            let succ = g.successors(u);
            if succ.is_empty() {
                break;
            }
            let s = rng.below(succ.len() as u64) as usize;
            let d = succ[s];
            let mut node = h.successors(u)[s];
            assert_eq!(node, map.id(plan.redirect(u, s)));
            for (f, value) in plan.route(plan.redirect(u, s), d) {
                assert_eq!(node, map.id(Dest::Flow(f)), "route and graph disagree");
                node = h.successors(node)[if value { 0 } else { 1 }];
            }
            assert_eq!(node, d, "walk from {u} slot {s} does not arrive at {d}");
            u = d;
        }
    }
}

/// (3) The module docs' rule: uniform blocks with a rerouted slot that lie
/// in no divergent region ("strictly between a divergent B and ipdom(B)"
/// in `R`, computed here independently) and in no irreducible cycle.
fn uniform_violations(
    g: &CfgGraph,
    divergent: &[bool],
    exit: Option<BlockId>,
    plan: &ReconvergePlan,
) -> usize {
    let n = g.num_blocks();
    let in_r = relevant::relevant_blocks(g, exit);
    let mut id = vec![OptionBlockId::NONE; n];
    let mut m = 0;
    for x in 0..n {
        if in_r[x] {
            id[x] = OptionBlockId::some(b(m));
            m += 1;
        }
    }
    let local = |x: usize| id[x].get().expect("a block of R has a local id");
    if m == 0 {
        return 0;
    }
    let mut edges = Vec::new();
    for x in (0..n).filter(|&x| in_r[x]) {
        for &t in g.successors(b(x)) {
            if in_r[t.index()] {
                edges.push((local(x).as_u32(), local(t.index()).as_u32()));
            }
        }
    }
    let sub = CfgGraph::from_edges(m, local(g.entry().index()), &edges);
    let pdt = PostDominatorTree::build(&sub);
    let mut inside = vec![false; n];
    for x in (0..n).filter(|&x| in_r[x] && divergent[x]) {
        let stop = pdt.ipdom(local(x));
        let mut seen = vec![false; n];
        let mut stack: Vec<BlockId> = g
            .successors(b(x))
            .iter()
            .copied()
            .filter(|t| in_r[t.index()])
            .collect();
        while let Some(y) = stack.pop() {
            if seen[y.index()] {
                continue;
            }
            if stop == Some(local(y.index())) {
                continue;
            }
            seen[y.index()] = true;
            inside[y.index()] = true;
            stack.extend(g.successors(y).iter().copied().filter(|t| in_r[t.index()]));
        }
    }
    let forest = crate::analysis::cfg::CycleForest::build(g);
    let in_irreducible = |x: usize| {
        let mut c = forest.innermost_cycle(b(x));
        while let Some(cy) = c {
            if !forest.is_reducible(cy) {
                return true;
            }
            c = forest.parent(cy);
        }
        false
    };
    let mut bad = 0;
    for x in 0..n {
        if divergent[x] || inside[x] || in_irreducible(x) {
            continue;
        }
        if (0..g.successors(b(x)).len()).any(|s| plan.is_redirected(b(x), s)) {
            bad += 1;
        }
    }
    bad
}

fn run_class(class: Class, seed: u64, count: usize) {
    let mut rng = SplitMix64::new(seed);
    let (mut changed, mut flows, mut rounds) = (0, 0, 0);
    for i in 0..count {
        let n = rng.range(3, 22);
        let rate = [200, 500, 1000][i % 3];
        let s = sample(&mut rng, class, n, rate);
        for (k, o) in Ordering::ALL.into_iter().enumerate() {
            let options = if (i + k) % 2 == 0 {
                PlanOptions {
                    ordering: o,
                    ..PlanOptions::default()
                }
            } else {
                sweep_only(o)
            };
            let plan = plan_reconvergence_with(&s.graph, &s.divergent, s.exit, &options)
                .unwrap_or_else(|e| {
                    panic!(
                        "{class:?} #{i} {o:?}: {e}\nedges {:?}\ndivergent {:?}",
                        s.graph
                            .edges()
                            .map(|(a, c)| (a.as_u32(), c.as_u32()))
                            .collect::<Vec<_>>(),
                        s.divergent
                    )
                });
            check_plan(&s.graph, &s.divergent, s.exit, &plan);
            random_walks_replay(&mut rng, &s.graph, &plan, 3);
            let bad = uniform_violations(&s.graph, &s.divergent, s.exit, &plan);
            assert_eq!(
                bad,
                0,
                "{class:?} #{i} {o:?}: uniform branch outside every divergent region rerouted\n{}",
                dump(&s.graph, &s.divergent, &plan)
            );
            rounds += (plan.stats().rounds > 1) as usize;
            changed += plan.changed() as usize;
            flows += plan.num_flows();
        }
    }
    // The corpus must actually exercise the planner.
    assert!(
        changed > count / 2,
        "{class:?}: only {changed} plans changed anything"
    );
    assert!(flows > count, "{class:?}: only {flows} flows");
    assert!(
        rounds * 50 < 4 * count,
        "{class:?}: {rounds} of {} plans needed a second sweep",
        4 * count
    );
}

#[test]
fn property_reducible() {
    run_class(Class::Reducible, 0x5EED_0001, 3000);
}

#[test]
fn property_irreducible() {
    run_class(Class::Irreducible, 0x5EED_0002, 3000);
}

#[test]
fn property_unified_exits() {
    run_class(Class::UnifiedExits, 0x5EED_0003, 3000);
}

#[test]
fn property_infinite_loops() {
    run_class(Class::InfiniteLoops, 0x5EED_0004, 3000);
}

#[test]
fn property_dead_ends() {
    run_class(Class::DeadEnds, 0x5EED_0005, 3000);
}

#[test]
fn uniform_only_graphs_are_untouched() {
    let mut rng = SplitMix64::new(99);
    for class in Class::ALL {
        for _ in 0..400 {
            let n = rng.range(3, 40);
            let s = sample(&mut rng, class, n, 0);
            for o in Ordering::ALL {
                let plan = plan_reconvergence_with(&s.graph, &s.divergent, s.exit, &sweep_only(o))
                    .unwrap();
                assert!(!plan.changed(), "{class:?}");
                assert_eq!(plan.stats().flows, 0);
            }
        }
    }
}

#[test]
fn bigger_code_shaped_cfgs() {
    let mut rng = SplitMix64::new(4242);
    for i in 0..40 {
        let n = rng.range(100, 400);
        let class = if i % 2 == 0 {
            Class::UnifiedExits
        } else {
            Class::DeadEnds
        };
        let s = sample(&mut rng, class, n, [200, 500, 1000][i % 3]);
        for o in Ordering::ALL {
            let plan = plan_checked(&s.graph, &s.divergent, s.exit, &sweep_only(o));
            random_walks_replay(&mut rng, &s.graph, &plan, 2);
            assert_eq!(uniform_violations(&s.graph, &s.divergent, s.exit, &plan), 0);
        }
    }
}

// ----- the reconvergence paper's figures --------------------------------------------------

#[test]
fn figure_2a_gets_one_post_dominating_flow() {
    // A(0) -> B(1), A -> C(2); B -> D(3); C -> D; A divergent.
    let g = graph(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let div = flags(4, &[0]);
    assert!(!is_reconverging(&g, &|x| div[x.index()], Some(b(3))));
    for o in Ordering::ALL {
        let plan = plan_checked(
            &g,
            &div,
            Some(b(3)),
            &PlanOptions {
                ordering: o,
                ..PlanOptions::default()
            },
        );
        assert_eq!(plan.num_flows(), 1, "{o:?}");
        let (h, map) = plan.apply_to_graph(&g);
        let pdt = PostDominatorTree::build(&h);
        let flow = map.id(Dest::Flow(FlowId::new(0)));
        assert!(pdt.post_dominates(flow, b(0)), "{o:?}");
        assert_eq!(pdt.ipdom(b(0)), Some(flow));
        assert_eq!(plan.stats().uniform_branches_rerouted, 0);
    }
}

#[test]
fn figure_4_walk_a_c_b_d() {
    // A(0) -> C(2) first, A -> B(1); B -> D(3); C -> D. Processing order
    // A -> C -> B -> D: FLOW0 is inserted before B, takes A's B-edge and
    // C's D-edge, and dispatches to B (true) or D (false).
    let g = graph(4, &[(0, 2), (0, 1), (1, 3), (2, 3)]);
    let div = flags(4, &[0]);
    let plan = plan_checked(&g, &div, Some(b(3)), &sweep_only(Ordering::Df));
    let f0 = Dest::Flow(FlowId::new(0));
    assert_eq!(
        plan.order(),
        &[
            Dest::Block(b(0)),
            Dest::Block(b(2)),
            f0,
            Dest::Block(b(1)),
            Dest::Block(b(3))
        ]
    );
    let node = plan.flow(FlowId::new(0));
    assert_eq!(
        (node.on_true, node.on_false, node.kind),
        (Dest::Block(b(1)), Dest::Block(b(3)), FlowKind::Plain)
    );
    assert_eq!(plan.redirect(b(0), 0), Dest::Block(b(2)));
    assert_eq!(plan.redirect(b(0), 1), f0);
    assert_eq!(plan.redirect(b(2), 0), f0);
    assert_eq!(plan.redirect(b(1), 0), Dest::Block(b(3)));
    assert_eq!(plan.destination_sets()[0], [b(1), b(3)]);
    assert_eq!(
        plan.flow_predecessors(FlowId::new(0)),
        &[
            FlowSource::Slot {
                block: b(0),
                slot: 1
            },
            FlowSource::Slot {
                block: b(2),
                slot: 0
            }
        ]
    );
    assert_eq!(plan.route(f0, b(3)), vec![(FlowId::new(0), false)]);
    assert_eq!(plan.route(f0, b(1)), vec![(FlowId::new(0), true)]);
    assert_eq!(plan.try_route(f0, b(2)), None);
    let st = plan.stats();
    assert_eq!(
        (st.flows, st.edges_rerouted, st.uniform_slots_rerouted),
        (1, 2, 1)
    );
}

#[test]
fn nested_reconverging_cfg_gives_empty_plan() {
    // if (a) { if (b) { C } } J — in reconverging form:
    // A(0) -> B(1) | J(4); B -> C(2) | K(3); C -> K; K -> J.
    let g = graph(5, &[(0, 1), (0, 4), (1, 2), (1, 3), (2, 3), (3, 4)]);
    let div = flags(5, &[0, 1]);
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &div, Some(b(4)), &sweep_only(o));
        assert!(!plan.changed(), "{o:?}");
    }
    // if-then-else inside if-then-else, made reconverging by the planner,
    // then planned again: nothing left to do.
    // 0 -> 1 | 6; 1 -> 2 | 3; 2 -> 4; 3 -> 4; 4 -> 7; 6 -> 7; 7 exit.
    let g = graph(
        8,
        &[
            (0, 1),
            (0, 6),
            (1, 2),
            (1, 3),
            (2, 4),
            (3, 4),
            (4, 7),
            (6, 7),
        ],
    );
    let div = flags(8, &[0, 1]);
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &div, Some(b(7)), &sweep_only(o));
        // Breadth-first interleaves the outer else-branch with the inner
        // diamond and pays for it.
        let expected = if o == Ordering::Bf { 4 } else { 2 };
        assert_eq!(plan.num_flows(), expected, "{o:?}");
        let (h, _) = plan.apply_to_graph(&g);
        let again =
            plan_reconvergence_with(&h, &plan.divergence_after(&div), Some(b(7)), &sweep_only(o))
                .unwrap();
        assert!(!again.changed(), "{o:?}");
    }
}

// ----- loops -------------------------------------------------------------

#[test]
fn divergent_break_to_the_loop_exit_needs_nothing() {
    // 0 -> H(1); H -> B(2) | X(4) (uniform while); B(div) -> X | C(3);
    // C -> H; X exit.
    let g = graph(5, &[(0, 1), (1, 2), (1, 4), (2, 4), (2, 3), (3, 1)]);
    let div = flags(5, &[2]);
    for o in Ordering::ALL {
        assert!(
            !plan_checked(&g, &div, Some(b(4)), &sweep_only(o)).changed(),
            "{o:?}"
        );
    }
}

#[test]
fn divergent_break_elsewhere_gets_a_flow() {
    // 0 -> H(1); H -> B(2) | X(4); B(div) -> Y(5) | C(3); C -> H;
    // X -> E(6); Y -> E. One Flow merges the break with the loop exit when
    // the layout places X before Y; Df places Y first and needs a second.
    let g = graph(
        7,
        &[
            (0, 1),
            (1, 2),
            (1, 4),
            (2, 5),
            (2, 3),
            (3, 1),
            (4, 6),
            (5, 6),
        ],
    );
    let div = flags(7, &[2]);
    let mut best = usize::MAX;
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &div, Some(b(6)), &sweep_only(o));
        assert!((1..=2).contains(&plan.num_flows()), "{o:?}");
        best = best.min(plan.num_flows());
    }
    assert_eq!(best, 1);
    assert_eq!(
        plan_checked(&g, &div, Some(b(6)), &sweep_only(Ordering::Dfpd)).num_flows(),
        1
    );
}

#[test]
fn divergent_continue_reconverges_at_the_header() {
    // 0 -> H(1); H -> B(2) | X(4); B(div) -> H (continue) | C(3); C -> H.
    let g = graph(5, &[(0, 1), (1, 2), (1, 4), (2, 1), (2, 3), (3, 1)]);
    let div = flags(5, &[2]);
    for o in Ordering::ALL {
        assert!(
            !plan_checked(&g, &div, Some(b(4)), &sweep_only(o)).changed(),
            "{o:?}"
        );
    }
}

#[test]
fn divergent_loop_condition_and_latch() {
    // while (d): 0 -> H(1); H(div) -> C(2) | X(3); C -> H.
    let g = graph(4, &[(0, 1), (1, 2), (1, 3), (2, 1)]);
    assert!(!plan_checked(&g, &flags(4, &[1]), Some(b(3)), &sweep_only(Ordering::Dfpd)).changed());
    // do-while (d) with a second divergent exit: 0 -> H(1); H(div) -> L(2) | Y(4);
    // L(div) -> H | X(3); X -> E(5); Y -> E.
    let g = graph(6, &[(0, 1), (1, 2), (1, 4), (2, 1), (2, 3), (3, 5), (4, 5)]);
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &flags(6, &[1, 2]), Some(b(5)), &sweep_only(o));
        assert!(plan.changed(), "{o:?}");
    }
}

#[test]
fn early_returns_inside_loops_cost_nothing() {
    // 0 -> H(1); H -> B(2) | X(4); B(div) -> E(5) (return) | C(3); C -> H;
    // X -> E.
    let g = graph(6, &[(0, 1), (1, 2), (1, 4), (2, 5), (2, 3), (3, 1), (4, 5)]);
    let div = flags(6, &[2]);
    for o in Ordering::ALL {
        assert!(
            !plan_checked(&g, &div, Some(b(5)), &sweep_only(o)).changed(),
            "{o:?}"
        );
    }
    // Nested loops, return from the inner one.
    // 0 -> H1(1); H1 -> H2(2) | X(6); H2 -> B(3) | L1(5); B(div) -> E(7) | C(4);
    // C -> H2; L1 -> H1; X -> E.
    let g = graph(
        8,
        &[
            (0, 1),
            (1, 2),
            (1, 6),
            (2, 3),
            (2, 5),
            (3, 7),
            (3, 4),
            (4, 2),
            (5, 1),
            (6, 7),
        ],
    );
    let div = flags(8, &[3]);
    for o in Ordering::ALL {
        assert!(
            !plan_checked(&g, &div, Some(b(7)), &sweep_only(o)).changed(),
            "{o:?}"
        );
    }
}

#[test]
fn continue_outer_under_divergence() {
    // 0 -> H1(1); H1 -> H2(2) | X(6); H2 -> B(3) | L1(5);
    // B(div) -> H1 (continue outer) | C(4); C -> H2; L1 -> H1; X exit.
    let g = graph(
        7,
        &[
            (0, 1),
            (1, 2),
            (1, 6),
            (2, 3),
            (2, 5),
            (3, 1),
            (3, 4),
            (4, 2),
            (5, 1),
        ],
    );
    let div = flags(7, &[3]);
    for o in Ordering::ALL {
        assert!(
            !plan_checked(&g, &div, Some(b(6)), &sweep_only(o)).changed(),
            "{o:?}"
        );
    }
    // Same, but the outer loop also breaks out after the inner loop
    // (L1(div) -> H1 | Y(7); Y -> X): the outer exits must be merged.
    let g = graph(
        8,
        &[
            (0, 1),
            (1, 2),
            (1, 6),
            (2, 3),
            (2, 5),
            (3, 1),
            (3, 4),
            (4, 2),
            (5, 1),
            (5, 7),
            (7, 6),
        ],
    );
    let div = flags(8, &[3, 5]);
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &div, Some(b(6)), &sweep_only(o));
        assert!(plan.changed(), "{o:?}");
    }
}

#[test]
fn two_divergent_breaks_and_a_latch() {
    // Two divergent breaks: 0 -> H(1); H -> A(2); A(div) -> X(5) | B(3);
    // B(div) -> Y(6) | C(4); C -> H; X -> E(7); Y -> E. The breaks merge
    // after the loop (no latch needed: the back edge is the only way on).
    let g = graph(
        8,
        &[
            (0, 1),
            (1, 2),
            (2, 5),
            (2, 3),
            (3, 6),
            (3, 4),
            (4, 1),
            (5, 7),
            (6, 7),
        ],
    );
    let div = flags(8, &[2, 3]);
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &div, Some(b(7)), &sweep_only(o));
        assert!(plan.stats().flows >= 1, "{o:?}");
    }
    // while (u) { if (d) continue; if (e) break; D }: 0 -> H(1);
    // H -> B(2) | Z(6); B(div) -> H | C(3); C(div) -> X(5) | D(4); D -> H;
    // X -> E(7); Z -> E. B is checked at the end of the loop: its region
    // leaves by the back edge and by the break, so they meet in a
    // LoopLatch Flow (false -> H), which then merges with the loop exit
    // (one more Flow if the layout puts the break target X before Z).
    let g = graph(
        8,
        &[
            (0, 1),
            (1, 2),
            (1, 6),
            (2, 1),
            (2, 3),
            (3, 5),
            (3, 4),
            (4, 1),
            (5, 7),
            (6, 7),
        ],
    );
    let div = flags(8, &[2, 3]);
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &div, Some(b(7)), &sweep_only(o));
        assert!((2..=3).contains(&plan.num_flows()), "{o:?}");
        if o == Ordering::Dfpd {
            assert_eq!(plan.num_flows(), 2);
        }
        let (latch, node) = plan
            .flows()
            .find(|(_, f)| matches!(f.kind, FlowKind::LoopLatch { .. }))
            .unwrap();
        assert_eq!(node.kind, FlowKind::LoopLatch { header: b(1) });
        assert_eq!(node.on_false, Dest::Block(b(1)));
        for (x, s) in [(2, 0), (3, 0), (4, 0)] {
            assert_eq!(plan.redirect(b(x), s), Dest::Flow(latch), "{o:?} {x}");
        }
        assert_eq!(plan.route(Dest::Flow(latch), b(1)), vec![(latch, false)]);
        assert_eq!(
            plan.route(Dest::Flow(latch), b(5)).first(),
            Some(&(latch, true))
        );
    }
}

#[test]
fn irreducible_goto_with_two_entries() {
    // E(0, div) -> A(1) | B(2); A -> B | X(3); B -> A | X.
    let g = graph(4, &[(0, 1), (0, 2), (1, 2), (1, 3), (2, 1), (2, 3)]);
    let div = flags(4, &[0]);
    assert!(!CfgAnalysis::build(&g).is_reducible());
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &div, Some(b(3)), &sweep_only(o));
        assert_eq!(plan.num_flows(), 1, "{o:?}");
        let (h, _) = plan.apply_to_graph(&g);
        assert_eq!(h.num_blocks(), 5, "no node splitting");
        assert!(
            !CfgAnalysis::build(&h).is_reducible(),
            "handled natively, still irreducible"
        );
    }
    // Divergence inside the irreducible cycle: A(div), B(div).
    let div = flags(4, &[0, 1, 2]);
    for o in Ordering::ALL {
        plan_checked(&g, &div, Some(b(3)), &sweep_only(o));
    }
}

#[test]
fn self_loops() {
    // 0 -> S(1); S(div) -> S | X(2).
    let g = graph(3, &[(0, 1), (1, 1), (1, 2)]);
    assert!(!plan_checked(&g, &flags(3, &[1]), Some(b(2)), &sweep_only(Ordering::Dfpd)).changed());
    // A(0, div) -> S(1) | Y(2); S(div) -> S | Z(3); Y -> E(4); Z -> E.
    let g = graph(5, &[(0, 1), (0, 2), (1, 1), (1, 3), (2, 4), (3, 4)]);
    for o in Ordering::ALL {
        let plan = plan_checked(&g, &flags(5, &[0, 1]), Some(b(4)), &sweep_only(o));
        assert!(plan.changed());
    }
}

#[test]
fn infinite_loops_impose_nothing() {
    // while (true) { if (d) A else B; J }: 0 -> H(1); H -> D(2); D(div) -> A(3) | B(4);
    // A -> J(5); B -> J; J -> H. Block 6 returns but is unreachable.
    let g = graph(7, &[(0, 1), (1, 2), (2, 3), (2, 4), (3, 5), (4, 5), (5, 1)]);
    let plan = plan_checked(&g, &flags(7, &[2]), Some(b(6)), &sweep_only(Ordering::Dfpd));
    assert!(!plan.changed());
    // if (d) { while (true) {} } else { return }: 0(div) -> L(1) | E(2); L -> L.
    let g = graph(3, &[(0, 1), (0, 2), (1, 1)]);
    assert!(!plan_checked(&g, &flags(3, &[0]), Some(b(2)), &sweep_only(Ordering::Dfpd)).changed());
    // A loop that may or may not terminate is handled: 0 -> H(1);
    // H(div) -> A(2) | B(3); A -> H; B -> H | E(4)... with B divergent.
    let g = graph(5, &[(0, 1), (1, 2), (1, 3), (2, 1), (3, 1), (3, 4)]);
    for o in Ordering::ALL {
        plan_checked(&g, &flags(5, &[1, 3]), Some(b(4)), &sweep_only(o));
    }
}

#[test]
fn dead_ends_and_duplicate_successors() {
    // if (d) trap1 else trap2; plus a uniform switch with duplicate cases.
    // 0(div) -> T1(1) | T2(2); nothing returns: empty plan, no error.
    let g = graph(4, &[(0, 1), (0, 2)]);
    assert!(!plan_checked(&g, &flags(4, &[0]), Some(b(3)), &sweep_only(Ordering::Dfpd)).changed());
    // 0(div) -> T(1) | R(2); R -> S(3) uniform switch {4, 4, 5}; 4 -> 6; 5 -> 6; 6 exit.
    let g = graph(
        7,
        &[
            (0, 1),
            (0, 2),
            (2, 3),
            (3, 4),
            (3, 4),
            (3, 5),
            (4, 6),
            (5, 6),
        ],
    );
    let plan = plan_checked(&g, &flags(7, &[0]), Some(b(6)), &sweep_only(Ordering::Dfpd));
    assert!(!plan.changed());
    // Divergent branch with both slots to one block.
    let g = graph(3, &[(0, 1), (0, 1), (1, 2)]);
    assert!(!plan_checked(&g, &flags(3, &[0]), Some(b(2)), &sweep_only(Ordering::Dfpd)).changed());
}

#[test]
fn no_exit_means_nothing_to_do() {
    let g = graph(3, &[(0, 1), (0, 2), (1, 0), (2, 0)]);
    let plan = plan_reconvergence(&g, &flags(3, &[0]), None, Ordering::Dfpd).unwrap();
    assert!(!plan.changed());
}

#[test]
fn input_errors() {
    let g = graph(4, &[(0, 1), (0, 2), (0, 3), (1, 3), (2, 3)]);
    assert_eq!(
        plan_reconvergence(&g, &flags(4, &[0]), Some(b(3)), Ordering::Dfpd).unwrap_err(),
        PlanError::DivergentNotTwoWay {
            block: b(0),
            slots: 3
        }
    );
    assert!(matches!(
        plan_reconvergence(&g, &[false; 3], Some(b(3)), Ordering::Dfpd),
        Err(PlanError::DivergenceLength {
            expected: 4,
            got: 3
        })
    ));
    assert_eq!(
        plan_reconvergence(&g, &flags(4, &[]), Some(b(1)), Ordering::Dfpd).unwrap_err(),
        PlanError::ExitHasSuccessors(b(1))
    );
    assert_eq!(
        plan_reconvergence(&g, &flags(4, &[]), Some(b(9)), Ordering::Dfpd).unwrap_err(),
        PlanError::ExitOutOfRange(b(9))
    );
    assert!(PlanError::DivergentNotTwoWay {
        block: b(0),
        slots: 3
    }
    .to_string()
    .contains("two-way"));
}

#[test]
fn ordering_names_round_trip() {
    for o in Ordering::ALL {
        assert_eq!(Ordering::parse(o.name()), Some(o));
    }
    assert_eq!(Ordering::parse("DFPD"), Some(Ordering::Dfpd));
    assert_eq!(Ordering::default(), Ordering::Dfpd);
    assert_eq!(Ordering::parse("x"), None);
}

#[test]
fn quality_report_compares_orderings() {
    let report = quality_report(0x51, 60);
    for o in Ordering::ALL {
        assert!(report.contains(o.name()), "{report}");
    }
    assert!(report.contains("unif.kept"), "{report}");
}

/// A readable description of a plan, for failure messages.
fn dump(g: &CfgGraph, div: &[bool], plan: &ReconvergePlan) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "edges {:?}",
        g.edges()
            .map(|(a, c)| (a.as_u32(), c.as_u32()))
            .collect::<Vec<_>>()
    );
    let _ = writeln!(
        s,
        "divergent {:?}",
        (0..div.len()).filter(|&i| div[i]).collect::<Vec<_>>()
    );
    let _ = writeln!(s, "stats {:?}", plan.stats());
    let _ = writeln!(
        s,
        "order {}",
        plan.order()
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    for (x, sl, d) in plan.redirected_slots() {
        let _ = writeln!(
            s,
            "  {x}[{sl}] -> {d} (was {})",
            plan.original_target(x, sl)
        );
    }
    let destination_sets = plan.destination_sets();
    for (f, node) in plan.flows() {
        let _ = writeln!(
            s,
            "  {f}: T {} F {} {:?} dests {:?}",
            node.on_true,
            node.on_false,
            node.kind,
            destination_sets[f.index()]
        );
    }
    s
}

#[test]
fn broken_natives_are_demoted_and_verified() {
    // Loop H(1) with divergent H -> B(2) | L(5) and B(div) -> C(3) | X(6) exit;
    // C(div) -> D(4) | H; D -> X | L; L -> H. H's earlier successor B
    // post-dominates it in the input (a native), but C's check puts a latch
    // at the end of the loop that merges L's back edge with the exit: the
    // native breaks and the sweep re-runs without it.
    let g = graph(
        7,
        &[
            (0, 1),
            (1, 2),
            (1, 5),
            (2, 3),
            (2, 6),
            (3, 4),
            (3, 1),
            (4, 6),
            (4, 5),
            (5, 1),
        ],
    );
    let div = flags(7, &[1, 3]);
    for verify in [true, false] {
        let options = PlanOptions {
            ordering: Ordering::Dfpd,
            verify,
            keep_reconverging_input: false,
        };
        let plan = plan_checked(&g, &div, Some(b(6)), &options);
        assert_eq!(plan.stats().rounds, 2, "verify {verify}");
        assert_eq!(plan.stats().natives, 0);
    }
}

#[test]
fn verify_off_gives_the_same_plans() {
    let mut rng = SplitMix64::new(31337);
    for i in 0..500 {
        let class = Class::ALL[i % Class::ALL.len()];
        let n = rng.range(3, 40);
        let s = sample(&mut rng, class, n, 500);
        for o in Ordering::ALL {
            let on = plan_reconvergence_with(
                &s.graph,
                &s.divergent,
                s.exit,
                &PlanOptions {
                    ordering: o,
                    ..PlanOptions::default()
                },
            )
            .unwrap();
            let off = plan_reconvergence_with(
                &s.graph,
                &s.divergent,
                s.exit,
                &PlanOptions {
                    ordering: o,
                    verify: false,
                    ..PlanOptions::default()
                },
            )
            .unwrap();
            assert_eq!(on.order(), off.order());
            assert_eq!(
                on.redirected_slots().collect::<Vec<_>>(),
                off.redirected_slots().collect::<Vec<_>>()
            );
            assert_eq!(
                on.flows().map(|(_, f)| *f).collect::<Vec<_>>(),
                off.flows().map(|(_, f)| *f).collect::<Vec<_>>()
            );
        }
    }
}
