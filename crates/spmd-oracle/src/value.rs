//! Runtime values of the executor.
//!
//! | MLIR type | [`Value`] | representation |
//! |---|---|---|
//! | `i1` ... `i64` (signless) | [`Value::Int`] | [`IntValue`]: the low `width` bits of a `u64`, upper bits zero |
//! | `index` | [`Value::Index`] | a 64-bit two's-complement integer |
//! | `f32`, `f64` | [`Value::F32`], [`Value::F64`] | host floats |
//! | `memref<...>` | [`Value::MemRef`] | a [`MemRefId`] naming a view in [`Memory`](super::memory::Memory) |
//! | `!spmd.token` | [`Value::Token`] | no payload |
//! | any, from `ub.poison` | [`Value::Poison`] | no payload |
//!
//! Integers carry no signedness: like MLIR's signless integers, the
//! operation decides whether the bits are read as signed
//! ([`IntValue::signed`]) or unsigned ([`IntValue::unsigned`]).
//! Every arithmetic result wraps modulo `2^width`.

use super::address::{MemRefId, Pointer};
use std::fmt;

/// A signless integer of width 1..=64 bits.
///
/// Invariant: the bits above `width` are zero, so two values are equal
/// exactly when they have the same width and the same low bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntValue {
    bits: u64,
    width: u8,
}

impl IntValue {
    /// The value of width `width` whose low bits are those of `bits`
    /// (higher bits are dropped: the value wraps). `None` if `width` is not
    /// in 1..=64.
    pub fn new(width: u32, bits: u64) -> Option<Self> {
        (1..=64).contains(&width).then(|| Self {
            bits: bits & mask(width),
            width: width as u8,
        })
    }

    /// Like [`IntValue::new`] for a width the caller has already checked.
    pub(crate) fn wrap(width: u32, bits: u64) -> Self {
        debug_assert!((1..=64).contains(&width));
        Self {
            bits: bits & mask(width),
            width: width as u8,
        }
    }

    /// `value` as a two's-complement integer of width `width`, wrapped.
    pub fn from_i64(width: u32, value: i64) -> Option<Self> {
        Self::new(width, value as u64)
    }

    /// The `i1` value of `flag`.
    pub fn bool(flag: bool) -> Self {
        Self {
            bits: flag as u64,
            width: 1,
        }
    }

    /// The width in bits.
    pub fn width(self) -> u32 {
        u32::from(self.width)
    }

    /// The bits read as an unsigned integer (zero-extended to 64 bits).
    pub fn unsigned(self) -> u64 {
        self.bits
    }

    /// The bits read as a two's-complement signed integer (sign-extended).
    pub fn signed(self) -> i64 {
        sign_extend(self.bits, self.width())
    }

    /// True unless every bit is zero (the meaning of an `i1` condition).
    pub fn is_true(self) -> bool {
        self.bits != 0
    }
}

impl fmt::Display for IntValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.width == 1 {
            write!(f, "{} : i1", self.bits != 0)
        } else {
            write!(f, "{} : i{}", self.signed(), self.width)
        }
    }
}

/// The mask of the low `width` bits.
pub(crate) fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `bits` (of which the low `width` are meaningful) sign-extended to 64 bits.
pub(crate) fn sign_extend(bits: u64, width: u32) -> i64 {
    let unused = 64 - width;
    ((bits << unused) as i64) >> unused
}

/// An aggregate value in the memory's aggregate table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AggregateId(pub u32);

/// A runtime value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A signless integer `i1` ... `i64`.
    Int(IntValue),
    /// An `index`: a 64-bit integer.
    Index(i64),
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
    /// A memref: a view of a buffer in the executor's memory.
    MemRef(MemRefId),
    /// A convergence token (`spmd.convergence.*`); it has no payload.
    Token,
    /// An `!llvm.ptr`: a byte address in the executor's memory (see
    /// [`Pointer`]).
    Ptr(Pointer),
    /// An LLVM struct or array value (`llvm.insertvalue`, a memref
    /// descriptor, the `{value, flag}` of `llvm.cmpxchg`): its scalar
    /// leaves, in order, are kept in the [`Memory`](super::memory::Memory)'s
    /// aggregate table, which never changes an entry once made.
    Aggregate(AggregateId),
    /// The result of `ub.poison`, or of arithmetic on poison. Branching on
    /// it, addressing memory with it or storing it is an error.
    Poison,
}

impl Value {
    /// An `i1`.
    pub fn bool(flag: bool) -> Self {
        Self::Int(IntValue::bool(flag))
    }

    /// An `i32`.
    pub fn i32(value: i32) -> Self {
        Self::Int(IntValue::wrap(32, value as u32 as u64))
    }

    /// An `i64`.
    pub fn i64(value: i64) -> Self {
        Self::Int(IntValue::wrap(64, value as u64))
    }

    /// An integer of width `width` (wrapped), or `None` if the width is not
    /// in 1..=64.
    pub fn int(width: u32, value: i64) -> Option<Self> {
        IntValue::from_i64(width, value).map(Self::Int)
    }

