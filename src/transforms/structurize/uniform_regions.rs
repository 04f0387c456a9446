//! Which uniform branches `skip-uniform-regions` keeps (the StructurizeCFG notes'
//! `structurizecfg-skip-uniform-regions` and `-relaxed-uniform-regions`).
//!
//! The *region* of a branch `B` with immediate post-dominator `P` is
//!
//! ```text
//!   region(B) = { X : B dominates X and P post-dominates X, X != P }
//! ```
//!
//! the blocks that run between the split at `B` and the join at `P` (all of
//! `B`'s dominator subtree when `P` is the virtual exit). A uniform branch
//! is kept (left unstructured) when its region holds no *spoiling*
//! divergent branch:
//!
//! * strict (`relaxed-uniform-regions=false`): every divergent branch
//!   spoils;
//! * relaxed (default): a divergent branch `D` only spoils if its own
//!   region is not single-entry single-exit, i.e. `D` does not dominate
//!   `ipdom(D)`. A SESE divergent region nested in `region(B)` is
//!   structurized on its own (its Flow blocks stay between `D` and
//!   `ipdom(D)`, which both lie in `region(B)` or at `P`), so `B` can stay
//!   a plain uniform branch around it — the reasoning behind LLVM's relaxed
//!   knob, which in LLVM's region tree shows up as "sub-regions may be
//!   divergent".
//!
//! The StructurizeCFG notes' pitfall 5 (skipping a "uniform" region and thereby leaving
//! inner divergent branches unstructured) cannot happen here: keeping is
//! decided per uniform branch, and every divergent branch is structurized
//! by the planner whatever is kept around it.
//!
//! # Cost
//!
//! "Does `region(B)` contain a spoiler" is an orthogonal range query: with
//! `pre`/`post` intervals of the dominator and post-dominator trees, `D` is
//! in `region(B)` iff `dom_pre(D)` lies in `B`'s dominator-subtree interval
//! and `pdom_pre(D)` in `P`'s post-dominator-subtree interval. All queries
//! are answered offline by one sweep over the dominator preorder with a
//! Fenwick tree over the post-dominator preorder: `O((n + q) log n)`.
//! `P` itself is left out by starting its interval one past its own
//! preorder number.
//!
//! Edge cases: blocks unreachable from the entry are never kept or
//! counted; a branch whose post-dominator is the virtual exit (its paths
//! end in different exits, or never meet) has its whole dominator subtree
//! as region.

use crate::analysis::cfg::{BlockId, DominatorTree, Graph, PostDominatorTree};

/// `kept[b]`: `b` is a uniform branch left unstructured (see module docs).
/// `uniform[b]` / `divergent[b]` flag the blocks ending in a uniform /
/// divergent branch with at least two different successors.
pub(crate) fn kept_uniform_branches<G: Graph + ?Sized>(
    g: &G,
    uniform: &[bool],
    divergent: &[bool],
    relaxed: bool,
) -> Vec<bool> {
    let n = g.num_blocks();
    let dom = DominatorTree::build(g);
    let pdom = PostDominatorTree::build(g);
    let pdom_tree = pdom.as_dominator_tree();
    let spoils = |d: BlockId| {
        if !relaxed {
            return true;
        }
        pdom.ipdom(d).is_none_or(|p| !dom.dominates(d, p))
    };
    // Points: spoilers at (dominator preorder, post-dominator preorder).
    let mut points: Vec<(u32, u32)> = Vec::new();
    for d in (0..n)
        .map(BlockId::new)
        .filter(|&d| divergent[d.index()] && spoils(d))
    {
        if let (Some((x, _)), Some((y, _))) = (dom.tree_interval(d), pdom_tree.tree_interval(d)) {
            points.push((x, y));
        }
    }
    // Queries: uniform branches with their rectangles.
    let mut queries: Vec<(BlockId, Rectangle)> = Vec::new();
    for b in (0..n).map(BlockId::new).filter(|&b| uniform[b.index()]) {
        let Some(xs) = dom.tree_interval(b) else {
            continue;
        };
        // The immediate post-dominator, possibly the virtual exit.
        let Some(p) = pdom_tree.idom(b) else { continue };
        let Some((y0, y1)) = pdom_tree.tree_interval(p) else {
            continue;
        };
        queries.push((b, (xs, (y0 + 1, y1))));
    }
    let counts = count_in_rectangles(
        &points,
        &queries
            .iter()
            .map(|&(_, rectangle)| rectangle)
            .collect::<Vec<_>>(),
        pdom_tree_size(&pdom),
    );
    let mut kept = vec![false; n];
    for ((b, _), count) in queries.into_iter().zip(counts) {
        kept[b.index()] = count == 0;
    }
    kept
}

fn pdom_tree_size(pdom: &PostDominatorTree) -> usize {
    pdom.num_blocks() + 1
}

/// A rectangle `[x0, x1) x [y0, y1)` as `((x0, x1), (y0, y1))`.
pub(crate) type Rectangle = ((u32, u32), (u32, u32));

