//! Emitting MLIR diagnostics from Rust.
//!
//! Errors found by analyses and transforms are typed values that carry the
//! offending operation's [`Location`]; they reach the user through MLIR's
//! diagnostic engine, so `--verify-diagnostics` and `file:line:col` output
//! work exactly as for upstream passes.

use melior::ir::Location;
use std::ffi::CString;

/// Emits an error diagnostic at `location`.
pub(crate) fn emit_error(location: Location<'_>, message: &str) {
    let text = CString::new(message.replace('\0', " ")).expect("NUL bytes were replaced");
    // SAFETY: the location is live and the message a valid C string.
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), text.as_ptr()) };
}
