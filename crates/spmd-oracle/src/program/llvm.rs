//! Decoding of the LLVM and NVVM dialects into the executor's tables.
//!
//! Everything type-dependent is resolved here, once: the layout of LLVM
//! types on NVPTX (64-bit pointers, natural alignment), so that
//! `llvm.getelementptr` becomes a constant byte offset plus scaled dynamic
//! indices ([`GepPlan`]) and `llvm.insertvalue`/`llvm.extractvalue` a range
//! of leaves of the flattened aggregate; the element type and address space
//! of every memory access ([`Access`]); the callee or intrinsic of a call.

use super::{
    decode_constant, element_type, int_attribute, int_predicate, overflow_flags, CastOp, FloatOp,
    GpuQuery, IntOp, IrCache, OpKind,
};
use crate::inline_ptx::AsmProgram;
use crate::intrinsics::NvvmOp;
use crate::memory::{AtomicKind, ElementType, Pointer};
use crate::rounding::{Arithmetic, Rounding};
use crate::value::{IntValue, Value, ValueType};
use melior::ir::{
    attribute::{
        AttributeLike, DenseI32ArrayAttribute, DenseI64ArrayAttribute, FlatSymbolRefAttribute,
        StringAttribute, TypeAttribute,
    },
    block::BlockLike,
    operation::OperationLike,
    r#type::{IntegerType, TypeLike},
    OperationRef, RegionLike, Type, ValueLike,
};

/// The element type and pointer address space of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    pub element: ElementType,
    pub space: u32,
}

/// `llvm.getelementptr` as arithmetic: the result is the base pointer plus
/// `constant` plus, for each `(operand, scale)`, the operand (an integer,
/// sign-extended) times `scale` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GepPlan {
    pub constant: i64,
    pub dynamic: Vec<(usize, i64)>,
    /// `inbounds`: a result outside the base's buffer is poison.
    pub inbounds: bool,
}

/// Integer intrinsics with one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntUnaryOp {
    Abs,
    CtPop,
    Ctlz,
    Cttz,
}

/// Float intrinsics with one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatUnaryOp {
    Abs,
    Floor,
    Ceil,
    Trunc,
    /// Half away from zero (`llvm.round`).
    Round,
    /// Half to even (`llvm.rint`, `llvm.nearbyint`, `llvm.roundeven`).
    RoundEven,
    Sqrt,
    /// `2^x` (`llvm.nvvm.ex2.approx.*`).
    Exp2,
    /// `log2 x` (`llvm.nvvm.lg2.approx.*`).
    Log2,
    /// `llvm.nvvm.sin.approx.f`.
    Sin,
    /// `llvm.nvvm.cos.approx.f`.
    Cos,
    /// `1 / sqrt x` (`llvm.nvvm.rsqrt.approx.*`).
    Rsqrt,
    /// `1 / x` (`llvm.nvvm.rcp.rn.*`).
    Recip,
    /// Clamped to `[0, 1]`, NaN to 0 (`llvm.nvvm.saturate.*`).
    Saturate,
}

impl FloatUnaryOp {
    /// The result for `value`, in the operand's precision (`f32` values
    /// are exact in `f64`, and each of these rounds once). The NVVM
    /// approximations (`ex2`, `lg2`, `sin`, `cos`, `rsqrt`) give the
    /// exact value rounded once, which the hardware approximates within
    /// its documented error.
    pub fn apply(self, value: f64) -> f64 {
        match self {
            Self::Abs => value.abs(),
            Self::Floor => value.floor(),
            Self::Ceil => value.ceil(),
            Self::Trunc => value.trunc(),
            Self::Round => value.round(),
            Self::RoundEven => value.round_ties_even(),
            Self::Sqrt => value.sqrt(),
            Self::Exp2 => value.exp2(),
            Self::Log2 => value.log2(),
            Self::Sin => value.sin(),
            Self::Cos => value.cos(),
            Self::Rsqrt => value.sqrt().recip(),
            Self::Recip => value.recip(),
            Self::Saturate if value.is_nan() => 0.0,
            Self::Saturate => value.clamp(0.0, 1.0),
        }
    }

    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "fabs" => Self::Abs,
            "floor" => Self::Floor,
            "ceil" => Self::Ceil,
            "trunc" => Self::Trunc,
            "round" => Self::Round,
            "rint" | "nearbyint" | "roundeven" => Self::RoundEven,
            "sqrt" => Self::Sqrt,
            _ => return None,
        })
    }
}

/// Poison-generating flags of `llvm.zext`/`uitofp` (`nneg`) and
/// `llvm.trunc` (`nsw`, `nuw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CastFlags {
    pub nneg: bool,
    pub nsw: bool,
    pub nuw: bool,
}

/// `nvvm.vote.sync` kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteKind {
    Any,
    All,
    Ballot,
    Uni,
}

/// `nvvm.shfl.sync` kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShuffleKind {
    Bfly,
    Up,
    Down,
    Idx,
}

/// Operations that only a warp can execute: collectives and barriers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarpOp {
    /// Operands: member mask, predicate.
    Vote(VoteKind),
    /// Operands: member mask, value, lane or offset, mask-and-clamp; with
    /// `with_flag` the result is `{value, i1 valid}`.
    Shuffle { kind: ShuffleKind, with_flag: bool },
    /// `llvm.nvvm.activemask`: the lanes executing it.
    ActiveMask,
    /// A CTA barrier; operands: the barrier id if `has_id`, then the thread
    /// count if `has_count`.
    Barrier { has_id: bool, has_count: bool },
    /// `nvvm.bar.warp.sync %mask`.
    WarpSync,
    /// `nvvm.redux.sync` on `i32`; operands: value, member mask.
    Redux(ReduxKind),
    /// `nvvm.match.sync` (`i32` or `i64` values); operands: member mask,
    /// value. `any` gives the `i32` mask of the members holding the lane's
    /// value; `all` gives `{i32 mask, i1 pred}`: the members and true if
    /// they all hold the same value, else 0 and false.
    Match { all: bool },
    /// AMDGPU's ballot (`rocdl.ballot`, `llvm.amdgcn.ballot.iN`); operand:
    /// the lane's `i1`. The result (an integer of any width) has bit `l`
    /// set iff lane `l` executes it and its operand is true.
    WaveBallot,
    /// `llvm.amdgcn.inverse.ballot.iN`; operand: a mask, the same in every
    /// executing lane. Lane `l` gets bit `l` of it.
    InverseBallot,
    /// `rocdl.readlane`, `llvm.amdgcn.readlane.*`; operands: value, lane
    /// (the same in every executing lane). The value in that lane.
    ReadLane,
    /// `rocdl.readfirstlane`, `llvm.amdgcn.readfirstlane.*`; operand: the
    /// value. The value in the lowest executing lane.
    ReadFirstLane,
}

/// `redux.sync` reductions of `i32` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduxKind {
    Add,
    And,
    Or,
    Xor,
    Min,
    Max,
    UMin,
    UMax,
}

impl ReduxKind {
    fn of(keyword: &str) -> Option<Self> {
        Some(match keyword {
            "add" => Self::Add,
            "and" => Self::And,
            "or" => Self::Or,
            "xor" => Self::Xor,
            "min" => Self::Min,
            "max" => Self::Max,
            "umin" => Self::UMin,
            "umax" => Self::UMax,
            _ => return None,
        })
    }

    /// Combines two values.
    pub fn combine(self, a: u32, b: u32) -> u32 {
        match self {
            Self::Add => a.wrapping_add(b),
            Self::And => a & b,
            Self::Or => a | b,
            Self::Xor => a ^ b,
            Self::Min => (a as i32).min(b as i32) as u32,
            Self::Max => (a as i32).max(b as i32) as u32,
            Self::UMin => a.min(b),
            Self::UMax => a.max(b),
        }
    }
}

/// A module global (`llvm.mlir.global`) as memory: `count` elements of
/// `element` in address space `space`, initially `init` (empty: zeros; one
/// value: a splat). `element` is `None` when the type or the initializer is
/// outside the subset (scalars and arrays of scalars; no initializer, an
/// `undef`/`poison`/`zero` initializer region, which read as zeros, or an
/// integer, float or rank-1 dense `value`); taking its address is then an
/// error.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Global {
    pub element: Option<ElementType>,
    pub count: u64,
    pub space: u32,
    pub init: Vec<Value>,
}

