//! Raw bindings to the C interface in `dialect/include/spmd-c/` (the
//! public `Dialect.h` and the internal hooks of `Internal.h`).
//!
//! Only the other modules of [`crate::ir`] call these symbols; everything
//! outside `ir/` goes through their safe functions. The constants mirror the
//! C enums of `Internal.h` (`SpmdBranchKind`, `SpmdFlowShape`,
//! `SpmdUniformity`, `SpmdPassOptionKind`).

use mlir_sys::{
    MlirDialectHandle, MlirLogicalResult, MlirOperation, MlirStringCallback, MlirStringRef,
    MlirValue,
};
use std::os::raw::{c_char, c_int, c_void};

/// The handle of the `spmd` dialect (static data; nothing to release).
pub(crate) fn dialect_handle() -> melior::dialect::DialectHandle {
    // SAFETY: the function is defined by the statically linked C++ archive
    // and returns a handle to static data.
    unsafe { melior::dialect::DialectHandle::from_raw(mlirGetDialectHandle__spmd__()) }
}

/// Runs spmd-opt's main on the program arguments `arguments` and returns
/// the exit code. Like MLIR's `MlirOptMain` it shuts LLVM's global state
/// down, so no MLIR call may follow.
pub(crate) fn opt_main(arguments: &[std::ffi::CString]) -> i32 {
    let mut argv: Vec<*mut c_char> = arguments
        .iter()
        .map(|argument| argument.as_ptr() as *mut c_char)
        .collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: argv is a null-terminated array of C strings that `arguments`
    // keeps alive during the call; spmdOptMain only reads them.
    unsafe { spmdOptMain(arguments.len() as c_int, argv.as_mut_ptr()) }
}

/// Signature of the function that runs a pass by name (see `SpmdPassRunner`).
pub(crate) type PassRunner = unsafe extern "C" fn(
    pass_name: MlirStringRef,
    op: MlirOperation,
    options: *const PassOption,
    num_options: isize,
    report: MlirStringCallback,
    report_user_data: *mut c_void,
    outcome: *mut PassOutcomeSink,
) -> MlirLogicalResult;

/// `SpmdPassOptionKind`: `bool`.
pub const PASS_OPTION_FLAG: c_int = 0;
/// `SpmdPassOptionKind`: `unsigned`.
pub const PASS_OPTION_UNSIGNED: c_int = 1;
/// `SpmdPassOptionKind`: `std::string`.
pub const PASS_OPTION_TEXT: c_int = 2;
/// `SpmdPassOptionKind`: `ListOption<std::string>`.
pub const PASS_OPTION_TEXT_LIST: c_int = 3;

/// `SpmdPassOption`: the value of one pass option, read by the shell from
/// the typed option member; only the field of `kind` is meaningful. The
/// strings and `items` are borrowed for the runner call.
#[repr(C)]
pub struct PassOption {
    /// `key`: the option's command-line key.
    pub key: MlirStringRef,
    /// `kind`: a `PASS_OPTION_*` constant.
    pub kind: c_int,
    /// `flag`: a `bool` value.
    pub flag: bool,
    /// `number`: an `unsigned` value.
    pub number: u64,
    /// `text`: a `std::string` value.
    pub text: MlirStringRef,
    /// `items`: the `num_items` values of a list.
    pub items: *const MlirStringRef,
    /// `numItems`.
    pub num_items: isize,
}

/// `SpmdPassOutcome`: where a pass run reports its statistics and whether
/// it changed the IR.
#[repr(C)]
pub(crate) struct PassOutcomeSink {
    /// `addStatistic`, filled in by the shell: the runner calls it once per
    /// statistic of the pass (zeros included) with the `name` and
    /// `description` declared in `SpmdPasses.td` (from `ir::ods`; borrowed
    /// for the call)
    /// and `user_data`; `None` (null) skips the statistics.
    pub(crate) add_statistic: Option<
        unsafe extern "C" fn(
            name: MlirStringRef,
            description: MlirStringRef,
            value: u64,
            user_data: *mut c_void,
        ),
    >,
    /// `userData`: the shell's context, opaque to the runner and passed
    /// back to `add_statistic`.
    pub(crate) user_data: *mut c_void,
    /// `changed`: true on entry; the runner sets it to false if the pass
    /// left the IR untouched, so the shell can preserve every analysis.
    pub(crate) changed: bool,
}

