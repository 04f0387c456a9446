//! IR-independent control-flow-graph analysis core.
//!
//! Everything here works on any [`Graph`] — dense block ids with successor
//! and predecessor slices — so the same code serves MLIR regions, test
//! graphs and the structurizer's scratch graphs. No recursion anywhere:
//! every traversal uses an explicit stack, so million-block CFGs are fine.
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
//! # Lifecycle
//!
//! Each analysis is a struct with `new()`, `compute(&mut self, ...)` that
//! reuses its buffers, `clear()`, and a `build(g)` convenience; analyses
//! that need a DFS take the [`Traversal`] of the same graph so one DFS is
//! shared. [`CfgAnalysis`] bundles them all.

pub mod analysis;
#[cfg(any(test, feature = "testing"))]
pub mod bench;
mod csr;
pub mod cycles;
pub mod dominators;
pub mod dot;
pub mod graph;
pub mod irreducible;
mod jumps;
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
pub use post_dominators::PostDominatorTree;
pub use scc::{SccFinder, SccId};
pub use tags::{BlockFlags, BlockTag, BlockTags};
pub use traversal::{PostorderNumber, PreorderNumber, RpoNumber, Traversal};
