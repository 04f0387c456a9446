//! Small, safe wrappers for the IR edits the transforms need and melior
//! does not offer: successor operands, block arguments, uses, placeholders.
//!
//! All functions take live melior handles; they never keep them.

use crate::ffi;
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
    mlirBlockEraseArgument, mlirOpOperandGetNextUse, mlirOpOperandGetOperandNumber, mlirOpOperandGetOwner,
    mlirOpOperandIsNull, mlirOperationSetOperand, mlirValueGetFirstUse, mlirValueReplaceAllUsesOfWith,
};

/// The operands forwarded by branch `op` to successor `slot`.
pub fn successor_operands<'c, 'a>(op: OperationRef<'c, 'a>, slot: usize) -> Option<Vec<Value<'c, 'a>>> {
    let (mut begin, mut count) = (0isize, 0isize);
    // SAFETY: query on a live operation.
    let known = unsafe { ffi::spmdGetSuccessorOperandRange(op.to_raw(), slot as isize, &mut begin, &mut count) };
    known.then(|| (begin..begin + count).map(|i| op.operand(i as usize).unwrap()).collect())
}

/// Replaces the operands branch `op` forwards to successor `slot`.
pub fn set_successor_operands(op: OperationRef<'_, '_>, slot: usize, values: &[Value<'_, '_>]) -> bool {
    let raw: Vec<_> = values.iter().map(|v| v.to_raw()).collect();
    // SAFETY: the values and the operation are live; the helper copies them.
    unsafe { ffi::spmdSetSuccessorOperands(op.to_raw(), slot as isize, raw.len() as isize, raw.as_ptr()) }
}

/// Removes argument `index` of `block` (it must have no uses left).
pub fn erase_argument(block: BlockRef<'_, '_>, index: usize) {
    // SAFETY: live block; MLIR asserts the argument is unused.
    unsafe { mlirBlockEraseArgument(block.to_raw(), index as u32) };
}

/// Replaces every use of `old` by `new`.
pub fn replace_all_uses(old: Value<'_, '_>, new: Value<'_, '_>) {
    // SAFETY: both values are live.
    unsafe { mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
}

/// Every use of `value`: the user operation and the operand index.
pub fn uses<'c, 'a>(value: Value<'c, 'a>) -> Vec<(OperationRef<'c, 'a>, usize)> {
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

/// Sets operand `index` of `op` to `value`.
pub fn set_operand(op: OperationRef<'_, '_>, index: usize, value: Value<'_, '_>) {
    // SAFETY: live operation and value.
    unsafe { mlirOperationSetOperand(op.to_raw(), index as isize, value.to_raw()) };
}

/// Inserts `op` into `block` right before its terminator (or at the end).
pub fn insert_before_terminator<'c, 'a>(block: BlockRef<'c, 'a>, op: melior::ir::Operation<'c>) -> OperationRef<'c, 'a> {
    match block.terminator() {
        Some(terminator) => block.insert_operation_before(terminator, op),
        None => block.append_operation(op),
    }
}

/// Inserts `op` at the start of `block`.
pub fn insert_at_start<'c, 'a>(block: BlockRef<'c, 'a>, op: melior::ir::Operation<'c>) -> OperationRef<'c, 'a> {
    block.insert_operation(0, op)
}

/// `arith.constant true/false : i1`.
pub fn bool_constant<'c>(context: &'c Context, value: bool, location: Location<'c>) -> melior::ir::Operation<'c> {
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

/// `arith.constant value : i32`.
pub fn i32_constant<'c>(context: &'c Context, value: i64, location: Location<'c>) -> melior::ir::Operation<'c> {
    let i32_type: Type = IntegerType::new(context, 32).into();
    OperationBuilder::new("arith.constant", location)
        .add_attributes(&[(
            melior::ir::Identifier::new(context, "value"),
            IntegerAttribute::new(i32_type, value).into(),
        )])
        .add_results(&[i32_type])
        .build()
        .expect("valid arith.constant")
}

/// `ub.poison : type`.
pub fn poison<'c>(context: &'c Context, r#type: Type<'c>, location: Location<'c>) -> melior::ir::Operation<'c> {
    let value: Attribute = Attribute::parse(context, "#ub.poison").expect("ub dialect loaded");
    OperationBuilder::new("ub.poison", location)
        .add_attributes(&[(melior::ir::Identifier::new(context, "value"), value)])
        .add_results(&[r#type])
        .build()
        .expect("valid ub.poison")
}


/// Removes `op` from its block and destroys it (its results must be unused).
pub fn erase_operation(op: OperationRef<'_, '_>) {
    // SAFETY: the operation is live and owned by its block; after removal
    // the caller holds the only reference, which is destroyed here.
    unsafe {
        mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
        mlir_sys::mlirOperationDestroy(op.to_raw());
    }
}
