//! `cargo fuzz run reconverge_definition1`: see [`spmd_fuzz::reconverge_definition1`].

#![no_main]

// Load spmd-fuzz (and with it MLIR's static libraries) before libfuzzer-sys:
// rustc then puts libFuzzer first on the link line, so its `main` is the
// one linked, not the `main` of MLIR's `mlir-opt` in libMLIRMlirOptMain.a.
extern crate spmd_fuzz;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| spmd_fuzz::reconverge_definition1(data));
