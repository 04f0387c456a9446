//! `cargo fuzz run textual_front_door`: see [`spmd_fuzz::textual_front_door`].

#![no_main]

// Load spmd-fuzz (and with it MLIR's static libraries) before libfuzzer-sys:
// rustc then puts libFuzzer first on the link line, so its `main` is the
// one linked, not the `main` of MLIR's `mlir-opt` in libMLIRMlirOptMain.a.
extern crate spmd_fuzz;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| spmd_fuzz::textual_front_door(data));
