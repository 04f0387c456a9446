//! The pass declarations of `dialect/include/Spmd/SpmdPasses.td`, as Rust
//! tables generated at build time.
//!
//! `build.rs` reads the `.td` through `mlir-tblgen --print-records` (so
//! TableGen resolves the shared `uniformityOptions` and `!listconcat`) and
//! writes, for every pass, its options (key, kind and default) and its
//! statistics (name and description). ODS is thus the only place where an
//! option default or a statistic is written:
//!
//! * [`PASSES`] is what the pass runner checks the typed option values of
//!   the C++ shells against (`crate::passes::PassOptions`), and where
//!   [`statistics_of`] finds the statistics a pass reports;
//! * one module per pass (`spmd_reconverge`, ...) holds the defaults as
//!   typed constants (`spmd_reconverge::ORDERING: &str = "dfpd"`), which the
//!   `Default` impls of the transform options read (for example
//!   `ReconvergeOptions`), so that an embedder calling a transform directly
//!   gets the same defaults as `spmd-opt`.
//!
//! At run time the option values themselves come from the C++ shells (the
//! `Option<...>` members MLIR generated from the `.td` and parsed), never
//! from this table; a unit test of `crate::passes` checks that a
//! default-constructed pass hands over exactly these defaults.

use super::pass_runner::Statistic;

/// One pass of `SpmdPasses.td`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OdsPass {
    /// Its command-line name (`spmd-reconverge`).
    pub argument: &'static str,
    /// Its options, in declaration order.
    pub options: &'static [OdsOption],
    /// Its statistics, in declaration order.
    pub statistics: &'static [Statistic],
}

/// One option of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OdsOption {
    /// Its key (`selector-chain-length`).
    pub key: &'static str,
    /// Its C++ type.
    pub kind: OptionKind,
    /// Its default.
    pub default: OdsDefault,
}

/// The C++ types of pass options the shells hand to Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `bool`.
    Flag,
    /// `unsigned`.
    Unsigned,
    /// `std::string`.
    Text,
    /// `ListOption<std::string>`.
    TextList,
}

/// The default of an option, as ODS declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OdsDefault {
    /// A `bool` default.
    Flag(bool),
    /// An `unsigned` default.
    Unsigned(u32),
    /// A `std::string` default (the literal's text).
    Text(&'static str),
    /// A list option, empty by default.
    TextList,
}

// The generated per-pass modules offer every declared default as a typed
// constant; the transforms read the ones their `Default` impls need.
#[allow(dead_code)]
mod generated {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/spmd_passes_ods.rs"));
}
pub(crate) use generated::*;

/// The declaration of the pass called `argument`, if there is one.
pub fn pass(argument: &str) -> Option<&'static OdsPass> {
    PASSES.iter().find(|pass| pass.argument == argument)
}

/// The statistics of the pass called `argument` (none for an unknown name).
pub fn statistics_of(argument: &str) -> &'static [Statistic] {
    pass(argument).map_or(&[], |pass| pass.statistics)
}
