//! Addresses of the executor's memory: buffers, memref views and LLVM
//! pointers. They are plain handles, so both [`value`](super::value) (a
//! value may be a memref or a pointer) and [`memory`](super::memory) (which
//! resolves them) build on this module without depending on each other.

use std::fmt;

/// LLVM address spaces of NVPTX that the executor knows.
pub mod address_space {
    /// The generic address space: a pointer into any buffer.
    pub const GENERIC: u32 = 0;
    /// Global memory: the harness's buffers and module globals.
    pub const GLOBAL: u32 = 1;
    /// Shared memory: module globals in address space 3, one copy per CTA.
    pub const SHARED: u32 = 3;
    /// Local memory: `llvm.alloca`.
    pub const LOCAL: u32 = 5;
}

/// An `!llvm.ptr` value: a byte offset from the start of a buffer, or
/// from address 0 for pointers that point into no buffer (`llvm.mlir.zero`,
/// `llvm.inttoptr` of a small integer). The offset may be anywhere (a GEP
/// may leave the buffer); only accesses are bounds-checked.
///
/// Integers converted to and from pointers (`llvm.ptrtoint`,
/// `llvm.inttoptr`) use a synthetic flat address space: buffer `b` starts
/// at `(b + 1) << 40`, so addresses of different buffers never overlap and
/// a round trip gives back the pointer for offsets in `0..2^40`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pointer {
    /// The buffer pointed into (`None`: the null-based address space).
    pub buffer: Option<BufferId>,
    /// Byte offset from the start of the buffer (or from address 0).
    pub offset: i64,
}

impl Pointer {
    /// The null pointer.
    pub const NULL: Self = Self {
        buffer: None,
        offset: 0,
    };
    const BUFFER_SHIFT: u32 = 40;

    /// The start of `buffer`.
    pub fn to_buffer(buffer: BufferId) -> Self {
        Self {
            buffer: Some(buffer),
            offset: 0,
        }
    }

    /// The synthetic flat address (see the type's docs).
    pub fn address(self) -> u64 {
        match self.buffer {
            Some(buffer) => {
                ((u64::from(buffer.0) + 1) << Self::BUFFER_SHIFT).wrapping_add(self.offset as u64)
            }
            None => self.offset as u64,
        }
    }

    /// The pointer at a synthetic flat address.
    pub fn from_address(address: u64) -> Self {
        match address >> Self::BUFFER_SHIFT {
            0 => Self {
                buffer: None,
                offset: address as i64,
            },
            high => Self {
                buffer: u32::try_from(high - 1).ok().map(BufferId),
                offset: (address & ((1 << Self::BUFFER_SHIFT) - 1)) as i64,
            },
        }
    }

    /// The pointer `bytes` further (wrapping).
    pub fn offset_by(self, bytes: i64) -> Self {
        Self {
            offset: self.offset.wrapping_add(bytes),
            ..self
        }
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.buffer {
            Some(buffer) => write!(f, "ptr(buffer#{} + {})", buffer.0, self.offset),
            None => write!(f, "ptr({:#x})", self.offset),
        }
    }
}

/// A buffer (an allocation) of the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

/// A memref view: a buffer with a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemRefId(pub u32);
