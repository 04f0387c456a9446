//! Uniformity (divergence) analysis, IR-independent.
//!
//! A GPU runs the threads of a *wave* (warp) in lockstep. A value is
//! **uniform** if all threads of the wave that execute the same dynamic
//! instance of its definition compute the same value, **divergent**
//! otherwise; a branch is divergent if the threads executing it together
//! may go to different successors. Everything the structurizer and the
//! reconvergence passes do hinges on this classification, and the two
//! possible mistakes are not equal:
//!
//! * **Soundness first.** Calling a divergent branch uniform leaves it
//!   unstructured: some threads run the wrong code — a miscompile. Every
//!   rule below therefore errs towards "divergent".
//! * **Precision second.** Calling a uniform branch divergent only costs
//!   performance (extra exec-mask manipulation, lost scalarization).
//!
//! The analysis works on a [`Program`] — values, ops, block arguments and
//! terminators (see [`program`]) — plus the CFG core of
//! [`crate::analysis::cfg`] for the same graph: `compute(program, graph,
//! cfg)` in [`UniformityInfo`]. An MLIR adapter snapshots a region into a
//! `Program` with a [`ProgramBuilder`], mapping each op to an [`OpKind`].
//!
//! # The rules
//!
//! All rules feed one global fixed point (a newly divergent value can make
//! a branch divergent, whose joins make block arguments divergent, which
//! makes more values divergent, ...), with a worklist of values and one of
//! branches; see [`analysis`].
//!
//! **1. Sources.** Results of [`OpKind::Source`] ops (thread ids, atomics,
//! unknown calls) and [`ArgumentKind::Divergent`] arguments are divergent.
//! [`OpKind::Uniform`] (ballots, reductions, block ids) and
//! [`OpKind::Constant`] results are uniform whatever their operands.
//!
//! **2. Data dependence.** A [`OpKind::Pure`] op with a divergent operand
//! has divergent results; a block argument receiving a divergent value on
//! some incoming edge is divergent.
//!
//! **3. Branches.** A terminator with two or more successor slots is
//! divergent iff its condition (selector) is divergent, or it has none —
//! an unknown selector. A [`BranchMark`] overrides this in both directions
//! and is **trusted**, like LLVM's `structurizecfg.uniform` metadata: a
//! `Uniform` mark on a branch whose condition really differs across
//! threads is a user error the analysis cannot catch.
//!
//! **4. Sync dependence (joins).** Threads that split at a divergent
//! branch `B` may meet again at a *join block*: a block reachable from two
//! different successor slots of `B` along paths that share no block but
//! `B` and the join. Threads arriving at a join along different edges see
//! different incoming values, so every argument of a join is divergent —
//! unless all incoming edges forward the *same* value (the same
//! [`ValueId`], or constants with the same key; such an argument is then
//! as uniform as that value: "values that only appear divergent").
//! Inside cycles, paths are taken within one iteration: an edge back to
//! the header of a cycle containing `B` ends the path there (the header
//! can itself be a join: threads starting the next iteration from
//! different latches), and a cycle not containing `B` counts as one block.
//!
//! ```text
//!        entry: %t = thread_id; %c = cmp %t, 4     (%t, %c divergent)
//!          |    %k = const 7                         (%k uniform)
//!        cond_br %c, A, B                            (divergent branch)
//!          /        \
//!   A: br J(%k, %k)  B: br J(%k, %one)
//!          \        /
//!        J(%x, %y)      %x: both edges forward %k -> uniform
//!                       %y: %k vs %one            -> divergent
//! ```
//!
//! Joins are found by label propagation ([`sync`]): each successor slot
//! labels its target, labels flow forward, and a block receiving two
//! different labels is a join that relabels itself. A uniform branch nested
//! inside a divergent region creates no joins of its own:
//!
//! ```text
//!        entry: cond_br %div, A, E
//!          /            \
//!   A: cond_br %u, C, D   E
//!     /   \               |
//!    C     D              |      M joins only A's paths, and A is
//!     \   /               |      uniform: M's arguments stay uniform.
//!      M(%m)              |      J joins the divergent branch: J's
//!        \               /       arguments with differing incoming
//!         J(%x) <-------+        values are divergent.
//! ```
//!
//! **5. Temporal divergence.** Threads that split inside a cycle may leave
//! it in different iterations. Then a value defined in the cycle — uniform
//! within each iteration — is divergent where it is used *outside* the
//! cycle, because each thread carries the value of its own last iteration:
//!
//! ```text
//!   entry -> H(%i) <--------------+      %i, %n uniform inside the loop
//!            %n = add %i, 1       |
//!            B: cond_br %d, L, X  |      %d = cmp %n, %tid: divergent
//!                 |         \     |
//!                 L --------------+
//!                            X(%r): %s = mul %n, 2
//!                                      %s divergent, %r divergent
//! ```
//!
//! The propagation works per iteration: an edge back to the header of a
//! cycle containing `B` ends at a *sink* that forwards its label to the
//! cycle's exits. A cycle `C` containing `B` is flagged temporally
//! divergent if a join of `B` lies outside `C` (threads arrive there from
//! different iterations or exits), and — as additional conservative
//! triggers — if `B` has a successor outside `C` (an exiting branch) or
//! `ipdom(B)` lies outside `C` or is the virtual exit. For a flagged cycle,
//! every use outside it of a non-constant value defined inside it
//! (operands of ops and conditions in blocks outside `C`, operands
//! forwarded on edges that leave or lie outside `C`) is treated as
//! divergent, and its exit blocks are treated as joins. Outer cycles are
//! flagged only if the same rule holds for them. A value is reported by
//! [`UniformityInfo::is_divergent`] as seen at its definition; use
//! [`UniformityInfo::is_divergent_use`] for a particular use.
//!
//! *Why the propagation is not bounded by `ipdom(B)`.* In a cycle, a path
//! can skip `ipdom(B)` by going round the back edge:
//!
//! ```text
//!   H <----------------+      ipdom(A) = P. Threads going A -> L start
//!   A: cond_br %d, P, L|      the next iteration while the others reach
//!   P: cond_br %u, L, X|      P and may exit to X (temporal divergence),
//!   L(%y) -------------+      and L is a join (A -> L vs A -> P -> L).
//! ```
//!
//! Labels stopped at `P` would miss both; the cycle-collapsed propagation
//! of [`sync`] finds them, and stops only when all labels have merged.
//!
//! **6. Irreducible cycles, conservatively.** An irreducible cycle has no
//! single header where the threads of an iteration regroup. It takes the
//! conservative rule when threads can run it *out of phase*:
//!
//! * threads split by a divergent branch outside it enter it with
//!   different labels (possibly through different entries), or
//! * a divergent branch inside it sends two successor slots to two
//!   different blocks of the cycle (threads that split inside can come
//!   back through a different entry).
//!
//! Then every value defined in the cycle is divergent: every block
//! argument, and every result of a `Pure` or `Source` op, *even one
//! computed from uniform operands only* — threads that execute the same
//! block at the same moment may be in different iterations, so no
//! per-iteration value can be trusted (this is LLVM's "cycle assumed
//! divergent", and the uniformity differential against `opt` checks that
//! spmd is at least as divergent on every phi, value and branch). Only
//! constants and [`OpKind::Uniform`] results stay uniform. The cycle is
//! also treated as temporally divergent. Branch conditions keep the normal
//! rules: a condition defined outside the cycle stays uniform (all threads
//! read the same value whenever they run the branch); one defined inside
//! is divergent by this very rule.
//!
//! A divergent branch with at most one successor in the cycle only makes
//! it temporally divergent: the threads that stay took the same edge and
//! remain in phase, so the values inside keep the normal rules (LLVM
//! agrees; the differential in `tests/integration/uniformity_llvm.rs`
//! checks it).
//!
//! ```text
//!        entry: cond_br %tid_c, E1, E2
//!          /       \
//!        E1(%a) <-> E2(%b)    two entries: %a and %b divergent, and so
//!        %x = add %u, 1       is %x although %u is uniform; the cycle
//!          \       /          is temporally divergent
//!           X
//! ```
//!
//! Reached only through uniform branches (all threads enter together at
//! one entry), an irreducible cycle keeps its precise results.
//!
//! # Edge cases
//!
//! * **Unreachable blocks** never execute: their values are reported
//!   uniform and their branches [`BranchReason::Unreachable`]; edges from
//!   them are ignored.
//! * **Infinite loops**: their blocks post-dominate through the virtual
//!   exit of [`crate::analysis::cfg::PostDominatorTree`]; a branch whose
//!   sides never meet again has `ipdom` = virtual exit and simply produces
//!   no join. A cycle without exits is never flagged (nothing after it is
//!   reachable).
//! * **Several exits**: sides that end in different returns produce no
//!   join; threads that leave a cycle through different exits in the same
//!   iteration only matter where those paths meet (a join).
//! * **Switches with duplicate successors, duplicate edges**: slots are
//!   separate. `cond_br %c, ^a(%x), ^a(%y)` seeds `^a` twice, so `^a` is a
//!   join of the branch: its argument is divergent if `%c` is divergent
//!   (`%x` and `%y` differ), uniform if both slots forward the same value.
//! * **Missing forwarded operands** (fewer than the target's arguments:
//!   operands produced by the terminator) are divergent.
//! * **The entry block** as a join: its arguments also receive the
//!   caller's values, so they are all divergent.
//!
//! # Cost
//!
//! Linear in the program except for the sync propagation of each divergent
//! branch, which visits the cycle-collapsed region between the branch and
//! the point where its labels converge (at most its immediate
//! post-dominator in acyclic code), with a binary heap. With complete join
//! lists, programs with many divergent branches that all reconverge only
//! at the end of a long function are quadratic, as in every
//! sync-dependence analysis; the useful-joins mode the passes use stops
//! each propagation once everything it could still reach is *saturated*
//! (see [`analysis`]), which makes the long-range CFGs of issue #18
//! near-linear (10k blocks: 2.5 s before, 0.03 s after). On a
//! random code-shaped program of a million ops (module `bench`, `testing` feature; 44% of the
//! values divergent, 30k divergent branches) `compute` takes about 160 ms
//! in a release build — about 10x the `CfgAnalysis` of the same CFG —
//! and grows linearly with the program size.
//!
//! # What "same dynamic instance" means, and how it is tested
//!
//! The tests run random programs thread by thread and name each block
//! execution by the block plus the iteration counter of every cycle
//! containing it (restarted on entering the cycle, incremented on each
//! edge back to its header). Every value, use and branch slot the analysis
//! calls uniform must agree across threads at equal names; join sets are
//! compared with brute-force path enumeration (on acyclic graphs, and on
//! the cycle-collapsed graphs of [`sync`]), and the whole result with a
//! naive restatement of the rules on acyclic programs.

pub(crate) mod analysis;
#[cfg(any(test, feature = "testing"))]
pub(crate) mod bench;
mod liveness;
pub(crate) mod order;
pub(crate) mod program;
mod skip;
pub(crate) mod sync;

#[cfg(test)]
mod tests;

#[cfg(test)]
use analysis::BranchReason;
pub(crate) use analysis::{UniformityInfo, UniformityStats};
pub(crate) use program::{ArgumentKind, BranchMark, OpKind, ProgramBuilder, ValueId};
#[cfg(test)]
use program::{OpId, Program, Use, ValueDef};
