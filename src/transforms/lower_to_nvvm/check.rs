//! What `--spmd-lower-to-nvvm` accepts, checked before any edit so that a
//! rejected module is left exactly as it was. Every problem gets its own
//! diagnostic at the offending operation.

use super::{SpmdOp, WaveFunction};
use crate::ir::names;
use crate::{
    ir::{diagnostics, edit, facts, query},
    transforms::prepare::op_name,
};
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, WalkOrder},
    BlockRef, OperationRef, RegionLike, ValueLike,
};

/// The printed form of the uniformity mark every conditional branch of a
/// wave-level function must carry.
const UNIFORM_MARK: &str = "#spmd.uniformity<uniform>";
/// The mark of a lane branch ([`super::full_exec`]).
const DIVERGENT_MARK: &str = "#spmd.uniformity<divergent>";

/// Collects problems; `Ok` only if there is none.
#[derive(Default)]
pub(crate) struct Checker {
    failed: bool,
}

impl Checker {
    fn error(&mut self, op: OperationRef<'_, '_>, message: &str) {
        diagnostics::emit_error(op.location(), message);
        self.failed = true;
    }

    /// `Err(())` if any problem was reported (each already has its
    /// diagnostic), else `Ok(())`.
    pub(crate) fn finish(self) -> Result<(), ()> {
        if self.failed {
            Err(())
        } else {
            Ok(())
        }
    }
}

/// Finds the wave-level functions below `root` (`gpu.func` and `llvm.func`
/// ops whose body holds a wave-level spmd op) and reports misplaced spmd
/// ops.
pub(crate) fn wave_functions<'c, 'a>(
    root: OperationRef<'c, 'a>,
    checker: &mut Checker,
) -> Vec<WaveFunction<'c, 'a>> {
    let mut functions: Vec<WaveFunction<'c, 'a>> = Vec::new();
    query::for_each_op(root, WalkOrder::PreOrder, |op| {
        match SpmdOp::of(&op_name(op)) {
            Some(SpmdOp::FlowBranch) => checker.error(
                op,
                "'spmd.flow_br' is thread-level control flow: run --spmd-predicate (or --spmd-lower-to-cf) first",
            ),
            Some(kind) if kind.is_wave_level() => match body_function(op) {
                Some(function) => {
                    if !functions.iter().any(|known| known.op == function) {
                        functions.push(WaveFunction::new(function));
                    }
                }
                None => checker.error(
                    op,
                    &format!("wave-level op '{}' must be directly in the body of a gpu.func or llvm.func", op_name(op)),
                ),
            },
            _ => {}
        }
    });
    functions
}

/// Function ops whose bodies the lowering handles.
pub(crate) const WAVE_FUNCTION_OPS: &[&str] = &[names::GPU_FUNC, "llvm.func"];

/// The `gpu.func` or `llvm.func` whose body block holds `op` directly.
fn body_function<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let parent = op.block()?.parent_operation()?;
    WAVE_FUNCTION_OPS
        .contains(&op_name(parent).as_str())
        .then_some(parent)
}

/// Checks one wave-level function: masks only flow between spmd ops and
/// branches, conditional branches are uniform, successor operands can be
/// extended with the exec mask.
pub(crate) fn check_function(function: &WaveFunction<'_, '_>, checker: &mut Checker) {
    let Some(entry) = function.body().first_block() else {
        return;
    };
    for index in 0..entry.argument_count() {
        if is_mask(entry.argument(index).unwrap().r#type()) {
            checker.error(
                function.op,
                "a wave-level function cannot take a '!spmd.mask' argument",
            );
        }
    }
    let blocks = function.blocks();
    let full = super::full_exec::full_at_start(&blocks);
    let lane_regions = super::full_exec::lane_regions(&blocks, &full);
    for branch in lane_regions.ungated {
        checker.error(
            branch,
            &format!("lane branch '{}' (marked {DIVERGENT_MARK}) where exec may be partial, and a thread that is not active could enter its region: its condition must be 'spmd.mask.select' on 'spmd.exec.read' (toward the rejoin point otherwise), and every edge into the region from where exec may be partial must leave such a gate", op_name(branch)),
        );
    }
    for block in blocks {
        check_block(block, checker);
    }
    query::for_each_op(function.op, WalkOrder::PreOrder, |op| {
        check_mask_operands(op, checker)
    });
}

fn check_block(block: BlockRef<'_, '_>, checker: &mut Checker) {
    for op in edit::operations(block) {
        let name = op_name(op);
        // `ub.poison` of a mask (hand-written wave-level code) lowers to a
        // poison integer like every other mask value.
        let known = SpmdOp::of(&name).is_some() || name == names::UB_POISON;
        if !known && op.results().any(|result| is_mask(result.r#type())) {
            checker.error(
                op,
                &format!(
                    "'{}' produces a '!spmd.mask' the NVVM lowering cannot follow",
                    op_name(op)
                ),
            );
        }
    }
    let Some(terminator) = block.terminator() else {
        return;
    };
    let name = op_name(terminator);
    let mark = facts::uniformity_mark(terminator);
    if terminator.successor_count() >= 2 && name != names::EXEC_BR_ZERO && mark.is_none() {
        checker.error(
            terminator,
            &format!("'{name}' in a wave-level function must be a uniform branch (marked {UNIFORM_MARK}) or a lane branch (marked {DIVERGENT_MARK})"),
        );
    }
    for slot in 0..terminator.successor_count() {
        if name != names::EXEC_BR_ZERO && edit::successor_operands(terminator, slot).is_none() {
            checker.error(
                terminator,
                &format!("cannot forward the exec mask through '{name}'"),
            );
            break;
        }
    }
}

/// A mask may only be used by spmd ops and as a branch operand.
fn check_mask_operands(op: OperationRef<'_, '_>, checker: &mut Checker) {
    let name = op_name(op);
    let allowed = SpmdOp::of(&name).is_some() || query::is_branch(op);
    if !allowed && op.operands().any(|operand| is_mask(operand.r#type())) {
        checker.error(
            op,
            &format!("'{name}' uses a '!spmd.mask', which only spmd ops and branches may use"),
        );
    }
}

/// True for `!spmd.mask`.
pub(crate) fn is_mask(r#type: melior::ir::Type<'_>) -> bool {
    facts::is_mask_type(r#type)
}
