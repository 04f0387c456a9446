//! The driver's MLIR session: one context with every dialect, spmd's and
//! MLIR's passes, and the C++ services of `cpp/` (LLVM IR import, the NVPTX
//! backend). Every failure leaves its MLIR diagnostics in the session
//! ([`Session::take_diagnostics`]) and returns `Err(())`.

use crate::ffi;
use melior::{
    diagnostic::{Diagnostic, DiagnosticSeverity},
    ir::{
        attribute::{AttributeLike, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        Attribute, Location, Module, RegionLike,
    },
    pass::PassManager,
    Context,
};
use mlir_sys::{MlirLogicalResult, MlirStringRef};
use std::{cell::RefCell, ffi::c_void, rc::Rc};

/// Diagnostics as `file:line:col: error: message`, in order.
type Sink = Rc<RefCell<Vec<String>>>;

/// One context and what the driver does with it.
pub struct Session {
    context: Context,
    diagnostics: Sink,
}

/// What [`Session::backend`] makes.
#[derive(Clone, Copy)]
pub enum BackendOutput {
    LlvmIr,
    Assembly,
    Object,
}

impl Session {
    pub fn new() -> Self {
        spmd::register_all_passes();
        melior::utility::register_all_passes();
        let context = spmd::context_with_all_dialects();
        melior::utility::register_all_llvm_translations(&context);
        let diagnostics: Sink = Rc::default();
        let sink = diagnostics.clone();
        context.attach_diagnostic_handler(move |diagnostic| {
            sink.borrow_mut().push(format_diagnostic(&diagnostic));
            true
        });
        Self {
            context,
            diagnostics,
        }
    }

    /// The diagnostics so far, oldest first; the session keeps none.
    pub fn take_diagnostics(&self) -> Vec<String> {
        std::mem::take(&mut self.diagnostics.borrow_mut())
    }

    /// Parses MLIR `source`; `name` is the file its locations name.
    pub fn parse(&self, source: &str, name: &str) -> Result<Module<'_>, ()> {
        // SAFETY: the context is live and the string refs outlive the call;
        // the parsed operation (null on failure) is owned by the result.
        let raw = unsafe {
            mlir_sys::mlirOperationCreateParse(
                self.context.to_raw(),
                string_ref(source),
                string_ref(name),
            )
        };
        self.module_from_raw(raw, name, "the input is not a builtin.module")
    }

    /// LLVM IR text or bitcode into the LLVM dialect.
    pub fn import_llvm_ir(&self, buffer: &[u8], name: &str) -> Result<Module<'_>, ()> {
        // SAFETY: as in `parse`; the C++ side copies what it keeps.
        let raw = unsafe {
            ffi::spmdCompileImportLLVMIR(
                self.context.to_raw(),
                MlirStringRef {
                    data: buffer.as_ptr().cast(),
                    length: buffer.len(),
                },
                string_ref(name),
            )
        };
        self.module_from_raw(raw, name, "the import made no builtin.module")
    }

    /// Runs the textual pass pipeline `pipeline` (`builtin.module(...)`).
    pub fn run_pipeline(&self, module: &mut Module, pipeline: &str) -> Result<(), ()> {
        let manager = PassManager::new(&self.context);
        if let Err(error) =
            melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        {
            self.note(format!("invalid pass pipeline '{pipeline}': {error}"));
            return Err(());
        }
        manager.run(module).map_err(|_| ())
    }

    /// The device code of `module` as a module of its own (see
    /// `spmdCompileDeviceModule`).
    pub fn device_module(&self, module: &Module) -> Result<Module<'_>, ()> {
        // SAFETY: the module is live; the clone is owned by the result.
        let raw = unsafe { ffi::spmdCompileDeviceModule(module.as_operation().to_raw()) };
        self.module_from_raw(raw, "", "no device module")
    }

    /// The name of a function of `module` made for NVIDIA GPUs: a
    /// top-level `llvm.func` with the `ptx_kernel` calling convention, or
    /// any function holding an `nvvm.*` operation.
    pub fn nvidia_kernel(&self, module: &Module) -> Option<String> {
        let mut found = None;
        let mut operation = module.body().first_operation();
        while let Some(op) = operation {
            let is_function = matches!(
                op.name().as_string_ref().as_str(),
                Ok("llvm.func") | Ok("gpu.module")
            );
            let ptx_kernel = op
                .attribute("CConv")
                .is_ok_and(|cconv| cconv.to_string().contains("ptx_kernel"));
            if is_function && (ptx_kernel || holds_nvvm(op)) {
                found = op
                    .attribute("sym_name")
                    .ok()
                    .map(|name| name.to_string().trim_matches('"').to_string());
                break;
            }
            operation = op.next_in_block();
        }
        found
    }

    /// LLVM IR, assembly or an object file of the device module for the
    /// target `triple` (see `spmdCompileBackend`).
    pub fn backend(
        &self,
        device: &Module,
        triple: &str,
        cpu: &str,
        features: &str,
        libdevice: &str,
        output: BackendOutput,
    ) -> Result<Vec<u8>, ()> {
        let output = match output {
            BackendOutput::LlvmIr => ffi::OUTPUT_LLVM_IR,
            BackendOutput::Assembly => ffi::OUTPUT_ASSEMBLY,
            BackendOutput::Object => ffi::OUTPUT_OBJECT,
        };
        collect_bytes(|callback, user_data| {
            // SAFETY: live module and strings; the callback appends to the
            // Vec behind user_data during the call only.
            unsafe {
                ffi::spmdCompileBackend(
                    device.as_operation().to_raw(),
                    string_ref(triple),
                    string_ref(cpu),
                    string_ref(features),
                    string_ref(libdevice),
                    output,
                    callback,
                    user_data,
                )
            }
        })
    }

    /// A copy of `module` (locations included) in this session's context.
    pub fn copy_module(&self, module: &Module) -> Result<Module<'_>, ()> {
        // SAFETY: the module is live; the clone is a new top-level operation
        // owned by the result.
        let raw = unsafe { mlir_sys::mlirOperationClone(module.as_operation().to_raw()) };
        self.module_from_raw(raw, "", "no module to copy")
    }

    /// Puts `spmd.lane_shared_work` on every function of `module` with a
    /// body (`gpu.func`, `llvm.func`, `func.func`, also inside
    /// `gpu.module`s) whose symbol name `chosen` accepts.
    pub fn mark_lane_shared_work(&self, module: &mut Module, chosen: &dyn Fn(&str) -> bool) {
        let attribute = Attribute::unit(&self.context);
        for function in functions_with_bodies(module, chosen) {
            // SAFETY: `function` is a live operation of the exclusively
            // borrowed `module`; the attribute lives in the same context.
            unsafe {
                mlir_sys::mlirOperationSetDiscardableAttributeByName(
                    function,
                    string_ref(spmd::LANE_SHARED_WORK_ATTR),
                    attribute.to_raw(),
                );
            }
        }
    }

    /// Takes `spmd.lane_shared_work` off every function of `module`.
    pub fn unmark_lane_shared_work(&self, module: &mut Module) {
        for function in functions_with_bodies(module, &|_| true) {
            // SAFETY: as in `mark_lane_shared_work`; removing an absent
            // attribute does nothing.
            unsafe {
                mlir_sys::mlirOperationRemoveDiscardableAttributeByName(
                    function,
                    string_ref(spmd::LANE_SHARED_WORK_ATTR),
                );
            }
        }
    }

    /// Makes the backend's StructurizeCFG leave uniform regions alone in
    /// this process (see `spmdCompileKeepUniformRegions`).
    pub fn keep_uniform_regions(&self) {
        // SAFETY: sets one of LLVM's registered options; no IR involved.
        unsafe { ffi::spmdCompileKeepUniformRegions() }
    }

    /// Moves the body of `module` into a `gpu.module @name`, unless it has a
    /// gpu.module already.
    pub fn wrap_in_gpu_module(&self, module: &mut Module, name: &str) -> Result<(), ()> {
        // SAFETY: the module is live and exclusively borrowed.
        let result = unsafe {
            ffi::spmdCompileWrapInGpuModule(module.as_operation().to_raw(), string_ref(name))
        };
        succeeded(result)
    }

    /// The PTX of the one gpu.binary in `module`.
    pub fn binary_assembly(&self, module: &Module) -> Result<Vec<u8>, ()> {
        collect_bytes(|callback, user_data| {
            // SAFETY: as in `nvptx`.
            unsafe {
                ffi::spmdCompileBinaryAssembly(module.as_operation().to_raw(), callback, user_data)
            }
        })
    }

    fn module_from_raw(
        &self,
        raw: mlir_sys::MlirOperation,
        name: &str,
        not_a_module: &str,
    ) -> Result<Module<'_>, ()> {
        if raw.ptr.is_null() {
            return Err(());
        }
        // SAFETY: a non-null operation that the caller handed over to us.
        let operation = unsafe { melior::ir::Operation::from_raw(raw) };
        Module::from_operation(operation).ok_or_else(|| {
            self.note(format!("{name}: error: {not_a_module}"));
        })
    }

    fn note(&self, message: String) {
        self.diagnostics.borrow_mut().push(message);
    }
}

