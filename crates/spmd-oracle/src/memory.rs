//! The executor's memory: buffers, memref views and a log of side effects.
//!
//! The harness creates buffers ([`Memory::alloc`], [`Memory::alloc_init`])
//! and passes the returned [`MemRefId`]s as memref arguments. A memref is a
//! *view*: a buffer plus a shape, with the identity (row-major, offset 0)
//! layout, so element `[i, j]` of a `memref<?x?xi32>` of shape `[m, n]` is
//! element `i * n + j` of its buffer. `memref.alloca` creates *private*
//! buffers: they live in the same memory but are left out of the side-effect
//! log and of [`Memory::public_buffers`], because they are thread-local
//! scratch space.
//!
//! Every access is bounds-checked; a bad index is a [`MemoryError`], never a
//! panic. Every store and atomic read-modify-write on a public buffer is
//! appended to the [log](Memory::side_effects) with the thread that did it.
//!
//! The memory also holds the texture and surface objects the harness
//! creates over its buffers ([`Memory::create_texture_1d`],
//! [`Memory::create_surface_2d`]; see [`crate::texture`]).

pub use super::address::{address_space, BufferId, MemRefId, Pointer};
use super::value::{AggregateId, IntValue, Value};
use std::collections::HashMap;
use std::fmt;

/// The element type of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// `iN`, N in 1..=64.
    Int(u32),
    /// `index`.
    Index,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl ElementType {
    /// The element's value for the stored bits.
    fn decode(self, bits: u64) -> Value {
        match self {
            Self::Int(width) => Value::Int(IntValue::wrap(width, bits)),
            Self::Index => Value::Index(bits as i64),
            Self::F32 => Value::F32(f32::from_bits(bits as u32)),
            Self::F64 => Value::F64(f64::from_bits(bits)),
        }
    }

    /// The bits that store `value`, if it has this element type.
    fn encode(self, value: Value) -> Option<u64> {
        match (self, value) {
            (Self::Int(width), Value::Int(int)) if int.width() == width => Some(int.unsigned()),
            (Self::Index, Value::Index(index)) => Some(index as u64),
            (Self::F32, Value::F32(float)) => Some(u64::from(float.to_bits())),
            (Self::F64, Value::F64(float)) => Some(float.to_bits()),
            _ => None,
        }
    }

    /// Bytes an element occupies in memory (LLVM's allocation size on
    /// NVPTX: integers round up to a power-of-two number of bytes).
    pub fn size_bytes(self) -> u64 {
        match self {
            Self::Int(width) => u64::from(width.div_ceil(8)).next_power_of_two(),
            Self::Index | Self::F64 => 8,
            Self::F32 => 4,
        }
    }

    /// The element holding the integer `value`, wrapped (floats convert).
    fn convert_i64(self, value: i64) -> Value {
        match self {
            Self::Int(width) => Value::Int(IntValue::wrap(width, value as u64)),
            Self::Index => Value::Index(value),
            Self::F32 => Value::F32(value as f32),
            Self::F64 => Value::F64(value as f64),
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(width) => write!(f, "i{width}"),
            Self::Index => write!(f, "index"),
            Self::F32 => write!(f, "f32"),
            Self::F64 => write!(f, "f64"),
        }
    }
}

/// The operation of a `memref.atomic_rmw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicKind {
    /// Integer addition.
    AddI,
    /// Integer multiplication.
    MulI,
    /// Bitwise and.
    AndI,
    /// Bitwise or.
    OrI,
    /// Bitwise xor.
    XorI,
    /// Signed maximum.
    MaxS,
    /// Unsigned maximum.
    MaxU,
    /// Signed minimum.
    MinS,
    /// Unsigned minimum.
    MinU,
    /// Replace the element.
    Assign,
    /// Float addition.
    AddF,
    /// Float multiplication.
    MulF,
    /// Integer subtraction (`llvm.atomicrmw sub`).
    SubI,
    /// `~(old & operand)` (`llvm.atomicrmw nand`).
    NandI,
    /// Float subtraction (`llvm.atomicrmw fsub`).
    SubF,
    /// Float maximum, NaN-ignoring (`llvm.atomicrmw fmax`).
    MaxF,
    /// Float minimum, NaN-ignoring (`llvm.atomicrmw fmin`).
    MinF,
    /// `old >= operand ? 0 : old + 1`, unsigned (`llvm.atomicrmw
    /// uinc_wrap`, CUDA's `atomicInc`).
    IncWrapU,
    /// `old == 0 || old > operand ? operand : old - 1`, unsigned
    /// (`llvm.atomicrmw udec_wrap`, CUDA's `atomicDec`).
    DecWrapU,
}

/// What a logged side effect was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EffectKind {
    /// `memref.store`.
    Store,
    /// `memref.atomic_rmw` or `llvm.atomicrmw` of this kind; the logged
    /// value is its operand.
    AtomicRmw(AtomicKind),
    /// `llvm.cmpxchg`; the logged value is the new value, written only if
    /// `swapped`.
    CompareExchange {
        /// Whether the comparison succeeded.
        swapped: bool,
    },
}

/// One store or atomic update of a public buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideEffect {
    /// The linear id of the thread that did it.
    pub thread: u32,
    /// Store or atomic.
    pub kind: EffectKind,
    /// The buffer written.
    pub buffer: BufferId,
    /// The linear element index in the buffer.
    pub index: u64,
    /// The stored value (the operand, for an atomic).
    pub value: Value,
}

impl SideEffect {
    /// Equality for comparing runs (floats by bits).
    pub fn same_as(&self, other: &Self) -> bool {
        self.thread == other.thread
            && self.kind == other.kind
            && self.buffer == other.buffer
            && self.index == other.index
            && self.value.same_as(other.value)
    }
}

impl fmt::Display for SideEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            EffectKind::Store => "store".to_string(),
            EffectKind::AtomicRmw(kind) => format!("atomic {kind:?}"),
            EffectKind::CompareExchange { swapped } => format!("cmpxchg (swapped: {swapped})"),
        };
        write!(
            f,
            "thread {}: {what} buffer#{}[{}] <- {}",
            self.thread, self.buffer.0, self.index, self.value
        )
    }
}