/// The memory layout of an LLVM type on NVPTX.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Layout {
    Scalar {
        size: u64,
        leaf: ValueType,
    },
    Struct {
        fields: Vec<(u64, Layout)>,
        size: u64,
        align: u64,
    },
    Array {
        element: Box<Layout>,
        count: u64,
    },
}

impl Layout {
    pub fn size(&self) -> u64 {
        match self {
            Self::Scalar { size, .. } | Self::Struct { size, .. } => *size,
            Self::Array { element, count } => element.size() * count,
        }
    }

    pub fn align(&self) -> u64 {
        match self {
            Self::Scalar { size, .. } => *size,
            Self::Struct { align, .. } => *align,
            Self::Array { element, .. } => element.align(),
        }
    }

    /// Number of scalar leaves.
    pub fn leaves(&self) -> usize {
        match self {
            Self::Scalar { .. } => 1,
            Self::Struct { fields, .. } => fields.iter().map(|(_, field)| field.leaves()).sum(),
            Self::Array { element, count } => element.leaves() * *count as usize,
        }
    }

    fn leaf_types(&self, out: &mut Vec<ValueType>) {
        match self {
            Self::Scalar { leaf, .. } => out.push(leaf.clone()),
            Self::Struct { fields, .. } => {
                fields.iter().for_each(|(_, field)| field.leaf_types(out))
            }
            Self::Array { element, count } => (0..*count).for_each(|_| element.leaf_types(out)),
        }
    }

    /// The leaves `(start, count)` of the member at `position`.
    fn member(&self, position: &[i64]) -> Option<(usize, usize)> {
        let mut current = self;
        let mut start = 0;
        for &index in position {
            let index = usize::try_from(index).ok()?;
            current = match current {
                Self::Struct { fields, .. } => {
                    start += fields
                        .get(..index)?
                        .iter()
                        .map(|(_, field)| field.leaves())
                        .sum::<usize>();
                    &fields.get(index)?.1
                }
                Self::Array { element, count } if (index as u64) < *count => {
                    start += index * element.leaves();
                    element
                }
                _ => return None,
            };
        }
        Some((start, current.leaves()))
    }

    /// The scalar element type of a scalar or (nested) array of scalars,
    /// and the number of elements. A struct whose leaves all have one
    /// scalar type and no padding (CUDA's `float4`, `int2`, ...) counts as
    /// an array of its leaves, so a buffer of such structs is a buffer of
    /// scalars that field accesses address.
    fn elements(&self) -> Option<(ElementType, u64)> {
        match self {
            Self::Scalar { leaf, .. } => Some((element_type(leaf)?, 1)),
            Self::Array { element, count } => element.elements().map(|(e, n)| (e, n * count)),
            Self::Struct { fields, size, .. } => {
                let mut element = None;
                let mut count = 0;
                for (_, field) in fields {
                    let (field_element, field_count) = field.elements()?;
                    if element.is_some_and(|element| element != field_element) {
                        return None;
                    }
                    element = Some(field_element);
                    count += field_count;
                }
                let element = element?;
                (*size == count * element.size_bytes()).then_some((element, count))
            }
        }
    }
}

fn align_to(offset: u64, align: u64) -> u64 {
    offset.div_ceil(align.max(1)) * align.max(1)
}

/// The address space of a pointer type.
pub(crate) fn pointer_space(r#type: Type) -> Option<u32> {
    spmd::testing::ir::llvm_pointer_space(r#type)
}

/// The layout of an LLVM-compatible type, if the executor models it.
pub(crate) fn layout(r#type: Type) -> Option<Layout> {
    let scalar = |size: u64, leaf: ValueType| Some(Layout::Scalar { size, leaf });
    if r#type.is_integer() {
        let width = IntegerType::try_from(r#type).ok()?.width();
        if !(1..=64).contains(&width) {
            return None;
        }
        return scalar(ElementType::Int(width).size_bytes(), ValueType::Int(width));
    }
    if r#type.is_f32() {
        return scalar(4, ValueType::F32);
    }
    if r#type.is_f64() {
        return scalar(8, ValueType::F64);
    }
    if let Some(space) = pointer_space(r#type) {
        return scalar(8, ValueType::Ptr(space));
    }
    if let Some((packed, field_types)) = spmd::testing::ir::llvm_struct_body(r#type) {
        let (mut fields, mut offset, mut align) = (Vec::new(), 0, 1);
        for field_type in field_types {
            let field = layout(field_type)?;
            let field_align = if packed { 1 } else { field.align() };
            offset = align_to(offset, field_align);
            align = align.max(field_align);
            let size = field.size();
            fields.push((offset, field));
            offset += size;
        }
        return Some(Layout::Struct {
            fields,
            size: align_to(offset, align),
            align,
        });
    }
    if let Some((element, count)) = spmd::testing::ir::llvm_array(r#type) {
        return Some(Layout::Array {
            element: Box::new(layout(element)?),
            count,
        });
    }
    None
}

