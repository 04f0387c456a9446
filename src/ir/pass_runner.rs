//! The runner the C++ pass shells call: the boundary between MLIR's pass
//! manager and the Rust pass bodies.
//!
//! Each pass declared in `SpmdPasses.td` gets a generated C++ shell whose
//! `runOnOperation` calls the `SpmdPassRunner` function pointer
//! (`spmd-c/Internal.h`). [`install`] sets that pointer to this module's
//! trampoline, which turns the C arguments into a pass name, the operation,
//! the typed option values ([`OptionValue`], read by the shell from the
//! option members MLIR generated from the `.td`) and a [`Report`], hands
//! them to the [`Runner`] installed
//! with it (`crate::passes` finds the pass there), catches a panic as an
//! "internal error" diagnostic, and passes the [`PassOutcome`] back to the
//! shell: the statistics, and whether the IR may have changed (the shell
//! preserves every analysis when it did not).
//!
//! The C entry points of `spmd-c/Dialect.h` that a Rust library must define
//! (`spmdRegisterAllPasses`, `spmdRegisterEverything`) are here too; they
//! call up into [`crate::passes::register_all_passes`].

use super::{diagnostics, ffi};
use melior::ir::{operation::OperationLike, OperationRef};
use mlir_sys::{MlirLogicalResult, MlirOperation, MlirStringCallback, MlirStringRef};
use std::{ffi::c_void, panic::AssertUnwindSafe, sync::OnceLock};

/// Where a pass writes its text report (stderr or a file, chosen by the
/// C++ shell).
pub(crate) struct Report {
    callback: MlirStringCallback,
    user_data: *mut c_void,
}

impl Report {
    /// Appends `text` to the report.
    pub(crate) fn write(&mut self, text: &str) {
        if let Some(callback) = self.callback {
            // SAFETY: the C++ shell keeps the stream alive during the pass.
            unsafe { callback(string_ref(text), self.user_data) };
        }
    }
}

/// One statistic of a pass: its name and description, as declared with
/// `Statistic<"name", "name", "description">` in `SpmdPasses.td` (the
/// tables of the crate-private `ir::ods` are generated from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statistic {
    /// The name `--mlir-pass-statistics` shows (kebab-case).
    pub name: &'static str,
    /// What it counts.
    pub description: &'static str,
}

/// What a successful pass run did: whether the IR may have changed, and the
/// value of each statistic of the pass (zero unless added to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PassOutcome {
    /// False only if the pass certainly left the IR untouched (the shell
    /// then preserves every analysis). Analyses always report false.
    pub(crate) changed: bool,
    counters: Vec<(Statistic, u64)>,
}

impl PassOutcome {
    /// An outcome with every statistic of `statistics` at zero and the IR
    /// unchanged.
    pub(crate) fn new(statistics: &'static [Statistic]) -> Self {
        Self {
            changed: false,
            counters: statistics.iter().map(|&s| (s, 0)).collect(),
        }
    }

    /// Adds `amount` to the statistic called `name`. Panics (an internal
    /// error) if the pass did not declare it.
    pub(crate) fn add(&mut self, name: &str, amount: usize) {
        let Some(entry) = self.counters.iter_mut().find(|(s, _)| s.name == name) else {
            panic!("statistic '{name}' is not declared by this pass");
        };
        entry.1 += amount as u64;
    }

    /// Records that the IR may have changed if `changed` holds.
    pub(crate) fn changed_if(&mut self, changed: bool) {
        self.changed |= changed;
    }

    /// The value of statistic `name` (0 if the pass does not declare it).
    #[cfg(test)]
    pub fn get(&self, name: &str) -> u64 {
        self.counters
            .iter()
            .find(|(s, _)| s.name == name)
            .map_or(0, |(_, v)| *v)
    }

    /// Every statistic with its value, in declaration order.
    pub(crate) fn counters(&self) -> impl Iterator<Item = (Statistic, u64)> + '_ {
        self.counters.iter().copied()
    }
}

/// The value of one pass option as the C++ shell hands it over: typed, read
/// from the option member (the ODS default unless the pipeline set it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum OptionValue {
    /// A `bool` option.
    Flag(bool),
    /// An `unsigned` option.
    Unsigned(u32),
    /// A `std::string` option.
    Text(String),
    /// A `ListOption<std::string>`.
    TextList(Vec<String>),
}

/// Runs the pass called `name` on `op` with the values `options` of its
/// options (key and value, as the shell lists them); `None` if there is no
/// such pass.
pub(crate) type Runner = fn(
    name: &str,
    op: OperationRef<'_, '_>,
    options: Vec<(String, OptionValue)>,
    report: &mut Report,
) -> Option<Result<PassOutcome, ()>>;

static RUNNER: OnceLock<Runner> = OnceLock::new();

/// Installs `runner` behind the C++ pass shells and registers the shells
/// and the `spmd-gpu-to-nvvm` pipeline with MLIR's pass registry.
/// Idempotent: the first runner stays; the trampoline is installed again on
/// every call (undoing a `spmdSetPassRunner` from C).
pub(crate) fn install(runner: Runner) {
    let _ = RUNNER.set(runner);
    // SAFETY: an atomic store of a function pointer, and a registration
    // that the C++ side performs once (thread-safe static initialization).
    unsafe {
        ffi::spmdSetPassRunner(Some(run_pass_by_name));
        ffi::spmdRegisterPassShells();
    }
}

