//! Random planner inputs (graph, divergence flags, exit), shared by the
//! property tests, [`quality_report`](super::quality_report) and the
//! benchmark. Std-only and deterministic for a given generator state.
//!
//! Every generated graph has its unique return block last (`n - 1`).

use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
use crate::analysis::cfg::{BlockId, CfgGraph, DominatorTree, Graph};

/// One planner input.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The CFG.
    pub graph: CfgGraph,
    /// Divergence flags (only two-slot blocks are ever divergent).
    pub divergent: Vec<bool>,
    /// The unique return block.
    pub exit: Option<BlockId>,
}

/// Shapes of random CFGs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Forward DAG plus back edges to dominators: reducible loops with
    /// breaks, continues, early returns, nested and sharing headers.
    Reducible,
    /// Arbitrary edges (mostly forward): irreducible cycles, infinite
    /// loops, blocks that cannot return.
    Irreducible,
    /// Code-shaped CFGs ([`realistic_cfg`]) whose early returns are unified
    /// into the last block.
    UnifiedExits,
    /// Reducible CFGs where some latches lost their exits and some blocks
    /// spin on themselves: loops that never terminate.
    InfiniteLoops,
    /// Code-shaped CFGs whose early returns stay dead ends, plus reducible
    /// CFGs with trap-like blocks without successors.
    DeadEnds,
}

impl Class {
    /// All classes.
    pub const ALL: [Class; 5] = [
        Class::Reducible,
        Class::Irreducible,
        Class::UnifiedExits,
        Class::InfiniteLoops,
        Class::DeadEnds,
    ];
}

/// A random sample of `class` with about `n` blocks (`n >= 3`) where each
/// two-slot block is divergent with probability `per_mille / 1000`.
pub fn sample(rng: &mut SplitMix64, class: Class, n: usize, per_mille: u64) -> Sample {
    let n = n.max(3);
    let graph = match class {
        Class::Reducible => reducible(rng, n, 0, 0, 0),
        Class::Irreducible => irreducible(rng, n),
        Class::UnifiedExits => code_shaped(rng, n, true),
        Class::InfiniteLoops => reducible(rng, n, 300, 30, 0),
        Class::DeadEnds => {
            if rng.chance(500) {
                code_shaped(rng, n, false)
            } else {
                reducible(rng, n, 0, 0, 60)
            }
        }
    };
    let divergent = random_divergence(rng, &graph, per_mille);
    let exit = Some(BlockId::new(graph.num_blocks() - 1));
    Sample {
        graph,
        divergent,
        exit,
    }
}

/// Each two-slot block is divergent with probability `per_mille / 1000`.
pub fn random_divergence(rng: &mut SplitMix64, g: &CfgGraph, per_mille: u64) -> Vec<bool> {
    (0..g.num_blocks())
        .map(|b| g.successors(BlockId::new(b)).len() == 2 && rng.chance(per_mille))
        .collect()
}

/// Forward DAG (every block but the last has a forward successor), then
/// back edges from "latch" blocks to one of their dominators. With
/// `pure_latch_per_mille` a latch keeps only its back edge, with
/// `spin_per_mille` a block becomes a self loop only, with
/// `dead_per_mille` a block loses all successors.
fn reducible(
    rng: &mut SplitMix64,
    n: usize,
    pure_latch_per_mille: u64,
    spin_per_mille: u64,
    dead_per_mille: u64,
) -> CfgGraph {
    let last = n - 1;
    let mut forward: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut latch = vec![false; n];
    let mut pure = vec![false; n];
    for i in 0..last {
        if i > 0 && rng.chance(dead_per_mille) {
            continue;
        }
        if i > 0 && rng.chance(spin_per_mille) {
            forward[i].clear();
            latch[i] = true;
            pure[i] = true;
            continue;
        }
        latch[i] = rng.chance(250);
        pure[i] = latch[i] && rng.chance(pure_latch_per_mille);
        let degree = if latch[i] {
            1
        } else {
            match rng.below(100) {
                0..=34 => 1,
                35..=95 => 2,
                _ => 3,
            }
        };
        for _ in 0..degree {
            let t = if rng.chance(80) {
                last
            } else {
                (i + 1 + rng.below(6) as usize).min(last)
            };
            forward[i].push(t as u32);
        }
    }
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for (i, f) in forward.iter().enumerate() {
        if !pure[i] {
            edges.extend(f.iter().map(|&t| (i as u32, t)));
        }
    }
    let dag = CfgGraph::from_edges(n, BlockId::new(0), &edges);
    let dom = DominatorTree::build(&dag);
    let mut all = Vec::new();
    for i in 0..last {
        let b = BlockId::new(i);
        if !latch[i] || !dom.is_reachable(b) {
            all.extend(
                forward[i]
                    .iter()
                    .filter(|_| !pure[i])
                    .map(|&t| (i as u32, t)),
            );
            continue;
        }
        // A random dominator (possibly `b` itself: a self loop).
        let mut h = b;
        while rng.chance(600) {
            match dom.idom(h) {
                Some(up) => h = up,
                None => break,
            }
        }
        let back = (i as u32, h.as_u32());
        if pure[i] {
            all.push(back);
        } else if rng.chance(500) {
            all.push(back);
            all.extend(forward[i].iter().map(|&t| (i as u32, t)));
        } else {
            all.extend(forward[i].iter().map(|&t| (i as u32, t)));
            all.push(back);
        }
    }
    CfgGraph::from_edges(n, BlockId::new(0), &all)
}

/// Random edges, 70% forward; irreducible cycles and non-returning parts
/// are common.
fn irreducible(rng: &mut SplitMix64, n: usize) -> CfgGraph {
    let last = n - 1;
    let mut edges = Vec::new();
    for i in 0..last {
        let degree = match rng.below(100) {
            0..=29 => 1,
            30..=94 => 2,
            _ => 3,
        };
        for _ in 0..degree {
            let t = if rng.chance(700) {
                rng.range(i + 1, last)
            } else {
                rng.range(0, last)
            };
            edges.push((i as u32, t as u32));
        }
    }
    CfgGraph::from_edges(n, BlockId::new(0), &edges)
}

/// [`realistic_cfg`]; its early returns are unified into the last block
/// (`unify`) or left as dead ends.
fn code_shaped(rng: &mut SplitMix64, n: usize, unify: bool) -> CfgGraph {
    let g = realistic_cfg(rng, n);
    let last = n - 1;
    let mut edges: Vec<(u32, u32)> = g.edges().map(|(a, b)| (a.as_u32(), b.as_u32())).collect();
    if unify {
        for b in 0..last {
            if g.successors(BlockId::new(b)).is_empty() {
                edges.push((b as u32, last as u32));
            }
        }
    }
    CfgGraph::from_edges(n, BlockId::new(0), &edges)
}
