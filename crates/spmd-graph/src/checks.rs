//! The brute-force definitions every analysis of the crate is compared
//! with, and the checks that compare them: by the crate's property tests
//! (`src/tests.rs`) and by the `spmd-fuzz` `graph_core` target.
//!
//! Each oracle is the textbook definition, computed the slow way:
//! reachability by search, dominance by deleting a block, strongly
//! connected components by mutual reachability, the cycle forest by nested
//! components, reducibility by T1/T2 reduction; dominators are also
//! compared with the Cooper–Harvey–Kennedy [`reference_dominators`]. Every
//! check panics on the first disagreement. Meant for graphs of tens of
//! blocks (most checks are cubic or worse).
//!
//! Compiled for the crate's unit tests and under the `testing` feature.

// Brute-force oracles index several per-block arrays with one loop index.
#![allow(clippy::needless_range_loop)]

use crate::{
    first_offending_back_edge, reference_dominators, BlockFlags, BlockId, CfgAnalysis, CfgGraph,
    CycleForest, CycleId, Graph, SccFinder, Traversal,
};
use std::collections::{BTreeSet, HashMap};

fn b(i: usize) -> BlockId {
    BlockId::new(i)
}

// ---------------------------------------------------------------------------
// Brute-force definitions.

/// Blocks reachable from `start` following `next`, never entering `avoid`
/// (if `start == avoid` nothing is reachable) and staying in `allowed`,
/// as one flag per block of `0..n`.
pub fn reach(
    n: usize,
    start: usize,
    avoid: Option<usize>,
    allowed: &dyn Fn(usize) -> bool,
    next: &dyn Fn(usize) -> Vec<usize>,
) -> Vec<bool> {
    let mut seen = vec![false; n];
    if Some(start) == avoid || !allowed(start) {
        return seen;
    }
    seen[start] = true;
    let mut stack = vec![start];
    while let Some(u) = stack.pop() {
        for v in next(u) {
            if !seen[v] && Some(v) != avoid && allowed(v) {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    seen
}

/// The successors of a block of `g`, as indices (for [`reach`]).
pub fn succ_fn<G: Graph + ?Sized>(g: &G) -> impl Fn(usize) -> Vec<usize> + '_ {
    move |u| g.successors(b(u)).iter().map(|x| x.index()).collect()
}

/// The predecessors of a block of `g`, as indices (for [`reach`]).
pub fn pred_fn<G: Graph + ?Sized>(g: &G) -> impl Fn(usize) -> Vec<usize> + '_ {
    move |u| g.predecessors(b(u)).iter().map(|x| x.index()).collect()
}

/// `dom[a][x]`: every path from `root` to `x` passes `a` (for `x`
/// reachable from `root`; false otherwise), by deleting `a`.
pub fn brute_dominance<G: Graph + ?Sized>(g: &G, root: usize) -> Vec<Vec<bool>> {
    let n = g.num_blocks();
    let all = |_: usize| true;
    let reachable = reach(n, root, None, &all, &succ_fn(g));
    (0..n)
        .map(|a| {
            let without = reach(n, root, Some(a), &all, &succ_fn(g));
            (0..n)
                .map(|x| reachable[a] && reachable[x] && !without[x])
                .collect()
        })
        .collect()
}

/// All strongly connected components of the subgraph induced by `set`,
/// by mutual reachability, as sorted block lists.
pub fn all_sccs<G: Graph + ?Sized>(g: &G, set: &[bool]) -> Vec<Vec<usize>> {
    let n = g.num_blocks();
    let allowed = |x: usize| set[x];
    let fwd: Vec<Vec<bool>> = (0..n)
        .map(|a| reach(n, a, None, &allowed, &succ_fn(g)))
        .collect();
    let mut done = vec![false; n];
    let mut out = Vec::new();
    for a in (0..n).filter(|&a| set[a]) {
        if done[a] {
            continue;
        }
        let comp: Vec<usize> = (0..n).filter(|&x| fwd[a][x] && fwd[x][a]).collect();
        for &x in &comp {
            done[x] = true;
        }
        out.push(comp);
    }
    out
}

/// The components of [`all_sccs`] that contain an edge.
pub fn nontrivial_sccs<G: Graph + ?Sized>(g: &G, set: &[bool]) -> Vec<Vec<usize>> {
    all_sccs(g, set)
        .into_iter()
        .filter(|comp| comp.len() > 1 || g.successors(b(comp[0])).contains(&b(comp[0])))
        .collect()
}

/// One cycle of [`expected_forest`].
pub struct ExpectedCycle {
    /// Its blocks, sorted by index.
    pub blocks: Vec<usize>,
    /// Its header: the block first in DFS preorder.
    pub header: usize,
    /// The index of its parent in the [`expected_forest`] list.
    pub parent: Option<usize>,
    /// Its nesting depth; top-level cycles have depth 1.
    pub depth: u32,
}

/// The cycle forest by definition: non-trivial SCCs, header = first in
/// preorder, children = cycles of the cycle minus its header.
pub fn expected_forest(g: &CfgGraph, a: &CfgAnalysis) -> Vec<ExpectedCycle> {
    let n = g.num_blocks();
    let t = a.traversal();
    let reachable: Vec<bool> = (0..n).map(|i| t.is_reachable(b(i))).collect();
    let mut out: Vec<ExpectedCycle> = Vec::new();
    let mut work = vec![(reachable, None, 1u32)];
    while let Some((set, parent, depth)) = work.pop() {
        for comp in nontrivial_sccs(g, &set) {
            let header = *comp
                .iter()
                .min_by_key(|&&x| t.pre_number(b(x)))
                .expect("components are not empty");
            let mut inner = vec![false; n];
            for &x in &comp {
                inner[x] = x != header;
            }
            work.push((inner, Some(out.len()), depth + 1));
            out.push(ExpectedCycle {
                blocks: comp,
                header,
                parent,
                depth,
            });
        }
    }
    out
}

/// T1/T2 reduction of the reachable subgraph: reducible iff it collapses
/// to a single node.
pub fn t1_t2_reducible(g: &CfgGraph, a: &CfgAnalysis) -> bool {
    let n = g.num_blocks();
    let t = a.traversal();
    let alive = |i: usize| t.is_reachable(b(i));
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut pred: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for (u, v) in g
        .edges()
        .map(|(u, v)| (u.index(), v.index()))
        .filter(|&(u, _)| alive(u))
    {
        if u != v {
            succ[u].insert(v);
            pred[v].insert(u);
        }
    }
    let mut nodes: BTreeSet<usize> = (0..n).filter(|&i| alive(i)).collect();
    let entry = g.entry().index();
    while let Some(&v) = nodes.iter().find(|&&v| v != entry && pred[v].len() == 1) {
        let u = *pred[v].iter().next().expect("one predecessor");
        succ[u].remove(&v);
        for w in std::mem::take(&mut succ[v]) {
            pred[w].remove(&v);
            if w != u {
                succ[u].insert(w);
                pred[w].insert(u);
            }
        }
        nodes.remove(&v);
    }
    nodes.len() == 1
}

// ---------------------------------------------------------------------------
// Checks.

/// Every check below on `a`, an analysis already computed on `g`.
pub fn check_all(g: &CfgGraph, a: &CfgAnalysis) {
    check_traversal(g, a);
    check_dominators(g, a);
    check_post_dominator_roots(g, a);
    check_post_dominators(g, a);
    check_sccs(g);
    check_cycles(g, a);
    check_irreducibility(g, a);
    check_tags(g, a);
}

/// DFS preorder, postorder and RPO, DFS parents and ancestors, and back
/// edges against reachability and the DFS tree.
pub fn check_traversal(g: &CfgGraph, a: &CfgAnalysis) {
    let t = a.traversal();
    let n = g.num_blocks();
    let all = |_: usize| true;
    let reachable = reach(n, g.entry().index(), None, &all, &succ_fn(g));
    assert_eq!(t.num_reachable(), reachable.iter().filter(|&&r| r).count());
    assert_eq!(t.rpo_number(g.entry()), Some(0));
    for (i, &block) in t.rpo().iter().enumerate() {
        assert_eq!(t.rpo_number(block), Some(i as u32));
    }
    let mut reversed_post = t.postorder().to_vec();
    reversed_post.reverse();
    assert_eq!(t.rpo(), &reversed_post[..], "RPO is reversed postorder");
    for (i, &block) in t.preorder().iter().enumerate() {
        assert_eq!(t.pre_number(block).map(|p| p.index()), Some(i));
    }
    for i in 0..n {
        assert_eq!(t.is_reachable(b(i)), reachable[i]);
        if let Some(p) = t.dfs_parent(b(i)) {
            assert!(g.successors(p).contains(&b(i)) && t.pre_number(p) < t.pre_number(b(i)));
        }
        for j in 0..n {
            assert_eq!(
                t.is_dfs_ancestor(b(i), b(j)),
                reachable[i] && reachable[j] && is_tree_ancestor(t, b(i), b(j)),
                "{i} DFS ancestor of {j}"
            );
        }
    }
    let mut back = 0;
    for (u, v) in g.edges().filter(|&(u, _)| t.is_reachable(u)) {
        let ancestor = is_tree_ancestor(t, v, u);
        assert_eq!(t.is_back_edge(u, v), ancestor, "{u}->{v}");
        // RPO is a topological order of the graph minus back edges.
        assert_eq!(ancestor, t.rpo_number(v) <= t.rpo_number(u), "{u}->{v}");
        back += ancestor as usize;
    }
    assert_eq!(t.back_edges().len(), back);
    assert!(t
        .back_edges()
        .iter()
        .all(|&(u, v)| g.successors(u).contains(&v)));
}

/// Ancestor-or-self in the DFS tree by walking parent links.
pub fn is_tree_ancestor(t: &Traversal, anc: BlockId, mut x: BlockId) -> bool {
    loop {
        if x == anc {
            return true;
        }
        match t.dfs_parent(x) {
            Some(p) => x = p,
            None => return false,
        }
    }
}

/// Immediate dominators against [`reference_dominators`]; dominance,
/// strict dominance, tree intervals and nearest common dominators against
/// [`brute_dominance`]; the tree's children and depths.
pub fn check_dominators(g: &CfgGraph, a: &CfgAnalysis) {
    let d = a.dominators();
    let n = g.num_blocks();
    let reference = reference_dominators(g);
    let brute = brute_dominance(g, g.entry().index());
    for x in 0..n {
        assert_eq!(d.idom(b(x)), reference[x], "idom of {x}: fast vs reference");
        assert_eq!(d.is_reachable(b(x)), a.traversal().is_reachable(b(x)));
        for y in 0..n {
            assert_eq!(d.dominates(b(x), b(y)), brute[x][y], "{x} dom {y}");
            assert_eq!(
                d.strictly_dominates(b(x), b(y)),
                brute[x][y] && x != y,
                "{x} sdom {y}"
            );
        }
        for &c in d.children(b(x)) {
            assert_eq!(d.idom(c), Some(b(x)));
        }
        if let Some(p) = d.idom(b(x)) {
            assert_eq!(d.depth(b(x)), d.depth(p).map(|k| k + 1));
        }
        // The tree intervals nest exactly as dominance does.
        for y in 0..n {
            if let (Some((xs, xe)), Some((ys, _))) = (d.tree_interval(b(x)), d.tree_interval(b(y)))
            {
                assert_eq!(xs <= ys && ys < xe, brute[x][y], "interval {x} vs {y}");
            }
        }
    }
    let child_count: usize = (0..n).map(|x| d.children(b(x)).len()).sum();
    assert_eq!(child_count, a.traversal().num_reachable().saturating_sub(1));
    check_nearest_common(n, &brute, &|x, y| {
        d.nearest_common_dominator(b(x), b(y)).map(|z| z.index())
    });
}

/// `ncd(x, y)` must be the common (post-)dominator dominated by all
/// others (`None` if `x` and `y` have no common one), where `dom[z][x]`
/// says `z` (post-)dominates `x`. Also checks the oracle: the dominators of
/// a block form a chain, so that one is the common one with the most
/// dominators of its own.
pub fn check_nearest_common(
    n: usize,
    dom: &[Vec<bool>],
    ncd: &dyn Fn(usize, usize) -> Option<usize>,
) {
    let m = dom.len();
    let depth: Vec<usize> = (0..m)
        .map(|z| (0..m).filter(|&w| dom[w][z]).count())
        .collect();
    for x in 0..n {
        for y in 0..n {
            let common: Vec<usize> = (0..m).filter(|&z| dom[z][x] && dom[z][y]).collect();
            let dominated_by_all = common
                .iter()
                .copied()
                .find(|&z| common.iter().all(|&w| dom[w][z]));
            let deepest = common.iter().copied().max_by_key(|&z| depth[z]);
            assert_eq!(
                dominated_by_all, deepest,
                "common dominators of {x}, {y} form a chain"
            );
            assert_eq!(ncd(x, y), dominated_by_all, "nearest common of {x}, {y}");
        }
    }
}

/// The exits, the infinite-loop representatives (extra roots) and which
/// blocks reach an exit, by definition.
pub fn check_post_dominator_roots(g: &CfgGraph, a: &CfgAnalysis) {
    let p = a.post_dominators();
    let n = g.num_blocks();
    let all = |_: usize| true;
    let exits: Vec<usize> = (0..n).filter(|&x| g.successors(b(x)).is_empty()).collect();
    let exit_ids: Vec<BlockId> = exits.iter().map(|&x| b(x)).collect();
    assert_eq!(p.exits(), &exit_ids[..]);
    let reaches: Vec<bool> = (0..n)
        .map(|x| {
            let r = reach(n, x, None, &all, &succ_fn(g));
            exits.iter().any(|&e| r[e])
        })
        .collect();
    let no_exit: Vec<bool> = reaches.iter().map(|&r| !r).collect();
    let mut expected: Vec<BlockId> = Vec::new();
    for comp in nontrivial_sccs(g, &no_exit) {
        let leaves = comp.iter().any(|&x| {
            g.successors(b(x))
                .iter()
                .any(|s| !comp.contains(&s.index()))
        });
        if leaves {
            continue;
        }
        let key = |x: usize| match a.traversal().rpo_number(b(x)) {
            Some(r) => (true, r),
            None => (false, x as u32),
        };
        let representative = comp
            .iter()
            .max_by_key(|&&x| key(x))
            .expect("components are not empty");
        expected.push(b(*representative));
    }
    expected.sort();
    assert_eq!(
        p.extra_roots(),
        &expected[..],
        "infinite-loop representatives"
    );
    for (x, &r) in reaches.iter().enumerate() {
        assert_eq!(p.reaches_exit(b(x)), r, "{x} reaches an exit");
    }
}

/// Immediate post-dominators against [`reference_dominators`] on the
/// reverse graph with the virtual exit; post-dominance and nearest common
/// post-dominators against [`brute_dominance`] on it.
pub fn check_post_dominators(g: &CfgGraph, a: &CfgAnalysis) {
    let p = a.post_dominators();
    let n = g.num_blocks();
    let rev = p.reverse_graph();
    let reference = reference_dominators(rev);
    let brute = brute_dominance(rev, n);
    let vexit = p.virtual_exit();
    for x in 0..n {
        assert!(
            p.as_dominator_tree().is_reachable(b(x)),
            "every block is in the post-dominator tree"
        );
        assert_eq!(
            p.ipdom(b(x)),
            reference[x].filter(|&q| q != vexit),
            "ipdom of {x}: fast vs reference"
        );
        assert!(p.post_dominates(vexit, b(x)) && !p.post_dominates(b(x), vexit));
        for y in 0..n {
            assert_eq!(p.post_dominates(b(x), b(y)), brute[x][y], "{x} pdom {y}");
        }
    }
    let ncpd = |x: usize, y: usize| {
        Some(
            p.nearest_common_post_dominator(b(x), b(y))
                .map_or(n, |z| z.index()),
        )
    };
    check_nearest_common(n, &brute, &ncpd);
    assert!(p.is_virtual_exit(vexit) && !p.is_virtual_exit(b(0)));
}

/// [`SccFinder`] on the whole graph and on a masked subgraph: the same
/// partition as mutual reachability, numbered in reverse topological order.
pub fn check_sccs(g: &CfgGraph) {
    let n = g.num_blocks();
    let mut finder = SccFinder::new();
    for mask in [
        vec![true; n],
        (0..n).map(|x| x % 3 != 1).collect::<Vec<bool>>(),
    ] {
        finder.compute_masked(g, &mask);
        let expected = all_sccs(g, &mask);
        assert_eq!(finder.num_components(), expected.len(), "SCC count");
        for comp in &expected {
            let id = finder.component(b(comp[0]));
            assert!(id.is_some());
            for &x in comp {
                assert_eq!(finder.component(b(x)), id, "SCC of {x}");
            }
        }
        for x in 0..n {
            assert_eq!(finder.component(b(x)).is_some(), mask[x]);
        }
        for (u, v) in g.edges() {
            if let (Some(cu), Some(cv)) = (finder.component(u), finder.component(v)) {
                assert!(cv <= cu, "SCCs in reverse topological order: {u}->{v}");
            }
        }
    }
}

/// The cycle forest against [`expected_forest`]: blocks, headers, depths,
/// parents, top-level cycles; then [`check_cycle_lists`] per cycle,
/// [`check_nesting`] and [`check_outermost_without`].
pub fn check_cycles(g: &CfgGraph, a: &CfgAnalysis) {
    let f = a.cycles();
    let expected = expected_forest(g, a);
    assert_eq!(f.num_cycles(), expected.len(), "number of cycles");
    let by_blocks: HashMap<Vec<usize>, CycleId> =
        f.cycles().map(|c| (sorted_blocks(a, c), c)).collect();
    for e in &expected {
        let c = *by_blocks
            .get(&e.blocks)
            .unwrap_or_else(|| panic!("no cycle with blocks {:?}", e.blocks));
        assert_eq!(f.header(c).index(), e.header);
        assert_eq!(f.blocks(c)[0].index(), e.header, "header first");
        assert_eq!(f.depth(c), e.depth);
        let parent_blocks = e.parent.map(|q| expected[q].blocks.clone());
        assert_eq!(f.parent(c).map(|q| sorted_blocks(a, q)), parent_blocks);
        check_cycle_lists(g, a, c);
    }
    let top: Vec<CycleId> = f.cycles().filter(|&c| f.parent(c).is_none()).collect();
    assert_eq!(f.top_level_cycles(), &top[..]);
    check_nesting(g, a);
    check_outermost_without(a, g.num_blocks());
}

/// [`CycleForest::outermost_without`] (the jump-pointer search) against a
/// walk up the parents, for every cycle and every block of `0..n`.
pub fn check_outermost_without(a: &CfgAnalysis, n: usize) {
    let f = a.cycles();
    for c in f.cycles() {
        for x in 0..n {
            let mut walked = None;
            let mut at = Some(c);
            while let Some(d) = at {
                if f.contains(d, b(x)) {
                    break;
                }
                walked = Some(d);
                at = f.parent(d);
            }
            assert_eq!(f.outermost_without(c, b(x)), walked, "{c:?} without {x}");
        }
    }
}

/// The blocks of cycle `c`, as indices sorted by index.
pub fn sorted_blocks(a: &CfgAnalysis, c: CycleId) -> Vec<usize> {
    let mut v: Vec<usize> = a.cycles().blocks(c).iter().map(|x| x.index()).collect();
    v.sort();
    v
}

/// Entries, latches, exiting and exit blocks by definition; strong
/// connectivity of the block set.
pub fn check_cycle_lists(g: &CfgGraph, a: &CfgAnalysis, c: CycleId) {
    let (f, t) = (a.cycles(), a.traversal());
    let n = g.num_blocks();
    let inside: Vec<bool> = (0..n).map(|x| f.contains(c, b(x))).collect();
    let header = f.header(c);
    let mut entries: Vec<BlockId> = f
        .blocks(c)
        .iter()
        .copied()
        .filter(|&x| {
            x == g.entry()
                || g.predecessors(x)
                    .iter()
                    .any(|&q| !inside[q.index()] && t.is_reachable(q))
        })
        .filter(|&x| x != header)
        .collect();
    entries.sort_by_key(|&x| t.pre_number(x));
    entries.insert(0, header);
    assert_eq!(f.entries(c), &entries[..], "entries of {c:?}");
    let set = |v: &[BlockId]| v.iter().map(|x| x.index()).collect::<BTreeSet<usize>>();
    let latches: BTreeSet<usize> = set(g.predecessors(header))
        .into_iter()
        .filter(|&x| inside[x])
        .collect();
    assert_eq!(set(f.latches(c)), latches, "latches of {c:?}");
    assert_eq!(set(f.latches(c)).len(), f.latches(c).len(), "deduplicated");
    let leaving: Vec<(usize, usize)> = g
        .edges()
        .map(|(u, v)| (u.index(), v.index()))
        .filter(|&(u, v)| inside[u] && !inside[v])
        .collect();
    assert_eq!(
        set(f.exiting_blocks(c)),
        leaving.iter().map(|e| e.0).collect(),
        "exiting blocks of {c:?}"
    );
    assert_eq!(
        set(f.exit_blocks(c)),
        leaving.iter().map(|e| e.1).collect(),
        "exit blocks of {c:?}"
    );
    assert_eq!(
        set(f.exit_blocks(c)).len(),
        f.exit_blocks(c).len(),
        "deduplicated"
    );
    let allowed = |x: usize| inside[x];
    let fwd = reach(n, header.index(), None, &allowed, &succ_fn(g));
    let bwd = reach(n, header.index(), None, &allowed, &pred_fn(g));
    assert!(
        (0..n).all(|x| !inside[x] || (fwd[x] && bwd[x])),
        "cycle is strongly connected"
    );
}

/// Children are nested in parents, siblings are disjoint, innermost cycle
/// and depth per block agree with membership.
pub fn check_nesting(g: &CfgGraph, a: &CfgAnalysis) {
    let f = a.cycles();
    for c in f.cycles() {
        let kids = f.children(c);
        for (i, &k) in kids.iter().enumerate() {
            assert_eq!(f.parent(k), Some(c));
            assert!(f.contains_cycle(c, k) && f.blocks(k).iter().all(|&x| f.contains(c, x)));
            assert!(
                !f.contains(k, f.header(c)),
                "child excludes the parent's header"
            );
            for &other in &kids[i + 1..] {
                assert!(
                    f.blocks(k).iter().all(|&x| !f.contains(other, x)),
                    "siblings disjoint"
                );
            }
        }
    }
    for x in (0..g.num_blocks()).map(b) {
        let containing: Vec<CycleId> = f.cycles().filter(|&c| f.contains(c, x)).collect();
        assert_eq!(f.cycle_depth(x) as usize, containing.len());
        assert_eq!(f.innermost_cycle(x), containing.last().copied());
        assert_eq!(f.is_header(x), f.cycles().any(|c| f.header(c) == x));
    }
}

/// Per cycle, the offending-back-edge rule (a back edge into the header
/// from a block the header does not dominate) against the cycle's entries
/// ([`CycleForest::is_reducible`]). Cheap enough for large graphs.
pub fn check_irreducibility_rule(a: &CfgAnalysis) {
    let (f, t, d) = (a.cycles(), a.traversal(), a.dominators());
    for c in f.cycles() {
        let h = f.header(c);
        let offends = t
            .back_edges()
            .iter()
            .any(|&(u, v)| v == h && !d.dominates(h, u));
        assert_eq!(
            offends,
            !f.is_reducible(c),
            "rule vs entries for cycle headed by {h}"
        );
    }
}

/// [`check_irreducibility_rule`]; the reported irreducible cycles and
/// their offending back edges; whole-graph reducibility against
/// [`t1_t2_reducible`].
pub fn check_irreducibility(g: &CfgGraph, a: &CfgAnalysis) {
    check_irreducibility_rule(a);
    let (f, t, d) = (a.cycles(), a.traversal(), a.dominators());
    let reported: Vec<CycleId> = a.irreducibility().cycles().map(|r| r.cycle).collect();
    let expected: Vec<CycleId> = f.cycles().filter(|&c| !f.is_reducible(c)).collect();
    assert_eq!(reported, expected);
    for r in a.irreducibility().cycles() {
        assert_eq!(r.entries, f.entries(r.cycle));
        assert_eq!(r.header, f.header(r.cycle));
        let offending: Vec<(BlockId, BlockId)> = t
            .back_edges()
            .iter()
            .copied()
            .filter(|&(u, h)| h == r.header && !d.dominates(h, u))
            .collect();
        assert_eq!(r.offending_back_edges, &offending[..]);
    }
    assert_eq!(a.is_reducible(), f.all_reducible());
    assert_eq!(first_offending_back_edge(t, d).is_none(), f.all_reducible());
    assert_eq!(t1_t2_reducible(g, a), f.all_reducible(), "T1/T2 oracle");
}

type ListFn = for<'f> fn(&'f CycleForest, CycleId) -> &'f [BlockId];

