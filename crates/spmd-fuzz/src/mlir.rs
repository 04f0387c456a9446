//! The MLIR side of the targets: contexts, diagnostics, pass pipelines.

use melior::{
    diagnostic::DiagnosticSeverity,
    ir::{operation::OperationLike, Module},
    pass::PassManager,
    Context,
};
use std::{cell::RefCell, rc::Rc};

/// What spmd's pass runner says when it caught a panic in a pass: a bug,
/// whatever the input.
pub(crate) const INTERNAL_ERROR: &str = "internal error in pass";

/// A fresh context with every upstream dialect and spmd's, single-threaded
/// (a fuzzer runs one small input at a time), and spmd's passes
/// registered.
pub(crate) fn fresh_context() -> Context {
    spmd::register_all_passes();
    let context = spmd::context_with_all_dialects();
    context.enable_multi_threading(false);
    context
}

/// One diagnostic MLIR emitted.
#[derive(Clone, Debug)]
pub(crate) struct Message {
    pub error: bool,
    pub text: String,
}

/// Runs `body` with every diagnostic `context` emits collected (and not
/// printed); returns its result and the diagnostics.
pub(crate) fn collecting<T>(context: &Context, body: impl FnOnce() -> T) -> (T, Vec<Message>) {
    let messages = Rc::new(RefCell::new(Vec::new()));
    let sink = messages.clone();
    let handler = context.attach_diagnostic_handler(move |d| {
        let mut text = d.to_string();
        for index in 0..d.note_count() {
            if let Ok(note) = d.note(index) {
                text.push_str("\n  note: ");
                text.push_str(&note.to_string());
            }
        }
        sink.borrow_mut().push(Message {
            error: matches!(d.severity(), DiagnosticSeverity::Error),
            text,
        });
        true
    });
    let result = body();
    context.detach_diagnostic_handler(handler);
    let messages = messages.borrow().clone();
    (result, messages)
}

/// Parses `source` (MLIR's parser verifies what it parsed); the
/// diagnostics if it does not parse.
pub(crate) fn parse<'c>(context: &'c Context, source: &str) -> Result<Module<'c>, Vec<Message>> {
    let (module, messages) = collecting(context, || Module::parse(context, source));
    module.ok_or(messages)
}

/// Runs the textual pass pipeline `pipeline` (`builtin.module(...)`) on
/// `module`, without MLIR's verifier between passes (the caller verifies
/// the result, so that a pass producing invalid IR is told apart from a
/// pass rejecting its input); the diagnostics if it fails.
pub(crate) fn run_pipeline(
    context: &Context,
    module: &mut Module,
    pipeline: &str,
) -> Result<(), Vec<Message>> {
    let manager = PassManager::new(context);
    manager.enable_verifier(false);
    melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .unwrap_or_else(|e| panic!("invalid pipeline {pipeline}: {e}"));
    let (result, messages) = collecting(context, || manager.run(module));
    result.map_err(|_| messages)
}

/// Panics if a diagnostic reports a panic the pass runner caught.
pub(crate) fn assert_no_internal_error(messages: &[Message], what: &dyn Fn() -> String) {
    if let Some(bad) = messages.iter().find(|m| m.text.contains(INTERNAL_ERROR)) {
        panic!("{}: {}\nall diagnostics: {messages:#?}", what(), bad.text);
    }
}

/// Runs MLIR's verifier on `module`; the diagnostics if it fails.
pub(crate) fn verify(context: &Context, module: &Module) -> Result<(), Vec<Message>> {
    let (valid, messages) = collecting(context, || module.as_operation().verify());
    if valid {
        Ok(())
    } else {
        Err(messages)
    }
}

/// The module's text.
pub(crate) fn text(module: &Module) -> String {
    module.as_operation().to_string()
}
