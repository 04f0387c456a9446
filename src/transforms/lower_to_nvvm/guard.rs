//! Lane guards: an operation that must not run in inactive lanes moves into
//! `scf.if %active { op; yield } else { yield poison }`; a run of them in
//! one block (with the pure operations between them) shares one `scf.if`
//! ([`Run`]), so a loop body's loads and stores cost one branch, not one
//! each.
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
use crate::ir::key::{OperationKey, ValueKey};
use crate::ir::names;
use crate::support::FastSet;
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
pub(crate) fn needs_guard(op: OperationRef<'_, '_>) -> bool {
    if op_name(op).starts_with(names::SPMD_PREFIX) || op.next_in_block().is_none() {
        return false;
    }
    match collectives::members(op).map(collectives::Members::lowering) {
        Some(Lowering::UnderExecBit) => true,
        Some(Lowering::ExecMask | Lowering::EveryLiveLane) => false,
        None => crate::ir::query::needs_lane_guard(op),
    }
}

/// True if `op` may join a run of guarded operations between two of them:
/// it only computes (no memory effects, speculatable, no regions), so it
/// may as well run under the guard.
pub(crate) fn may_join_run(op: OperationRef<'_, '_>) -> bool {
    op.next_in_block().is_some()
        && !op_name(op).starts_with(names::SPMD_PREFIX)
        && collectives::members(op).is_none()
        && crate::ir::query::is_pure_leaf(op)
}

/// The operations of one block that one `scf.if` will guard: a maximal
/// run of operations that need a guard, with the pure operations between
/// them ([`may_join_run`]), all under the same exec bit. One branch around
/// a run of loads, stores and atomics instead of one per operation.
#[derive(Default)]
pub(crate) struct Run<'c, 'a> {
    /// The operations, each with whether it needs the guard itself.
    ops: Vec<(OperationRef<'c, 'a>, bool)>,
    /// `ops[..guarded]` ends with an operation that needs the guard; the
    /// pure operations after it join only if another guarded one follows.
    guarded: usize,
}

impl<'c, 'a> Run<'c, 'a> {
    /// Adds an operation that needs the guard.
    pub(crate) fn push_guarded(&mut self, op: OperationRef<'c, 'a>) {
        self.ops.push((op, true));
        self.guarded = self.ops.len();
    }

    /// Adds `op` if the run is open and `op` may join it; false otherwise
    /// (the caller then closes the run).
    pub(crate) fn try_push_pure(&mut self, op: OperationRef<'c, 'a>) -> bool {
        if self.guarded > 0 && may_join_run(op) {
            self.ops.push((op, false));
            true
        } else {
            false
        }
    }

    /// Wraps the run in one `scf.if` on `active`, and starts a new run.
    ///
    /// Only the pure operations that read a guarded result (directly or
    /// through each other) go inside; the others move up before the
    /// `scf.if` and keep running in every lane, so a value that was the
    /// same in all lanes (and may decide a scalar branch without a vote)
    /// stays so. Trailing pure operations stay where they are.
    pub(crate) fn close(&mut self, context: &'c Context, active: Value<'c, 'a>) {
        if self.guarded > 0 {
            let ops = &self.ops[..self.guarded];
            let first = ops[0].0;
            let key = |v: Value<'_, '_>| ValueKey::of(&v);
            let mut tainted: FastSet<ValueKey> = FastSet::default();
            let mut inside = Vec::with_capacity(ops.len());
            for &(op, guarded) in ops {
                if guarded || op.operands().any(|v| tainted.contains(&key(v))) {
                    tainted.extend(op.results().map(|r| key(r.into())));
                    inside.push(op);
                } else {
                    edit::move_before(op, first);
                }
            }
            wrap(context, &inside, active);
        }
        self.ops.clear();
        self.guarded = 0;
    }
}

/// Wraps `ops` (consecutive operations of one block, in order) in one
/// `scf.if` on `active`. Their results used after the run become results
/// of the `scf.if` (`ub.poison` in inactive lanes, which never read them:
/// a lane reads a value only where its thread ran the definition).
pub(crate) fn wrap<'c, 'a>(
    context: &'c Context,
    ops: &[OperationRef<'c, 'a>],
    active: Value<'c, 'a>,
) {
    let first = ops[0];
    let location = first.location();
    let members: FastSet<OperationKey> = ops.iter().map(OperationKey::of).collect();
    // A user inside the run, or nested in the region of an op of the run.
    let inside = |user: OperationRef<'_, '_>| {
        let mut current = Some(user);
        while let Some(op) = current {
            if members.contains(&OperationKey::of(&op)) {
                return true;
            }
            current = op.parent_operation();
        }
        false
    };
    // The results read after the run, with the operands that read them.
    let mut escaping: Vec<(Value<'c, 'a>, Vec<(OperationRef<'c, 'a>, usize)>)> = Vec::new();
    for &op in ops {
        for result in op.results() {
            let value: Value = result.into();
            let outside: Vec<_> = edit::uses(value)
                .into_iter()
                .filter(|&(user, _)| !inside(user))
                .collect();
            if !outside.is_empty() {
                escaping.push((value, outside));
            }
        }
    }
    let types: Vec<Type<'c>> = escaping.iter().map(|(v, _)| v.r#type()).collect();
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
    let block = first.block().expect("a guarded op is in a block");
    let guard = block.insert_operation_before(first, built);
    for (index, (_, outside)) in escaping.iter().enumerate() {
        for &(user, operand) in outside {
            edit::set_operand(user, operand, guard.result(index).unwrap().into());
        }
    }
    let then_block = guard.region(0).unwrap().first_block().unwrap();
    for &op in ops {
        edit::move_to_end(op, then_block);
    }
    let results: Vec<Value> = escaping.iter().map(|&(v, _)| v).collect();
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