/// C entry point for C and C++ embedders (declared in `spmd-c/Dialect.h`).
/// `#[no_mangle]` exports it whatever the module's visibility; `pub` says
/// it is API (of the C interface).
// SAFETY: the symbol is defined once, by this crate.
#[unsafe(no_mangle)]
pub extern "C" fn spmdRegisterAllPasses() {
    crate::passes::register_all_passes();
}

/// C entry point: the spmd dialect into `registry` (unless null) and every
/// pass into MLIR's pass registry (declared in `spmd-c/Dialect.h`).
// SAFETY: the symbol is defined once, by this crate.
#[unsafe(no_mangle)]
pub extern "C" fn spmdRegisterEverything(registry: mlir_sys::MlirDialectRegistry) {
    if !registry.ptr.is_null() {
        // SAFETY: the caller passes a live registry; the handle is static.
        unsafe {
            mlir_sys::mlirDialectHandleInsertDialect(ffi::mlirGetDialectHandle__spmd__(), registry)
        };
    }
    crate::passes::register_all_passes();
}

/// The `SpmdPassRunner` installed into the C++ pass shells.
///
/// # Safety
/// MLIR's shells call it with valid string refs, the live operation the
/// pass runs on, `num_options` valid option values at `options` (null if
/// none), their report stream and a live outcome sink (or null).
unsafe extern "C" fn run_pass_by_name(
    pass_name: MlirStringRef,
    op: MlirOperation,
    options: *const ffi::PassOption,
    num_options: isize,
    report: MlirStringCallback,
    report_user_data: *mut c_void,
    outcome_sink: *mut ffi::PassOutcomeSink,
) -> MlirLogicalResult {
    // SAFETY: MLIR passes valid string refs and the operation being processed.
    let (name, op) = unsafe { (str_from(pass_name), OperationRef::from_raw(op)) };
    let mut report = Report {
        callback: report,
        user_data: report_user_data,
    };
    let Some(runner) = RUNNER.get() else {
        diagnostics::emit_error(
            op.location(),
            "the spmd passes are not registered (call spmdRegisterAllPasses)",
        );
        return logical_result(false);
    };
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the shell's option values are alive during the call.
        let options = unsafe { option_values(options, num_options) };
        runner(&name, op, options, &mut report)
    }));
    let succeeded = match outcome {
        Ok(None) => {
            diagnostics::emit_error(
                op.location(),
                &format!("no Rust implementation of pass '{name}'"),
            );
            false
        }
        Ok(Some(Ok(outcome))) => {
            // SAFETY: the shell passes a live sink for the duration of the call.
            if let Some(sink) = unsafe { outcome_sink.as_mut() } {
                report_outcome(sink, &outcome);
            }
            true
        }
        Ok(Some(Err(()))) => false,
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

/// Hands `outcome` to the C++ shell: every statistic, then `changed`.
fn report_outcome(sink: &mut ffi::PassOutcomeSink, outcome: &PassOutcome) {
    if let Some(add) = sink.add_statistic {
        for (statistic, value) in outcome.counters() {
            // SAFETY: the callback and its user data come from the shell,
            // which keeps them alive during the call.
            unsafe {
                add(
                    string_ref(statistic.name),
                    string_ref(statistic.description),
                    value,
                    sink.user_data,
                )
            };
        }
    }
    sink.changed = outcome.changed;
}

/// Copies the option values the shell hands over.
///
/// # Safety
/// Unless null, `options` must point to `count` valid `SpmdPassOption`s
/// whose strings and item arrays are valid.
unsafe fn option_values(
    options: *const ffi::PassOption,
    count: isize,
) -> Vec<(String, OptionValue)> {
    if options.is_null() || count <= 0 {
        return Vec::new();
    }
    // SAFETY: the caller guarantees `count` valid entries at `options`.
    let options = unsafe { std::slice::from_raw_parts(options, count as usize) };
    options
        .iter()
        .map(|option| {
            // SAFETY: the shell's strings and item arrays are valid for the
            // call (the caller's guarantee).
            let value = unsafe {
                match option.kind {
                    ffi::PASS_OPTION_FLAG => OptionValue::Flag(option.flag),
                    ffi::PASS_OPTION_UNSIGNED => OptionValue::Unsigned(
                        u32::try_from(option.number).expect("an unsigned option fits in u32"),
                    ),
                    ffi::PASS_OPTION_TEXT => OptionValue::Text(str_from(option.text)),
                    ffi::PASS_OPTION_TEXT_LIST => {
                        let items = if option.items.is_null() || option.num_items <= 0 {
                            &[][..]
                        } else {
                            std::slice::from_raw_parts(option.items, option.num_items as usize)
                        };
                        OptionValue::TextList(items.iter().map(|&item| str_from(item)).collect())
                    }
                    other => panic!("unknown SpmdPassOptionKind {other}"),
                }
            };
            // SAFETY: as above.
            (unsafe { str_from(option.key) }, value)
        })
        .collect()
}

fn logical_result(success: bool) -> MlirLogicalResult {
    MlirLogicalResult {
        value: if success { 1 } else { 0 },
    }
}

/// # Safety
/// Unless null, `text.data` must point to `text.length` valid bytes.
unsafe fn str_from(text: MlirStringRef) -> String {
    if text.data.is_null() {
        return String::new();
    }
    // SAFETY: the caller guarantees `length` valid bytes at `data`.
    let bytes = unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr() as *const _,
        length: text.len(),
    }
}
