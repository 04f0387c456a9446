//! Read-only questions about the IR that melior does not answer: which
//! interfaces an op implements, which block a value lives in, the operands
//! an edit can break, and walks that hand out handles with the root's
//! lifetimes.
//!
//! All functions take live melior handles and never keep them.

use crate::ir::ffi;
use melior::{
    ir::{
        attribute::TypeAttribute,
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        r#type::FunctionType,
        BlockRef, OperationRef, Type, TypeLike, Value, ValueLike,
    },
    Context,
};

/// True if `op` implements `BranchOpInterface` (its successor operands can
/// be read and rewritten).
pub(crate) fn is_branch(op: OperationRef<'_, '_>) -> bool {
    // SAFETY: an interface query on a live operation.
    unsafe { ffi::spmdIsBranch(op.to_raw()) }
}

/// True if region `index` of `op` is a graph region (no SSA dominance);
/// false for an index out of range.
pub(crate) fn is_graph_region(op: OperationRef<'_, '_>, index: usize) -> bool {
    // SAFETY: an interface query on a live operation; the helper checks the
    // index.
    unsafe { ffi::spmdIsGraphRegion(op.to_raw(), index as isize) }
}

/// True if running `op` in a lane that should be inactive could be
/// observed (memory effects, unknown effects, not speculatable), so a
/// wave-level lowering must guard it with the lane's exec bit.
pub(crate) fn needs_lane_guard(op: OperationRef<'_, '_>) -> bool {
    // SAFETY: an interface query on a live operation.
    unsafe { ffi::spmdNeedsLaneGuard(op.to_raw()) }
}

/// True if `op` has no regions, no memory effects (not even allocation)
/// and is speculatable: moving it into a conditionally executed region
/// changes nothing but where it runs.
pub(crate) fn is_pure_leaf(op: OperationRef<'_, '_>) -> bool {
    // SAFETY: an interface query on a live operation.
    unsafe { ffi::spmdIsPureLeaf(op.to_raw()) }
}

/// True if MLIR's dead-code elimination could erase `op` once nothing uses
/// its results (`wouldOpBeTriviallyDead`: not a terminator, no memory
/// effects but reads and allocations of its own results). Convergence is
/// the caller's business.
pub(crate) fn would_be_trivially_dead(op: OperationRef<'_, '_>) -> bool {
    // SAFETY: an interface query on a live operation.
    unsafe { ffi::spmdWouldBeTriviallyDead(op.to_raw()) }
}

/// The position of the first of `terminators` that has successors but is
/// not a `BranchOpInterface` op, if any.
pub(crate) fn find_non_branch_terminator(terminators: &[OperationRef<'_, '_>]) -> Option<usize> {
    let raw: Vec<_> = terminators.iter().map(|op| op.to_raw()).collect();
    // SAFETY: live operations; the helper reads the array during the call.
    let found = unsafe { ffi::spmdFindNonBranchTerminator(raw.as_ptr(), raw.len() as isize) };
    usize::try_from(found).ok()
}

/// For a branch: the position of the first operand forwarded to successor
/// `slot` and how many there are; `None` if `op` is not a branch or the
/// successor has produced operands.
pub fn successor_operand_range(op: OperationRef<'_, '_>, slot: usize) -> Option<(usize, usize)> {
    let (mut begin, mut count) = (0isize, 0isize);
    // SAFETY: a query on a live operation; the outputs are locals.
    let known = unsafe {
        ffi::spmdGetSuccessorOperandRange(op.to_raw(), slot as isize, &mut begin, &mut count)
    };
    known.then_some((begin as usize, count as usize))
}

/// The block that defines `value`: the owner of a block argument, or the
/// block of the defining operation (`None` for an operation outside any
/// block).
pub(crate) fn defining_block<'c, 'a>(value: Value<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    // SAFETY: queries on a live value; a non-null block handle is live for
    // as long as the value's IR is.
    unsafe {
        let raw = value.to_raw();
        let block = if mlir_sys::mlirValueIsABlockArgument(raw) {
            mlir_sys::mlirBlockArgumentGetOwner(raw)
        } else {
            mlir_sys::mlirOperationGetBlock(mlir_sys::mlirOpResultGetOwner(raw))
        };
        BlockRef::from_option_raw(block)
    }
}

/// Calls `visit` on every operand of the operations of `block` (including
/// operations nested in their regions) that is defined in another block of
/// the same region other than its entry block: the only uses whose
/// dominance a CFG edit can break. `scratch` is a buffer reused between
/// calls.
pub(crate) fn for_each_cross_block_operand<'c, 'a>(
    block: BlockRef<'c, 'a>,
    scratch: &mut Vec<mlir_sys::MlirValue>,
    mut visit: impl FnMut(Value<'c, 'a>),
) {
    scratch.clear();
    loop {
        // SAFETY: a live block; the helper writes at most `capacity` values.
        let count = unsafe {
            ffi::spmdCrossBlockOperands(
                block.to_raw(),
                scratch.as_mut_ptr(),
                scratch.capacity() as isize,
            )
        } as usize;
        if count <= scratch.capacity() {
            // SAFETY: the helper initialised the first `count` entries.
            unsafe { scratch.set_len(count) };
            break;
        }
        scratch.reserve(count);
    }
    for &raw in scratch.iter() {
        // SAFETY: operands of live operations of `block`, so live values of
        // the same IR.
        visit(unsafe { Value::from_raw(raw) });
    }
}

