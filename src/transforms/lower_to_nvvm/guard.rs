//! Lane guards: an operation that must not run in inactive lanes moves into
//! `scf.if %active { op; yield } else { yield poison }`.
//!
//! ```text
//!   %v = memref.load %a[%i]          %v = scf.if %active -> (i32) {
//!                             ==>      %l = memref.load %a[%i]
//!                                      scf.yield %l : i32
//!                                    } else {
//!                                      %p = ub.poison : i32
//!                                      scf.yield %p : i32
//!                                    }
//! ```
//!
//! Which operations need a guard: the collectives whose members the
//! thread-level program names (a member mask, or the first lanes of
//! `gpu.shuffle`), by the rule of [`crate::ir::collectives`], so that
//! exactly the lanes that reach them execute them; every other collective of
//! that table runs in every live lane (or, for `activemask`, becomes the exec
//! mask). For the rest, MLIR's own judgement
//! ([`crate::ir::query::needs_lane_guard`]: memory effects other than
//! allocation, unknown effects, or not speculatable).

use crate::ir::collectives::{self, Lowering};
use crate::ir::names;
use crate::{ir::edit, transforms::prepare::op_name};
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        Block, OperationRef, Region, RegionLike, Type, Value, ValueLike,
    },
    Context,
};

/// True if `op` must only run in active lanes.
pub fn needs_guard(op: OperationRef<'_, '_>) -> bool {
    if op_name(op).starts_with(names::SPMD_PREFIX) || op.next_in_block().is_none() {
        return false;
    }
    match collectives::members(op).map(collectives::Members::lowering) {
        Some(Lowering::UnderExecBit) => true,
        Some(Lowering::ExecMask | Lowering::EveryLiveLane) => false,
        None => crate::ir::query::needs_lane_guard(op),
    }
}

/// Wraps `op` in an `scf.if` on `active`; the uses of its results become
/// uses of the `scf.if` results.
pub fn wrap<'c>(context: &'c Context, op: OperationRef<'c, '_>, active: Value<'c, '_>) {
    let location = op.location();
    let types: Vec<Type<'c>> = op.results().map(|result| result.r#type()).collect();
    let then_region = Region::new();
    then_region.append_block(Block::new(&[]));
    let else_region = Region::new();
    if !types.is_empty() {
        else_region.append_block(Block::new(&[]));
    }
    let built = OperationBuilder::new("scf.if", location)
        .add_operands(&[active])
        .add_results(&types)
        .add_regions([then_region, else_region])
        .build()
        .expect("valid scf.if");
    let block = op.block().expect("a guarded op is in a block");
    let guard = block.insert_operation_before(op, built);
    for (index, result) in op.results().enumerate() {
        edit::replace_all_uses(result.into(), guard.result(index).unwrap().into());
    }
    let then_block = guard.region(0).unwrap().first_block().unwrap();
    edit::move_to_end(op, then_block);
    let results: Vec<Value> = op.results().map(Into::into).collect();
    then_block.append_operation(yield_op(location, &results));
    if let Some(else_block) = guard.region(1).unwrap().first_block() {
        let poison: Vec<Value> = types
            .iter()
            .map(|r#type| {
                else_block
                    .append_operation(edit::poison(context, *r#type, location))
                    .result(0)
                    .unwrap()
                    .into()
            })
            .collect();
        else_block.append_operation(yield_op(location, &poison));
    }
}

fn yield_op<'c>(
    location: melior::ir::Location<'c>,
    values: &[Value<'c, '_>],
) -> melior::ir::Operation<'c> {
    OperationBuilder::new("scf.yield", location)
        .add_operands(values)
        .build()
        .expect("valid scf.yield")
}
