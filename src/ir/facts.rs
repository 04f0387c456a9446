//! Typed accessors for the facts the passes read from operations and
//! attributes: the uniformity mark of a branch, integer constants, switch
//! cases, `arith.cmpi` predicates, reconvergence marker ids, Flow-block
//! shapes and spmd types.
//!
//! The readers of LLVM-dialect types, elements attributes and properties
//! further down serve the reference executor of `spmd-oracle` (through
//! `spmd::testing::ir`) and are compiled with the `testing` feature only.
//!
//! Every fact is read through MLIR's C API or the spmd C hooks, never by
//! printing an attribute and parsing the text; each accessor says what it
//! answers for IR of an unexpected form (`None`, never a guess).

use super::{
    ffi,
    key::{AttributeKey, NameKey, TypeKey},
    names,
};
use crate::analysis::structured::FlowShape;
use melior::{
    ir::{
        attribute::{AttributeLike, IntegerAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        r#type::TypeLike,
        Attribute, BlockRef, OperationRef, RegionLike, RegionRef, Type,
    },
    Context,
};

/// The value of a `#spmd.uniformity<...>` mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UniformityMark {
    /// `#spmd.uniformity<uniform>`: every thread takes the same successor.
    Uniform,
    /// `#spmd.uniformity<divergent>`: threads may take different successors.
    Divergent,
}

/// The `spmd.uniformity` mark of `op`, if it has one (an attribute of
/// another kind under that name counts as none).
pub(crate) fn uniformity_mark(op: OperationRef<'_, '_>) -> Option<UniformityMark> {
    let attribute = op.attribute(names::UNIFORMITY_ATTR).ok()?;
    // SAFETY: a query on a live attribute.
    match unsafe { ffi::spmdUniformityAttrGetValue(attribute.to_raw()) } {
        ffi::SPMD_UNIFORMITY_UNIFORM => Some(UniformityMark::Uniform),
        ffi::SPMD_UNIFORMITY_DIVERGENT => Some(UniformityMark::Divergent),
        _ => None,
    }
}

/// The attribute `#spmd.uniformity<mark>` (the spmd dialect must be loaded
/// in `context`).
pub(crate) fn uniformity_attribute(context: &Context, mark: UniformityMark) -> Attribute<'_> {
    let value = match mark {
        UniformityMark::Uniform => ffi::SPMD_UNIFORMITY_UNIFORM,
        UniformityMark::Divergent => ffi::SPMD_UNIFORMITY_DIVERGENT,
    };
    // SAFETY: the constructor returns an attribute uniqued in `context`,
    // non-null for the two values of the enum.
    unsafe { Attribute::from_raw(ffi::spmdUniformityAttrGet(context.to_raw(), value)) }
}

/// Sets the discardable attribute `name` of `op` to `value`.
pub(crate) fn set_attribute(op: OperationRef<'_, '_>, name: &str, value: Attribute<'_>) {
    // SAFETY: `op` is live; the mutable handle is used for this one call and
    // no other handle writes to the op meanwhile.
    let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    op.set_discardable_attribute(name, value);
}

/// Whether `function` leaves shared work under lane branches to the
/// target's structurizer ([`names::LANE_SHARED_WORK_ATTR`]).
pub fn lane_shared_work(function: OperationRef<'_, '_>) -> bool {
    function.has_attribute(names::LANE_SHARED_WORK_ATTR)
}

/// An integer constant: its value and the width of its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntConstant {
    /// The value, sign-extended (`i1` gives 0 or 1).
    pub(crate) value: i64,
    /// The bit width of its integer type.
    pub(crate) width: u32,
}

