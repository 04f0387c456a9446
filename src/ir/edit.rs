//! Small, safe wrappers for the IR edits the transforms need and melior
//! does not offer: successor operands, block arguments, uses, placeholders.
//!
//! All functions take live melior handles; they never keep them.
//!
//! The edits that free IR ([`erase_operation`], [`erase_block`],
//! [`erase_argument`], [`replace_flow_branch`]) are `unsafe`: melior's
//! handles (`OperationRef`, `BlockRef`, `Value`, ...) are `Copy` and carry
//! no ownership, so any other copy of a handle to what they destroy
//! dangles, and only the caller can know that none is used again (as
//! melior's own `Block::detach` and `BlockLike::erase_argument` say).

use crate::ir::ffi;
use crate::ir::key::BlockKey;
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, BlockRef, Location, OperationRef, Type, Value, ValueLike,
    },
    Context,
};
use mlir_sys::{
    mlirBlockEraseArgument, mlirOpOperandGetNextUse, mlirOpOperandGetOperandNumber,
    mlirOpOperandGetOwner, mlirOpOperandIsNull, mlirOperationSetOperand, mlirValueGetFirstUse,
    mlirValueReplaceAllUsesOfWith,
};

/// The operands forwarded by branch `op` to successor `slot`.
pub(crate) fn successor_operands<'c, 'a>(
    op: OperationRef<'c, 'a>,
    slot: usize,
) -> Option<Vec<Value<'c, 'a>>> {
    let (mut begin, mut count) = (0isize, 0isize);
    // SAFETY: query on a live operation.
    let known = unsafe {
        ffi::spmdGetSuccessorOperandRange(op.to_raw(), slot as isize, &mut begin, &mut count)
    };
    known.then(|| {
        (begin..begin + count)
            .map(|i| op.operand(i as usize).unwrap())
            .collect()
    })
}

/// Replaces the operands branch `op` forwards to successor `slot`.
pub(crate) fn set_successor_operands(
    op: OperationRef<'_, '_>,
    slot: usize,
    values: &[Value<'_, '_>],
) -> bool {
    let raw: Vec<_> = values.iter().map(|v| v.to_raw()).collect();
    // SAFETY: the values and the operation are live; the helper copies them.
    unsafe {
        ffi::spmdSetSuccessorOperands(op.to_raw(), slot as isize, raw.len() as isize, raw.as_ptr())
    }
}

/// Appends `values` to the operands branch `op` forwards to successor `slot`.
pub(crate) fn append_successor_operands(
    op: OperationRef<'_, '_>,
    slot: usize,
    values: &[Value<'_, '_>],
) -> bool {
    let raw: Vec<_> = values.iter().map(|v| v.to_raw()).collect();
    // SAFETY: the values and the operation are live; the helper copies them.
    unsafe {
        ffi::spmdAppendSuccessorOperands(
            op.to_raw(),
            slot as isize,
            raw.len() as isize,
            raw.as_ptr(),
        )
    }
}

/// Runs the folders and canonicalization patterns of `ops` on `ops` (and
/// on what the rewrites create) with MLIR's greedy driver, region
/// simplification off; see `spmdFoldOperations` in `spmd-c/Internal.h`.
/// Returns whether the IR changed, or `Err` if the driver moved, replaced
/// or erased one of `protected`, or touched a block.
///
/// # Safety
///
/// The driver erases operations it folds away. After the call the caller
/// must not use a handle to one of `ops`, to their results or to anything
/// nested in them, unless the operation is in `protected` and the call
/// returned `Ok` (the obligation of [`erase_operation`] for each of them).
pub(crate) unsafe fn fold_operations(
    ops: &[OperationRef<'_, '_>],
    protected: &[OperationRef<'_, '_>],
    scope: melior::ir::RegionRef<'_, '_>,
) -> Result<bool, ()> {
    let raw: Vec<_> = ops.iter().map(|op| op.to_raw()).collect();
    let guarded: Vec<_> = protected.iter().map(|op| op.to_raw()).collect();
    let mut changed = false;
    // SAFETY: live operations of `scope`; the helper copies the arrays.
    let result = unsafe {
        ffi::spmdFoldOperations(
            raw.as_ptr(),
            raw.len() as isize,
            guarded.as_ptr(),
            guarded.len() as isize,
            melior::ir::RegionLike::to_raw(&scope),
            &mut changed,
        )
    };
    if result.value == 0 {
        return Err(());
    }
    Ok(changed)
}

