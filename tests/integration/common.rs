//! Shared fixtures: a context with every upstream dialect plus spmd.

use melior::{
    dialect::DialectRegistry,
    ir::{operation::OperationLike, Module},
    utility::register_all_dialects,
    Context,
};

/// A context with every upstream dialect and the spmd dialect loaded.
pub fn context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    spmd::dialect::insert_into(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context
}

/// Parses and verifies `source`, panicking with the text on failure.
pub fn parse<'c>(context: &'c Context, source: &str) -> Module<'c> {
    let module = Module::parse(context, source)
        .unwrap_or_else(|| panic!("failed to parse:\n{source}"));
    assert!(module.as_operation().verify(), "invalid module:\n{source}");
    module
}