/// `SpmdBranchKind`: which two-way branch `spmdAppendTwoWayBranch` creates.
pub(crate) type SpmdBranchKind = c_int;
/// `SpmdBranchKindFlow`: `spmd.flow_br`.
pub(crate) const SPMD_BRANCH_KIND_FLOW: SpmdBranchKind = 0;
/// `SpmdBranchKindLoopFlow`: `spmd.flow_br loop`.
pub(crate) const SPMD_BRANCH_KIND_LOOP_FLOW: SpmdBranchKind = 1;
/// `SpmdBranchKindCondBr`: `cf.cond_br`.
pub(crate) const SPMD_BRANCH_KIND_COND_BR: SpmdBranchKind = 2;

/// `SpmdFlowShapeFlowBranch`: the block ends in `spmd.flow_br`.
pub(crate) const SPMD_FLOW_SHAPE_FLOW_BRANCH: u8 = 1;
/// `SpmdFlowShapeLoop`: the branch is a loop Flow.
pub(crate) const SPMD_FLOW_SHAPE_LOOP: u8 = 2;
/// `SpmdFlowShapeHasOtherOps`: the Flow block holds other operations.
pub(crate) const SPMD_FLOW_SHAPE_HAS_OTHER_OPS: u8 = 4;

/// `SpmdUniformity`: the value of `#spmd.uniformity<...>`.
pub(crate) type SpmdUniformity = c_int;
/// `SpmdUniformityNone`: not a uniformity attribute. Kept to mirror the C
/// enum; readers treat every value but the two marks as none.
#[allow(dead_code)]
pub(crate) const SPMD_UNIFORMITY_NONE: SpmdUniformity = -1;
/// `SpmdUniformityUniform`.
pub(crate) const SPMD_UNIFORMITY_UNIFORM: SpmdUniformity = 0;
/// `SpmdUniformityDivergent`.
pub(crate) const SPMD_UNIFORMITY_DIVERGENT: SpmdUniformity = 1;

/// `SpmdRegionCfg`: a region's CFG as read by `spmdRegionCfgRead`.
#[repr(C)]
#[derive(Clone, Copy)]
#[allow(missing_docs)]
pub(crate) struct SpmdRegionCfg {
    pub(crate) blocks: *const mlir_sys::MlirBlock,
    pub(crate) last_ops: *const MlirOperation,
    pub(crate) num_successors: *const i32,
    pub(crate) targets: *const i32,
    pub(crate) num_blocks: isize,
    pub(crate) num_edges: isize,
    pub(crate) storage: *mut c_void,
}