/// Removes argument `index` of `block` and destroys it; the arguments
/// after it move down one position (their handles stay valid). Panics if
/// `block` has no argument `index`.
///
/// # Safety
///
/// * The argument has no uses left (MLIR only asserts this in builds with
///   assertions; otherwise its users would keep a dangling operand).
/// * No handle to the argument (a `Value` or `BlockArgument` of it) is used
///   afterwards: it is freed here.
pub(crate) unsafe fn erase_argument(block: BlockRef<'_, '_>, index: usize) {
    assert!(index < block.argument_count(), "no block argument {index}");
    // SAFETY: a live block and an existing argument; the caller guarantees
    // that the argument is unused and that no handle to it is used again.
    unsafe { mlirBlockEraseArgument(block.to_raw(), index as u32) };
}

/// Replaces every use of `old` by `new`.
pub(crate) fn replace_all_uses(old: Value<'_, '_>, new: Value<'_, '_>) {
    // SAFETY: both values are live.
    unsafe { mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
}

/// Every use of `value`: the user operation and the operand index.
pub(crate) fn uses<'c, 'a>(value: Value<'c, 'a>) -> Vec<(OperationRef<'c, 'a>, usize)> {
    let mut result = Vec::new();
    // SAFETY: walking the use list of a live value without mutating it.
    unsafe {
        let mut operand = mlirValueGetFirstUse(value.to_raw());
        while !mlirOpOperandIsNull(operand) {
            let owner = OperationRef::from_raw(mlirOpOperandGetOwner(operand));
            result.push((owner, mlirOpOperandGetOperandNumber(operand) as usize));
            operand = mlirOpOperandGetNextUse(operand);
        }
    }
    result
}

/// The operations that use `value`, once per use, without the operand
/// positions (cheaper than [`uses`] when only the users matter).
pub(crate) fn users<'c, 'a>(value: Value<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut result = Vec::new();
    // SAFETY: walking the use list of a live value without mutating it.
    unsafe {
        let mut operand = mlirValueGetFirstUse(value.to_raw());
        while !mlirOpOperandIsNull(operand) {
            result.push(OperationRef::from_raw(mlirOpOperandGetOwner(operand)));
            operand = mlirOpOperandGetNextUse(operand);
        }
    }
    result
}

/// True if `value` has at least one use.
pub(crate) fn is_used(value: Value<'_, '_>) -> bool {
    // SAFETY: a query on a live value.
    unsafe { !mlirOpOperandIsNull(mlirValueGetFirstUse(value.to_raw())) }
}

/// Sets operand `index` of `op` to `value`.
pub(crate) fn set_operand(op: OperationRef<'_, '_>, index: usize, value: Value<'_, '_>) {
    // SAFETY: live operation and value.
    unsafe { mlirOperationSetOperand(op.to_raw(), index as isize, value.to_raw()) };
}

/// Inserts `op` into `block` right before its terminator (or at the end).
pub(crate) fn insert_before_terminator<'c, 'a>(
    block: BlockRef<'c, 'a>,
    op: melior::ir::Operation<'c>,
) -> OperationRef<'c, 'a> {
    match block.terminator() {
        Some(terminator) => block.insert_operation_before(terminator, op),
        None => block.append_operation(op),
    }
}

/// Inserts `op` at the start of `block`.
pub(crate) fn insert_at_start<'c, 'a>(
    block: BlockRef<'c, 'a>,
    op: melior::ir::Operation<'c>,
) -> OperationRef<'c, 'a> {
    block.insert_operation(0, op)
}

/// `arith.constant true/false : i1`.
pub(crate) fn bool_constant<'c>(
    context: &'c Context,
    value: bool,
    location: Location<'c>,
) -> melior::ir::Operation<'c> {
    let i1: Type = IntegerType::new(context, 1).into();
    OperationBuilder::new("arith.constant", location)
        .add_attributes(&[(
            melior::ir::Identifier::new(context, "value"),
            IntegerAttribute::new(i1, value as i64).into(),
        )])
        .add_results(&[i1])
        .build()
        .expect("valid arith.constant")
}

