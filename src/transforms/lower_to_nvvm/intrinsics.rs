//! LLVM math intrinsics in `gpu.func` bodies.
//!
//! `convert-gpu-to-nvvm` declares a fixed list of LLVM intrinsic ops
//! illegal (it expects them to come from the `math` dialect and maps those
//! to libdevice calls), so a `gpu.func` holding `llvm.intr.fabs` or
//! `llvm.intr.ceil` (as kernels imported from LLVM IR do) fails to
//! legalize. The NVPTX backend selects some of them directly:
//!
//! | op | NVPTX | here |
//! |---|---|---|
//! | `fabs ceil floor sqrt round roundeven copysign exp2` | one instruction | becomes `llvm.call_intrinsic "llvm.<name>.<type>"`, which the conversion leaves alone and the translation turns back into the same intrinsic |
//! | `sin cos exp log log2 log10 pow` | none (`llc` aborts) | rejected with a diagnostic: they need libdevice, which spmd does not link |
//!
//! Only scalar `f16`/`f32`/`f64` operands are rewritten (the mangled name is
//! `llvm.<name>.<type>`); vector forms are left for the conversion to
//! report.

use crate::ir::names;
use crate::{
    ir::{diagnostics, edit},
    transforms::prepare::op_name,
};
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, WalkOrder},
        Attribute, Identifier, OperationRef, Type, Value, ValueLike,
    },
    Context,
};

/// Intrinsic ops the backend selects natively: op name suffix and the
/// intrinsic's base name.
const NATIVE: &[(&str, &str)] = &[
    ("fabs", "llvm.fabs"),
    ("ceil", "llvm.ceil"),
    ("floor", "llvm.floor"),
    ("sqrt", "llvm.sqrt"),
    ("round", "llvm.round"),
    ("roundeven", "llvm.roundeven"),
    ("copysign", "llvm.copysign"),
    ("exp2", "llvm.exp2"),
];

/// Intrinsic ops without an NVPTX instruction.
const NEEDS_LIBDEVICE: &[&str] = &["sin", "cos", "sincos", "exp", "log", "log2", "log10", "pow"];

/// The `llvm.intr.*` ops in `gpu.func` bodies below `root`: the native ones
/// to rewrite, and an error for each one NVPTX cannot select.
pub fn find<'c, 'a>(
    root: OperationRef<'c, 'a>,
) -> Result<Vec<(OperationRef<'c, 'a>, &'static str)>, ()> {
    let mut native = Vec::new();
    let mut failed = false;
    crate::ir::query::for_each_op(root, WalkOrder::PreOrder, |op| {
        let name = op_name(op);
        let Some(short) = name.strip_prefix(names::LLVM_INTRINSIC_PREFIX) else {
            return;
        };
        if !inside_gpu_func(op) {
            return;
        }
        if let Some((_, intrinsic)) = NATIVE.iter().find(|(op_suffix, _)| *op_suffix == short) {
            if type_suffix(op).is_some() {
                native.push((op, *intrinsic));
            }
        } else if NEEDS_LIBDEVICE.contains(&short) {
            diagnostics::emit_error(
                op.location(),
                &format!(
                    "'{name}' has no NVPTX instruction and needs libdevice, which spmd does not link; \
                     use an approximation (e.g. llvm.intr.exp2, nvvm.ex2.approx) or link libdevice yourself"
                ),
            );
            failed = true;
        }
    });
    if failed {
        Err(())
    } else {
        Ok(native)
    }
}

/// Replaces `op` by `llvm.call_intrinsic "<intrinsic>.<type>"` on the same
/// operands.
pub fn rewrite<'c>(context: &'c Context, op: OperationRef<'c, '_>, intrinsic: &str) {
    let suffix = type_suffix(op).expect("checked by find");
    let operands: Vec<Value> = op.operands().collect();
    let result = op.result(0).expect("a math intrinsic has a result");
    let string = |text: &str| Attribute::parse(context, text).expect("valid attribute");
    let call = OperationBuilder::new(names::LLVM_CALL_INTRINSIC, op.location())
        .add_operands(&operands)
        .add_attributes(&[
            (
                Identifier::new(context, "intrin"),
                string(&format!("\"{intrinsic}.{suffix}\"")),
            ),
            (
                Identifier::new(context, "op_bundle_sizes"),
                string("array<i32>"),
            ),
            (
                Identifier::new(context, "operandSegmentSizes"),
                string(&format!("array<i32: {}, 0>", operands.len())),
            ),
        ])
        .add_results(&[result.r#type()])
        .build()
        .expect("valid llvm.call_intrinsic");
    let block = op.block().expect("the op is in a block");
    let call = block.insert_operation_before(op, call);
    edit::replace_all_uses(result.into(), call.result(0).unwrap().into());
    edit::erase_operation(op);
}

/// `f16`, `f32` or `f64` for a scalar float result.
fn type_suffix(op: OperationRef<'_, '_>) -> Option<&'static str> {
    let r#type: Type = op.result(0).ok()?.r#type();
    match r#type.to_string().as_str() {
        "f16" => Some("f16"),
        "f32" => Some("f32"),
        "f64" => Some("f64"),
        _ => None,
    }
}

fn inside_gpu_func(op: OperationRef<'_, '_>) -> bool {
    let mut parent = op.parent_operation();
    while let Some(ancestor) = parent {
        if op_name(ancestor) == names::GPU_FUNC {
            return true;
        }
        parent = ancestor.parent_operation();
    }
    false
}
