//! Printing SSA names and operations the way the MLIR printer names them in
//! the whole function, for analysis reports that FileCheck can match.
//!
//! An MLIR `AsmState` created for the function numbers values exactly as
//! printing the function would (`%0`, `%c0_i32`, `%arg1`), so a report line
//! such as `divergent: %0 = gpu.thread_id  x` can be matched against the IR.

use melior::ir::{OperationRef, Value, ValueLike};
use mlir_sys::{
    mlirAsmStateCreateForOperation, mlirAsmStateDestroy, mlirOpPrintingFlagsCreate,
    mlirOpPrintingFlagsDestroy, mlirOperationPrintWithState, mlirValuePrintAsOperand, MlirAsmState,
    MlirStringRef,
};
use std::ffi::c_void;

/// Printer state for one function (or any isolated operation).
pub(crate) struct AsmNames {
    state: MlirAsmState,
}

impl AsmNames {
    /// Numbers the values of `scope` as the printer would.
    pub(crate) fn new(scope: OperationRef<'_, '_>) -> Self {
        // SAFETY: flags are created and destroyed here; the state is owned
        // by `self` and destroyed in `Drop`.
        unsafe {
            let flags = mlirOpPrintingFlagsCreate();
            let state = mlirAsmStateCreateForOperation(scope.to_raw(), flags);
            mlirOpPrintingFlagsDestroy(flags);
            Self { state }
        }
    }

    /// `%name` of `value`.
    pub(crate) fn value(&self, value: Value<'_, '_>) -> String {
        let mut text = String::new();
        // SAFETY: the callback only appends to `text`, which outlives the call.
        unsafe {
            mlirValuePrintAsOperand(
                value.to_raw(),
                self.state,
                Some(append),
                &mut text as *mut _ as *mut c_void,
            )
        };
        text
    }

    /// The first line of `op` as printed in its function (nested regions
    /// are cut off), without leading spaces.
    pub(crate) fn operation_line(&self, op: OperationRef<'_, '_>) -> String {
        let mut text = String::new();
        // SAFETY: as above.
        unsafe {
            mlirOperationPrintWithState(
                op.to_raw(),
                self.state,
                Some(append),
                &mut text as *mut _ as *mut c_void,
            )
        };
        text.lines().next().unwrap_or_default().trim().to_string()
    }
}

impl Drop for AsmNames {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once.
        unsafe { mlirAsmStateDestroy(self.state) };
    }
}

// SAFETY: a printing callback; MLIR calls it only from the prints above,
// with the `String` passed there as `user_data`.
unsafe extern "C" fn append(piece: MlirStringRef, user_data: *mut c_void) {
    // SAFETY: `user_data` is the `String` passed by the callers above.
    let text = unsafe { &mut *(user_data as *mut String) };
    // SAFETY: MLIR passes `length` valid bytes at `data` for the call.
    let bytes = unsafe { std::slice::from_raw_parts(piece.data as *const u8, piece.length) };
    text.push_str(&String::from_utf8_lossy(bytes));
}