/// Inserts `arith.constant value : i<width>` at the start of `block`.
pub(crate) fn prepend_integer_constant<'c, 'a>(
    block: BlockRef<'c, 'a>,
    width: u32,
    value: i64,
    location: Location<'c>,
) -> Value<'c, 'a> {
    // SAFETY: a live block and location; the helper inserts the new op into it.
    unsafe {
        Value::from_raw(ffi::spmdPrependIntegerConstant(
            block.to_raw(),
            width,
            value,
            location.to_raw(),
        ))
    }
}

/// The terminator [`append_two_way_branch`] builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TwoWayBranch {
    /// `spmd.flow_br`.
    Flow,
    /// `spmd.flow_br loop`.
    LoopFlow,
    /// `cf.cond_br`.
    CondBr,
}

/// Appends a branch of kind `kind` on `condition` to `on_true`/`on_false`,
/// without successor operands, to `block`.
pub(crate) fn append_two_way_branch<'c, 'a>(
    block: BlockRef<'c, 'a>,
    condition: Value<'c, 'a>,
    on_true: BlockRef<'c, 'a>,
    on_false: BlockRef<'c, 'a>,
    kind: TwoWayBranch,
    location: Location<'c>,
) -> OperationRef<'c, 'a> {
    let kind = match kind {
        TwoWayBranch::Flow => ffi::SPMD_BRANCH_KIND_FLOW,
        TwoWayBranch::LoopFlow => ffi::SPMD_BRANCH_KIND_LOOP_FLOW,
        TwoWayBranch::CondBr => ffi::SPMD_BRANCH_KIND_COND_BR,
    };
    // SAFETY: live blocks, value and location; the helper appends the new op.
    unsafe {
        OperationRef::from_raw(ffi::spmdAppendTwoWayBranch(
            block.to_raw(),
            condition.to_raw(),
            on_true.to_raw(),
            on_false.to_raw(),
            kind,
            location.to_raw(),
        ))
    }
}

/// `ub.poison : type`.
pub(crate) fn poison<'c>(
    context: &'c Context,
    r#type: Type<'c>,
    location: Location<'c>,
) -> melior::ir::Operation<'c> {
    let value: Attribute = Attribute::parse(context, "#ub.poison").expect("ub dialect loaded");
    OperationBuilder::new("ub.poison", location)
        .add_attributes(&[(melior::ir::Identifier::new(context, "value"), value)])
        .add_results(&[r#type])
        .build()
        .expect("valid ub.poison")
}

/// Removes `op` from its block (if it is in one) and destroys it, with its
/// regions and everything in them.
///
/// # Safety
///
/// * The results of `op` have no uses left (replace them first, see
///   [`replace_all_uses`]): MLIR does not drop the uses of an erased
///   operation, its users would keep dangling operands.
/// * No handle to `op` or to anything it owns (its regions, their blocks
///   and operations, the results and block arguments they define, as
///   `Value`s too) is used afterwards, by Rust code or by C++ code up the
///   stack: `op` is neither the operation a pass runs on nor one that an
///   enclosing walk is visiting. In particular `op` is not erased twice.
pub(crate) unsafe fn erase_operation(op: OperationRef<'_, '_>) {
    // SAFETY: the operation is live and owned by its block; after removal
    // it is owned by nobody and destroyed here. The caller guarantees that
    // its results are unused and that no handle to it is used again.
    unsafe {
        mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
        mlir_sys::mlirOperationDestroy(op.to_raw());
    }
}

/// Makes successor `slot` of terminator `op` point to `block` (its
/// successor operands are kept; see [`set_successor_operands`]).
pub(crate) fn set_successor(op: OperationRef<'_, '_>, slot: usize, block: BlockRef<'_, '_>) {
    // SAFETY: live terminator and block of the same region.
    unsafe { mlir_sys::mlirOperationSetSuccessor(op.to_raw(), slot as isize, block.to_raw()) };
}

/// Moves `op` (currently in some block) to the end of `block`.
pub(crate) fn move_to_end(op: OperationRef<'_, '_>, block: BlockRef<'_, '_>) {
    // SAFETY: the operation is detached from its block, then handed to
    // `block`, which takes ownership; no other reference owns it.
    unsafe {
        mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
        mlir_sys::mlirBlockAppendOwnedOperation(block.to_raw(), op.to_raw());
    }
}

/// Moves `op` right before `before` (which must be in a block).
pub(crate) fn move_before(op: OperationRef<'_, '_>, before: OperationRef<'_, '_>) {
    // SAFETY: both operations are live and `before` is in a block.
    unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), before.to_raw()) };
}

