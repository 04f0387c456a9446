//! The body of `spmd-opt`: `mlir-opt` plus the spmd dialect and passes.

use std::ffi::CString;

/// Runs spmd-opt with the process arguments and returns its exit code.
pub fn opt_main() -> i32 {
    crate::passes::register_all_passes();
    let mut arguments: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if printed_ir_is_verified(&arguments) {
        arguments.push("--mlir-print-assume-verified".into());
    }
    let arguments: Vec<CString> = arguments
        .into_iter()
        .map(|argument| {
            CString::new(argument.as_encoded_bytes().to_vec())
                .unwrap_or_else(|_| CString::new("<argument with NUL byte>").unwrap())
        })
        .collect();
    crate::ir::ffi::opt_main(&arguments)
}

/// True if every module `spmd-opt` prints has already passed the verifier.
///
/// `MlirOptMain` verifies the input after parsing and the IR after every
/// pass that changed it (`--verify-each`, on by default), and then the
/// printer verifies it once more before printing, to fall back to the
/// generic form for invalid IR. With the default options that last check
/// can never fail, and on large functions it costs as much as the first
/// (10% of a 100k-block `--spmd-reconverge`), so `spmd-opt` tells the
/// printer to trust the verifier unless an option lets unverified IR reach
/// it: verification turned off (`--verify-each`, on any value, and
/// `--mlir-very-unsafe-disable-verifier-on-parsing`) or IR printed between
/// or after failing passes (`--mlir-print-ir-*`).
fn printed_ir_is_verified(arguments: &[std::ffi::OsString]) -> bool {
    const UNVERIFIED: [&str; 4] = [
        "verify-each",
        "mlir-very-unsafe-disable-verifier-on-parsing",
        "mlir-print-ir",
        "mlir-print-assume-verified",
    ];
    !arguments.iter().skip(1).any(|argument| {
        let argument = argument.to_string_lossy();
        let name = argument.trim_start_matches('-');
        argument.starts_with('-') && UNVERIFIED.iter().any(|option| name.starts_with(option))
    })
}

#[cfg(test)]
mod tests {
    use super::printed_ir_is_verified;

    fn verified(arguments: &[&str]) -> bool {
        let arguments: Vec<std::ffi::OsString> = arguments.iter().map(Into::into).collect();
        printed_ir_is_verified(&arguments)
    }

    #[test]
    fn the_printer_trusts_the_verifier_only_when_it_ran() {
        assert!(verified(&["spmd-opt", "--spmd-reconverge", "in.mlir"]));
        assert!(verified(&["spmd-opt", "in.mlir", "-o", "out.mlir"]));
        assert!(!verified(&["spmd-opt", "--verify-each=false", "in.mlir"]));
        assert!(!verified(&["spmd-opt", "-verify-each=0", "in.mlir"]));
        assert!(!verified(&[
            "spmd-opt",
            "--mlir-very-unsafe-disable-verifier-on-parsing",
            "in.mlir"
        ]));
        assert!(!verified(&[
            "spmd-opt",
            "--mlir-print-ir-after-failure",
            "in.mlir"
        ]));
        assert!(!verified(&[
            "spmd-opt",
            "--mlir-print-assume-verified",
            "in.mlir"
        ]));
        // An input file that happens to be named like an option is not one.
        assert!(verified(&["spmd-opt", "verify-each.mlir"]));
    }
}
