//! The body of `spmd-opt`: `mlir-opt` plus the spmd dialect and passes.

use std::{ffi::CString, os::raw::c_char};

/// Runs spmd-opt with the process arguments and returns its exit code.
pub fn opt_main() -> i32 {
    crate::passes::register_all_passes();
    let arguments: Vec<CString> = std::env::args_os()
        .map(|argument| {
            CString::new(argument.as_encoded_bytes().to_vec())
                .unwrap_or_else(|_| CString::new("<argument with NUL byte>").unwrap())
        })
        .collect();
    let mut argv: Vec<*mut c_char> =
        arguments.iter().map(|argument| argument.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: argv is a NULL-terminated array of valid C strings that outlives the call.
    unsafe { crate::ffi::spmdOptMain(arguments.len() as i32, argv.as_mut_ptr()) }
}
