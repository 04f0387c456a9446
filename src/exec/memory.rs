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

use super::value::{IntValue, Value};
use std::fmt;

/// A buffer (an allocation) of the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

/// A memref view: a buffer with a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemRefId(pub u32);

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
}

/// What a logged side effect was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EffectKind {
    /// `memref.store`.
    Store,
    /// `memref.atomic_rmw` of this kind; the logged value is its operand.
    AtomicRmw(AtomicKind),
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
        }
    }
}

struct Buffer {
    element: ElementType,
    data: Vec<u64>,
    private: bool,
}

struct View {
    buffer: BufferId,
    shape: Vec<u64>,
    strides: Vec<u64>,
}

/// Buffers, memref views and the side-effect log.
#[derive(Default)]
pub struct Memory {
    buffers: Vec<Buffer>,
    views: Vec<View>,
    log: Vec<SideEffect>,
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
        AtomicKind::AddF | AtomicKind::MulF => return None,
    };
    Some(IntValue::wrap(width, bits).unsigned())
}

fn combine_float(kind: AtomicKind, a: f64, b: f64) -> Option<f64> {
    match kind {
        AtomicKind::AddF => Some(a + b),
        AtomicKind::MulF => Some(a * b),
        AtomicKind::Assign => Some(b),
        _ => None,
    }
}
