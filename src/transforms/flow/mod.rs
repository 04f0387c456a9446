//! The Flow engine: one planner and one applier shared by every transform
//! that reroutes a CFG through Flow blocks.
//!
//! * [`plan`] decides, on the IR-independent CFG, which edges go through
//!   which new Flow blocks (the OpenTree sweep of the reconvergence paper,
//!   plus hub plans);
//! * [`apply`] carries a plan out on the MLIR region: it creates the Flow
//!   blocks, their selector chains and payload slots, and redirects edges;
//! * [`ssa`] restores SSA form afterwards: [`ssa::solve`] places the block
//!   arguments a variable needs, [`ssa::rewrite`] writes them into the IR,
//!   and [`ssa::values`] repairs the values whose definitions no longer
//!   dominate their uses;
//! * [`rounds`] is the loop every driver runs around them: snapshot (or
//!   reuse the exact graph the last application left), let the driver
//!   check and plan, apply, count the rounds against the driver's bound.
//!
//! ```text
//!   reconverge   structurize   fix-irreducible   unify-loop-exits   drivers
//!        \            |               \               /
//!    "these blocks must reconverge"    "route these slots through a hub"
//!         plan::plan_reconvergence_*        ReconvergePlan::from_hubs
//!                     \                       /
//!           rounds::Rounds::run (snapshot, driver's step)       engine
//!                      apply::apply_plan(style)
//!                               |
//!                 ssa::{solve, rewrite, values}
//! ```
//!
//! The hook surface is small, in the manner of MLIR's CFGToSCF (one engine,
//! a few decisions left to the client):
//!
//! * **what to plan**: a per-block predicate "this branch must reconverge"
//!   (reconverge: the divergent branches; structurize: every branch outside
//!   a uniform region) handed to [`plan::plan_reconvergence_checked_later`]
//!   with an [`plan::Ordering`], or hub specifications ([`plan::HubSpec`]:
//!   the slots to route and their targets) from the hub planners of
//!   [`hubs`](super::hubs);
//! * **how Flow blocks branch**: [`apply::FlowStyle`] (`spmd.flow_br` for
//!   Flow blocks, `cf.cond_br` for guard blocks);
//! * **when predicates become a selector**: the selector chain length;
//! * **when to stop**: each driver's [`rounds::RoundStep`] says whether
//!   the region is done, and its bound of rounds;
//! * **what to do around it**: each driver prepares the region first
//!   ([`prepare`](super::prepare)), and checks or marks the result
//!   afterwards (reconvergence markers, kept-uniform marks), outside the
//!   engine.
//!
//! Four drivers use it: [`reconverge`](super::reconverge) (divergent
//! branches must reconverge), [`structurize`](super::structurize) (every
//! branch must), and [`hubs`](super::hubs) with `fix-irreducible` (one
//! entry per cycle) and `unify-loop-exits` (one exit per loop).

pub(crate) mod apply;
pub(crate) mod plan;
pub(crate) mod rounds;
pub(crate) mod ssa;
