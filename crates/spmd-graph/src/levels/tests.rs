//! The shared construction against its properties and against the two
//! constructions it replaced ([`super::reference`]), on random graphs.

use super::reference::{fifo_order, member_of, member_pair, Planner};
use super::*;
use crate::random::{realistic_cfg, SplitMix64};
use crate::tests::{random_graph, Category};
use crate::{CfgAnalysis, CfgGraph};

const CATEGORIES: [Category; 5] = [
    Category::Reducible,
    Category::Irreducible,
    Category::MultiExit,
    Category::InfiniteLoops,
    Category::Unreachable,
];

/// Graph number `i` of a run: the five families of small graphs in turn,
/// every sixth one a code-shaped CFG.
fn graph(rng: &mut SplitMix64, i: usize) -> CfgGraph {
    if i % 6 == 5 {
        let n = rng.range(2, 80);
        realistic_cfg(rng, n)
    } else {
        let (lo, hi) = if i.is_multiple_of(3) {
            (13, 40)
        } else {
            (1, 12)
        };
        random_graph(rng, CATEGORIES[i % 6 % 5], lo, hi)
    }
}

/// Reachable blocks that reach a block without successors (the planner's
/// relevant set; closed under "is in the same cycle").
fn reaches_exit(g: &CfgGraph, dfs: &Traversal) -> Vec<bool> {
    let n = g.num_blocks();
    let mut ok = vec![false; n];
    let mut stack: Vec<BlockId> = (0..n)
        .map(BlockId::new)
        .filter(|&b| g.successors(b).is_empty())
        .collect();
    for &b in &stack {
        ok[b.index()] = true;
    }
    while let Some(b) = stack.pop() {
        for &p in g.predecessors(b) {
            if !ok[p.index()] {
                ok[p.index()] = true;
                stack.push(p);
            }
        }
    }
    (0..n)
        .map(|b| ok[b] && dfs.is_reachable(BlockId::new(b)))
        .collect()
}

/// Properties 1 and 2 of the module docs, and every kept block once.
fn check_steps(g: &CfgGraph, dfs: &Traversal, forest: &CycleForest, keep: &[bool], steps: &[Step]) {
    let n = g.num_blocks();
    let mut pos = vec![usize::MAX; n];
    let mut open: Vec<(CycleId, usize)> = Vec::new();
    let mut placed = 0;
    for (k, &s) in steps.iter().enumerate() {
        match s {
            Step::Block(b) => {
                assert!(keep[b.index()] && pos[b.index()] == usize::MAX, "{b} twice");
                pos[b.index()] = placed;
                placed += 1;
            }
            Step::Enter(c) => {
                assert_eq!(steps.get(k + 1), Some(&Step::Block(forest.header(c))));
                if let Some(&(outer, _)) = open.last() {
                    assert_eq!(forest.parent(c), Some(outer), "cycle {c:?} nesting");
                }
                open.push((c, placed));
            }
            Step::Exit(c) => {
                let (top, first) = open.pop().expect("exit without enter");
                assert_eq!(top, c, "exits nest");
                assert_eq!(
                    placed - first,
                    forest.blocks(c).len(),
                    "cycle not contiguous"
                );
                for &b in forest.blocks(c) {
                    assert!(
                        (first..placed).contains(&pos[b.index()]),
                        "cycle not contiguous"
                    );
                }
            }
        }
    }
    assert!(open.is_empty());
    assert_eq!(
        placed,
        keep.iter().filter(|&&k| k).count(),
        "kept blocks placed"
    );
    for &u in dfs.preorder().iter().filter(|u| keep[u.index()]) {
        for &v in g.successors(u).iter().filter(|v| keep[v.index()]) {
            let back =
                forest.is_header(v) && forest.contains(forest.innermost_cycle(v).unwrap(), u);
            assert!(
                back || pos[u.index()] < pos[v.index()],
                "{u}->{v} backwards"
            );
        }
    }
}

fn fifo_steps(g: &CfgGraph, cfg: &CfgAnalysis, levels: &mut LevelOrder) -> Vec<Step> {
    let mut steps = Vec::new();
    levels.condense(g, cfg.traversal(), cfg.cycles(), |_| true);
    if cfg.traversal().num_reachable() > 0 {
        let root = cfg.traversal().root();
        levels.place(cfg.cycles(), root, &mut FifoReady::new(), |s| steps.push(s));
    }
    steps
}