/// The executor type of an LLVM pointer, struct or array type.
pub(crate) fn llvm_value_type(r#type: Type) -> Option<ValueType> {
    if let Some(space) = pointer_space(r#type) {
        return Some(ValueType::Ptr(space));
    }
    let layout = layout(r#type)?;
    if matches!(layout, Layout::Scalar { .. }) {
        return None;
    }
    let mut leaves = Vec::new();
    layout.leaf_types(&mut leaves);
    Some(ValueType::Aggregate(leaves))
}

/// A module global, from its `llvm.mlir.global` op.
pub(crate) fn global(op: OperationRef) -> Global {
    let space = int_attribute(op, "addr_space").unwrap_or(0) as u32;
    let layout = op
        .attribute("global_type")
        .ok()
        .and_then(|attribute| TypeAttribute::try_from(attribute).ok())
        .and_then(|attribute| layout(attribute.value()));
    let elements = layout.and_then(|layout| layout.elements());
    let init = elements.and_then(|(element, count)| initial_values(op, element, count));
    let supported = elements.filter(|_| init.is_some());
    Global {
        element: supported.map(|(element, _)| element),
        count: supported.map_or(0, |(_, count)| count),
        space,
        init: init.unwrap_or_default(),
    }
}

/// The initial elements of a global (see [`Global`]), `None` if outside
/// the subset.
fn initial_values(op: OperationRef, element: ElementType, count: u64) -> Option<Vec<Value>> {
    let element_value = |attribute: melior::ir::Attribute| -> Option<Value> {
        if attribute.is_integer() {
            let bits = melior::ir::attribute::IntegerAttribute::try_from(attribute)
                .ok()?
                .value() as u64;
            match element {
                ElementType::Int(width) => Some(Value::Int(IntValue::wrap(width, bits))),
                _ => None,
            }
        } else if attribute.is_float() {
            let value = melior::ir::attribute::FloatAttribute::try_from(attribute)
                .ok()?
                .value();
            match element {
                ElementType::F32 => Some(Value::F32(value as f32)),
                ElementType::F64 => Some(Value::F64(value)),
                _ => None,
            }
        } else {
            None
        }
    };
    if let Ok(value) = op.attribute("value") {
        if let Some((splat, rank)) = spmd::testing::ir::dense_elements_shape(value) {
            if !splat && rank != 1 {
                return None;
            }
            let positions = if splat { 1 } else { count };
            return (0..positions)
                .map(|index| {
                    super::elements_attribute_value(value, index as usize).and_then(element_value)
                })
                .collect();
        }
        return element_value(value).map(|value| vec![value]);
    }
    let Some(block) = op.region(0).ok().and_then(|region| region.first_block()) else {
        return Some(Vec::new());
    };
    // An initializer region: only `undef`/`poison`/`zero` and the return.
    let mut next = block.first_operation();
    while let Some(inner) = next {
        let name = super::op_name(inner);
        if !matches!(
            name.as_str(),
            "llvm.mlir.undef" | "llvm.mlir.poison" | "llvm.mlir.zero" | "llvm.return"
        ) {
            return None;
        }
        next = inner.next_in_block();
    }
    Some(Vec::new())
}

fn operand_type<'c>(op: OperationRef<'c, '_>, index: usize) -> Option<Type<'c>> {
    op.operand(index).ok().map(|operand| operand.r#type())
}

fn access(element: &ValueType, pointer: Option<Type>) -> Option<Access> {
    Some(Access {
        element: element_type(element)?,
        space: pointer_space(pointer?)?,
    })
}

fn has_attribute(op: OperationRef, name: &str) -> bool {
    op.attribute(name).is_ok()
}

/// The op's properties as the generic form prints them (`<{...}>`).
///
/// Some LLVM-dialect properties are not attributes (`overflowFlags` of
/// `llvm.add`, `noWrapFlags` of `llvm.getelementptr`), so the C API cannot
/// read them by name; their printed form can.
fn properties_text(op: OperationRef) -> String {
    spmd::testing::ir::properties_text(op)
}

/// The integer value of property `name` in [`properties_text`] (the
/// generic form prints flag enums as `name = 3 : i32`); 0 if absent.
fn property_bits(op: OperationRef, name: &str) -> u64 {
    let text = properties_text(op);
    text.split(&format!("{name} = "))
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// The `nsw`/`nuw` of an LLVM op's `overflowFlags` property (LLVM's
/// `IntegerOverflowFlags`: nsw = 1, nuw = 2).
fn llvm_overflow_flags(op: OperationRef) -> (bool, bool) {
    let bits = property_bits(op, "overflowFlags");
    (bits & 1 != 0, bits & 2 != 0)
}

fn i64_array(op: OperationRef, name: &str) -> Option<Vec<i64>> {
    let array = DenseI64ArrayAttribute::try_from(op.attribute(name).ok()?).ok()?;
    (0..array.len())
        .map(|index| array.element(index).ok())
        .collect()
}

fn i32_array(op: OperationRef, name: &str) -> Option<Vec<i32>> {
    let array = DenseI32ArrayAttribute::try_from(op.attribute(name).ok()?).ok()?;
    (0..array.len())
        .map(|index| array.element(index).ok())
        .collect()
}

/// The last word of an enum attribute's spelling (`#nvvm<shfl_kind bfly>`).
fn enum_keyword(op: OperationRef, name: &str, cache: &mut IrCache) -> Option<String> {
    let text = cache.attribute_text(op.attribute(name).ok()?);
    let inner = text.trim_end_matches('>');
    Some(inner.rsplit([' ', '<', '.']).next()?.to_string())
}

/// The kind of an `llvm.*` or `nvvm.*` operation, or `None` if it is not
/// one the executor knows.
pub(super) fn decode(
    op: OperationRef,
    name: &str,
    result_type: &ValueType,
    cache: &mut IrCache,
) -> Option<OpKind> {
    if let Some(register) = name.strip_prefix("nvvm.read.ptx.sreg.") {
        return Some(special_register(register).map_or(OpKind::Unsupported, OpKind::Gpu));
    }
    if let Some(int_op) = llvm_int_op(name) {
        let mut flags = overflow_flags(op, cache);
        if matches!(int_op, IntOp::Add | IntOp::Sub | IntOp::Mul | IntOp::Shl)
            && !name.starts_with("llvm.intr.")
        {
            (flags.nsw, flags.nuw) = llvm_overflow_flags(op);
        }
        flags.exact = has_attribute(op, "isExact");
        flags.disjoint = has_attribute(op, "isDisjoint");
        return Some(OpKind::Int(int_op, flags));
    }
    if let Some(float_op) = llvm_float_op(name) {
        return Some(OpKind::Float(float_op));
    }
    if let Some(unary) = name.strip_prefix("llvm.intr.").and_then(FloatUnaryOp::of) {
        return Some(OpKind::FloatUnary(unary));
    }
    if let Some(cast) = llvm_cast_op(name) {
        let flags = CastFlags {
            nneg: has_attribute(op, "nonNeg"),
            ..CastFlags::default()
        };
        let flags = if cast == CastOp::Trunc {
            let (nsw, nuw) = llvm_overflow_flags(op);
            CastFlags { nsw, nuw, ..flags }
        } else {
            flags
        };
        return Some(if flags == CastFlags::default() {
            OpKind::Cast(cast)
        } else {
            OpKind::CastChecked(cast, flags)
        });
    }
    Some(match name {
        "llvm.mlir.constant" => decode_constant(op, result_type),
        "llvm.mlir.poison" | "llvm.mlir.undef" => OpKind::Poison,
        "llvm.mlir.zero" => zero(result_type),
        "llvm.icmp" => int_attribute(op, "predicate")
            .and_then(int_predicate)
            .map_or(OpKind::Unsupported, OpKind::CompareInt),
        "llvm.fcmp" => int_attribute(op, "predicate")
            .filter(|predicate| (0..=15).contains(predicate))
            .map_or(OpKind::Unsupported, |predicate| {
                OpKind::CompareFloat(predicate as u8)
            }),
        "llvm.select" => OpKind::Select,
        "llvm.fneg" => OpKind::NegF,
        "llvm.freeze" => OpKind::Freeze,
        "llvm.intr.abs" => {
            OpKind::IntUnary(IntUnaryOp::Abs, flag_attribute(op, "is_int_min_poison"))
        }
        "llvm.intr.ctlz" => {
            OpKind::IntUnary(IntUnaryOp::Ctlz, flag_attribute(op, "is_zero_poison"))
        }
        "llvm.intr.cttz" => {
            OpKind::IntUnary(IntUnaryOp::Cttz, flag_attribute(op, "is_zero_poison"))
        }
        "llvm.intr.ctpop" => OpKind::IntUnary(IntUnaryOp::CtPop, Some(false)),
        "llvm.intr.bitreverse" => OpKind::Nvvm(NvvmOp::BitReverse),
        "llvm.intr.fshl" => OpKind::Nvvm(NvvmOp::FunnelShift { left: true }),
        "llvm.intr.fshr" => OpKind::Nvvm(NvvmOp::FunnelShift { left: false }),
        "llvm.intr.is.fpclass" => int_attribute(op, "bit").map_or(OpKind::Unsupported, |mask| {
            OpKind::Nvvm(NvvmOp::IsFpClass(mask as u32))
        }),
        "llvm.intr.fma" | "llvm.intr.fmuladd" => OpKind::Fma,
        // Memory is sequentially consistent: fences change nothing.
        "llvm.intr.lifetime.start"
        | "llvm.intr.lifetime.end"
        | "llvm.intr.assume"
        | "llvm.fence" => OpKind::Marker,
        "llvm.insertvalue" | "llvm.extractvalue" => aggregate_member(op, name),
        "llvm.getelementptr" => {
            gep(op).map_or(OpKind::Unsupported, |plan| OpKind::Gep(Box::new(plan)))
        }
        "llvm.load" => {
            access(result_type, operand_type(op, 0)).map_or(OpKind::Unsupported, OpKind::PtrLoad)
        }
        "llvm.store" => operand_type(op, 0)
            .map(|r#type| cache.value_type(r#type))
            .and_then(|value| access(&value, operand_type(op, 1)))
            .map_or(OpKind::Unsupported, OpKind::PtrStore),
        "llvm.atomicrmw" => match (
            int_attribute(op, "bin_op").and_then(atomic_bin_op),
            access(result_type, operand_type(op, 0)),
        ) {
            (Some(kind), Some(access)) => OpKind::PtrAtomic(kind, access),
            _ => OpKind::Unsupported,
        },
        "llvm.cmpxchg" => operand_type(op, 1)
            .map(|r#type| cache.value_type(r#type))
            .and_then(|value| access(&value, operand_type(op, 0)))
            .map_or(OpKind::Unsupported, OpKind::CmpXchg),
        "llvm.alloca" => alloca(op, result_type),
        "llvm.mlir.addressof" => op
            .attribute("global_name")
            .ok()
            .and_then(|attribute| FlatSymbolRefAttribute::try_from(attribute).ok())
            .map_or(OpKind::Unsupported, |global| OpKind::AddressOf {
                global: global.value().to_string(),
                target: None,
            }),
        "llvm.ptrtoint" => OpKind::PtrToInt,
        "llvm.inttoptr" => OpKind::IntToPtr,
        "llvm.addrspacecast" => match result_type {
            ValueType::Ptr(space) => OpKind::AddrSpaceCast(*space),
            _ => OpKind::Unsupported,
        },
        "llvm.call" => match op
            .attribute("callee")
            .ok()
            .and_then(|attribute| FlatSymbolRefAttribute::try_from(attribute).ok())
        {
            Some(callee) if callee.value().starts_with("llvm.") => {
                intrinsic(callee.value(), op.operand_count())
            }
            Some(callee) => OpKind::Call {
                callee: callee.value().to_string(),
                target: None,
            },
            None => OpKind::Unsupported,
        },
        "llvm.call_intrinsic" => op
            .attribute("intrin")
            .ok()
            .and_then(|attribute| StringAttribute::try_from(attribute).ok())
            .map_or(OpKind::Unsupported, |name| {
                intrinsic(name.value(), op.operand_count())
            }),
        "nvvm.vote.sync" => match enum_keyword(op, "kind", cache).as_deref() {
            Some("any") => OpKind::Warp(WarpOp::Vote(VoteKind::Any)),
            Some("all") => OpKind::Warp(WarpOp::Vote(VoteKind::All)),
            Some("ballot") => OpKind::Warp(WarpOp::Vote(VoteKind::Ballot)),
            Some("uni") => OpKind::Warp(WarpOp::Vote(VoteKind::Uni)),
            _ => OpKind::Unsupported,
        },
        "nvvm.shfl.sync" => match enum_keyword(op, "kind", cache)
            .as_deref()
            .and_then(shuffle_kind)
        {
            Some(kind) => OpKind::Warp(WarpOp::Shuffle {
                kind,
                with_flag: has_attribute(op, "return_value_and_is_valid"),
            }),
            None => OpKind::Unsupported,
        },
        "nvvm.barrier0" => OpKind::Warp(WarpOp::Barrier {
            has_id: false,
            has_count: false,
        }),
        "nvvm.barrier" => {
            let segments = i32_array(op, "operandSegmentSizes").unwrap_or_default();
            if has_attribute(op, "reductionOp") || segments.get(2).is_some_and(|&n| n > 0) {
                OpKind::Unsupported
            } else {
                OpKind::Warp(WarpOp::Barrier {
                    has_id: segments.first().is_some_and(|&n| n > 0),
                    has_count: segments.get(1).is_some_and(|&n| n > 0),
                })
            }
        }
        "nvvm.bar.warp.sync" => OpKind::Warp(WarpOp::WarpSync),
        "nvvm.redux.sync" => match enum_keyword(op, "kind", cache)
            .as_deref()
            .and_then(ReduxKind::of)
        {
            Some(kind) if *result_type == ValueType::Int(32) => OpKind::Warp(WarpOp::Redux(kind)),
            _ => OpKind::Unsupported,
        },
        "nvvm.match.sync" => match enum_keyword(op, "kind", cache).as_deref() {
            Some("any") => OpKind::Warp(WarpOp::Match { all: false }),
            Some("all") => OpKind::Warp(WarpOp::Match { all: true }),
            _ => OpKind::Unsupported,
        },
        "llvm.inline_asm" => inline_asm(op),
        _ => return None,
    })
}

/// `llvm.inline_asm`: `activemask.b32 $0;` (how clang's CUDA header
/// spells `__activemask()`) with no operands is the warp's active mask;
/// other PTX runs on the [`AsmProgram`] interpreter if it parses (an
/// [`OpKind::UnsupportedIntrinsic`] naming the reason otherwise).
fn inline_asm(op: OperationRef) -> OpKind {
    let string = |name: &str| {
        op.attribute(name)
            .ok()
            .and_then(|attribute| StringAttribute::try_from(attribute).ok())
            .map(|text| text.value().to_string())
    };
    let Some(text) = string("asm_string") else {
        return OpKind::Unsupported;
    };
    if text.trim().trim_end_matches(';').trim() == "activemask.b32 $0" && op.operand_count() == 0 {
        return OpKind::Warp(WarpOp::ActiveMask);
    }
    let constraints = string("constraints").unwrap_or_default();
    match AsmProgram::parse(&text, &constraints) {
        Ok(program) if program.inputs() == op.operand_count() => {
            OpKind::Nvvm(NvvmOp::InlinePtx(Box::new(program)))
        }
        Ok(program) => OpKind::UnsupportedIntrinsic(format!(
            "inline PTX with {} inputs and {} operands",
            program.inputs(),
            op.operand_count()
        )),
        Err(reason) => OpKind::UnsupportedIntrinsic(format!("inline PTX {reason}")),
    }
}

/// A boolean attribute; `None` (read operand 1 at run time) if absent.
fn flag_attribute(op: OperationRef, name: &str) -> Option<bool> {
    int_attribute(op, name).map(|flag| flag != 0)
}

fn zero(result_type: &ValueType) -> OpKind {
    match result_type {
        ValueType::Int(_) | ValueType::Index => result_type
            .int_value(0)
            .map_or(OpKind::Unsupported, OpKind::Constant),
        ValueType::F32 => OpKind::Constant(Value::F32(0.0)),
        ValueType::F64 => OpKind::Constant(Value::F64(0.0)),
        ValueType::Ptr(_) => OpKind::Constant(Value::Ptr(Pointer::NULL)),
        ValueType::Aggregate(_) => OpKind::ZeroAggregate,
        _ => OpKind::Unsupported,
    }
}

fn aggregate_member(op: OperationRef, name: &str) -> OpKind {
    let Some(position) = i64_array(op, "position") else {
        return OpKind::Unsupported;
    };
    let container = operand_type(op, 0).and_then(layout);
    match container.and_then(|layout| layout.member(&position)) {
        Some((start, count)) if name == "llvm.insertvalue" => OpKind::InsertValue { start, count },
        Some((start, count)) => OpKind::ExtractValue { start, count },
        None => OpKind::Unsupported,
    }
}

fn gep(op: OperationRef) -> Option<GepPlan> {
    let raw = i32_array(op, "rawConstantIndices")?;
    let element = TypeAttribute::try_from(op.attribute("elem_type").ok()?)
        .ok()?
        .value();
    let mut current = layout(element)?;
    let mut plan = GepPlan {
        constant: 0,
        dynamic: Vec::new(),
        // `GEPNoWrapFlags`: inbounds = 1 (with nusw = 2), nuw = 4.
        inbounds: property_bits(op, "noWrapFlags") & 1 != 0,
    };
    let mut next_operand = 1;
    for (position, &index) in raw.iter().enumerate() {
        let dynamic = index == i32::MIN;
        let (scale, next) = if position == 0 {
            (current.size() as i64, current.clone())
        } else {
            match &current {
                Layout::Array { element, .. } => (element.size() as i64, (**element).clone()),
                Layout::Struct { fields, .. } if !dynamic => {
                    let (offset, field) = fields.get(usize::try_from(index).ok()?)?;
                    plan.constant += *offset as i64;
                    current = field.clone();
                    continue;
                }
                _ => return None,
            }
        };
        if dynamic {
            plan.dynamic.push((next_operand, scale));
            next_operand += 1;
        } else {
            plan.constant += i64::from(index) * scale;
        }
        current = next;
    }
    (next_operand == op.operand_count()).then_some(plan)
}

fn alloca(op: OperationRef, result_type: &ValueType) -> OpKind {
    let element = op
        .attribute("elem_type")
        .ok()
        .and_then(|attribute| TypeAttribute::try_from(attribute).ok())
        .and_then(|attribute| layout(attribute.value()))
        .and_then(|layout| layout.elements());
    match (element, result_type) {
        (Some((element, per_item)), ValueType::Ptr(space)) => OpKind::PtrAlloca {
            element,
            per_item,
            space: *space,
        },
        _ => OpKind::Unsupported,
    }
}

fn llvm_int_op(name: &str) -> Option<IntOp> {
    Some(match name {
        "llvm.add" => IntOp::Add,
        "llvm.sub" => IntOp::Sub,
        "llvm.mul" => IntOp::Mul,
        "llvm.udiv" => IntOp::DivU,
        "llvm.sdiv" => IntOp::DivS,
        "llvm.urem" => IntOp::RemU,
        "llvm.srem" => IntOp::RemS,
        "llvm.and" => IntOp::And,
        "llvm.or" => IntOp::Or,
        "llvm.xor" => IntOp::Xor,
        "llvm.shl" => IntOp::Shl,
        "llvm.lshr" => IntOp::ShrU,
        "llvm.ashr" => IntOp::ShrS,
        "llvm.intr.smin" => IntOp::MinS,
        "llvm.intr.smax" => IntOp::MaxS,
        "llvm.intr.umin" => IntOp::MinU,
        "llvm.intr.umax" => IntOp::MaxU,
        _ => return None,
    })
}

fn llvm_float_op(name: &str) -> Option<FloatOp> {
    Some(match name {
        "llvm.fadd" => FloatOp::Add,
        "llvm.fsub" => FloatOp::Sub,
        "llvm.fmul" => FloatOp::Mul,
        "llvm.fdiv" => FloatOp::Div,
        "llvm.frem" => FloatOp::Rem,
        "llvm.intr.maximum" => FloatOp::Maximum,
        "llvm.intr.minimum" => FloatOp::Minimum,
        "llvm.intr.maxnum" => FloatOp::MaxNum,
        "llvm.intr.minnum" => FloatOp::MinNum,
        "llvm.intr.copysign" => FloatOp::CopySign,
        _ => return None,
    })
}

fn llvm_cast_op(name: &str) -> Option<CastOp> {
    Some(match name {
        "llvm.sext" => CastOp::ExtS,
        "llvm.zext" => CastOp::ExtU,
        "llvm.trunc" => CastOp::Trunc,
        "llvm.sitofp" => CastOp::SIToFP,
        "llvm.uitofp" => CastOp::UIToFP,
        "llvm.fptosi" => CastOp::FPToSI,
        "llvm.fptoui" => CastOp::FPToUI,
        "llvm.fpext" => CastOp::ExtF,
        "llvm.fptrunc" => CastOp::TruncF,
        "llvm.bitcast" => CastOp::Bitcast,
        _ => return None,
    })
}

/// `LLVM::AtomicBinOp` numbering of MLIR 22.
fn atomic_bin_op(kind: i64) -> Option<AtomicKind> {
    Some(match kind {
        0 => AtomicKind::Assign,
        1 => AtomicKind::AddI,
        2 => AtomicKind::SubI,
        3 => AtomicKind::AndI,
        4 => AtomicKind::NandI,
        5 => AtomicKind::OrI,
        6 => AtomicKind::XorI,
        7 => AtomicKind::MaxS,
        8 => AtomicKind::MinS,
        9 => AtomicKind::MaxU,
        10 => AtomicKind::MinU,
        11 => AtomicKind::AddF,
        12 => AtomicKind::SubF,
        13 => AtomicKind::MaxF,
        14 => AtomicKind::MinF,
        15 => AtomicKind::IncWrapU,
        16 => AtomicKind::DecWrapU,
        _ => return None,
    })
}

fn shuffle_kind(keyword: &str) -> Option<ShuffleKind> {
    Some(match keyword {
        "bfly" => ShuffleKind::Bfly,
        "up" => ShuffleKind::Up,
        "down" => ShuffleKind::Down,
        "idx" => ShuffleKind::Idx,
        _ => return None,
    })
}

/// `tid.x`, `laneid`, ... (the part after `read.ptx.sreg.`).
pub(crate) fn special_register(register: &str) -> Option<GpuQuery> {
    let dimension = |suffix: &str| match suffix {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    if let Some((base, suffix)) = register.split_once('.') {
        if base == "lanemask" {
            return Some(GpuQuery::LaneMask(match suffix {
                "eq" => LaneMaskKind::Eq,
                "lt" => LaneMaskKind::Lt,
                "le" => LaneMaskKind::Le,
                "gt" => LaneMaskKind::Gt,
                "ge" => LaneMaskKind::Ge,
                _ => return None,
            }));
        }
        let d = dimension(suffix)?;
        return Some(match base {
            "tid" => GpuQuery::ThreadId(d),
            "ntid" => GpuQuery::BlockDim(d),
            "ctaid" => GpuQuery::BlockId(d),
            "nctaid" => GpuQuery::GridDim(d),
            _ => return None,
        });
    }
    Some(match register {
        "laneid" => GpuQuery::LaneId,
        "warpsize" => GpuQuery::SubgroupSize,
        "warpid" => GpuQuery::SubgroupId,
        _ => return None,
    })
}

/// `%lanemask_*` registers: the lanes below, at, above the thread's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneMaskKind {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl LaneMaskKind {
    /// The mask for lane `lane` (of 32).
    pub fn mask(self, lane: u32) -> u32 {
        let bit = 1u64 << lane.min(32);
        let below = (bit - 1) as u32;
        let at = bit as u32;
        match self {
            Self::Eq => at,
            Self::Lt => below,
            Self::Le => below | at,
            Self::Gt => !(below | at),
            Self::Ge => !below,
        }
    }
}

/// An intrinsic called by name (`llvm.call_intrinsic`, or `llvm.call` of a
/// declared `llvm.*` function) with `operands` operands.
fn intrinsic(name: &str, operands: usize) -> OpKind {
    let kind = intrinsic_kind(name, operands);
    let expected = match &kind {
        OpKind::Gpu(_) | OpKind::Warp(WarpOp::ActiveMask) => 0..=0,
        OpKind::Warp(WarpOp::Barrier { has_id, has_count }) => {
            let count = usize::from(*has_id) + usize::from(*has_count);
            count..=count
        }
        OpKind::Warp(
            WarpOp::WarpSync | WarpOp::WaveBallot | WarpOp::InverseBallot | WarpOp::ReadFirstLane,
        )
        | OpKind::FloatUnary(_)
        | OpKind::IntUnary(_, Some(_)) => 1..=1,
        OpKind::Warp(WarpOp::ReadLane) | OpKind::Mbcnt { .. } => 2..=2,
        OpKind::IntUnary(_, None) => 1..=2,
        OpKind::Warp(WarpOp::Vote(_) | WarpOp::Redux(_) | WarpOp::Match { .. })
        | OpKind::Int(..)
        | OpKind::Float(_) => 2..=2,
        OpKind::Fma => 3..=3,
        OpKind::Nvvm(nvvm) => nvvm.arity()..=nvvm.arity(),
        OpKind::Warp(WarpOp::Shuffle { .. }) => 4..=4,
        _ => 0..=usize::MAX,
    };
    match kind {
        // Without its flag operand, `abs`/`ctlz`/`cttz` never give poison.
        OpKind::IntUnary(unary, None) if operands == 1 => OpKind::IntUnary(unary, Some(false)),
        kind if expected.contains(&operands) => kind,
        _ => OpKind::UnsupportedIntrinsic(name.to_string()),
    }
}

/// The kind of intrinsic `name`, before its arity is checked.
fn intrinsic_kind(name: &str, operands: usize) -> OpKind {
    if let Some(kind) = super::rocdl::intrinsic_kind(name) {
        return kind;
    }
    if let Some(register) = name.strip_prefix("llvm.nvvm.read.ptx.sreg.") {
        return special_register(register).map_or_else(
            || OpKind::UnsupportedIntrinsic(name.to_string()),
            OpKind::Gpu,
        );
    }
    if let Some(kind) = nvvm_math(name) {
        return kind;
    }
    let warp = |op| OpKind::Warp(op);
    match name {
        "llvm.nvvm.activemask" => return warp(WarpOp::ActiveMask),
        "llvm.nvvm.barrier0" => {
            return warp(WarpOp::Barrier {
                has_id: false,
                has_count: false,
            })
        }
        "llvm.nvvm.barrier.cta.sync.aligned.all"
        | "llvm.nvvm.barrier.cta.sync.all"
        | "llvm.nvvm.barrier.sync" => {
            return warp(WarpOp::Barrier {
                has_id: operands >= 1,
                has_count: false,
            })
        }
        "llvm.nvvm.barrier.cta.sync.aligned.count"
        | "llvm.nvvm.barrier.cta.sync.count"
        | "llvm.nvvm.barrier.sync.cnt" => {
            return warp(WarpOp::Barrier {
                has_id: true,
                has_count: true,
            })
        }
        "llvm.nvvm.bar.warp.sync" => return warp(WarpOp::WarpSync),
        "llvm.nvvm.vote.any.sync" => return warp(WarpOp::Vote(VoteKind::Any)),
        "llvm.nvvm.vote.all.sync" => return warp(WarpOp::Vote(VoteKind::All)),
        "llvm.nvvm.vote.uni.sync" => return warp(WarpOp::Vote(VoteKind::Uni)),
        "llvm.nvvm.vote.ballot.sync" => return warp(WarpOp::Vote(VoteKind::Ballot)),
        "llvm.nvvm.match.any.sync.i32" | "llvm.nvvm.match.any.sync.i64" => {
            return warp(WarpOp::Match { all: false })
        }
        "llvm.nvvm.match.all.sync.i32p" | "llvm.nvvm.match.all.sync.i64p" => {
            return warp(WarpOp::Match { all: true })
        }
        _ => {}
    }
    if let Some(kind) = name
        .strip_prefix("llvm.nvvm.redux.sync.")
        .and_then(ReduxKind::of)
    {
        return warp(WarpOp::Redux(kind));
    }
    if let Some(rest) = name.strip_prefix("llvm.nvvm.shfl.sync.") {
        let mut parts = rest.split('.');
        let kind = parts.next().and_then(shuffle_kind);
        let with_flag = parts.next().is_some_and(|ty| ty.ends_with('p'));
        return kind.map_or_else(
            || OpKind::UnsupportedIntrinsic(name.to_string()),
            |kind| warp(WarpOp::Shuffle { kind, with_flag }),
        );
    }
    // Overloaded generic intrinsics: `llvm.smax.i32`, `llvm.fabs.f32`, ...
    let base = name
        .strip_prefix("llvm.")
        .and_then(|rest| rest.split('.').next());
    match base {
        Some("smin") => OpKind::Int(IntOp::MinS, Default::default()),
        Some("smax") => OpKind::Int(IntOp::MaxS, Default::default()),
        Some("umin") => OpKind::Int(IntOp::MinU, Default::default()),
        Some("umax") => OpKind::Int(IntOp::MaxU, Default::default()),
        Some("abs") => OpKind::IntUnary(IntUnaryOp::Abs, None),
        Some("ctlz") => OpKind::IntUnary(IntUnaryOp::Ctlz, None),
        Some("cttz") => OpKind::IntUnary(IntUnaryOp::Cttz, None),
        Some("ctpop") => OpKind::IntUnary(IntUnaryOp::CtPop, Some(false)),
        Some("minnum") => OpKind::Float(FloatOp::MinNum),
        Some("copysign") => OpKind::Float(FloatOp::CopySign),
        Some("fma" | "fmuladd") => OpKind::Fma,
        Some("bitreverse") => OpKind::Nvvm(NvvmOp::BitReverse),
        Some("fshl") => OpKind::Nvvm(NvvmOp::FunnelShift { left: true }),
        Some("fshr") => OpKind::Nvvm(NvvmOp::FunnelShift { left: false }),
        Some("lifetime" | "assume") => OpKind::Marker,
        Some(other) if FloatUnaryOp::of(other).is_some() => {
            OpKind::FloatUnary(FloatUnaryOp::of(other).expect("checked"))
        }
        Some("maxnum") => OpKind::Float(FloatOp::MaxNum),
        Some("minimum") => OpKind::Float(FloatOp::Minimum),
        Some("maximum") => OpKind::Float(FloatOp::Maximum),
        _ => OpKind::UnsupportedIntrinsic(name.to_string()),
    }
}

/// The NVVM float intrinsics of clang's CUDA builtins (the `__` fast math
/// of `spmd_cuda.h`, and what its `-O2` makes of `sqrtf`, `exp2f`, ...),
/// in their IEEE (non-`ftz`) spellings, and the fences and `nanosleep`,
/// which change nothing in a sequentially consistent memory and are
/// [`OpKind::Marker`]s. `None` for any other name.
fn nvvm_math(name: &str) -> Option<OpKind> {
    let rest = name.strip_prefix("llvm.nvvm.")?;
    let unary = |op| Some(OpKind::FloatUnary(op));
    let binary = |op| Some(OpKind::Float(op));
    match rest {
        "ex2.approx.f32" | "ex2.approx.f" | "ex2.approx.d" => unary(FloatUnaryOp::Exp2),
        "lg2.approx.f" | "lg2.approx.d" => unary(FloatUnaryOp::Log2),
        "sin.approx.f" => unary(FloatUnaryOp::Sin),
        "cos.approx.f" => unary(FloatUnaryOp::Cos),
        "rsqrt.approx.f" | "rsqrt.approx.d" => unary(FloatUnaryOp::Rsqrt),
        "sqrt.rn.f" | "sqrt.rn.d" | "sqrt.f" | "sqrt.approx.f" => unary(FloatUnaryOp::Sqrt),
        "rcp.rn.f" | "rcp.rn.d" => unary(FloatUnaryOp::Recip),
        "saturate.f" | "saturate.d" => unary(FloatUnaryOp::Saturate),
        "fabs.f" | "fabs.d" => unary(FloatUnaryOp::Abs),
        "add.rn.f" | "add.rn.d" => binary(FloatOp::Add),
        "mul.rn.f" | "mul.rn.d" => binary(FloatOp::Mul),
        "div.rn.f" | "div.rn.d" | "div.approx.f" | "div.full" => binary(FloatOp::Div),
        "fmin.f" | "fmin.d" => binary(FloatOp::MinNum),
        "fmax.f" | "fmax.d" => binary(FloatOp::MaxNum),
        "fabs.f32" | "fabs.f64" => unary(FloatUnaryOp::Abs),
        "floor.f" | "floor.d" => unary(FloatUnaryOp::Floor),
        "ceil.f" | "ceil.d" => unary(FloatUnaryOp::Ceil),
        "trunc.f" | "trunc.d" => unary(FloatUnaryOp::Trunc),
        // `cvt.rni`: to nearest, ties to even.
        "round.f" | "round.d" => unary(FloatUnaryOp::RoundEven),
        "rcp.approx.f" | "rcp.approx.d" => unary(FloatUnaryOp::Recip),
        "membar.cta" | "membar.gl" | "membar.sys" | "nanosleep" => Some(OpKind::Marker),
        _ => nvvm_op(rest).map(OpKind::Nvvm),
    }
}

/// The [`NvvmOp`] of an NVVM intrinsic name (without `llvm.nvvm.`): the
/// `.ftz` forms of the [`FloatUnaryOp`]s, arithmetic with a rounding mode
/// (or `.ftz`), the conversions `{f,d,i,ui,ll,ull}2{i,ui,ll,ull,f,d}` with
/// one, and the bit-level helpers. `None` for any other name.
fn nvvm_op(rest: &str) -> Option<NvvmOp> {
    let parts: Vec<&str> = rest.split('.').collect();
    let flush = parts.contains(&"ftz");
    let rounding = parts.iter().find_map(|part| Rounding::of(part));
    let signed_int = |name: &str| matches!(name, "i" | "ll" | "s");
    match (parts[0], parts.get(1).copied()) {
        ("d2i", Some(half @ ("hi" | "lo"))) => {
            return Some(NvvmOp::DoubleHalf { high: half == "hi" })
        }
        ("lohi", Some("i2d")) => return Some(NvvmOp::JoinDouble),
        ("mulhi", Some(kind @ ("i" | "ui" | "ll" | "ull"))) => {
            return Some(NvvmOp::MulHi {
                signed: signed_int(kind),
            })
        }
        ("sad", Some(kind @ ("i" | "ui" | "ll" | "ull" | "s" | "us"))) => {
            return Some(NvvmOp::Sad {
                signed: signed_int(kind),
            })
        }
        ("prmt", None) => return Some(NvvmOp::Permute),
        _ => {}
    }
    let float = |name: &str| matches!(name, "f" | "d");
    let int = |name: &str| matches!(name, "i" | "ui" | "ll" | "ull");
    let conversion = parts[0]
        .split_once('2')
        .filter(|&(from, to)| (float(from) || int(from)) && (float(to) || int(to)));
    if let Some((from, to)) = conversion {
        let rounding = rounding?;
        return match (from, to) {
            ("d", "f") => Some(NvvmOp::NarrowToSingle { rounding, flush }),
            (from, to) if float(from) && int(to) => Some(NvvmOp::FloatToInt {
                rounding,
                signed: signed_int(to),
                flush,
            }),
            (from, to) if int(from) && float(to) && !flush => Some(NvvmOp::IntToFloat {
                rounding,
                signed: signed_int(from),
            }),
            _ => None,
        };
    }
    let precision = parts.last().copied();
    if !matches!(precision, Some("f" | "d" | "f32" | "f64")) {
        return None;
    }
    let arithmetic = match parts[0] {
        "add" => Some(Arithmetic::Add),
        "mul" => Some(Arithmetic::Mul),
        "div" => Some(Arithmetic::Div),
        "fma" => Some(Arithmetic::Fma),
        "sqrt" => Some(Arithmetic::Sqrt),
        "rcp" => Some(Arithmetic::Rcp),
        _ => None,
    };
    match (arithmetic, rounding) {
        (Some(arithmetic), Some(rounding)) => {
            return Some(NvvmOp::Rounded {
                arithmetic,
                rounding,
                flush,
            })
        }
        (Some(Arithmetic::Div), None) if flush && parts.contains(&"approx") => {
            return Some(NvvmOp::Rounded {
                arithmetic: Arithmetic::Div,
                rounding: Rounding::NearestEven,
                flush,
            })
        }
        _ => {}
    }
    let unary = match parts[0] {
        "ex2" => FloatUnaryOp::Exp2,
        "lg2" => FloatUnaryOp::Log2,
        "sin" => FloatUnaryOp::Sin,
        "cos" => FloatUnaryOp::Cos,
        "rsqrt" => FloatUnaryOp::Rsqrt,
        "rcp" => FloatUnaryOp::Recip,
        "sqrt" => FloatUnaryOp::Sqrt,
        "fabs" => FloatUnaryOp::Abs,
        "floor" => FloatUnaryOp::Floor,
        "ceil" => FloatUnaryOp::Ceil,
        "trunc" => FloatUnaryOp::Trunc,
        "round" => FloatUnaryOp::RoundEven,
        "saturate" => FloatUnaryOp::Saturate,
        _ => return None,
    };
    flush.then_some(NvvmOp::Flushed(unary))
}

/// Result of an integer unary intrinsic; `None` for poison.
pub(crate) fn int_unary(op: IntUnaryOp, value: IntValue, poison_flag: bool) -> Option<IntValue> {
    let width = value.width();
    let bits = value.unsigned();
    let result = match op {
        IntUnaryOp::Abs => {
            let min = 1u64 << (width - 1);
            if bits == min && poison_flag {
                return None;
            }
            value.signed().unsigned_abs()
        }
        IntUnaryOp::CtPop => u64::from(bits.count_ones()),
        IntUnaryOp::Ctlz | IntUnaryOp::Cttz if bits == 0 => {
            if poison_flag {
                return None;
            }
            u64::from(width)
        }
        IntUnaryOp::Ctlz => u64::from(bits.leading_zeros() - (64 - width)),
        IntUnaryOp::Cttz => u64::from(bits.trailing_zeros()),
    };
    Some(IntValue::wrap(width, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_unary_intrinsics() {
        let i8_ = |value: i64| IntValue::wrap(8, value as u64);
        assert_eq!(int_unary(IntUnaryOp::Abs, i8_(-5), true), Some(i8_(5)));
        assert_eq!(
            int_unary(IntUnaryOp::Abs, i8_(-128), false),
            Some(i8_(-128))
        );
        assert_eq!(int_unary(IntUnaryOp::Abs, i8_(-128), true), None);
        assert_eq!(int_unary(IntUnaryOp::CtPop, i8_(-1), false), Some(i8_(8)));
        assert_eq!(int_unary(IntUnaryOp::Ctlz, i8_(1), false), Some(i8_(7)));
        assert_eq!(int_unary(IntUnaryOp::Cttz, i8_(8), false), Some(i8_(3)));
        assert_eq!(int_unary(IntUnaryOp::Ctlz, i8_(0), false), Some(i8_(8)));
        assert_eq!(int_unary(IntUnaryOp::Cttz, i8_(0), true), None);
    }

    #[test]
    fn lane_masks() {
        assert_eq!(LaneMaskKind::Eq.mask(3), 0b1000);
        assert_eq!(LaneMaskKind::Lt.mask(3), 0b0111);
        assert_eq!(LaneMaskKind::Le.mask(3), 0b1111);
        assert_eq!(LaneMaskKind::Gt.mask(3), !0b1111);
        assert_eq!(LaneMaskKind::Ge.mask(31), 1 << 31);
        assert_eq!(LaneMaskKind::Lt.mask(0), 0);
    }

    #[test]
    fn intrinsic_names() {
        assert_eq!(
            intrinsic("llvm.nvvm.read.ptx.sreg.ctaid.y", 0),
            OpKind::Gpu(GpuQuery::BlockId(1))
        );
        assert_eq!(
            intrinsic("llvm.umax.i64", 2),
            OpKind::Int(IntOp::MaxU, Default::default())
        );
        assert_eq!(
            intrinsic("llvm.nvvm.shfl.sync.bfly.f32p", 4),
            OpKind::Warp(WarpOp::Shuffle {
                kind: ShuffleKind::Bfly,
                with_flag: true
            })
        );
        assert_eq!(
            intrinsic("llvm.nvvm.barrier.cta.sync.aligned.all", 1),
            OpKind::Warp(WarpOp::Barrier {
                has_id: true,
                has_count: false
            })
        );
        assert_eq!(
            intrinsic("llvm.nvvm.read.ptx.sreg.clock", 0),
            OpKind::UnsupportedIntrinsic("llvm.nvvm.read.ptx.sreg.clock".into())
        );
        assert_eq!(intrinsic("llvm.fma.f32", 3), OpKind::Fma);
        assert_eq!(
            intrinsic("llvm.bitreverse.i32", 1),
            OpKind::Nvvm(NvvmOp::BitReverse)
        );
        assert_eq!(
            intrinsic("llvm.bitreverse.i32", 2),
            OpKind::UnsupportedIntrinsic("llvm.bitreverse.i32".into())
        );
        assert_eq!(
            intrinsic("llvm.vector.reduce.add.v4i32", 1),
            OpKind::UnsupportedIntrinsic("llvm.vector.reduce.add.v4i32".into())
        );
        // The wrong number of operands.
        assert_eq!(
            intrinsic("llvm.smax.i32", 1),
            OpKind::UnsupportedIntrinsic("llvm.smax.i32".into())
        );
        assert_eq!(
            intrinsic("llvm.nvvm.vote.ballot.sync", 1),
            OpKind::UnsupportedIntrinsic("llvm.nvvm.vote.ballot.sync".into())
        );
        assert_eq!(
            intrinsic("llvm.abs.i32", 1),
            OpKind::IntUnary(IntUnaryOp::Abs, Some(false))
        );
        // AMDGPU's, with and without their operands.
        assert_eq!(
            intrinsic("llvm.amdgcn.readlane.i32", 2),
            OpKind::Warp(WarpOp::ReadLane)
        );
        assert_eq!(
            intrinsic("llvm.amdgcn.ballot.i64", 1),
            OpKind::Warp(WarpOp::WaveBallot)
        );
        assert_eq!(
            intrinsic("llvm.amdgcn.mbcnt.hi", 2),
            OpKind::Mbcnt { high: true }
        );
        for (name, operands) in [
            ("llvm.amdgcn.readlane.i32", 1),
            ("llvm.amdgcn.inverse.ballot.i64", 0),
            ("llvm.amdgcn.workitem.id.x", 1),
            ("llvm.amdgcn.s.barrier", 1),
        ] {
            assert_eq!(
                intrinsic(name, operands),
                OpKind::UnsupportedIntrinsic(name.into())
            );
        }
    }

    /// clang's NVVM math, fences and `nanosleep` (what `spmd_cuda.h`'s
    /// `__expf`, `rsqrtf`, `__threadfence`, ... become).
    #[test]
    fn nvvm_math_intrinsics() {
        let cases = [
            (
                "llvm.nvvm.ex2.approx.f32",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Exp2),
            ),
            (
                "llvm.nvvm.lg2.approx.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Log2),
            ),
            (
                "llvm.nvvm.sin.approx.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Sin),
            ),
            (
                "llvm.nvvm.cos.approx.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Cos),
            ),
            (
                "llvm.nvvm.rsqrt.approx.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Rsqrt),
            ),
            (
                "llvm.nvvm.sqrt.rn.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Sqrt),
            ),
            (
                "llvm.nvvm.rcp.rn.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Recip),
            ),
            (
                "llvm.nvvm.saturate.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Saturate),
            ),
            ("llvm.nvvm.div.approx.f", 2, OpKind::Float(FloatOp::Div)),
            ("llvm.nvvm.div.rn.f", 2, OpKind::Float(FloatOp::Div)),
            ("llvm.nvvm.add.rn.f", 2, OpKind::Float(FloatOp::Add)),
            ("llvm.nvvm.mul.rn.f", 2, OpKind::Float(FloatOp::Mul)),
            ("llvm.nvvm.membar.gl", 0, OpKind::Marker),
            ("llvm.nvvm.membar.cta", 0, OpKind::Marker),
            ("llvm.nvvm.membar.sys", 0, OpKind::Marker),
            ("llvm.nvvm.nanosleep", 1, OpKind::Marker),
        ];
        for (name, operands, kind) in cases {
            assert_eq!(intrinsic(name, operands), kind, "{name}");
        }
        // `ftz` flushes subnormals ([`NvvmOp::Flushed`]).
        assert_eq!(
            intrinsic("llvm.nvvm.ex2.approx.ftz.f", 1),
            OpKind::Nvvm(NvvmOp::Flushed(FloatUnaryOp::Exp2))
        );
        assert_eq!(
            intrinsic("llvm.nvvm.rsqrt.approx.f", 2),
            OpKind::UnsupportedIntrinsic("llvm.nvvm.rsqrt.approx.f".into())
        );
        assert_eq!(FloatUnaryOp::Exp2.apply(-3.0), 0.125);
        assert_eq!(FloatUnaryOp::Log2.apply(1024.0), 10.0);
        assert_eq!(FloatUnaryOp::Rsqrt.apply(0.25), 2.0);
        assert_eq!(FloatUnaryOp::Recip.apply(-4.0), -0.25);
        assert_eq!(FloatUnaryOp::Sin.apply(0.0), 0.0);
        assert_eq!(FloatUnaryOp::Cos.apply(0.0), 1.0);
        assert_eq!(FloatUnaryOp::Saturate.apply(1.5), 1.0);
        assert_eq!(FloatUnaryOp::Saturate.apply(-0.5), 0.0);
        assert_eq!(FloatUnaryOp::Saturate.apply(f64::NAN), 0.0);
        assert_eq!(FloatUnaryOp::Saturate.apply(0.75), 0.75);
    }

    /// What libdevice's inlined code calls: rounding modes, `.ftz`,
    /// conversions and bit-level helpers (LLVM 22's spellings).
    #[test]
    fn libdevice_intrinsic_names() {
        let nvvm = |op| OpKind::Nvvm(op);
        let rounded = |arithmetic, rounding, flush| {
            nvvm(NvvmOp::Rounded {
                arithmetic,
                rounding,
                flush,
            })
        };
        let cases = [
            (
                "llvm.nvvm.fabs.f32",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Abs),
            ),
            (
                "llvm.nvvm.fabs.f64",
                1,
                OpKind::FloatUnary(FloatUnaryOp::Abs),
            ),
            (
                "llvm.nvvm.round.f",
                1,
                OpKind::FloatUnary(FloatUnaryOp::RoundEven),
            ),
            (
                "llvm.nvvm.rcp.approx.ftz.d",
                1,
                nvvm(NvvmOp::Flushed(FloatUnaryOp::Recip)),
            ),
            (
                "llvm.nvvm.rsqrt.approx.ftz.f",
                1,
                nvvm(NvvmOp::Flushed(FloatUnaryOp::Rsqrt)),
            ),
            (
                "llvm.nvvm.add.rz.f",
                2,
                rounded(Arithmetic::Add, Rounding::TowardZero, false),
            ),
            (
                "llvm.nvvm.fma.rm.d",
                3,
                rounded(Arithmetic::Fma, Rounding::Down, false),
            ),
            (
                "llvm.nvvm.sqrt.rp.f",
                1,
                rounded(Arithmetic::Sqrt, Rounding::Up, false),
            ),
            (
                "llvm.nvvm.div.approx.ftz.f",
                2,
                rounded(Arithmetic::Div, Rounding::NearestEven, true),
            ),
            (
                "llvm.nvvm.f2ull.rm",
                1,
                nvvm(NvvmOp::FloatToInt {
                    rounding: Rounding::Down,
                    signed: false,
                    flush: false,
                }),
            ),
            (
                "llvm.nvvm.f2i.rn.ftz",
                1,
                nvvm(NvvmOp::FloatToInt {
                    rounding: Rounding::NearestEven,
                    signed: true,
                    flush: true,
                }),
            ),
            (
                "llvm.nvvm.ll2d.rp",
                1,
                nvvm(NvvmOp::IntToFloat {
                    rounding: Rounding::Up,
                    signed: true,
                }),
            ),
            (
                "llvm.nvvm.d2f.rz",
                1,
                nvvm(NvvmOp::NarrowToSingle {
                    rounding: Rounding::TowardZero,
                    flush: false,
                }),
            ),
            (
                "llvm.nvvm.d2i.hi",
                1,
                nvvm(NvvmOp::DoubleHalf { high: true }),
            ),
            ("llvm.nvvm.lohi.i2d", 2, nvvm(NvvmOp::JoinDouble)),
            (
                "llvm.nvvm.mulhi.ull",
                2,
                nvvm(NvvmOp::MulHi { signed: false }),
            ),
            ("llvm.nvvm.sad.i", 3, nvvm(NvvmOp::Sad { signed: true })),
            ("llvm.nvvm.prmt", 3, nvvm(NvvmOp::Permute)),
            ("llvm.fshl.i32", 3, nvvm(NvvmOp::FunnelShift { left: true })),
        ];
        for (name, operands, kind) in cases {
            assert_eq!(intrinsic(name, operands), kind, "{name}");
        }
        for unknown in [
            "llvm.nvvm.f2h.rn",
            "llvm.nvvm.i2f.rn.ftz",
            "llvm.nvvm.d2i",
            "llvm.nvvm.ex2.approx.f16",
        ] {
            assert_eq!(
                intrinsic(unknown, 1),
                OpKind::UnsupportedIntrinsic(unknown.into()),
                "{unknown}"
            );
        }
    }

    #[test]
    fn structs_of_one_scalar_type_are_arrays_of_it() {
        let f32_ = || Layout::Scalar {
            size: 4,
            leaf: ValueType::F32,
        };
        let float4 = Layout::Struct {
            fields: (0..4).map(|i| (4 * i, f32_())).collect(),
            size: 16,
            align: 4,
        };
        let tile = Layout::Array {
            element: Box::new(float4),
            count: 256,
        };
        assert_eq!(tile.elements(), Some((ElementType::F32, 1024)));
        // Mixed fields, and padding, are not.
        let mixed = Layout::Struct {
            fields: vec![
                (0, f32_()),
                (
                    4,
                    Layout::Scalar {
                        size: 4,
                        leaf: ValueType::Int(32),
                    },
                ),
            ],
            size: 8,
            align: 4,
        };
        assert_eq!(mixed.elements(), None);
        let padded = Layout::Struct {
            fields: vec![(0, f32_())],
            size: 8,
            align: 8,
        };
        assert_eq!(padded.elements(), None);
    }

    /// The spellings `mlir-translate --import-llvm` gives clang's CUDA
    /// builtins (`__nvvm_match_*_sync_*`, `__nvvm_redux_sync_*`, ...).
    #[test]
    fn warp_intrinsic_names_of_clangs_builtins() {
        let warp = |op| OpKind::Warp(op);
        let cases = [
            (
                "llvm.nvvm.match.any.sync.i32",
                2,
                WarpOp::Match { all: false },
            ),
            (
                "llvm.nvvm.match.any.sync.i64",
                2,
                WarpOp::Match { all: false },
            ),
            (
                "llvm.nvvm.match.all.sync.i32p",
                2,
                WarpOp::Match { all: true },
            ),
            (
                "llvm.nvvm.redux.sync.umin",
                2,
                WarpOp::Redux(ReduxKind::UMin),
            ),
            ("llvm.nvvm.redux.sync.xor", 2, WarpOp::Redux(ReduxKind::Xor)),
            ("llvm.nvvm.bar.warp.sync", 1, WarpOp::WarpSync),
            ("llvm.nvvm.activemask", 0, WarpOp::ActiveMask),
            (
                "llvm.nvvm.shfl.sync.up.i32",
                4,
                WarpOp::Shuffle {
                    kind: ShuffleKind::Up,
                    with_flag: false,
                },
            ),
            (
                "llvm.nvvm.shfl.sync.idx.f32",
                4,
                WarpOp::Shuffle {
                    kind: ShuffleKind::Idx,
                    with_flag: false,
                },
            ),
        ];
        for (name, operands, op) in cases {
            assert_eq!(intrinsic(name, operands), warp(op), "{name}");
        }
        assert_eq!(
            intrinsic("llvm.nvvm.match.all.sync.i32p", 1),
            OpKind::UnsupportedIntrinsic("llvm.nvvm.match.all.sync.i32p".into())
        );
    }
}
