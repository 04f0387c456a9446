//! SSA repair after a CFG edit: [`solve`] decides where a variable needs
//! block arguments (on the IR-independent graph), [`rewrite`] applies the
//! solution to the IR, and [`values`] finds the values of the edited region
//! whose definitions no longer dominate their uses and repairs them with
//! the other two.

pub(crate) mod rewrite;
pub(crate) mod solve;
pub(crate) mod values;