#[test]
fn condensed_pairs_match_the_parent_walk() {
    let mut rng = SplitMix64::new(7);
    let mut checked = 0;
    for i in 0..3000 {
        let g = graph(&mut rng, i);
        let cfg = CfgAnalysis::build(&g);
        let (n, forest, dfs) = (g.num_blocks(), cfg.cycles(), cfg.traversal());
        let reachable = dfs.preorder();
        for _ in 0..20 {
            let u = reachable[rng.range(0, reachable.len() - 1)];
            let v = reachable[rng.range(0, reachable.len() - 1)];
            assert_eq!(top_item(forest, n, u), member_of(forest, n, u, None));
            if u != v {
                assert_eq!(
                    condensed_pair(forest, n, u, v),
                    member_pair(forest, n, u, v)
                );
                checked += usize::from(forest.innermost_cycle(u).is_some());
            }
        }
    }
    assert!(checked > 10_000, "{checked} pairs inside cycles");
}

#[test]
fn fifo_order_is_cycle_contiguous_and_matches_the_uniformity_order() {
    let mut rng = SplitMix64::new(11);
    let mut levels = LevelOrder::new();
    let mut cfg = CfgAnalysis::new();
    let mut irreducible = 0;
    for i in 0..6000 {
        let g = graph(&mut rng, i);
        cfg.compute(&g);
        irreducible += usize::from(!cfg.is_reducible());
        let steps = fifo_steps(&g, &cfg, &mut levels);
        let dfs = cfg.traversal();
        let keep: Vec<bool> = (0..g.num_blocks())
            .map(|b| dfs.is_reachable(BlockId::new(b)))
            .collect();
        check_steps(&g, dfs, cfg.cycles(), &keep, &steps);
        assert_eq!(steps, fifo_order(&g, dfs, cfg.cycles()), "graph {i}");
    }
    assert!(irreducible > 500, "{irreducible} irreducible graphs");
}

/// Random keys with ties, or the planner's (a block's DFS preorder
/// number, a cycle's smallest over its blocks).
fn random_keys(rng: &mut SplitMix64, g: &CfgGraph, cfg: &CfgAnalysis) -> Vec<u32> {
    let (n, forest) = (g.num_blocks(), cfg.cycles());
    if rng.chance(500) {
        return (0..n + forest.num_cycles())
            .map(|_| rng.range(0, 4) as u32)
            .collect();
    }
    let mut key: Vec<u32> = (0..n)
        .map(|b| {
            cfg.traversal()
                .pre_number(BlockId::new(b))
                .map_or(u32::MAX, |p| p.as_u32())
        })
        .collect();
    key.resize(n + forest.num_cycles(), u32::MAX);
    for c in forest.cycles() {
        for &b in forest.blocks(c) {
            key[n + c.index()] = key[n + c.index()].min(key[b.index()]);
        }
    }
    key
}

#[test]
fn priority_order_is_cycle_contiguous_and_matches_the_planner_layout() {
    let mut rng = SplitMix64::new(13);
    let mut levels = LevelOrder::new();
    let mut postponed = 0;
    for i in 0..6000 {
        let g = graph(&mut rng, i);
        let cfg = CfgAnalysis::build(&g);
        let (n, dfs, forest) = (g.num_blocks(), cfg.traversal(), cfg.cycles());
        let in_r = if rng.chance(300) {
            (0..n).map(|b| dfs.is_reachable(BlockId::new(b))).collect()
        } else {
            reaches_exit(&g, dfs)
        };
        let soft: Vec<(BlockId, BlockId)> = (0..rng.range(0, 10))
            .map(|_| {
                (
                    BlockId::new(rng.range(0, n - 1)),
                    BlockId::new(rng.range(0, n - 1)),
                )
            })
            .collect();
        let key = random_keys(&mut rng, &g, &cfg);
        let tiebreak = if rng.chance(500) {
            Tiebreak::DepthFirst
        } else {
            Tiebreak::SmallestKey
        };
        let lifo = tiebreak == Tiebreak::DepthFirst;
        let expected = Planner::layout(&g, &in_r, dfs, forest, lifo, key.clone(), &soft);
        let pairs: Vec<(u32, u32)> = soft
            .iter()
            .filter(|(x, y)| in_r[x.index()] && in_r[y.index()] && x != y)
            .filter_map(|&(x, y)| condensed_pair(forest, n, x, y))
            .collect();
        postponed += pairs.len();
        let mut ready = PriorityReady::new(tiebreak, key, &pairs);
        let mut steps = Vec::new();
        levels.condense(&g, dfs, forest, |b| in_r[b.index()]);
        if in_r[g.entry().index()] {
            levels.place(forest, g.entry(), &mut ready, |s| steps.push(s));
        }
        check_steps(&g, dfs, forest, &in_r, &steps);
        assert_eq!(steps, expected, "graph {i}");
    }
    assert!(postponed > 5000, "{postponed} soft pairs");
}