/// Why a memory access failed.
#[derive(Clone, Debug, PartialEq)]
pub enum MemoryError {
    /// The memref id was not created by this memory.
    UnknownMemRef(MemRefId),
    /// The access has `got` indices for a memref of rank `rank`.
    RankMismatch {
        /// The memref accessed.
        memref: MemRefId,
        /// Its rank.
        rank: usize,
        /// The number of indices given.
        got: usize,
    },
    /// An index is negative or not below its dimension's size.
    OutOfBounds {
        /// The buffer accessed.
        buffer: BufferId,
        /// The indices of the access.
        indices: Vec<i64>,
        /// The shape of the memref.
        shape: Vec<u64>,
    },
    /// The value does not have the buffer's element type.
    ElementTypeMismatch {
        /// The buffer accessed.
        buffer: BufferId,
        /// Its element type.
        element: ElementType,
        /// The value stored or combined.
        value: Value,
    },
    /// The atomic operation does not apply to the buffer's element type.
    InvalidAtomic {
        /// The operation.
        kind: AtomicKind,
        /// The element type.
        element: ElementType,
    },
    /// A dimension index past the rank.
    NoSuchDimension {
        /// The memref.
        memref: MemRefId,
        /// The dimension asked for.
        dimension: i64,
    },
    /// An `alloca` with a negative size or more than
    /// [`Memory::MAX_PRIVATE_ELEMENTS`] elements.
    InvalidSize(Vec<i64>),
    /// An access through a pointer into no buffer (null, or an integer).
    NullPointer {
        /// The pointer.
        pointer: Pointer,
    },
    /// An access through a pointer to a buffer this memory does not have.
    UnknownBuffer(BufferId),
    /// An access whose bytes are not all inside the buffer.
    PointerOutOfBounds {
        /// The pointer.
        pointer: Pointer,
        /// Bytes accessed.
        size: u64,
        /// The buffer's size in bytes.
        buffer_bytes: u64,
    },
    /// An access that does not cover exactly one element: a size other
    /// than the element's, or an offset that is not a multiple of it.
    ElementMisaligned {
        /// The pointer.
        pointer: Pointer,
        /// The type accessed.
        access: ElementType,
        /// The buffer's element type.
        element: ElementType,
    },
    /// A pointer of address space `pointer_space` (neither generic nor the
    /// buffer's) used to access a buffer of address space `buffer_space`,
    /// or an `addrspacecast` to the wrong space.
    AddressSpaceMismatch {
        /// The buffer.
        buffer: BufferId,
        /// Its address space.
        buffer_space: u32,
        /// The address space of the pointer type.
        pointer_space: u32,
    },
    /// A texture fetch with a handle that is no texture object of this
    /// memory ([`crate::texture`]).
    UnknownTexture(u64),
    /// A surface access with a handle that is no surface object of this
    /// memory.
    UnknownSurface(u64),
    /// A texture fetch of another type than the texels'.
    TexelTypeMismatch {
        /// The texture.
        handle: u64,
        /// Its texels' type.
        texel: ElementType,
        /// The type fetched.
        access: ElementType,
    },
    /// A surface access in `.trap` mode outside the surface.
    SurfaceOutOfBounds {
        /// The surface.
        handle: u64,
        /// The x coordinate, in bytes.
        x: i64,
        /// The row.
        y: i64,
        /// The bytes of a row's elements.
        width_bytes: u64,
        /// The rows.
        height: u64,
    },
    /// A surface access that does not cover one element: a size other
    /// than the element's, or a byte x coordinate that is not a multiple
    /// of it.
    SurfaceMisaligned {
        /// The surface.
        handle: u64,
        /// The x coordinate, in bytes.
        x: i64,
        /// The type accessed.
        access: ElementType,
        /// The surface's element type.
        element: ElementType,
    },
    /// A surface whose rows do not fit its buffer, or whose pitch does
    /// not hold a row or is not a multiple of the element's size.
    InvalidSurface {
        /// Elements per row.
        width: u64,
        /// Rows.
        height: u64,
        /// Bytes from a row to the next.
        pitch: u64,
        /// The buffer's size.
        buffer_bytes: u64,
    },
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownMemRef(id) => write!(f, "unknown memref#{}", id.0),
            Self::RankMismatch { memref, rank, got } => {
                write!(
                    f,
                    "memref#{} has rank {rank} but {got} indices were given",
                    memref.0
                )
            }
            Self::OutOfBounds {
                buffer,
                indices,
                shape,
            } => write!(
                f,
                "index {indices:?} is out of bounds of buffer#{} with shape {shape:?}",
                buffer.0
            ),
            Self::ElementTypeMismatch {
                buffer,
                element,
                value,
            } => write!(
                f,
                "value {value} does not fit buffer#{} of element type {element}",
                buffer.0
            ),
            Self::InvalidAtomic { kind, element } => {
                write!(
                    f,
                    "atomic {kind:?} does not apply to elements of type {element}"
                )
            }
            Self::NoSuchDimension { memref, dimension } => {
                write!(f, "memref#{} has no dimension {dimension}", memref.0)
            }
            Self::InvalidSize(sizes) => write!(f, "invalid allocation sizes {sizes:?}"),
            Self::NullPointer { pointer } => write!(f, "access through {pointer}, which points into no buffer"),
            Self::UnknownBuffer(buffer) => write!(f, "unknown buffer#{}", buffer.0),
            Self::PointerOutOfBounds { pointer, size, buffer_bytes } => write!(
                f,
                "{size}-byte access at {pointer} is out of bounds of a buffer of {buffer_bytes} bytes"
            ),
            Self::ElementMisaligned { pointer, access, element } => write!(
                f,
                "{access} access at {pointer} does not cover one element of a buffer of {element}"
            ),
            Self::AddressSpaceMismatch { buffer, buffer_space, pointer_space } => write!(
                f,
                "buffer#{} is in address space {buffer_space}, not {pointer_space}",
                buffer.0
            ),
            Self::UnknownTexture(handle) => write!(f, "{handle:#x} is no texture object"),
            Self::UnknownSurface(handle) => write!(f, "{handle:#x} is no surface object"),
            Self::TexelTypeMismatch { handle, texel, access } => write!(
                f,
                "{access} fetch from texture {handle:#x} of {texel} texels"
            ),
            Self::SurfaceOutOfBounds { handle, x, y, width_bytes, height } => write!(
                f,
                "surface {handle:#x} access at byte {x} of row {y} is outside its {height} rows of {width_bytes} bytes"
            ),
            Self::SurfaceMisaligned { handle, x, access, element } => write!(
                f,
                "{access} access at byte {x} of surface {handle:#x} does not cover one {element} element"
            ),
            Self::InvalidSurface { width, height, pitch, buffer_bytes } => write!(
                f,
                "a surface of {height} rows of {width} elements, {pitch} bytes apart, does not fit a buffer of {buffer_bytes} bytes"
            ),
        }
    }
}