/// The integer attribute `name` of `op` (such as the `value` of an
/// `arith.constant`): `None` if there is none, it is not an integer
/// attribute, its type is `index`, or it is wider than 64 bits.
pub(crate) fn integer_attribute(op: OperationRef<'_, '_>, name: &str) -> Option<IntConstant> {
    let attribute = op.attribute(name).ok()?;
    let integer = IntegerAttribute::try_from(attribute).ok()?;
    let r#type = attribute.r#type();
    if !r#type.is_integer() {
        return None;
    }
    // SAFETY: a query on a live integer type.
    let width = unsafe { mlir_sys::mlirIntegerTypeGetWidth(r#type.to_raw()) };
    if width > 64 {
        return None;
    }
    let value = integer.value();
    Some(IntConstant {
        value: if width == 1 { value & 1 } else { value },
        width,
    })
}

/// The `value` of an integer constant op (`arith.constant`,
/// `llvm.mlir.constant`); see [`integer_attribute`].
pub(crate) fn constant_value(op: OperationRef<'_, '_>) -> Option<IntConstant> {
    integer_attribute(op, names::VALUE_ATTR)
}

/// The `i1` value of a boolean constant op, if `op` is one.
pub(crate) fn bool_constant(op: OperationRef<'_, '_>) -> Option<bool> {
    constant_value(op)
        .filter(|constant| constant.width == 1)
        .map(|constant| constant.value != 0)
}

/// The case values of a switch (`cf.switch`, `llvm.switch`), splats
/// expanded: an empty list when it has no `case_values` (no case), `None`
/// when the attribute is not a dense integer list of 64-bit values.
pub(crate) fn switch_case_values(switch: OperationRef<'_, '_>) -> Option<Vec<i64>> {
    let Ok(attribute) = switch.attribute(names::CASE_VALUES_ATTR) else {
        return Some(Vec::new());
    };
    integer_elements(attribute)
}

/// The integers of a dense integer elements attribute, splats expanded.
pub(crate) fn integer_elements(attribute: Attribute<'_>) -> Option<Vec<i64>> {
    // SAFETY: a live attribute; a zero capacity writes nothing.
    let count =
        unsafe { ffi::spmdReadIntegerElements(attribute.to_raw(), std::ptr::null_mut(), 0) };
    let count = usize::try_from(count).ok()?;
    let mut values = vec![0i64; count];
    // SAFETY: `values` has room for the `count` elements the helper writes.
    unsafe {
        ffi::spmdReadIntegerElements(attribute.to_raw(), values.as_mut_ptr(), count as isize)
    };
    Some(values)
}

/// The predicate of an `arith.cmpi` (its `predicate` attribute, in
/// `arith::CmpIPredicate` numbering: 0 `eq`, 1 `ne`, 2 `slt`, ... 9 `uge`).
pub(crate) fn cmpi_predicate(op: OperationRef<'_, '_>) -> Option<u8> {
    let attribute = op.attribute(names::PREDICATE_ATTR).ok()?;
    let value = IntegerAttribute::try_from(attribute).ok()?.value();
    u8::try_from(value).ok()
}

/// The `id` of a reconvergence marker (`spmd.reconvergence.head`/`tail`).
pub(crate) fn marker_id(op: OperationRef<'_, '_>) -> Option<u64> {
    let attribute = op.attribute(names::MARKER_ID_ATTR).ok()?;
    u64::try_from(IntegerAttribute::try_from(attribute).ok()?.value()).ok()
}

/// The Flow-block shape of each of `blocks` (`None` for a block that does
/// not end in `spmd.flow_br`), read in one call on the C++ side, which
/// holds the rule of what a Flow block may contain.
pub(crate) fn flow_shapes(blocks: &[BlockRef<'_, '_>]) -> Vec<Option<FlowShape>> {
    let raw: Vec<mlir_sys::MlirBlock> = blocks.iter().map(|block| block.to_raw()).collect();
    let mut shapes = vec![0u8; raw.len()];
    // SAFETY: live blocks; the helper reads them and writes `len` bytes.
    unsafe { ffi::spmdReadFlowShapes(raw.as_ptr(), raw.len() as isize, shapes.as_mut_ptr()) };
    shapes
        .into_iter()
        .map(|shape| {
            (shape & ffi::SPMD_FLOW_SHAPE_FLOW_BRANCH != 0).then_some(FlowShape {
                is_loop: shape & ffi::SPMD_FLOW_SHAPE_LOOP != 0,
                has_other_ops: shape & ffi::SPMD_FLOW_SHAPE_HAS_OTHER_OPS != 0,
            })
        })
        .collect()
}

/// True if `block` holds an operation besides its terminator that a Flow
/// block may not hold, whatever its terminator is. The list of what a
/// Flow block may hold (reconvergence tails, and the `arith.constant` and
/// `arith.cmpi` of a selector chain) lives on the C++ side only, the same
/// rule [`flow_shapes`] reports as `has_other_ops`.
pub(crate) fn holds_non_flow_ops(block: BlockRef<'_, '_>) -> bool {
    // SAFETY: a query on a live block.
    unsafe { ffi::spmdBlockHoldsNonFlowOps(block.to_raw()) }
}

/// The reconvergence markers of the `num_blocks` blocks of `region`: one
/// more than the largest marker id (0 if there is none), and for each
/// block (in region order) whether it holds an `spmd.reconvergence.head`.
/// `None` if the region does not have `num_blocks` blocks.
pub(crate) fn reconvergence_markers(
    region: RegionRef<'_, '_>,
    num_blocks: usize,
) -> Option<(u64, Vec<bool>)> {
    let mut has_head = vec![false; num_blocks];
    // SAFETY: a live region; the helper writes at most `num_blocks` flags.
    let next_id = unsafe {
        ffi::spmdScanReconvergenceMarkers(
            region.to_raw(),
            has_head.as_mut_ptr(),
            num_blocks as isize,
        )
    };
    u64::try_from(next_id)
        .ok()
        .map(|next_id| (next_id, has_head))
}

/// True if `type` belongs to the spmd dialect (`!spmd.mask`, ...).
pub(crate) fn is_spmd_type(r#type: Type<'_>) -> bool {
    // SAFETY: queries on a live type and its dialect.
    let namespace = unsafe {
        let dialect = mlir_sys::mlirTypeGetDialect(r#type.to_raw());
        mlir_sys::mlirDialectGetNamespace(dialect)
    };
    // SAFETY: the namespace is a string owned by the dialect, live here.
    let bytes =
        unsafe { std::slice::from_raw_parts(namespace.data as *const u8, namespace.length) };
    bytes == names::SPMD_DIALECT.as_bytes()
}

/// Whether the memory an address type points to may be private to each
/// thread, as far as the type tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrivateMemory {
    /// It may: `!llvm.ptr` (generic: it may point there), `!llvm.ptr<5>`,
    /// a memref in `#gpu.address_space<private>` or integer space 5.
    May,
    /// It may not: another pointer or memref space, or not an address.
    MayNot,
    /// A memref whose space does not tell (the default space): where it
    /// was allocated decides.
    DependsOnAllocation,
}

/// The address space of NVPTX and AMDGPU that is private to each thread.
const PRIVATE_ADDRESS_SPACE: u32 = 5;

/// What the type of `address` (an `!llvm.ptr` or a memref) says about
/// private memory.
pub(crate) fn private_memory(address_type: Type<'_>) -> PrivateMemory {
    let r#type = address_type.to_raw();
    let verdict = |may: bool| {
        if may {
            PrivateMemory::May
        } else {
            PrivateMemory::MayNot
        }
    };
    // SAFETY: type and attribute queries on a live type of a live context.
    unsafe {
        if mlir_sys::mlirTypeIsALLVMPointerType(r#type) {
            let space = mlir_sys::mlirLLVMPointerTypeGetAddressSpace(r#type);
            return verdict(space == 0 || space == PRIVATE_ADDRESS_SPACE);
        }
        if !mlir_sys::mlirTypeIsAMemRef(r#type) {
            return PrivateMemory::MayNot;
        }
        let space = mlir_sys::mlirMemRefTypeGetMemorySpace(r#type);
        if space.ptr.is_null() {
            return PrivateMemory::DependsOnAllocation;
        }
        if mlir_sys::mlirAttributeIsAInteger(space) {
            return verdict(
                mlir_sys::mlirIntegerAttrGetValueInt(space) == i64::from(PRIVATE_ADDRESS_SPACE),
            );
        }
        let context = mlir_sys::mlirAttributeGetContext(space);
        let text = "#gpu.address_space<private>";
        let private = mlir_sys::mlirAttributeParseGet(
            context,
            mlir_sys::MlirStringRef {
                data: text.as_ptr().cast(),
                length: text.len(),
            },
        );
        if !private.ptr.is_null() && mlir_sys::mlirAttributeEqual(space, private) {
            return PrivateMemory::May;
        }
    }
    PrivateMemory::DependsOnAllocation
}

/// The type `!spmd.mask` (the spmd dialect must be loaded in `context`).
pub(crate) fn mask_type(context: &Context) -> Type<'_> {
    Type::parse(context, "!spmd.mask").expect("the spmd dialect is loaded")
}

/// The type `!spmd.token` (the spmd dialect must be loaded in `context`).
pub(crate) fn token_type(context: &Context) -> Type<'_> {
    Type::parse(context, "!spmd.token").expect("the spmd dialect is loaded")
}

/// True for `!spmd.mask` (types are uniqued in their context, so this is a
/// pointer comparison).
pub(crate) fn is_mask_type(r#type: Type<'_>) -> bool {
    // SAFETY: a query on a live type.
    let context =
        super::query::context_from_raw(unsafe { mlir_sys::mlirTypeGetContext(r#type.to_raw()) });
    is_spmd_type(r#type) && r#type == mask_type(context)
}

/// What makes two operand-free constants equal: their name, their result
/// types and every attribute (name and value). MLIR uniques identifiers,
/// attributes and types in the context, so their keys stand for their
/// contents and two keys are equal exactly when the ops print the same
/// (locations aside).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ConstantKey {
    name: NameKey,
    result_types: Vec<TypeKey>,
    attributes: Vec<(NameKey, AttributeKey)>,
}

/// The [`ConstantKey`] of `op`.
pub(crate) fn constant_key(op: OperationRef<'_, '_>) -> ConstantKey {
    ConstantKey {
        name: NameKey::of(&op.name()),
        result_types: op
            .results()
            .map(|result| TypeKey::of(&melior::ir::ValueLike::r#type(&result)))
            .collect(),
        attributes: op
            .attributes()
            .map(|(name, value)| (NameKey::of(&name), AttributeKey::of(&value)))
            .collect(),
    }
}

/// Element `index` of a rank-1 elements attribute (such as a switch's
/// `case_values`); `None` if `attribute` is not an elements attribute.
#[cfg(feature = "testing")]
pub fn element_at<'c>(attribute: Attribute<'c>, index: usize) -> Option<Attribute<'c>> {
    if !attribute.is_elements() {
        return None;
    }
    let mut position = index as u64;
    // SAFETY: a live elements attribute; the index vector has one element
    // and lives during the call.
    unsafe {
        Attribute::from_option_raw(mlir_sys::mlirElementsAttrGetValue(
            attribute.to_raw(),
            1,
            &mut position,
        ))
    }
}

/// Whether a dense elements attribute is a splat, and the rank of its
/// type; `None` for any other attribute.
#[cfg(feature = "testing")]
pub fn dense_elements_shape(attribute: Attribute<'_>) -> Option<(bool, i64)> {
    if !attribute.is_dense_elements() {
        return None;
    }
    // SAFETY: queries on a live dense elements attribute and its shaped type.
    unsafe {
        Some((
            mlir_sys::mlirDenseElementsAttrIsSplat(attribute.to_raw()),
            mlir_sys::mlirShapedTypeGetRank(mlir_sys::mlirAttributeGetType(attribute.to_raw())),
        ))
    }
}

/// The address space of an `!llvm.ptr` type; `None` for other types.
#[cfg(feature = "testing")]
pub fn llvm_pointer_space(r#type: Type<'_>) -> Option<u32> {
    // SAFETY: plain queries on a live type.
    unsafe {
        mlir_sys::mlirTypeIsALLVMPointerType(r#type.to_raw())
            .then(|| mlir_sys::mlirLLVMPointerTypeGetAddressSpace(r#type.to_raw()))
    }
}

/// The body of a non-opaque `!llvm.struct`: whether it is packed, and its
/// field types in order; `None` for other types and opaque structs.
#[cfg(feature = "testing")]
pub fn llvm_struct_body(r#type: Type<'_>) -> Option<(bool, Vec<Type<'_>>)> {
    let raw = r#type.to_raw();
    // SAFETY: queries on a live type; the field types are live types of the
    // same context.
    unsafe {
        if !mlir_sys::mlirTypeIsALLVMStructType(raw) || mlir_sys::mlirLLVMStructTypeIsOpaque(raw) {
            return None;
        }
        let count = mlir_sys::mlirLLVMStructTypeGetNumElementTypes(raw);
        let fields = (0..count)
            .map(|index| Type::from_raw(mlir_sys::mlirLLVMStructTypeGetElementType(raw, index)));
        Some((mlir_sys::mlirLLVMStructTypeIsPacked(raw), fields.collect()))
    }
}

/// The element type and length of an `!llvm.array`; `None` for other
/// types. MLIR 22's C API has no getter for the length, so it is read from
/// the type's spelling (`!llvm.array<N x T>`), here and nowhere else.
#[cfg(feature = "testing")]
pub fn llvm_array(r#type: Type<'_>) -> Option<(Type<'_>, u64)> {
    let text = r#type.to_string();
    let count: u64 = text
        .strip_prefix("!llvm.array<")?
        .split(" x ")
        .next()?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: `r#type` is an LLVM array type (checked by its spelling).
    let element =
        unsafe { Type::from_raw(mlir_sys::mlirLLVMArrayTypeGetElementType(r#type.to_raw())) };
    Some((element, count))
}

/// The op's properties as its generic form prints them (the text between
/// `<{` and `}>`, empty if none). Some LLVM-dialect properties are not
/// attributes (`overflowFlags` of `llvm.add`, `noWrapFlags` of
/// `llvm.getelementptr`), so the C API cannot read them by name; only the
/// printed form shows them. For the reference executor only.
#[cfg(feature = "testing")]
pub fn properties_text(op: OperationRef<'_, '_>) -> String {
    // SAFETY: a printing callback; MLIR calls it only from the print below,
    // with the `String` passed there as `user_data`.
    unsafe extern "C" fn append(piece: mlir_sys::MlirStringRef, user_data: *mut std::ffi::c_void) {
        // SAFETY: `user_data` is the `String` below; `piece` is valid for
        // the duration of the call.
        let text = unsafe { &mut *(user_data as *mut String) };
        // SAFETY: `piece` points at `length` bytes during the call.
        let bytes = unsafe { std::slice::from_raw_parts(piece.data as *const u8, piece.length) };
        text.push_str(&String::from_utf8_lossy(bytes));
    }
    let mut text = String::new();
    // SAFETY: the flags are created and destroyed here; the callback only
    // appends to `text`, which outlives the call.
    unsafe {
        let flags = mlir_sys::mlirOpPrintingFlagsCreate();
        mlir_sys::mlirOpPrintingFlagsPrintGenericOpForm(flags);
        mlir_sys::mlirOpPrintingFlagsUseLocalScope(flags);
        mlir_sys::mlirOpPrintingFlagsSkipRegions(flags);
        mlir_sys::mlirOperationPrintWithFlags(
            op.to_raw(),
            flags,
            Some(append),
            &mut text as *mut String as *mut std::ffi::c_void,
        );
        mlir_sys::mlirOpPrintingFlagsDestroy(flags);
    }
    match (text.find("<{"), text.find("}>")) {
        (Some(start), Some(end)) if start < end => text[start + 2..end].to_string(),
        _ => String::new(),
    }
}

/// The context of a module, for as long as the module's context lives
/// (for tests and tools that hold a module but not its context).
#[cfg(feature = "testing")]
pub fn module_context<'c>(module: &melior::ir::Module<'c>) -> &'c Context {
    super::query::context_of(module.as_operation())
}