    /// An `index`.
    pub fn index(value: i64) -> Self {
        Self::Index(value)
    }

    /// The integer payload of an `iN`, or of an `index` as an `i64`.
    pub fn as_int(self) -> Option<IntValue> {
        match self {
            Self::Int(value) => Some(value),
            Self::Index(value) => Some(IntValue::wrap(64, value as u64)),
            _ => None,
        }
    }

    /// The signed reading of an integer or index value.
    pub fn as_i64(self) -> Option<i64> {
        self.as_int().map(IntValue::signed)
    }

    /// The memref payload.
    pub fn as_memref(self) -> Option<MemRefId> {
        match self {
            Self::MemRef(id) => Some(id),
            _ => None,
        }
    }

    /// True for [`Value::Poison`].
    pub fn is_poison(self) -> bool {
        matches!(self, Self::Poison)
    }

    /// Equality for comparing runs: floats compare by bits (so NaN equals
    /// the same NaN), everything else structurally.
    pub fn same_as(self, other: Self) -> bool {
        match (self, other) {
            (Self::F32(a), Self::F32(b)) => a.to_bits() == b.to_bits(),
            (Self::F64(a), Self::F64(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }

    /// True if `self` (a value the transformed program produced) is allowed
    /// where the original produced `original`: equal values, or anything
    /// in place of poison (a transform may refine poison).
    pub fn refines(self, original: Self) -> bool {
        original.is_poison() || self.same_as(original)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(value) => write!(f, "{value}"),
            Self::Index(value) => write!(f, "{value} : index"),
            Self::F32(value) => write!(f, "{value:?} : f32"),
            Self::F64(value) => write!(f, "{value:?} : f64"),
            Self::MemRef(id) => write!(f, "memref#{}", id.0),
            Self::Token => write!(f, "token"),
            Self::Ptr(pointer) => write!(f, "{pointer}"),
            Self::Aggregate(id) => write!(f, "aggregate#{}", id.0),
            Self::Poison => write!(f, "poison"),
        }
    }
}

/// The type of a value as the executor sees it (derived from the MLIR type
/// once, when the module is compiled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// `iN` with N in 1..=64.
    Int(u32),
    /// `index`.
    Index,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// A ranked memref with identity layout: element type and the static
    /// size of each dimension (`None` for `?`).
    MemRef {
        /// The element type.
        element: Box<ValueType>,
        /// Static sizes (`None` = dynamic).
        shape: Vec<Option<u64>>,
    },
    /// `!spmd.token`.
    Token,
    /// `!llvm.ptr` in an address space (0 generic, 1 global, 3 shared, 5
    /// local).
    Ptr(u32),
    /// An `!llvm.struct` or `!llvm.array` whose leaves (nested aggregates
    /// flattened, in order) are these scalar types.
    Aggregate(Vec<ValueType>),
    /// Any other type, with its MLIR spelling.
    Unsupported(String),
}

impl ValueType {
    /// The integer width of `iN` (N) or `index` (64).
    pub fn int_width(&self) -> Option<u32> {
        match self {
            Self::Int(width) => Some(*width),
            Self::Index => Some(64),
            _ => None,
        }
    }

    /// The value of this type holding the integer `bits` (wrapped), for
    /// integer-like types.
    pub(crate) fn int_value(&self, bits: u64) -> Option<Value> {
        match self {
            Self::Int(width) => Some(Value::Int(IntValue::wrap(*width, bits))),
            Self::Index => Some(Value::Index(bits as i64)),
            _ => None,
        }
    }

    /// True if `value` may be bound to a variable of this type (poison fits
    /// every type).
    pub fn admits(&self, value: &Value) -> bool {
        match (self, value) {
            (_, Value::Poison) => true,
            (Self::Int(width), Value::Int(int)) => int.width() == *width,
            (Self::Index, Value::Index(_))
            | (Self::F32, Value::F32(_))
            | (Self::F64, Value::F64(_))
            | (Self::MemRef { .. }, Value::MemRef(_))
            | (Self::Token, Value::Token)
            | (Self::Ptr(_), Value::Ptr(_))
            | (Self::Aggregate(_), Value::Aggregate(_)) => true,
            _ => false,
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(width) => write!(f, "i{width}"),
            Self::Index => write!(f, "index"),
            Self::F32 => write!(f, "f32"),
            Self::F64 => write!(f, "f64"),
            Self::MemRef { element, shape } => {
                write!(f, "memref<")?;
                for size in shape {
                    match size {
                        Some(size) => write!(f, "{size}x")?,
                        None => write!(f, "?x")?,
                    }
                }
                write!(f, "{element}>")
            }
            Self::Token => write!(f, "!spmd.token"),
            Self::Ptr(0) => write!(f, "!llvm.ptr"),
            Self::Ptr(space) => write!(f, "!llvm.ptr<{space}>"),
            Self::Aggregate(leaves) => {
                let leaves: Vec<String> = leaves.iter().map(ToString::to_string).collect();
                write!(f, "!llvm.struct<({})>", leaves.join(", "))
            }
            Self::Unsupported(text) => write!(f, "{text}"),
        }
    }
}