struct Buffer {
    element: ElementType,
    data: Vec<u64>,
    private: bool,
    /// The address space it lives in (see [`address_space`]).
    space: u32,
}

struct View {
    buffer: BufferId,
    shape: Vec<u64>,
    strides: Vec<u64>,
}

/// Buffers, memref views, the side-effect log, module globals and the
/// aggregate table.
#[derive(Default)]
pub struct Memory {
    buffers: Vec<Buffer>,
    views: Vec<View>,
    log: Vec<SideEffect>,
    /// Buffers of module globals, by (global, CTA) (no CTA for globals
    /// outside shared memory, of which the whole grid has one copy).
    globals: HashMap<(usize, Option<u32>), BufferId>,
    /// Leaves of aggregate values ([`Value::Aggregate`]).
    aggregates: Vec<Box<[Value]>>,
    /// Texture and surface objects ([`crate::texture`]).
    pub(crate) objects: crate::texture::Objects,
}

impl Memory {
    /// The largest `memref.alloca`, in elements.
    pub const MAX_PRIVATE_ELEMENTS: u64 = 1 << 20;

    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// A zero-initialised public buffer of `shape`, and its memref.
    pub fn alloc(&mut self, element: ElementType, shape: &[u64]) -> MemRefId {
        self.alloc_buffer(element, shape, false)
    }

    /// A public buffer of `shape` whose elements (row-major) are `init`,
    /// converted to `element` (integers wrap); missing elements are zero.
    pub fn alloc_init(&mut self, element: ElementType, shape: &[u64], init: &[i64]) -> MemRefId {
        let memref = self.alloc(element, shape);
        let buffer = self.buffer_of(memref).expect("just allocated");
        let data = &mut self.buffers[buffer.0 as usize].data;
        for (slot, value) in data.iter_mut().zip(init) {
            *slot = element
                .encode(element.convert_i64(*value))
                .expect("converted to the element type");
        }
        memref
    }

    /// A 1-D `i32` buffer holding `values`.
    pub fn alloc_i32(&mut self, values: &[i32]) -> MemRefId {
        let init: Vec<i64> = values.iter().map(|&value| i64::from(value)).collect();
        self.alloc_init(ElementType::Int(32), &[values.len() as u64], &init)
    }

    /// A 1-D public buffer of `element` holding `values` exactly (floats
    /// keep their bits, unlike [`Memory::alloc_init`]); every value must
    /// have the element type ([`MemoryError::ElementTypeMismatch`] for the
    /// first that does not, and nothing is allocated).
    pub fn alloc_values(
        &mut self,
        element: ElementType,
        values: &[Value],
    ) -> Result<MemRefId, MemoryError> {
        let buffer = BufferId(self.buffers.len() as u32);
        let bits = values
            .iter()
            .map(|&value| {
                element
                    .encode(value)
                    .ok_or(MemoryError::ElementTypeMismatch {
                        buffer,
                        element,
                        value,
                    })
            })
            .collect::<Result<Vec<u64>, _>>()?;
        let memref = self.alloc(element, &[values.len() as u64]);
        self.buffers[buffer.0 as usize].data = bits;
        Ok(memref)
    }

    /// A zero-initialised private buffer (for `memref.alloca`).
    pub(crate) fn alloc_private(
        &mut self,
        element: ElementType,
        sizes: &[i64],
    ) -> Result<MemRefId, MemoryError> {
        let shape: Option<Vec<u64>> = sizes.iter().map(|&size| u64::try_from(size).ok()).collect();
        let elements = shape.as_ref().and_then(|shape| {
            shape
                .iter()
                .try_fold(1u64, |total, &size| total.checked_mul(size))
        });
        let Some(shape) =
            shape.filter(|_| elements.is_some_and(|n| n <= Self::MAX_PRIVATE_ELEMENTS))
        else {
            return Err(MemoryError::InvalidSize(sizes.to_vec()));
        };
        Ok(self.alloc_buffer(element, &shape, true))
    }

    fn alloc_buffer(&mut self, element: ElementType, shape: &[u64], private: bool) -> MemRefId {
        let len = shape.iter().product::<u64>() as usize;
        let buffer = BufferId(self.buffers.len() as u32);
        self.buffers.push(Buffer {
            element,
            data: vec![0; len],
            private,
            space: if private {
                address_space::LOCAL
            } else {
                address_space::GLOBAL
            },
        });
        let memref = MemRefId(self.views.len() as u32);
        self.views.push(View {
            buffer,
            shape: shape.to_vec(),
            strides: identity_strides(shape),
        });
        memref
    }

    /// The buffer behind a memref.
    pub fn buffer_of(&self, memref: MemRefId) -> Option<BufferId> {
        self.views.get(memref.0 as usize).map(|view| view.buffer)
    }

    /// The shape of a memref.
    pub fn shape(&self, memref: MemRefId) -> Option<&[u64]> {
        self.views
            .get(memref.0 as usize)
            .map(|view| view.shape.as_slice())
    }

