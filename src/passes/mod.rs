//! The spmd passes and the runner that connects them to MLIR.
//!
//! Each pass is declared once, in `dialect/include/Spmd/SpmdPasses.td`, which
//! gives it its name, options and documentation. The generated C++ class is
//! a shell whose `runOnOperation` calls `run_pass_by_name` through the
//! function pointer installed by [`register_all_passes`]. Hence spmd passes
//! work everywhere MLIR passes do: `spmd-opt --spmd-view-cfg`, textual
//! `--pass-pipeline`s, `--mlir-timing`, melior's `PassManager` with
//! `parse_pass_pipeline`, or a C++ `PassManager` after
//! `spmdRegisterAllPasses()`.
//!
//! A pass implementation is a plain function over the operation it runs on
//! (see [`PassFn`]). It emits diagnostics itself and returns `Err(())` to
//! fail the pipeline. A panic is caught and turned into an "internal error"
//! diagnostic, so a bug never aborts the host compiler.

pub mod annotate_uniformity;
pub mod branch_fold;
pub mod fix_irreducible;
pub mod lower_to_cf;
pub mod lower_to_nvvm;
pub mod options;
pub mod predicate;
pub mod print_cfg_analysis;
pub mod print_uniformity;
pub mod reconverge;
pub mod structurize;
mod uniformity_options;
pub mod verify_reconverging;
pub mod verify_structured;
pub mod view_cfg;

use crate::ir::{function_regions::{cfg_regions, CfgRegion}, ffi, diagnostics};
use melior::ir::{operation::OperationLike, Location, OperationRef};
use mlir_sys::{MlirLogicalResult, MlirOperation, MlirStringCallback, MlirStringRef};
pub use options::PassOptions;
use std::{ffi::c_void, panic::AssertUnwindSafe};

/// Where a pass writes its text report (stderr or a file, chosen by the
/// C++ shell).
pub struct Report {
    callback: MlirStringCallback,
    user_data: *mut c_void,
}

impl Report {
    /// Appends `text` to the report.
    pub fn write(&mut self, text: &str) {
        if let Some(callback) = self.callback {
            // SAFETY: the C++ shell keeps the stream alive during the pass.
            unsafe { callback(string_ref(text), self.user_data) };
        }
    }
}

/// The body of one pass: the operation it runs on, its options, its report.
pub type PassFn = fn(OperationRef<'_, '_>, &PassOptions, &mut Report) -> Result<(), ()>;

/// Every pass implemented in Rust, by command-line name.
pub const PASSES: &[(&str, PassFn)] = &[
    ("spmd-print-cfg-analysis", print_cfg_analysis::run),
    ("spmd-view-cfg", view_cfg::run),
    ("spmd-print-uniformity", print_uniformity::run),
    ("spmd-annotate-uniformity", annotate_uniformity::run),
    ("spmd-verify-reconverging", verify_reconverging::run),
    ("spmd-reconverge", reconverge::run),
    ("spmd-fix-irreducible", fix_irreducible::run_fix_irreducible),
    ("spmd-unify-loop-exits", fix_irreducible::run_unify_loop_exits),
    ("spmd-structurize", structurize::run),
    ("spmd-verify-structured", verify_structured::run),
    ("spmd-lower-to-cf", lower_to_cf::run),
    ("spmd-lower-to-nvvm", lower_to_nvvm::run),
    ("spmd-branch-fold", branch_fold::run),
    ("spmd-predicate", predicate::run),
];

/// Installs the Rust runner and registers every spmd pass with MLIR's global
/// registry. Idempotent (the registration happens once; the runner is
/// installed again on every call); call it before building pass pipelines
/// by name.
pub fn register_all_passes() {
    // SAFETY: an atomic store of a function pointer, and a registration
    // that the C++ side performs once (thread-safe static initialization).
    unsafe {
        ffi::spmdSetPassRunner(Some(run_pass_by_name));
        ffi::spmdRegisterPassShells();
    }
}

/// Which regions a pass visits below the operation it runs on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every CFG region (function bodies and multi-block regions).
    CfgRegions,
    /// Function bodies only.
    FunctionBodies,
}

/// A region the pass could not process: the diagnostic to emit.
pub(crate) struct RegionFailure<'c> {
    pub location: Location<'c>,
    pub message: String,
}

impl<'c> RegionFailure<'c> {
    /// "cannot {verb} {label}: {error}" on the region's owner.
    pub fn cannot(region: &CfgRegion<'c, '_>, verb: &str, error: impl std::fmt::Display) -> Self {
        Self { location: region.owner.location(), message: format!("cannot {verb} {}: {error}", region.label) }
    }
}

/// Runs `body` on each region in `scope` at or below `root`. Failures are
/// reported as diagnostics; the pass fails after every region ran.
pub(crate) fn for_each_region<'c, 'a>(
    root: OperationRef<'c, 'a>,
    scope: Scope,
    mut body: impl FnMut(&CfgRegion<'c, 'a>) -> Result<(), RegionFailure<'c>>,
) -> Result<(), ()> {
    let mut failed = false;
    for region in cfg_regions(root) {
        if scope == Scope::FunctionBodies && !region.function_like {
            continue;
        }
        if let Err(failure) = body(&region) {
            diagnostics::emit_error(failure.location, &failure.message);
            failed = true;
        }
    }
    if failed { Err(()) } else { Ok(()) }
}

/// C entry point for C and C++ embedders (declared in `spmd-c/Dialect.h`).
#[unsafe(no_mangle)]
pub extern "C" fn spmdRegisterAllPasses() {
    register_all_passes();
}

/// C entry point: the spmd dialect into `registry` (unless null) and every
/// pass into MLIR's pass registry (declared in `spmd-c/Dialect.h`).
#[unsafe(no_mangle)]
pub extern "C" fn spmdRegisterEverything(registry: mlir_sys::MlirDialectRegistry) {
    if !registry.ptr.is_null() {
        // SAFETY: the caller passes a live registry; the handle is static.
        unsafe { mlir_sys::mlirDialectHandleInsertDialect(ffi::mlirGetDialectHandle__spmd__(), registry) };
    }
    register_all_passes();
}

/// The `SpmdPassRunner` installed into the C++ pass shells.
unsafe extern "C" fn run_pass_by_name(
    pass_name: MlirStringRef,
    op: MlirOperation,
    options: MlirStringRef,
    report: MlirStringCallback,
    report_user_data: *mut c_void,
) -> MlirLogicalResult {
    // SAFETY: MLIR passes valid string refs and the operation being processed.
    let (name, options, op) = unsafe {
        (str_from(pass_name), str_from(options), OperationRef::from_raw(op))
    };
    let mut report = Report { callback: report, user_data: report_user_data };
    let options = PassOptions::parse(&options);
    let Some((_, pass)) = PASSES.iter().find(|(known, _)| *known == name) else {
        diagnostics::emit_error(op.location(), &format!("no Rust implementation of pass '{name}'"));
        return logical_result(false);
    };
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| pass(op, &options, &mut report)));
    let succeeded = match outcome {
        Ok(result) => result.is_ok(),
        Err(payload) => {
            let detail = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            diagnostics::emit_error(
                op.location(),
                &format!("internal error in pass '{name}': {detail}; please report this"),
            );
            false
        }
    };
    logical_result(succeeded)
}

fn logical_result(success: bool) -> MlirLogicalResult {
    MlirLogicalResult { value: if success { 1 } else { 0 } }
}

/// # Safety
/// `text` must point to `length` valid bytes.
unsafe fn str_from(text: MlirStringRef) -> String {
    if text.data.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr() as *const _, length: text.len() }
}
