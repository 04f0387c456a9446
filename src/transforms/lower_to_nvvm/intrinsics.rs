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
//! | `sin cos exp log log2 log10 pow` | none (`llc` aborts) | becomes the `math` op of the same function, which the conversion turns into a call of libdevice's `__nv_*` function, as for `math` input (`spmd-compile` links libdevice; so does `gpu-module-to-binary`) |
//! | `sincos` (a struct result) | none | rejected with a diagnostic |
//!
//! `convert-gpu-to-rocdl` declares the same ops illegal; for ROCDL every one
//! of them (`exp`, `pow`, ... too) becomes `llvm.call_intrinsic`, which the
//! AMDGPU backend selects.
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

/// Intrinsic ops without an NVPTX instruction, with the `math` op that
/// computes the same function and the intrinsic's base name (which the
/// AMDGPU backend selects).
const AS_MATH: &[(&str, &str, &str)] = &[
    ("sin", "math.sin", "llvm.sin"),
    ("cos", "math.cos", "llvm.cos"),
    ("exp", "math.exp", "llvm.exp"),
    ("log", "math.log", "llvm.log"),
    ("log2", "math.log2", "llvm.log2"),
    ("log10", "math.log10", "llvm.log10"),
    ("pow", "math.powf", "llvm.pow"),
];

/// Intrinsic ops without an NVPTX instruction or a `math` op.
const UNSUPPORTED: &[&str] = &["sincos"];

/// What becomes of a math intrinsic op.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rewrite {
    /// `llvm.call_intrinsic` of this intrinsic base name.
    Native(&'static str),
    /// This `math` op (libdevice, through the conversion).
    Math(&'static str),
}

/// The `llvm.intr.*` ops in `gpu.func` bodies below `root` with what each
/// becomes, and an error for each one there is no lowering for. With
/// `libdevice` false (ROCDL) every one of them stays an intrinsic call: the
/// AMDGPU backend selects them all.
pub(crate) fn find<'c, 'a>(
    root: OperationRef<'c, 'a>,
    libdevice: bool,
) -> Result<Vec<(OperationRef<'c, 'a>, Rewrite)>, ()> {
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
        let rewrite = NATIVE
            .iter()
            .find(|(op_suffix, _)| *op_suffix == short)
            .map(|(_, intrinsic)| Rewrite::Native(intrinsic))
            .or_else(|| {
                AS_MATH
                    .iter()
                    .find(|(op_suffix, _, _)| *op_suffix == short)
                    .map(|(_, math, intrinsic)| {
                        if libdevice {
                            Rewrite::Math(math)
                        } else {
                            Rewrite::Native(intrinsic)
                        }
                    })
            });
        if let Some(rewrite) = rewrite {
            if type_suffix(op).is_some() {
                native.push((op, rewrite));
            }
        } else if UNSUPPORTED.contains(&short) {
            diagnostics::emit_error(
                op.location(),
                &format!(
                    "'{name}' has no NVPTX instruction and no math op to become a libdevice \
                     call; compute it as sin and cos"
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

/// Replaces `op` by what [`find`] chose: `llvm.call_intrinsic
/// "<intrinsic>.<type>"` or the `math` op, on the same operands. `op` is
/// erased: the caller must use no handle to it (or its result) afterwards.
pub(crate) fn rewrite<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewrite: Rewrite) {
    let suffix = type_suffix(op).expect("checked by find");
    let operands: Vec<Value> = op.operands().collect();
    let result = op.result(0).expect("a math intrinsic has a result");
    let string = |text: &str| Attribute::parse(context, text).expect("valid attribute");
    let replacement = match rewrite {
        Rewrite::Native(intrinsic) => {
            OperationBuilder::new(names::LLVM_CALL_INTRINSIC, op.location())
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
        }
        Rewrite::Math(math) => OperationBuilder::new(math, op.location()).add_operands(&operands),
    }
    .add_results(&[result.r#type()])
    .build()
    .expect("valid replacement of a math intrinsic");
    let block = op.block().expect("the op is in a block");
    let replacement = block.insert_operation_before(op, replacement);
    edit::replace_all_uses(result.into(), replacement.result(0).unwrap().into());
    // SAFETY: a math intrinsic (one result, no regions) whose result was
    // just replaced by the replacement's; `result` and `operands` are not
    // used again, and the caller (`lower`, over the distinct ops of
    // [`find`]'s walk) uses no handle to `op` afterwards.
    unsafe { edit::erase_operation(op) };
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
