//! Shared fixtures: a context with every upstream dialect plus spmd.

use melior::{
    ir::{operation::OperationLike, Module},
    Context,
};

/// A context with every upstream dialect and the spmd dialect loaded.
pub fn context() -> Context {
    spmd::dialect::context_with_all_dialects()
}

/// Parses and verifies `source`, panicking with the text on failure.
pub fn parse<'c>(context: &'c Context, source: &str) -> Module<'c> {
    let module =
        Module::parse(context, source).unwrap_or_else(|| panic!("failed to parse:\n{source}"));
    assert!(module.as_operation().verify(), "invalid module:\n{source}");
    module
}