/// The blocks of `region`, in order.
pub fn blocks<'c, 'a>(region: melior::ir::RegionRef<'c, 'a>) -> Vec<BlockRef<'c, 'a>> {
    use melior::ir::RegionLike;
    let mut blocks = Vec::new();
    let mut next = region.first_block();
    while let Some(block) = next {
        blocks.push(block);
        next = block.next_in_region();
    }
    blocks
}

/// Removes `block` from its region and destroys it, with its arguments
/// and operations (and everything nested in them). Panics if `block` is in
/// no region.
///
/// # Safety
///
/// * No terminator outside `block` names it as a successor (its own
///   terminator may: it goes with it).
/// * No value that `block` defines (its arguments, the results of its
///   operations and of the operations nested in them) has a use outside
///   `block`; uses inside it are dropped with it.
/// * No handle to `block` or to anything in it (its arguments, operations,
///   their regions, blocks and results, as `Value`s too) is used
///   afterwards, by Rust code or by C++ code up the stack (a walk visiting
///   one of its operations). In particular `block` is not erased twice.
pub(crate) unsafe fn erase_block(block: BlockRef<'_, '_>) {
    assert!(
        block.parent_region().is_some(),
        "erase_block: detached block"
    );
    // SAFETY: the block is detached from its region first, after which it
    // is owned by nobody and destroyed here. The caller guarantees that
    // nothing outside it refers to it or to its values, and that no handle
    // to it is used again.
    unsafe {
        mlir_sys::mlirBlockDetach(block.to_raw());
        mlir_sys::mlirBlockDestroy(block.to_raw());
    }
}

/// The operations of `block`, in order (terminator last).
pub(crate) fn operations<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut result = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        result.push(op);
        next = op.next_in_block();
    }
    result
}

/// The operation defining `value`, or `None` for a block argument.
pub(crate) fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: queries on a live value.
    unsafe {
        if mlir_sys::mlirValueIsAOpResult(value.to_raw()) {
            Some(OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(
                value.to_raw(),
            )))
        } else {
            None
        }
    }
}

/// The key of the block that defines `value` (the block owning the
/// argument, or the block of the defining operation), without making a
/// handle of it.
pub(crate) fn defining_block_key(value: Value<'_, '_>) -> BlockKey {
    BlockKey::from_raw(defining_block_raw(value))
}

fn defining_block_raw(value: Value<'_, '_>) -> mlir_sys::MlirBlock {
    // SAFETY: queries on a live value and its owner.
    unsafe {
        if mlir_sys::mlirValueIsABlockArgument(value.to_raw()) {
            mlir_sys::mlirBlockArgumentGetOwner(value.to_raw())
        } else {
            mlir_sys::mlirOperationGetBlock(mlir_sys::mlirOpResultGetOwner(value.to_raw()))
        }
    }
}

/// The position of `value` among its owner's results or arguments.
pub(crate) fn value_position(value: Value<'_, '_>) -> usize {
    // SAFETY: queries on a live value.
    unsafe {
        if mlir_sys::mlirValueIsABlockArgument(value.to_raw()) {
            mlir_sys::mlirBlockArgumentGetArgNumber(value.to_raw()) as usize
        } else {
            mlir_sys::mlirOpResultGetResultNumber(value.to_raw()) as usize
        }
    }
}

/// True if `op` is named `name` (no allocation, unlike formatting the name).
pub(crate) fn is_op(op: OperationRef<'_, '_>, name: &str) -> bool {
    op.name().as_string_ref().as_str() == Ok(name)
}