// SAFETY: these declarations match dialect/include/spmd-c/{Dialect,
// Internal}.h, whose definitions the C++ archives linked into this crate
// provide; each call site states why its arguments are valid.
#[allow(missing_docs)]
unsafe extern "C" {
    pub(crate) fn mlirGetDialectHandle__spmd__() -> MlirDialectHandle;
    pub(crate) fn spmdSetPassRunner(runner: Option<PassRunner>);
    pub(crate) fn spmdRegisterPassShells();
    pub(crate) fn spmdIsFunctionLike(op: MlirOperation) -> bool;
    pub(crate) fn spmdWalkRegionOwners(
        root: MlirOperation,
        callback: unsafe extern "C" fn(op: MlirOperation, user_data: *mut std::ffi::c_void),
        user_data: *mut std::ffi::c_void,
    );
    pub(crate) fn spmdIsBranch(op: MlirOperation) -> bool;
    pub(crate) fn spmdFindNonBranchTerminator(ops: *const MlirOperation, num_ops: isize) -> isize;
    pub(crate) fn spmdReadFlowShapes(
        blocks: *const mlir_sys::MlirBlock,
        num_blocks: isize,
        shapes: *mut u8,
    );
    pub(crate) fn spmdBlockHoldsNonFlowOps(block: mlir_sys::MlirBlock) -> bool;
    pub(crate) fn spmdAppendTwoWayBranch(
        block: mlir_sys::MlirBlock,
        condition: MlirValue,
        true_dest: mlir_sys::MlirBlock,
        false_dest: mlir_sys::MlirBlock,
        kind: SpmdBranchKind,
        location: mlir_sys::MlirLocation,
    ) -> MlirOperation;
    pub(crate) fn spmdPrependIntegerConstant(
        block: mlir_sys::MlirBlock,
        width: std::os::raw::c_uint,
        value: i64,
        location: mlir_sys::MlirLocation,
    ) -> MlirValue;
    pub(crate) fn spmdInsertSelectorCompare(
        before: MlirOperation,
        selector: MlirValue,
        index: MlirValue,
        equal: bool,
        location: mlir_sys::MlirLocation,
    ) -> MlirValue;
    pub(crate) fn spmdInsertReconvergenceMarker(
        block: mlir_sys::MlirBlock,
        before: MlirOperation,
        head: bool,
        id: u64,
        location: mlir_sys::MlirLocation,
    ) -> MlirOperation;
    pub(crate) fn spmdCrossBlockOperands(
        block: mlir_sys::MlirBlock,
        out: *mut MlirValue,
        capacity: isize,
    ) -> isize;
    pub(crate) fn spmdScanReconvergenceMarkers(
        region: mlir_sys::MlirRegion,
        has_head: *mut bool,
        num_blocks: isize,
    ) -> i64;
    pub(crate) fn spmdRegionCfgRead(region: mlir_sys::MlirRegion) -> SpmdRegionCfg;
    pub(crate) fn spmdRegionCfgDestroy(cfg: SpmdRegionCfg);
    pub(crate) fn spmdBlockGetLastOperation(block: mlir_sys::MlirBlock) -> MlirOperation;
    pub(crate) fn spmdGetSuccessorOperandRange(
        op: MlirOperation,
        index: isize,
        begin: *mut isize,
        count: *mut isize,
    ) -> bool;
    pub(crate) fn spmdSetSuccessorOperands(
        op: MlirOperation,
        index: isize,
        count: isize,
        values: *const MlirValue,
    ) -> bool;
    pub(crate) fn spmdAppendSuccessorOperands(
        op: MlirOperation,
        index: isize,
        count: isize,
        values: *const MlirValue,
    ) -> bool;
    pub(crate) fn spmdEraseUnreachableBlocks(region: mlir_sys::MlirRegion) -> bool;
    pub(crate) fn spmdFoldOperations(
        ops: *const MlirOperation,
        num_ops: isize,
        protected_ops: *const MlirOperation,
        num_protected: isize,
        scope: mlir_sys::MlirRegion,
        changed: *mut bool,
    ) -> MlirLogicalResult;
    pub(crate) fn spmdIsGraphRegion(op: MlirOperation, index: isize) -> bool;
    pub(crate) fn spmdNeedsLaneGuard(op: MlirOperation) -> bool;
    pub(crate) fn spmdIsPureLeaf(op: MlirOperation) -> bool;
    pub(crate) fn spmdWouldBeTriviallyDead(op: MlirOperation) -> bool;
    pub(crate) fn spmdUniformityAttrGet(
        context: mlir_sys::MlirContext,
        value: SpmdUniformity,
    ) -> mlir_sys::MlirAttribute;
    pub(crate) fn spmdUniformityAttrGetValue(attribute: mlir_sys::MlirAttribute) -> SpmdUniformity;
    pub(crate) fn spmdReadIntegerElements(
        attribute: mlir_sys::MlirAttribute,
        out: *mut i64,
        capacity: isize,
    ) -> isize;
    pub(crate) fn spmdOptMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
}
