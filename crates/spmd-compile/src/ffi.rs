//! Raw bindings to `cpp/SpmdCompile.h`. Only [`crate::mlir`] calls them.

use mlir_sys::{MlirContext, MlirLogicalResult, MlirOperation, MlirStringCallback, MlirStringRef};
use std::os::raw::{c_int, c_void};

/// `SpmdCompileOutput`.
pub const OUTPUT_LLVM_IR: c_int = 0;
pub const OUTPUT_ASSEMBLY: c_int = 1;
pub const OUTPUT_OBJECT: c_int = 2;

// SAFETY: the declarations match cpp/SpmdCompile.h, which the crate's
// build script compiles and links; mlir.rs upholds their contracts.
unsafe extern "C" {
    pub fn spmdCompileImportLLVMIR(
        context: MlirContext,
        buffer: MlirStringRef,
        buffer_name: MlirStringRef,
    ) -> MlirOperation;
    pub fn spmdCompileDeviceModule(module: MlirOperation) -> MlirOperation;
    pub fn spmdCompileBackend(
        device_module: MlirOperation,
        triple: MlirStringRef,
        cpu: MlirStringRef,
        features: MlirStringRef,
        libdevice: MlirStringRef,
        output: c_int,
        callback: MlirStringCallback,
        user_data: *mut c_void,
    ) -> MlirLogicalResult;
    pub fn spmdCompileKeepUniformRegions();
    pub fn spmdCompileDefaultPtxVersion(cpu: MlirStringRef) -> c_int;
    pub fn spmdCompileBinaryAssembly(
        module: MlirOperation,
        callback: MlirStringCallback,
        user_data: *mut c_void,
    ) -> MlirLogicalResult;
    pub fn spmdCompileInstallFatalErrorHandler(file_name: MlirStringRef);
    pub fn spmdCompileWrapInGpuModule(
        module: MlirOperation,
        name: MlirStringRef,
    ) -> MlirLogicalResult;
}