/// The functions of `module` with a body (`gpu.func`, `llvm.func`,
/// `func.func`, also inside `gpu.module`s) whose symbol name `chosen`
/// accepts.
fn functions_with_bodies(
    module: &Module,
    chosen: &dyn Fn(&str) -> bool,
) -> Vec<mlir_sys::MlirOperation> {
    let mut functions = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        if !matches!(name.as_str(), "gpu.func" | "llvm.func" | "func.func") {
            return WalkResult::Advance;
        }
        let has_body = op.region(0).is_ok_and(|body| body.first_block().is_some());
        let symbol = op
            .attribute("sym_name")
            .ok()
            .and_then(|name| StringAttribute::try_from(name).ok())
            .map(|name| name.value().to_string());
        if has_body && symbol.is_some_and(|symbol| chosen(&symbol)) {
            functions.push(op.to_raw());
        }
        WalkResult::Skip
    });
    functions
}

/// LLVM's fatal errors print a message naming `file` and exit with 1.
pub fn exit_on_llvm_fatal_errors(file: &str) {
    // SAFETY: a plain call; the C++ side copies the name.
    unsafe { ffi::spmdCompileInstallFatalErrorHandler(string_ref(file)) }
}

/// The default PTX ISA version of the NVPTX backend for `cpu` (78 for 7.8).
pub fn default_ptx_version(cpu: &str) -> Option<u32> {
    // SAFETY: a plain call with a borrowed string.
    let version = unsafe { ffi::spmdCompileDefaultPtxVersion(string_ref(cpu)) };
    (version > 0).then_some(version as u32)
}

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