/// For each rectangle `[x0, x1) x [y0, y1)`, the number of points inside.
/// Offline sweep over `x` with a Fenwick tree over `y`.
pub(crate) fn count_in_rectangles(
    points: &[(u32, u32)],
    rects: &[Rectangle],
    y_size: usize,
) -> Vec<usize> {
    // Events at x: add points with x < X before answering prefix(X).
    let mut sorted_points = points.to_vec();
    sorted_points.sort_unstable();
    let mut asks: Vec<(u32, usize, bool)> = Vec::with_capacity(2 * rects.len());
    for (i, &((x0, x1), _)) in rects.iter().enumerate() {
        asks.push((x0, i, false));
        asks.push((x1, i, true));
    }
    asks.sort_unstable();
    let mut tree = vec![0usize; y_size + 1];
    let add = |tree: &mut Vec<usize>, y: u32| {
        let mut i = y as usize + 1;
        while i < tree.len() {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    };
    let prefix = |tree: &Vec<usize>, y: u32| {
        let (mut i, mut sum) = (y as usize, 0);
        while i > 0 {
            sum += tree[i];
            i -= i & i.wrapping_neg();
        }
        sum
    };
    let mut signed = vec![0isize; rects.len()];
    let mut next = 0;
    for (x, i, upper) in asks {
        while next < sorted_points.len() && sorted_points[next].0 < x {
            add(&mut tree, sorted_points[next].1);
            next += 1;
        }
        let (_, (y0, y1)) = rects[i];
        let inside = (prefix(&tree, y1) - prefix(&tree, y0)) as isize;
        signed[i] += if upper { inside } else { -inside };
    }
    signed.into_iter().map(|c| c as usize).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::{random::SplitMix64, CfgGraph};

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    /// The definition, checked block by block.
    fn reference(g: &CfgGraph, uniform: &[bool], divergent: &[bool], relaxed: bool) -> Vec<bool> {
        let dom = DominatorTree::build(g);
        let pdom = PostDominatorTree::build(g);
        (0..g.num_blocks())
            .map(|x| {
                if !uniform[x] || !dom.is_reachable(b(x)) {
                    return false;
                }
                let Some(p) = pdom.as_dominator_tree().idom(b(x)) else {
                    return false;
                };
                !(0..g.num_blocks()).any(|d| {
                    let spoiler = divergent[d]
                        && (!relaxed || pdom.ipdom(b(d)).is_none_or(|q| !dom.dominates(b(d), q)));
                    spoiler
                        && dom.dominates(b(x), b(d))
                        && pdom.post_dominates(p, b(d))
                        && b(d) != p
                })
            })
            .collect()
    }

    #[test]
    fn matches_the_definition_on_random_cfgs() {
        let mut rng = SplitMix64::new(5);
        let (mut kept_any, mut spoiled_any) = (0, 0);
        for _ in 0..600 {
            let n = 3 + rng.below(50) as usize;
            let g = crate::analysis::cfg::random::realistic_cfg(&mut rng, n);
            let branch: Vec<bool> = (0..g.num_blocks())
                .map(|x| g.successors(b(x)).len() >= 2)
                .collect();
            let divergent: Vec<bool> = branch.iter().map(|&br| br && rng.chance(300)).collect();
            let uniform: Vec<bool> = branch
                .iter()
                .zip(&divergent)
                .map(|(&br, &d)| br && !d)
                .collect();
            for relaxed in [false, true] {
                let fast = kept_uniform_branches(&g, &uniform, &divergent, relaxed);
                assert_eq!(
                    fast,
                    reference(&g, &uniform, &divergent, relaxed),
                    "relaxed={relaxed}"
                );
                kept_any += fast.iter().filter(|&&k| k).count();
                spoiled_any += (0..g.num_blocks())
                    .filter(|&x| uniform[x] && !fast[x])
                    .count();
            }
        }
        assert!(
            kept_any > 100 && spoiled_any > 100,
            "kept {kept_any}, spoiled {spoiled_any}"
        );
    }

    /// `if (u) { if (d) a; else b; } c`: the divergent if is SESE inside
    /// the uniform one — kept when relaxed, spoiled when strict.
    #[test]
    fn nested_sese_divergence_spoils_only_strict_mode() {
        // 0:u -> 1, 4; 1:d -> 2, 3; 2 -> 4... with join 5 for the inner if.
        let g = CfgGraph::from_edges(
            6,
            b(0),
            &[(0, 1), (0, 4), (1, 2), (1, 3), (2, 5), (3, 5), (5, 4)],
        );
        let uniform = [true, false, false, false, false, false];
        let divergent = [false, true, false, false, false, false];
        assert!(kept_uniform_branches(&g, &uniform, &divergent, true)[0]);
        assert!(!kept_uniform_branches(&g, &uniform, &divergent, false)[0]);
    }

    /// A divergent early exit out of the uniform region is not SESE: it
    /// spoils even when relaxed.
    #[test]
    fn escaping_divergence_spoils_relaxed_mode() {
        // 0:u -> 1, 3; 1:d -> 2, 4 (escapes to the exit); 2 -> 3; 3 -> 4.
        let g = CfgGraph::from_edges(5, b(0), &[(0, 1), (0, 3), (1, 2), (1, 4), (2, 3), (3, 4)]);
        let uniform = [true, false, false, false, false];
        let divergent = [false, true, false, false, false];
        assert!(!kept_uniform_branches(&g, &uniform, &divergent, true)[0]);
    }

    #[test]
    fn rectangle_counts() {
        let points = [(0, 0), (1, 2), (3, 1), (3, 3)];
        let rects = [
            ((0, 4), (0, 4)),
            ((1, 4), (1, 3)),
            ((2, 3), (0, 4)),
            ((3, 4), (3, 4)),
        ];
        assert_eq!(count_in_rectangles(&points, &rects, 4), vec![4, 2, 0, 1]);
    }
}