    /// The element type of a buffer.
    pub fn element_type(&self, buffer: BufferId) -> Option<ElementType> {
        self.buffers
            .get(buffer.0 as usize)
            .map(|buffer| buffer.element)
    }

    /// The public (harness-created) buffers, in creation order.
    pub fn public_buffers(&self) -> impl Iterator<Item = BufferId> + '_ {
        self.buffers
            .iter()
            .enumerate()
            .filter(|(_, buffer)| !buffer.private)
            .map(|(index, _)| BufferId(index as u32))
    }

    /// The elements of a buffer, in order.
    pub fn contents(&self, buffer: BufferId) -> Vec<Value> {
        self.buffers
            .get(buffer.0 as usize)
            .map(|buffer| {
                buffer
                    .data
                    .iter()
                    .map(|&bits| buffer.element.decode(bits))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The elements of the buffer behind `memref` as signed integers
    /// (floats truncate).
    pub fn read_i64s(&self, memref: MemRefId) -> Vec<i64> {
        let Some(buffer) = self.buffer_of(memref) else {
            return Vec::new();
        };
        self.contents(buffer)
            .into_iter()
            .map(|value| match value {
                Value::F32(float) => float as i64,
                Value::F64(float) => float as i64,
                other => other.as_i64().unwrap_or_default(),
            })
            .collect()
    }

    /// Every store and atomic on public buffers, in execution order.
    pub fn side_effects(&self) -> &[SideEffect] {
        &self.log
    }

    /// The side effects of one thread, in its execution order.
    pub fn effects_of_thread(&self, thread: u32) -> impl Iterator<Item = &SideEffect> + '_ {
        self.log
            .iter()
            .filter(move |effect| effect.thread == thread)
    }

    /// Forgets the logged side effects (the buffers keep their contents).
    pub fn clear_log(&mut self) {
        self.log.clear();
    }

    /// Size of dimension `dimension` of `memref`.
    pub fn dim(&self, memref: MemRefId, dimension: i64) -> Result<u64, MemoryError> {
        let view = self.view(memref)?;
        usize::try_from(dimension)
            .ok()
            .and_then(|d| view.shape.get(d).copied())
            .ok_or(MemoryError::NoSuchDimension { memref, dimension })
    }

    /// Reads element `indices` of `memref`.
    pub fn load(&self, memref: MemRefId, indices: &[i64]) -> Result<Value, MemoryError> {
        let (buffer, offset) = self.locate(memref, indices)?;
        let buffer = &self.buffers[buffer.0 as usize];
        Ok(buffer.element.decode(buffer.data[offset]))
    }

    /// Writes `value` to element `indices` of `memref`, logging it for
    /// `thread` if the buffer is public.
    pub fn store(
        &mut self,
        memref: MemRefId,
        indices: &[i64],
        value: Value,
        thread: u32,
    ) -> Result<(), MemoryError> {
        let (buffer_id, offset) = self.locate(memref, indices)?;
        let buffer = &mut self.buffers[buffer_id.0 as usize];
        let bits = buffer
            .element
            .encode(value)
            .ok_or(MemoryError::ElementTypeMismatch {
                buffer: buffer_id,
                element: buffer.element,
                value,
            })?;
        buffer.data[offset] = bits;
        let private = buffer.private;
        self.record(private, thread, EffectKind::Store, buffer_id, offset, value);
        Ok(())
    }

    /// Atomically combines element `indices` of `memref` with `value`;
    /// returns the element's previous value.
    pub fn atomic_rmw(
        &mut self,
        kind: AtomicKind,
        memref: MemRefId,
        indices: &[i64],
        value: Value,
        thread: u32,
    ) -> Result<Value, MemoryError> {
        let (buffer_id, offset) = self.locate(memref, indices)?;
        let buffer = &mut self.buffers[buffer_id.0 as usize];
        let element = buffer.element;
        let mismatch = || MemoryError::ElementTypeMismatch {
            buffer: buffer_id,
            element,
            value,
        };
        let operand = element.encode(value).ok_or_else(mismatch)?;
        let old = buffer.data[offset];
        let new = combine(kind, element, old, operand)
            .ok_or(MemoryError::InvalidAtomic { kind, element })?;
        buffer.data[offset] = new;
        let private = buffer.private;
        self.record(
            private,
            thread,
            EffectKind::AtomicRmw(kind),
            buffer_id,
            offset,
            value,
        );
        Ok(element.decode(old))
    }

    fn record(
        &mut self,
        private: bool,
        thread: u32,
        kind: EffectKind,
        buffer: BufferId,
        offset: usize,
        value: Value,
    ) {
        if !private {
            self.log.push(SideEffect {
                thread,
                kind,
                buffer,
                index: offset as u64,
                value,
            });
        }
    }

    fn view(&self, memref: MemRefId) -> Result<&View, MemoryError> {
        self.views
            .get(memref.0 as usize)
            .ok_or(MemoryError::UnknownMemRef(memref))
    }

    /// The buffer and linear element offset of an access.
    fn locate(&self, memref: MemRefId, indices: &[i64]) -> Result<(BufferId, usize), MemoryError> {
        let view = self.view(memref)?;
        if indices.len() != view.shape.len() {
            return Err(MemoryError::RankMismatch {
                memref,
                rank: view.shape.len(),
                got: indices.len(),
            });
        }
        let out_of_bounds = || MemoryError::OutOfBounds {
            buffer: view.buffer,
            indices: indices.to_vec(),
            shape: view.shape.clone(),
        };
        let mut offset = 0u64;
        for ((&index, &size), &stride) in indices.iter().zip(&view.shape).zip(&view.strides) {
            let index = u64::try_from(index).map_err(|_| out_of_bounds())?;
            if index >= size {
                return Err(out_of_bounds());
            }
            offset += index * stride;
        }
        Ok((view.buffer, offset as usize))
    }
}

fn identity_strides(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1; shape.len()];
    for dim in (0..shape.len().saturating_sub(1)).rev() {
        strides[dim] = strides[dim + 1] * shape[dim + 1];
    }
    strides
}