/// Inserts `arith.cmpi eq` (or `ne` if `equal` is false) of `selector` and
/// `index` right before `before` and returns its `i1` result: the
/// predicate a Flow block derives from its chain's selector.
pub(crate) fn insert_selector_compare<'c, 'a>(
    before: OperationRef<'c, 'a>,
    selector: Value<'c, 'a>,
    index: Value<'c, 'a>,
    equal: bool,
    location: Location<'c>,
) -> Value<'c, 'a> {
    // SAFETY: live operation and values of one region; the helper inserts
    // the new op into the block of `before`, which owns it.
    unsafe {
        Value::from_raw(ffi::spmdInsertSelectorCompare(
            before.to_raw(),
            selector.to_raw(),
            index.to_raw(),
            equal,
            location.to_raw(),
        ))
    }
}

/// Inserts `spmd.reconvergence.head <id>` (if `head`) or `.tail <id>` into
/// `block`, before `before` or at the start of the block if `None`.
pub(crate) fn insert_reconvergence_marker<'c, 'a>(
    block: BlockRef<'c, 'a>,
    before: Option<OperationRef<'c, 'a>>,
    head: bool,
    id: u64,
    location: Location<'c>,
) -> OperationRef<'c, 'a> {
    let before = before.map_or(
        mlir_sys::MlirOperation {
            ptr: std::ptr::null_mut(),
        },
        |op| op.to_raw(),
    );
    // SAFETY: a live block and (if any) an op of it; the helper inserts the
    // marker into the block, which owns it.
    unsafe {
        OperationRef::from_raw(ffi::spmdInsertReconvergenceMarker(
            block.to_raw(),
            before,
            head,
            id,
            location.to_raw(),
        ))
    }
}

/// Erases the blocks of `region` unreachable from its entry (and the uses
/// of their values, which can only be in other unreachable blocks); true
/// if one was erased.
///
/// # Safety
///
/// Handles to the erased blocks, their arguments and operations dangle
/// afterwards: the caller must not use any handle into a block that was
/// unreachable (including the blocks of a region snapshot taken before the
/// call), the obligation of [`erase_block`] for each of them.
pub(crate) unsafe fn erase_unreachable_blocks(region: melior::ir::RegionRef<'_, '_>) -> bool {
    // SAFETY: a live region; the helper only erases its unreachable blocks.
    unsafe { ffi::spmdEraseUnreachableBlocks(melior::ir::RegionLike::to_raw(&region)) }
}

/// Removes the entries whose name starts with `prefix` from the argument
/// and result attribute dictionaries of `function` (such as
/// `{spmd.uniform}`).
pub(crate) fn strip_argument_attributes(function: OperationRef<'_, '_>, prefix: &str) {
    use mlir_sys::*;
    for name in ["arg_attrs", "res_attrs"] {
        let Ok(array) = function.attribute(name) else {
            continue;
        };
        let raw = melior::ir::attribute::AttributeLike::to_raw(&array);
        // SAFETY: C API queries and constructors on live attributes of the
        // function's context; the new array replaces the old one.
        unsafe {
            if !mlirAttributeIsAArray(raw) {
                continue;
            }
            let context = mlirAttributeGetContext(raw);
            let dictionaries: Vec<MlirAttribute> = (0..mlirArrayAttrGetNumElements(raw))
                .map(|index| without_entries(context, mlirArrayAttrGetElement(raw, index), prefix))
                .collect();
            let stripped =
                mlirArrayAttrGet(context, dictionaries.len() as isize, dictionaries.as_ptr());
            let name = MlirStringRef {
                data: name.as_ptr() as *const _,
                length: name.len(),
            };
            mlirOperationSetAttributeByName(function.to_raw(), name, stripped);
        }
    }
}

/// A copy of `dictionary` without the entries whose name starts with
/// `prefix` (anything else is returned as it is).
///
/// # Safety
/// `dictionary` must be a live attribute of `context`.
unsafe fn without_entries(
    context: mlir_sys::MlirContext,
    dictionary: mlir_sys::MlirAttribute,
    prefix: &str,
) -> mlir_sys::MlirAttribute {
    use mlir_sys::*;
    // SAFETY: the caller guarantees a live attribute; the entries' names are
    // strings owned by the context.
    unsafe {
        if !mlirAttributeIsADictionary(dictionary) {
            return dictionary;
        }
        let kept: Vec<MlirNamedAttribute> = (0..mlirDictionaryAttrGetNumElements(dictionary))
            .map(|index| mlirDictionaryAttrGetElement(dictionary, index))
            .filter(|entry| {
                let name = mlirIdentifierStr(entry.name);
                let bytes = std::slice::from_raw_parts(name.data as *const u8, name.length);
                !bytes.starts_with(prefix.as_bytes())
            })
            .collect();
        mlirDictionaryAttrGet(context, kept.len() as isize, kept.as_ptr())
    }
}