#[test]
fn edge_cases_by_hand() {
    let b = BlockId::new;
    // The entry heads a cycle; 1 and 2 enter the inner irreducible cycle
    // {1, 2} from the entry; 3 loops forever; 4 is unreachable.
    let g = CfgGraph::from_edges(
        5,
        b(0),
        &[
            (0, 1),
            (0, 2),
            (1, 2),
            (2, 1),
            (2, 0),
            (0, 3),
            (3, 3),
            (4, 0),
        ],
    );
    let cfg = CfgAnalysis::build(&g);
    let steps = fifo_steps(&g, &cfg, &mut LevelOrder::new());
    let f = cfg.cycles();
    let outer = f.innermost_cycle(b(0)).unwrap();
    let inner = f.innermost_cycle(b(1)).unwrap();
    let spin = f.innermost_cycle(b(3)).unwrap();
    use Step::{Block, Enter, Exit};
    let expected = [
        Enter(outer),
        Block(b(0)),
        Enter(inner),
        Block(f.header(inner)),
        Block(b(3 - f.header(inner).index())),
        Exit(inner),
        Exit(outer),
        Enter(spin),
        Block(b(3)),
        Exit(spin),
    ];
    assert_eq!(f.header(outer), b(0));
    assert_eq!(steps, expected);
    // A single block.
    let one = CfgGraph::from_edges(1, b(0), &[]);
    let cfg = CfgAnalysis::build(&one);
    assert_eq!(
        fifo_steps(&one, &cfg, &mut LevelOrder::new()),
        [Block(b(0))]
    );
}

fn best_of_5_ms(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

/// Timing, not a check: the shared construction against the twins on a
/// 200k-block code-shaped CFG and a 3000-deep nest (`cargo test --release
/// -p spmd-graph levels::tests::timing -- --ignored --nocapture`).
#[test]
#[ignore]
fn timing_against_the_twins() {
    let mut rng = SplitMix64::new(5);
    let k = 3000u32;
    let mut edges = Vec::new();
    for h in 0..k {
        edges.extend([(h, h + 1), (k, h), (h, k)]);
    }
    edges.push((0, k + 1));
    let graphs = [
        ("realistic-200k", realistic_cfg(&mut rng, 200_000)),
        (
            "deep-3000",
            CfgGraph::from_edges(k as usize + 2, BlockId::new(0), &edges),
        ),
    ];
    for (name, g) in &graphs {
        let cfg = CfgAnalysis::build(g);
        let (dfs, forest) = (cfg.traversal(), cfg.cycles());
        let in_r: Vec<bool> = (0..g.num_blocks())
            .map(|b| dfs.is_reachable(BlockId::new(b)))
            .collect();
        let key = random_keys(&mut SplitMix64::new(1), g, &cfg);
        let old = best_of_5_ms(|| drop(std::hint::black_box(fifo_order(g, dfs, forest))));
        let new = best_of_5_ms(|| {
            let steps = fifo_steps(g, &cfg, &mut LevelOrder::new());
            drop(std::hint::black_box(steps));
        });
        println!("{name} fifo: twin {old:.2} ms, shared {new:.2} ms");
        for tiebreak in [Tiebreak::SmallestKey, Tiebreak::DepthFirst] {
            let lifo = tiebreak == Tiebreak::DepthFirst;
            let old = best_of_5_ms(|| {
                let steps = Planner::layout(g, &in_r, dfs, forest, lifo, key.clone(), &[]);
                drop(std::hint::black_box(steps));
            });
            let new = best_of_5_ms(|| {
                let mut ready = PriorityReady::new(tiebreak, key.clone(), &[]);
                let mut levels = LevelOrder::new();
                let mut steps = Vec::new();
                levels.condense(g, dfs, forest, |b| in_r[b.index()]);
                levels.place(forest, g.entry(), &mut ready, |s| steps.push(s));
                drop(std::hint::black_box(steps));
            });
            println!("{name} {tiebreak:?}: twin {old:.2} ms, shared {new:.2} ms");
        }
    }
}
