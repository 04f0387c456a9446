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
//!   dominate their uses.
//!
//! Four drivers use it, each a thin layer of hooks:
//! [`reconverge`](super::reconverge) (divergent branches must reconverge),
//! [`structurize`](super::structurize) (every branch must),
//! [`hubs`](super::hubs) with `fix-irreducible` (one entry per cycle) and
//! `unify-loop-exits` (one exit per loop).

pub mod apply;
pub mod plan;
pub mod ssa;