/// The operations nested in `root` (and `root` itself) for which `keep`
/// is true, in `order`. Unlike a melior walk, the handles carry `root`'s
/// lifetimes, so they can be kept after the walk.
pub(crate) fn collect_ops<'c, 'a>(
    root: OperationRef<'c, 'a>,
    order: WalkOrder,
    mut keep: impl FnMut(OperationRef<'c, 'a>) -> bool,
) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    for_each_op(root, order, |op| {
        if keep(op) {
            found.push(op);
        }
    });
    found
}

/// Calls `visit` on `root` and every operation nested in it, in `order`,
/// with handles that carry `root`'s lifetimes. `visit` must not erase or
/// move operations.
pub(crate) fn for_each_op<'c, 'a>(
    root: OperationRef<'c, 'a>,
    order: WalkOrder,
    mut visit: impl FnMut(OperationRef<'c, 'a>),
) {
    root.walk(order, |op| {
        // SAFETY: the walk only visits operations nested in `root`, which
        // live as long as `root`'s IR; `visit` does not erase them.
        visit(unsafe { OperationRef::from_raw(op.to_raw()) });
        WalkResult::Advance
    });
}

/// The context `op` lives in, for as long as `op`'s IR.
pub(crate) fn context_of<'c>(op: OperationRef<'c, '_>) -> &'c Context {
    // SAFETY: a query on a live operation.
    context_from_raw(unsafe { mlir_sys::mlirOperationGetContext(op.to_raw()) })
}

/// A `&Context` for a raw context handle that is live for `'c`.
///
/// melior hands out an external context as a `ContextRef` value, and a
/// `&Context` made from it points into that value, so it must not outlive
/// it. To give callers a reference that lasts as long as the context, each
/// distinct context handle gets one `ContextRef` that is never freed (one
/// small allocation per context address the process ever sees).
pub(crate) fn context_from_raw<'c>(raw: mlir_sys::MlirContext) -> &'c Context {
    use melior::ContextRef;
    use std::{
        collections::HashMap,
        sync::{Mutex, OnceLock},
    };
    // Per context, the address of its leaked `ContextRef` (an address, not
    // a reference: the map lives in a static, which must be `Sync`).
    static HANDLES: OnceLock<Mutex<HashMap<super::key::ContextKey, usize>>> = OnceLock::new();
    let mut handles = HANDLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = super::key::ContextKey::from_raw(raw);
    let address = *handles.entry(key).or_insert_with(|| {
        // SAFETY: `raw` is a live context; the handle only stores it.
        let handle: ContextRef<'static> = unsafe { ContextRef::from_raw(raw) };
        Box::into_raw(Box::new(handle)) as usize
    });
    // SAFETY: the boxed handle is never freed and holds `raw`, so the
    // reference into it is valid forever; the caller uses it only while the
    // context lives (`'c`).
    unsafe { (*(address as *const ContextRef<'c>)).to_ref() }
}

/// True if `op` implements `FunctionOpInterface` (`func.func`, `gpu.func`,
/// `llvm.func`, ...).
pub fn is_function_like(op: OperationRef<'_, '_>) -> bool {
    // SAFETY: an interface query on a live operation.
    unsafe { ffi::spmdIsFunctionLike(op.to_raw()) }
}

/// How a function returns, for the function kinds whose return operation
/// spmd knows: the name of that operation (`func.return`, `gpu.return`,
/// `llvm.return`) and the types it returns, read from the function's
/// `function_type` (a builtin function type for `func.func` and
/// `gpu.func`; an LLVM function type for `llvm.func`, whose `void` result
/// means no operand). `None` for any other operation, or one whose type
/// cannot be read.
pub(crate) fn function_return<'c>(
    op: OperationRef<'c, '_>,
) -> Option<(&'static str, Vec<Type<'c>>)> {
    let name = op.name();
    let name = name.as_string_ref().as_str().ok()?;
    let return_op = match name {
        "func.func" => "func.return",
        "gpu.func" => "gpu.return",
        "llvm.func" => "llvm.return",
        _ => return None,
    };
    let function_type = TypeAttribute::try_from(op.attribute("function_type").ok()?)
        .ok()?
        .value();
    if return_op == "llvm.return" {
        // SAFETY: queries on a live type; llvm.func's verifier guarantees
        // that its `function_type` is an LLVM function type, the one kind
        // of type mlirLLVMFunctionTypeGetReturnType reads. The returned
        // type lives in the same context as the function type.
        let (result, void) = unsafe {
            let raw = function_type.to_raw();
            let result = mlir_sys::mlirLLVMFunctionTypeGetReturnType(raw);
            let void = mlir_sys::mlirLLVMVoidTypeGet(mlir_sys::mlirTypeGetContext(raw));
            (Type::from_raw(result), Type::from_raw(void))
        };
        let results = if result == void { vec![] } else { vec![result] };
        return Some((return_op, results));
    }
    let function_type = FunctionType::try_from(function_type).ok()?;
    let results = (0..function_type.result_count())
        .map(|i| function_type.result(i))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    Some((return_op, results))
}