/// The new bits of an element after an atomic; `None` if `kind` does not
/// apply to `element`.
fn combine(kind: AtomicKind, element: ElementType, old: u64, operand: u64) -> Option<u64> {
    match element {
        ElementType::Int(width) => combine_int(kind, width, old, operand),
        ElementType::Index => combine_int(kind, 64, old, operand),
        ElementType::F32 => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(operand as u32));
            combine_float(kind, f64::from(a), f64::from(b)).map(|r| u64::from((r as f32).to_bits()))
        }
        ElementType::F64 => {
            combine_float(kind, f64::from_bits(old), f64::from_bits(operand)).map(f64::to_bits)
        }
    }
}

fn combine_int(kind: AtomicKind, width: u32, old: u64, operand: u64) -> Option<u64> {
    let (a, b) = (IntValue::wrap(width, old), IntValue::wrap(width, operand));
    let bits = match kind {
        AtomicKind::AddI => a.unsigned().wrapping_add(b.unsigned()),
        AtomicKind::MulI => a.unsigned().wrapping_mul(b.unsigned()),
        AtomicKind::AndI => a.unsigned() & b.unsigned(),
        AtomicKind::OrI => a.unsigned() | b.unsigned(),
        AtomicKind::XorI => a.unsigned() ^ b.unsigned(),
        AtomicKind::MaxS => a.signed().max(b.signed()) as u64,
        AtomicKind::MinS => a.signed().min(b.signed()) as u64,
        AtomicKind::MaxU => a.unsigned().max(b.unsigned()),
        AtomicKind::MinU => a.unsigned().min(b.unsigned()),
        AtomicKind::Assign => b.unsigned(),
        AtomicKind::SubI => a.unsigned().wrapping_sub(b.unsigned()),
        AtomicKind::NandI => !(a.unsigned() & b.unsigned()),
        AtomicKind::IncWrapU if a.unsigned() >= b.unsigned() => 0,
        AtomicKind::IncWrapU => a.unsigned() + 1,
        AtomicKind::DecWrapU if a.unsigned() == 0 || a.unsigned() > b.unsigned() => b.unsigned(),
        AtomicKind::DecWrapU => a.unsigned() - 1,
        AtomicKind::AddF
        | AtomicKind::MulF
        | AtomicKind::SubF
        | AtomicKind::MaxF
        | AtomicKind::MinF => return None,
    };
    Some(IntValue::wrap(width, bits).unsigned())
}

fn combine_float(kind: AtomicKind, a: f64, b: f64) -> Option<f64> {
    match kind {
        AtomicKind::AddF => Some(a + b),
        AtomicKind::MulF => Some(a * b),
        AtomicKind::SubF => Some(a - b),
        AtomicKind::MaxF => Some(a.max(b)),
        AtomicKind::MinF => Some(a.min(b)),
        AtomicKind::Assign => Some(b),
        _ => None,
    }
}

/// Byte-addressed access through [`Pointer`]s (the LLVM dialect), module
/// globals, aggregates and memref descriptors.
///
/// Buffers stay arrays of typed elements: an access through a pointer must
/// cover exactly one element (its size is the element's and its offset a
/// multiple of it), and reads and writes the element's bits, reinterpreted
/// as the accessed type (an `f32` load of an `i32` element gives the float
/// with those bits). Stores and atomics are logged as for memrefs, with the
/// element index and the value as the buffer's element type, so a memref
/// program and its LLVM lowering log the same effects.
impl Memory {
    /// The largest `llvm.alloca` or module global, in elements.
    pub const MAX_POINTER_BUFFER_ELEMENTS: u64 = 1 << 20;

    /// A pointer to the first element of the buffer behind `memref`.
    pub fn pointer_to(&self, memref: MemRefId) -> Option<Pointer> {
        self.buffer_of(memref).map(Pointer::to_buffer)
    }

    /// The arguments an `llvm.func` receives for `memref` once MLIR's
    /// memref-to-LLVM conversion expanded it: allocated pointer, aligned
    /// pointer, offset 0, the sizes and the (identity) strides, as `i64`s.
    pub fn descriptor(&self, memref: MemRefId) -> Option<Vec<Value>> {
        let view = self.view(memref).ok()?;
        let pointer = Value::Ptr(Pointer::to_buffer(view.buffer));
        let mut values = vec![pointer, pointer, Value::i64(0)];
        values.extend(view.shape.iter().map(|&size| Value::i64(size as i64)));
        values.extend(view.strides.iter().map(|&stride| Value::i64(stride as i64)));
        Some(values)
    }

    /// `args` with every memref replaced by its [`descriptor`](Self::descriptor)
    /// (an unknown memref is kept, so the callee reports it).
    pub fn expand_memrefs(&self, args: &[Value]) -> Vec<Value> {
        let mut expanded = Vec::with_capacity(args.len());
        for &value in args {
            match value.as_memref().and_then(|memref| self.descriptor(memref)) {
                Some(descriptor) => expanded.extend(descriptor),
                None => expanded.push(value),
            }
        }
        expanded
    }

    /// The size of a buffer in bytes.
    pub fn buffer_bytes(&self, buffer: BufferId) -> Option<u64> {
        self.buffers
            .get(buffer.0 as usize)
            .map(|buffer| buffer.data.len() as u64 * buffer.element.size_bytes())
    }

    /// The address space of a buffer.
    pub fn address_space(&self, buffer: BufferId) -> Option<u32> {
        self.buffers
            .get(buffer.0 as usize)
            .map(|buffer| buffer.space)
    }

    /// A zeroed private buffer of `count` elements in address space
    /// `space` (`llvm.alloca`); not logged, not a harness buffer.
    pub(crate) fn alloc_pointer_buffer(
        &mut self,
        element: ElementType,
        count: i64,
        space: u32,
    ) -> Result<BufferId, MemoryError> {
        let count = u64::try_from(count)
            .ok()
            .filter(|&count| count <= Self::MAX_POINTER_BUFFER_ELEMENTS)
            .ok_or_else(|| MemoryError::InvalidSize(vec![count]))?;
        let buffer = BufferId(self.buffers.len() as u32);
        self.buffers.push(Buffer {
            element,
            data: vec![0; count as usize],
            private: true,
            space,
        });
        Ok(buffer)
    }