/// Every block tag against the traversal and the cycle forest.
pub fn check_tags(g: &CfgGraph, a: &CfgAnalysis) {
    let f = a.cycles();
    for x in (0..g.num_blocks()).map(b) {
        let tag = a.tag(x);
        let in_list = |list: ListFn| f.cycles().any(|c| list(f, c).contains(&x));
        assert_eq!(tag.rpo, a.traversal().rpo_number(x));
        assert_eq!(tag.loop_depth, f.cycle_depth(x));
        assert_eq!(tag.is_unreachable(), !a.traversal().is_reachable(x));
        assert_eq!(tag.is_loop_header(), f.is_header(x));
        assert_eq!(tag.in_loop(), f.innermost_cycle(x).is_some());
        assert_eq!(tag.is_latch(), in_list(CycleForest::latches));
        assert_eq!(tag.is_exiting(), in_list(CycleForest::exiting_blocks));
        assert_eq!(tag.is_loop_exit(), in_list(CycleForest::exit_blocks));
        let irr_entry = f
            .cycles()
            .any(|c| !f.is_reducible(c) && f.entries(c).contains(&x));
        assert_eq!(tag.flags.contains(BlockFlags::IRREDUCIBLE_ENTRY), irr_entry);
        assert_eq!(
            tag.flags.contains(BlockFlags::FUNCTION_EXIT),
            g.successors(x).is_empty()
        );
    }
}
