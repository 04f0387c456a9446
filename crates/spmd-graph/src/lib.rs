//! # spmd-graph: the IR-independent control-flow-graph core of spmd
//!
//! Reverse postorder and the other DFS orders, dominators, post-dominators
//! with a virtual exit, the cycle nesting forest (reducible and
//! irreducible), irreducibility diagnostics, per-block loop tags and DOT
//! rendering, on dense arrays and newtype ids.
//!
//! The crate has **no MLIR in it**: no melior, no mlir-sys, no `unsafe`,
//! no dependency but `std`. It runs on plain edge lists
//! ([`CfgGraph::from_edges`], [`CfgBuilder`]).
//! The `spmd` crate re-exports it as `spmd::graph` and snapshots
//! MLIR regions into it (`spmd::RegionGraph`); nothing here depends
//! on `spmd`.
//!
//! Everything here works on any [`Graph`] — dense block ids with successor
//! and predecessor slices — so the same code serves MLIR regions, test
//! graphs and the structurizer's scratch graphs. No recursion anywhere:
//! every traversal uses an explicit stack, so million-block CFGs are fine.
//!
//! # Quick start
//!
//! The graph of the [example](#example) below, from its edge list: block
//! ids are the dense indices `0..n`, edges are `(from, to)` pairs in
//! successor-slot order.
//!
//! ```
//! use spmd_graph::{BlockId, CfgAnalysis, CfgGraph};
//!
//! let [entry, a, b, c] = [0, 1, 2, 3].map(BlockId::new);
//! let g = CfgGraph::from_edges(4, entry, &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 1)]);
//!
//! // One object computes (and can recompute, reusing its buffers) it all.
//! let cfg = CfgAnalysis::build(&g);
//! assert_eq!(cfg.traversal().rpo(), &[entry, a, b, c]);
//!
//! let dom = cfg.dominators();
//! assert_eq!(dom.idom(entry), None); // the entry has no idom
//! assert_eq!((dom.idom(a), dom.idom(b), dom.idom(c)), (Some(entry), Some(entry), Some(b)));
//!
//! let pdom = cfg.post_dominators();
//! assert_eq!((pdom.ipdom(entry), pdom.ipdom(a), pdom.ipdom(b)), (Some(b), Some(b), Some(c)));
//! assert_eq!(pdom.ipdom(c), None); // `None` is the virtual exit
//! assert_eq!(pdom.extra_roots(), &[c]); // the infinite loop's representative
//!
//! // One cycle, A -> B -> C -> A, entered at A and at B: irreducible.
//! let forest = cfg.cycles();
//! let cycle = forest.innermost_cycle(a).unwrap();
//! assert_eq!((forest.num_cycles(), forest.header(cycle)), (1, a));
//! assert_eq!(forest.entries(cycle), &[a, b]);
//! assert!(!cfg.is_reducible());
//! let bad = cfg.irreducibility().cycles().next().unwrap();
//! assert_eq!(bad.offending_back_edges, &[(c, a)]);
//!
//! let tag = cfg.tag(a);
//! assert!(tag.is_loop_header() && tag.in_loop() && tag.loop_depth == 1);
//!
//! let dot = spmd_graph::render_dot(&g, &cfg, "example", &|x| format!("bb{}", x.index()));
//! assert!(dot.starts_with("digraph"));
//! ```
//!
//! # Features
//!
//! * `testing` (off by default): `random` — SplitMix64 and random,
//!   code-shaped CFG generators — and `bench`, the
//!   scaling benchmark of the analyses, and `checks`, the brute-force
//!   definitions every analysis is compared with (by the crate's property
//!   tests and by `spmd-fuzz`'s `graph_core` target). The crate's own unit
//!   tests always have all three; `spmd`'s `testing` feature turns this
//!   one on.
//!
//! # The story
//!
//! 1. **Traversal** ([`Traversal`]). One iterative DFS from the entry
//!    yields preorder, postorder, reverse postorder (RPO), the DFS tree and
//!    the back edges (edges to a block still on the DFS stack). RPO is a
//!    topological order of the graph minus its back edges.
//! 2. **Dominators** ([`DominatorTree`]). Semi-NCA — the simplification of
//!    Lengauer–Tarjan described by Georgiadis (and used by LLVM): compute
//!    semidominators over the DFS preorder with a path-compressed link/eval
//!    forest, then each idom is the nearest common ancestor of the DFS
//!    parent and the semidominator, found by walking up the tree built so
//!    far. Near-linear in practice. A linear numbering of the resulting tree
//!    gives O(1) `dominates` by interval containment.
//!    [`reference_dominators`] keeps Cooper, Harvey & Kennedy's iterative
//!    algorithm ("A Simple, Fast Dominance Algorithm", 2001) as the oracle.
//! 3. **Post-dominators** ([`PostDominatorTree`]). Dominators of
//!    [`ReverseWithVirtualExit`]: the reversed graph plus a virtual exit
//!    wired to every block without successors and to one representative of
//!    each terminal infinite-loop SCC (see [`post_dominators`] for the
//!    exact rule), so every block gets an immediate post-dominator.
//! 4. **Cycles** ([`CycleForest`]). The cycle nesting forest with LLVM
//!    `CycleInfo` semantics, generalizing Havlak's "Nesting of reducible and
//!    irreducible loops" (1997): outermost cycles are the non-trivial SCCs,
//!    the header is the first block in DFS preorder, nested cycles are the
//!    cycles of a cycle minus its header; every entry of an irreducible
//!    cycle is reported.
//! 5. **Irreducibility** ([`Irreducibility`]). The structurizer's rule —
//!    a back edge whose target does not dominate its source — agrees
//!    exactly with "a cycle with more than one entry" (proof sketch in
//!    [`irreducible`]) and names the offending cycles and entries.
//! 6. **Tags and the service** ([`BlockTags`], [`CfgAnalysis`]). Like
//!    ptxas's re-entrant AnalyzeControlFlow, one object refreshes RPO
//!    numbers, header / in-loop / latch / exiting / loop-exit bits, loop
//!    depths and reachability for every block, reusing all buffers, so
//!    transforms can re-run it after every CFG edit.
//! 7. **DOT** ([`dot::render_dot`]) draws it all for debugging.
//! 8. **The cycle-contiguous order** ([`levels`]). A topological order of
//!    the forward edges in which every cycle is contiguous, header first,
//!    built level by level over the forest with a caller-chosen policy
//!    among the ready items: `spmd`'s uniformity analysis (FIFO) and its
//!    structurizer's layout (ranked or depth-first, soft constraints, end
//!    markers) both use it.
//!
//! # Example
//!
//! ```text
//!            entry(0)
//!            /     \
//!           v       v
//!        A(1) ----> B(2)        A and B both enter the cycle A -> B -> C -> A:
//!           ^       |           an irreducible cycle with header A (first
//!            \      v           in DFS preorder) and entries {A, B}. The
//!             +--- C(3)         back edge C -> A offends: A does not
//!                               dominate C (entry -> B -> C avoids A).
//! ```
//!
//! There is no exit, so the whole function is an infinite loop: the cycle
//! is the only terminal SCC of the blocks that cannot reach an exit, and
//! its representative C (largest RPO number) is wired to the virtual exit.
//! Then `ipdom(A) = B`, `ipdom(B) = C`, `ipdom(entry) = B`, `ipdom(C)` =
//! virtual exit; `idom(C) = B`, `idom(A) = idom(B) = entry`.
//!
//! # Invariants and edge cases
//!
//! * Ids are dense: `BlockId(0..n)`; the virtual exit is `BlockId(n)` and
//!   exists only in post-dominance queries.
//! * Duplicate edges (a conditional branch with equal targets, switch
//!   cases) are kept as separate successor slots; no analysis depends on
//!   them, back-edge lists report one entry per slot.
//! * Unreachable blocks (from the entry) have no RPO number, no idom, are
//!   in no cycle, dominate nothing and are dominated by nothing. They *are*
//!   in the post-dominator tree (post-dominance is about reaching the
//!   exit), where they never affect reachable blocks' relations.
//! * The entry may have predecessors; it then heads a cycle and is always
//!   one of that cycle's entries.
//! * Multiple exits meet only at the virtual exit: `ipdom` returns `None`
//!   (meaning the virtual exit) for a branch whose sides exit separately.
//! * Infinite loops: see [`post_dominators`]. Dominators and cycles need no
//!   special treatment.
//! * Every result is a deterministic function of the graph, including
//!   successor order.
//!
//! What the queries return in those cases:
//!
//! * [`Traversal::rpo_number`], [`Traversal::pre_number`],
//!   [`Traversal::post_number`], [`DominatorTree::idom`] and
//!   [`CycleForest::innermost_cycle`] are `None` for unreachable blocks;
//!   `idom` is also `None` for the entry.
//! * [`DominatorTree::dominates`] is reflexive on reachable blocks and
//!   `false` whenever either block is unreachable;
//!   [`DominatorTree::nearest_common_dominator`] is then `None`.
//! * [`PostDominatorTree::ipdom`] and
//!   [`PostDominatorTree::nearest_common_post_dominator`] return `None` for
//!   the virtual exit; [`PostDominatorTree::post_dominates`] accepts the
//!   virtual exit ([`PostDominatorTree::virtual_exit`]) as either block.
//! * [`PostDominatorTree::exits`] lists the blocks without successors,
//!   [`PostDominatorTree::extra_roots`] the infinite-loop representatives
//!   wired to the virtual exit.
//! * [`CycleForest::entries`] lists the header first; a cycle is
//!   irreducible exactly when it has more than one entry.
//!
//! # Lifecycle
//!
//! Each analysis is a struct with `new()`, `compute(&mut self, ...)` that
//! reuses its buffers, `clear()`, and a `build(g)` convenience; analyses
//! that need a DFS take the [`Traversal`] of the same graph so one DFS is
//! shared. [`CfgAnalysis`] bundles them all.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod analysis;
#[cfg(any(test, feature = "testing"))]
pub mod bench;
#[cfg(any(test, feature = "testing"))]
pub mod checks;
mod csr;
pub mod cycles;
pub mod dominators;
pub mod dot;
pub mod graph;
mod id;
pub mod irreducible;
mod jumps;
pub mod levels;
pub mod post_dominators;
#[cfg(any(test, feature = "testing"))]
pub mod random;
pub mod scc;
pub mod tags;
pub mod traversal;

#[cfg(test)]
mod tests;

pub use analysis::CfgAnalysis;
pub use cycles::{CycleForest, CycleId, OptionCycleId};
pub use dominators::{reference_dominators, DominatorTree};
pub use dot::{render_dot, render_dot_with_flow, BlockLook, BlockView, BranchLook, DotDocument};
pub use graph::{BlockId, CfgBuilder, CfgGraph, Graph, OptionBlockId, ReverseWithVirtualExit};
pub use irreducible::{first_offending_back_edge, Irreducibility, IrreducibleCycle};
pub use levels::LevelOrder;
pub use post_dominators::PostDominatorTree;
pub use scc::{SccFinder, SccId};
pub use tags::{BlockFlags, BlockTag, BlockTags};
pub use traversal::{PostorderNumber, PreorderNumber, RpoNumber, Traversal};