    /// The buffer of module global `global` for CTA `cta` (`None` for a
    /// global outside shared memory: one copy for the grid), created on
    /// first use holding `init` (empty: zeros; one value: every element).
    /// Globals are private: not logged, not harness buffers.
    pub(crate) fn global_buffer(
        &mut self,
        global: usize,
        cta: Option<u32>,
        (element, count, space): (ElementType, u64, u32),
        init: &[Value],
    ) -> Result<BufferId, MemoryError> {
        let key = (global, cta);
        if let Some(&buffer) = self.globals.get(&key) {
            return Ok(buffer);
        }
        let buffer = self.alloc_pointer_buffer(element, count as i64, space)?;
        let data = &mut self.buffers[buffer.0 as usize].data;
        for (index, slot) in data.iter_mut().enumerate() {
            let value = if init.len() == 1 {
                init.first()
            } else {
                init.get(index)
            };
            if let Some(bits) = value.and_then(|value| element.encode(*value)) {
                *slot = bits;
            }
        }
        self.globals.insert(key, buffer);
        Ok(buffer)
    }

    /// The leaves of an aggregate value.
    pub fn aggregate(&self, id: AggregateId) -> Option<&[Value]> {
        self.aggregates.get(id.0 as usize).map(|leaves| &leaves[..])
    }

    /// Stores an aggregate value; its id.
    pub(crate) fn make_aggregate(&mut self, leaves: Vec<Value>) -> AggregateId {
        self.aggregates.push(leaves.into_boxed_slice());
        AggregateId(self.aggregates.len() as u32 - 1)
    }

    /// The buffer and element index an access of `access` through
    /// `pointer` (of address space `space`) reads or writes.
    fn locate_pointer(
        &self,
        pointer: Pointer,
        access: ElementType,
        space: u32,
    ) -> Result<(BufferId, usize), MemoryError> {
        let buffer_id = pointer.buffer.ok_or(MemoryError::NullPointer { pointer })?;
        let buffer = self
            .buffers
            .get(buffer_id.0 as usize)
            .ok_or(MemoryError::UnknownBuffer(buffer_id))?;
        if space != address_space::GENERIC && space != buffer.space {
            return Err(MemoryError::AddressSpaceMismatch {
                buffer: buffer_id,
                buffer_space: buffer.space,
                pointer_space: space,
            });
        }
        let (size, element_size) = (access.size_bytes(), buffer.element.size_bytes());
        let buffer_bytes = buffer.data.len() as u64 * element_size;
        let in_bounds = u64::try_from(pointer.offset)
            .ok()
            .and_then(|offset| offset.checked_add(size))
            .is_some_and(|end| end <= buffer_bytes);
        if !in_bounds {
            return Err(MemoryError::PointerOutOfBounds {
                pointer,
                size,
                buffer_bytes,
            });
        }
        if size != element_size || !(pointer.offset as u64).is_multiple_of(element_size) {
            return Err(MemoryError::ElementMisaligned {
                pointer,
                access,
                element: buffer.element,
            });
        }
        Ok((buffer_id, (pointer.offset as u64 / element_size) as usize))
    }

    /// Reads an `access` through `pointer`.
    pub fn load_pointer(
        &self,
        pointer: Pointer,
        access: ElementType,
        space: u32,
    ) -> Result<Value, MemoryError> {
        let (buffer, index) = self.locate_pointer(pointer, access, space)?;
        Ok(access.decode(self.buffers[buffer.0 as usize].data[index]))
    }

    /// The bits of `value` as an `access`, or the mismatch error.
    fn encode_access(
        &self,
        buffer: BufferId,
        access: ElementType,
        value: Value,
    ) -> Result<u64, MemoryError> {
        access
            .encode(value)
            .ok_or(MemoryError::ElementTypeMismatch {
                buffer,
                element: access,
                value,
            })
    }

    /// Writes `value` (of type `access`) through `pointer`, logging it for
    /// `thread` if the buffer is public.
    pub fn store_pointer(
        &mut self,
        pointer: Pointer,
        access: ElementType,
        space: u32,
        value: Value,
        thread: u32,
    ) -> Result<(), MemoryError> {
        let (buffer_id, index) = self.locate_pointer(pointer, access, space)?;
        let bits = self.encode_access(buffer_id, access, value)?;
        let buffer = &mut self.buffers[buffer_id.0 as usize];
        buffer.data[index] = bits;
        let (private, logged) = (buffer.private, buffer.element.decode(bits));
        self.record(private, thread, EffectKind::Store, buffer_id, index, logged);
        Ok(())
    }

    /// `llvm.atomicrmw`: combines the element with `value` by the rules of
    /// the accessed type; returns the old value.
    pub fn atomic_pointer(
        &mut self,
        kind: AtomicKind,
        pointer: Pointer,
        access: ElementType,
        space: u32,
        value: Value,
        thread: u32,
    ) -> Result<Value, MemoryError> {
        let (buffer_id, index) = self.locate_pointer(pointer, access, space)?;
        let operand = self.encode_access(buffer_id, access, value)?;
        let buffer = &mut self.buffers[buffer_id.0 as usize];
        let old = buffer.data[index];
        let new = combine(kind, access, old, operand).ok_or(MemoryError::InvalidAtomic {
            kind,
            element: access,
        })?;
        buffer.data[index] = new;
        let (private, logged) = (buffer.private, buffer.element.decode(operand));
        self.record(
            private,
            thread,
            EffectKind::AtomicRmw(kind),
            buffer_id,
            index,
            logged,
        );
        Ok(access.decode(old))
    }