fn succeeded(result: MlirLogicalResult) -> Result<(), ()> {
    if result.value != 0 {
        Ok(())
    } else {
        Err(())
    }
}

/// Calls `produce` with a string callback and returns what it passed to it.
fn collect_bytes(
    produce: impl FnOnce(mlir_sys::MlirStringCallback, *mut c_void) -> MlirLogicalResult,
) -> Result<Vec<u8>, ()> {
    /// # Safety
    /// `user_data` is the `Vec<u8>` of the enclosing call and `piece` is
    /// valid for its length.
    unsafe extern "C" fn append(piece: MlirStringRef, user_data: *mut c_void) {
        // SAFETY: user_data is the Vec<u8> below, live during the call, and
        // the piece is valid for its length.
        unsafe {
            let buffer = &mut *(user_data as *mut Vec<u8>);
            buffer.extend_from_slice(std::slice::from_raw_parts(piece.data.cast(), piece.length));
        }
    }
    let mut buffer = Vec::<u8>::new();
    succeeded(produce(Some(append), (&mut buffer as *mut Vec<u8>).cast()))?;
    Ok(buffer)
}

/// `file:line:col: error: message`, with its notes on lines of their own.
fn format_diagnostic(diagnostic: &Diagnostic) -> String {
    let severity = match diagnostic.severity() {
        DiagnosticSeverity::Error => "error",
        DiagnosticSeverity::Warning => "warning",
        DiagnosticSeverity::Note => "note",
        DiagnosticSeverity::Remark => "remark",
    };
    let mut text = format!(
        "{}: {severity}: {diagnostic}",
        format_location(diagnostic.location())
    );
    for index in 0..diagnostic.note_count() {
        if let Ok(note) = diagnostic.note(index) {
            text.push('\n');
            text.push_str(&format_diagnostic(&note));
        }
    }
    text
}

/// The first file position inside `location`, as `file:line:col`.
fn format_location(location: Location) -> String {
    fn position(location: Location) -> Option<String> {
        if location.is_file_line_col_range() {
            return Some(format!(
                "{}:{}:{}",
                location
                    .file_line_col_range_filename()
                    .as_string_ref()
                    .as_str()
                    .ok()?,
                location.file_line_col_range_start_line(),
                location.file_line_col_range_start_column()
            ));
        }
        if location.is_name() {
            return position(location.name_child_location());
        }
        if location.is_call_site() {
            return position(location.call_site_callee())
                .or_else(|| position(location.call_site_caller()));
        }
        if location.is_fused() {
            return (0..location.fused_num_locations())
                .find_map(|index| position(location.fused_location(index)));
        }
        None
    }
    position(location).unwrap_or_else(|| location.to_string())
}

/// Whether `op` or an operation nested in it is an `nvvm.*` operation.
fn holds_nvvm(op: melior::ir::OperationRef) -> bool {
    if op
        .name()
        .as_string_ref()
        .as_str()
        .is_ok_and(|name| name.starts_with("nvvm."))
    {
        return true;
    }
    (0..op.region_count()).any(|index| {
        let Ok(region) = op.region(index) else {
            return false;
        };
        let mut block = region.first_block();
        while let Some(current) = block {
            let mut operation = current.first_operation();
            while let Some(inner) = operation {
                if holds_nvvm(inner) {
                    return true;
                }
                operation = inner.next_in_block();
            }
            block = current.next_in_region();
        }
        false
    })
}