/// Removes the discardable attributes of `op` whose name starts with
/// `prefix`.
pub(crate) fn remove_attributes_with_prefix(op: OperationRef<'_, '_>, prefix: &str) {
    let names: Vec<String> = (0..op.discardable_attribute_count())
        .filter_map(|index| op.discardable_attribute_at(index).ok())
        .map(|(name, _)| {
            name.as_string_ref()
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .filter(|name| name.starts_with(prefix))
        .collect();
    if names.is_empty() {
        return;
    }
    // SAFETY: `op` is live; the mutable handle is used for these calls only.
    let mut op = unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) };
    for name in names {
        let _ =
            melior::ir::operation::OperationMutLike::remove_discardable_attribute(&mut op, &name);
    }
}

/// Sets the location of `op`.
pub(crate) fn set_location(op: OperationRef<'_, '_>, location: Location<'_>) {
    // SAFETY: a live operation and location; only the location changes.
    unsafe { mlir_sys::mlirOperationSetLocation(op.to_raw(), location.to_raw()) };
}

/// The location of a block argument.
pub(crate) fn argument_location<'c>(
    argument: melior::ir::block::BlockArgument<'c, '_>,
) -> Location<'c> {
    // SAFETY: a query on a live block argument; locations live as long as
    // their context.
    unsafe { Location::from_raw(mlir_sys::mlirValueGetLocation(argument.to_raw())) }
}

/// Sets the location of a block argument.
pub(crate) fn set_argument_location(
    argument: melior::ir::block::BlockArgument<'_, '_>,
    location: Location<'_>,
) {
    // SAFETY: a live block argument and location; only the location changes.
    unsafe { mlir_sys::mlirBlockArgumentSetLocation(argument.to_raw(), location.to_raw()) };
}

/// Replaces `spmd.flow_br` by a `cf.cond_br` with the same condition,
/// successors and successor operands (the `loop` flag has no thread-level
/// meaning), and returns the new branch. Panics if `flow` is not an
/// `spmd.flow_br` in a block.
///
/// # Safety
///
/// `flow` is erased ([`erase_operation`]; a branch has no results): no
/// handle to it is used afterwards, and it is not the operation a pass
/// runs on or one an enclosing walk is visiting.
pub(crate) unsafe fn replace_flow_branch<'c, 'a>(
    context: &'c Context,
    flow: OperationRef<'c, 'a>,
) -> OperationRef<'c, 'a> {
    assert!(
        is_op(flow, crate::ir::names::FLOW_BR),
        "replace_flow_branch replaces spmd.flow_br"
    );
    let condition = flow.operand(0).expect("spmd.flow_br has a predicate");
    let on_true = forwarded(flow, 0);
    let on_false = forwarded(flow, 1);
    let (true_dest, false_dest) = (
        flow.successor(0).expect("spmd.flow_br has two successors"),
        flow.successor(1).expect("spmd.flow_br has two successors"),
    );
    let branch = melior::dialect::cf::cond_br(
        context,
        condition,
        &true_dest,
        &false_dest,
        &on_true,
        &on_false,
        flow.location(),
    );
    let block = flow.block().expect("a terminator is in a block");
    let branch = block.insert_operation_before(flow, branch);
    // SAFETY: `spmd.flow_br` has no results or regions; the caller
    // guarantees that no handle to it is used again. Its operands and
    // successors are now the new branch's, which holds no handle to it.
    unsafe { erase_operation(flow) };
    branch
}

/// The operands `branch` forwards to successor `slot`.
fn forwarded<'c, 'a>(branch: OperationRef<'c, 'a>, slot: usize) -> Vec<Value<'c, 'a>> {
    successor_operands(branch, slot).expect("spmd.flow_br implements BranchOpInterface")
}