    /// `llvm.cmpxchg`: writes `new` if the element's bits equal those of
    /// `expected`; returns the old value and whether it was written.
    #[allow(clippy::too_many_arguments)]
    pub fn compare_exchange(
        &mut self,
        pointer: Pointer,
        access: ElementType,
        space: u32,
        expected: Value,
        new: Value,
        thread: u32,
    ) -> Result<(Value, bool), MemoryError> {
        let (buffer_id, index) = self.locate_pointer(pointer, access, space)?;
        let expected = self.encode_access(buffer_id, access, expected)?;
        let new = self.encode_access(buffer_id, access, new)?;
        let buffer = &mut self.buffers[buffer_id.0 as usize];
        let old = buffer.data[index];
        let swapped = old == expected;
        if swapped {
            buffer.data[index] = new;
        }
        let (private, logged) = (buffer.private, buffer.element.decode(new));
        self.record(
            private,
            thread,
            EffectKind::CompareExchange { swapped },
            buffer_id,
            index,
            logged,
        );
        Ok((access.decode(old), swapped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer_pointer(memory: &mut Memory, values: &[i32]) -> (MemRefId, Pointer) {
        let memref = memory.alloc_i32(values);
        (memref, memory.pointer_to(memref).unwrap())
    }

    /// CUDA's `atomicInc` and `atomicDec` (`uinc_wrap`, `udec_wrap`).
    #[test]
    fn atomic_increment_and_decrement_wrap_at_the_operand() {
        let mut memory = Memory::new();
        let (memref, p) = buffer_pointer(&mut memory, &[0, 2, 0, 5]);
        let i32_ = ElementType::Int(32);
        let space = address_space::GLOBAL;
        let mut rmw = |kind, offset, operand| {
            memory
                .atomic_pointer(
                    kind,
                    p.offset_by(offset),
                    i32_,
                    space,
                    Value::i32(operand),
                    0,
                )
                .unwrap()
        };
        // Counting modulo 3: 0, 1, 2, 0.
        assert_eq!(rmw(AtomicKind::IncWrapU, 0, 2), Value::i32(0));
        assert_eq!(rmw(AtomicKind::IncWrapU, 0, 2), Value::i32(1));
        assert_eq!(rmw(AtomicKind::IncWrapU, 0, 2), Value::i32(2));
        assert_eq!(rmw(AtomicKind::IncWrapU, 4, 2), Value::i32(2));
        // Unsigned: -1 is the largest operand, so no wrap.
        assert_eq!(rmw(AtomicKind::IncWrapU, 4, -1), Value::i32(0));
        // Decrement: from 0, or from above the operand, to the operand.
        assert_eq!(rmw(AtomicKind::DecWrapU, 8, 7), Value::i32(0));
        assert_eq!(rmw(AtomicKind::DecWrapU, 8, 7), Value::i32(7));
        assert_eq!(rmw(AtomicKind::DecWrapU, 12, 3), Value::i32(5));
        assert_eq!(memory.read_i64s(memref), vec![0, 1, 6, 3]);
    }

    #[test]
    fn buffers_from_values_keep_float_bits() {
        let mut memory = Memory::new();
        let values = [Value::F32(0.1), Value::F32(-2.5), Value::F32(f32::NAN)];
        let memref = memory.alloc_values(ElementType::F32, &values).unwrap();
        let buffer = memory.buffer_of(memref).unwrap();
        let contents = memory.contents(buffer);
        assert!(contents.iter().zip(&values).all(|(a, b)| a.same_as(*b)));
        assert_eq!(memory.shape(memref), Some(&[3u64][..]));
        let before = memory.public_buffers().count();
        assert!(matches!(
            memory.alloc_values(ElementType::Int(8), &[Value::i32(1)]),
            Err(MemoryError::ElementTypeMismatch { .. })
        ));
        assert_eq!(memory.public_buffers().count(), before);
    }

    #[test]
    fn pointer_accesses_cover_exactly_one_element() {
        let mut memory = Memory::new();
        let (_, p) = buffer_pointer(&mut memory, &[10, 20, 30]);
        let i32_ = ElementType::Int(32);
        assert_eq!(
            memory.load_pointer(p.offset_by(8), i32_, 0),
            Ok(Value::i32(30))
        );
        // The bits reinterpreted as the accessed type.
        assert_eq!(
            memory.load_pointer(p.offset_by(4), ElementType::F32, 1),
            Ok(Value::F32(f32::from_bits(20)))
        );
        assert!(matches!(
            memory.load_pointer(p.offset_by(12), i32_, 0),
            Err(MemoryError::PointerOutOfBounds {
                size: 4,
                buffer_bytes: 12,
                ..
            })
        ));
        assert!(matches!(
            memory.load_pointer(p.offset_by(-4), i32_, 0),
            Err(MemoryError::PointerOutOfBounds { .. })
        ));
        assert!(matches!(
            memory.load_pointer(p.offset_by(2), i32_, 0),
            Err(MemoryError::ElementMisaligned { .. })
        ));
        assert!(matches!(
            memory.load_pointer(p, ElementType::Int(64), 0),
            Err(MemoryError::ElementMisaligned { .. })
        ));
        assert!(matches!(
            memory.load_pointer(p, i32_, address_space::SHARED),
            Err(MemoryError::AddressSpaceMismatch {
                buffer_space: address_space::GLOBAL,
                pointer_space: 3,
                ..
            })
        ));
        assert!(matches!(
            memory.load_pointer(Pointer::NULL, i32_, 0),
            Err(MemoryError::NullPointer { .. })
        ));
        let unknown = Pointer::to_buffer(BufferId(99));
        assert_eq!(
            memory.load_pointer(unknown, i32_, 0),
            Err(MemoryError::UnknownBuffer(BufferId(99)))
        );
    }

    #[test]
    fn pointer_stores_log_like_memref_stores() {
        let mut memory = Memory::new();
        let (memref, p) = buffer_pointer(&mut memory, &[0, 0]);
        memory
            .store_pointer(p.offset_by(4), ElementType::F32, 0, Value::F32(1.0), 7)
            .unwrap();
        let logged = memory.side_effects()[0];
        // Logged as the buffer's element type, at the element index.
        assert_eq!(
            (logged.thread, logged.index, logged.value),
            (7, 1, Value::i32(1.0f32.to_bits() as i32))
        );
        assert_eq!(
            memory.read_i64s(memref),
            vec![0, i64::from(1.0f32.to_bits())]
        );
        assert!(matches!(
            memory.store_pointer(p, ElementType::Int(32), 0, Value::i64(1), 0),
            Err(MemoryError::ElementTypeMismatch { .. })
        ));
        // Private buffers are not logged.
        let local = memory
            .alloc_pointer_buffer(ElementType::Int(32), 2, address_space::LOCAL)
            .unwrap();
        memory
            .store_pointer(
                Pointer::to_buffer(local),
                ElementType::Int(32),
                5,
                Value::i32(3),
                0,
            )
            .unwrap();
        assert_eq!(memory.side_effects().len(), 1);
        assert!(matches!(
            memory.alloc_pointer_buffer(ElementType::Int(32), -1, address_space::LOCAL),
            Err(MemoryError::InvalidSize(_))
        ));
    }

    #[test]
    fn pointer_atomics_and_compare_exchange() {
        let mut memory = Memory::new();
        let (memref, p) = buffer_pointer(&mut memory, &[12, 6]);
        let i32_ = ElementType::Int(32);
        assert_eq!(
            memory.atomic_pointer(AtomicKind::SubI, p, i32_, 0, Value::i32(5), 0),
            Ok(Value::i32(12))
        );
        assert_eq!(
            memory.atomic_pointer(AtomicKind::NandI, p, i32_, 0, Value::i32(3), 0),
            Ok(Value::i32(7))
        );
        assert_eq!(memory.read_i64s(memref)[0], i64::from(!(7 & 3)));
        assert!(matches!(
            memory.atomic_pointer(AtomicKind::AddF, p, i32_, 0, Value::i32(1), 0),
            Err(MemoryError::InvalidAtomic { .. })
        ));
        let second = p.offset_by(4);
        assert_eq!(
            memory.compare_exchange(second, i32_, 0, Value::i32(5), Value::i32(9), 1),
            Ok((Value::i32(6), false))
        );
        assert_eq!(
            memory.compare_exchange(second, i32_, 0, Value::i32(6), Value::i32(9), 1),
            Ok((Value::i32(6), true))
        );
        assert_eq!(memory.read_i64s(memref)[1], 9);
        let kinds: Vec<EffectKind> = memory
            .side_effects()
            .iter()
            .map(|effect| effect.kind)
            .collect();
        assert_eq!(
            kinds[2..],
            [
                EffectKind::CompareExchange { swapped: false },
                EffectKind::CompareExchange { swapped: true }
            ]
        );
        let floats = memory.alloc_init(ElementType::F32, &[1], &[2]);
        let f = memory.pointer_to(floats).unwrap();
        memory
            .atomic_pointer(AtomicKind::MaxF, f, ElementType::F32, 0, Value::F32(3.5), 0)
            .unwrap();
        memory
            .atomic_pointer(AtomicKind::SubF, f, ElementType::F32, 0, Value::F32(1.0), 0)
            .unwrap();
        assert_eq!(
            memory.contents(memory.buffer_of(floats).unwrap()),
            vec![Value::F32(2.5)]
        );
    }

    #[test]
    fn descriptors_expand_memref_arguments() {
        let mut memory = Memory::new();
        let m = memory.alloc(ElementType::Int(32), &[2, 3]);
        let p = Value::Ptr(memory.pointer_to(m).unwrap());
        let descriptor = vec![
            p,
            p,
            Value::i64(0),
            Value::i64(2),
            Value::i64(3),
            Value::i64(3),
            Value::i64(1),
        ];
        assert_eq!(memory.descriptor(m), Some(descriptor.clone()));
        let expanded = memory.expand_memrefs(&[Value::MemRef(m), Value::i32(4)]);
        assert_eq!(expanded[..7], descriptor[..]);
        assert_eq!(expanded[7], Value::i32(4));
        assert_eq!(memory.descriptor(MemRefId(9)), None);
    }

    #[test]
    fn globals_have_one_copy_per_cta_in_shared_memory_and_their_initializer() {
        let mut memory = Memory::new();
        let shape = (ElementType::Int(32), 4, address_space::SHARED);
        let a0 = memory.global_buffer(0, Some(0), shape, &[]).unwrap();
        let a1 = memory.global_buffer(0, Some(1), shape, &[]).unwrap();
        assert_ne!(a0, a1);
        assert_eq!(memory.global_buffer(0, Some(0), shape, &[]).unwrap(), a0);
        assert_eq!(memory.address_space(a0), Some(address_space::SHARED));
        let splat = memory
            .global_buffer(1, None, (ElementType::Int(32), 3, 1), &[Value::i32(5)])
            .unwrap();
        assert_eq!(memory.contents(splat), vec![Value::i32(5); 3]);
        let listed = memory
            .global_buffer(
                2,
                None,
                (ElementType::Int(32), 2, 1),
                &[Value::i32(1), Value::i32(2)],
            )
            .unwrap();
        assert_eq!(memory.contents(listed), vec![Value::i32(1), Value::i32(2)]);
        assert_eq!(
            memory.public_buffers().count(),
            0,
            "globals are not harness buffers"
        );
    }

    #[test]
    fn aggregates_are_immutable_entries() {
        let mut memory = Memory::new();
        let a = memory.make_aggregate(vec![Value::i32(1), Value::Poison]);
        let b = memory.make_aggregate(vec![Value::i32(2)]);
        assert_ne!(a, b);
        assert_eq!(
            memory.aggregate(a),
            Some(&[Value::i32(1), Value::Poison][..])
        );
        assert_eq!(memory.aggregate(AggregateId(7)), None);
    }

    #[test]
    fn element_sizes_follow_nvptx_allocation_sizes() {
        let sizes: Vec<u64> = [1, 8, 9, 16, 24, 32, 33, 64]
            .iter()
            .map(|&w| ElementType::Int(w).size_bytes())
            .collect();
        assert_eq!(sizes, vec![1, 1, 2, 2, 4, 4, 8, 8]);
        assert_eq!(
            (
                ElementType::F32.size_bytes(),
                ElementType::Index.size_bytes()
            ),
            (4, 8)
        );
    }
}
