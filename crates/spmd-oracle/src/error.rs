//! Typed errors of the executor.
//!
//! Errors raised by an operation carry the operation's name and its
//! location as MLIR prints it (`loc("file.mlir":3:7)`), captured when the
//! module was compiled.

use super::memory::MemoryError;
use super::value::Value;
use std::fmt;

/// Where an operation-level error happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSite {
    /// The operation name, such as `arith.divsi`.
    pub op_name: String,
    /// The operation's location as MLIR prints it.
    pub location: String,
}

impl fmt::Display for OpSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' at {}", self.op_name, self.location)
    }
}

/// How a poison value was misused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoisonUse {
    /// As the condition, predicate or flag of a branch.
    BranchCondition,
    /// As a memref or an index of a memory access.
    Address,
    /// As the value stored (or combined atomically).
    StoredValue,
    /// As an allocation size or dimension index.
    Size,
    /// As the condition of `cf.assert`.
    AssertCondition,
    /// As the member mask, lane or barrier operand of a warp collective.
    Collective,
}

/// Why execution stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecError {
    /// The operation (or a terminator, or an operation with regions) is not
    /// in the executor's subset.
    Unsupported {
        /// The operation.
        site: OpSite,
    },
    /// A value of a type the executor does not model (e.g. `i128`, vectors).
    UnsupportedType {
        /// The operation producing or consuming it.
        site: OpSite,
        /// The MLIR spelling of the type.
        type_text: String,
    },
    /// Division by zero, signed division overflow, `llvm.unreachable`, ...
    UndefinedBehavior {
        /// The operation.
        site: OpSite,
        /// What went wrong.
        reason: &'static str,
    },
    /// A poison value reached a branch condition, an address or a store.
    PoisonUsed {
        /// The operation.
        site: OpSite,
        /// How it was used.
        usage: PoisonUse,
    },
    /// A memory access failed (out of bounds, wrong element type, ...).
    Memory {
        /// The operation.
        site: OpSite,
        /// The memory's error.
        error: MemoryError,
    },
    /// An operand has the wrong kind of value (a verified module only gets
    /// this from harness arguments of the wrong type).
    TypeMismatch {
        /// The operation.
        site: OpSite,
        /// What was expected and found.
        detail: String,
    },
    /// A value was read before any definition executed (impossible in a
    /// verified module; reported rather than trusted).
    UndefinedValue {
        /// The operation reading it.
        site: OpSite,
    },
    /// `cf.assert` failed.
    AssertionFailed {
        /// The operation.
        site: OpSite,
        /// Its message.
        message: String,
    },
    /// A call nested deeper than the limit.
    CallDepthExceeded {
        /// The call.
        site: OpSite,
        /// The limit.
        limit: usize,
    },
    /// A call to a symbol that is not a function with a body in the module.
    UnknownCallee {
        /// The call.
        site: OpSite,
        /// The callee's name.
        callee: String,
    },
    /// `run_thread` was asked for a function the module does not define.
    UnknownFunction {
        /// The name asked for.
        name: String,
    },
    /// The arguments do not match the function's parameters.
    ArgumentMismatch {
        /// The function.
        function: String,
        /// What is wrong.
        detail: String,
    },
    /// A warp collective or barrier (`nvvm.vote.sync`, `nvvm.shfl.sync`,
    /// `nvvm.barrier0`, `llvm.nvvm.activemask`, ...) reached by a thread
    /// running alone: it needs a lockstep warp ([`Executor::run_cta`]).
    ///
    /// [`Executor::run_cta`]: super::Executor::run_cta
    WarpCollective {
        /// The operation.
        site: OpSite,
    },
    /// An LLVM intrinsic outside the executor's subset.
    UnsupportedIntrinsic {
        /// The call.
        site: OpSite,
        /// The intrinsic's name.
        name: String,
    },
    /// `llvm.mlir.addressof` of a symbol that is not an `llvm.mlir.global`
    /// of the module.
    UnknownGlobal {
        /// The operation.
        site: OpSite,
        /// The symbol.
        name: String,
    },
    /// The thread executed more blocks than its fuel allowed.
    OutOfFuel {
        /// The fuel the thread started with.
        fuel: u64,
    },
}

impl ExecError {
    /// The operation the error is about, if any.
    pub fn site(&self) -> Option<&OpSite> {
        match self {
            Self::Unsupported { site }
            | Self::UnsupportedType { site, .. }
            | Self::UndefinedBehavior { site, .. }
            | Self::PoisonUsed { site, .. }
            | Self::Memory { site, .. }
            | Self::TypeMismatch { site, .. }
            | Self::UndefinedValue { site }
            | Self::AssertionFailed { site, .. }
            | Self::CallDepthExceeded { site, .. }
            | Self::UnknownCallee { site, .. }
            | Self::WarpCollective { site }
            | Self::UnsupportedIntrinsic { site, .. }
            | Self::UnknownGlobal { site, .. } => Some(site),
            Self::UnknownFunction { .. }
            | Self::ArgumentMismatch { .. }
            | Self::OutOfFuel { .. } => None,
        }
    }

    /// True for undefined behaviour of the program itself (after which a
    /// transformed program may do anything).
    pub fn is_undefined_behavior(&self) -> bool {
        matches!(
            self,
            Self::UndefinedBehavior { .. }
                | Self::PoisonUsed { .. }
                | Self::Memory { .. }
                | Self::AssertionFailed { .. }
        )
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported { site } => write!(f, "unsupported operation {site}"),
            Self::UnsupportedType { site, type_text } => {
                write!(f, "unsupported type {type_text} in {site}")
            }
            Self::UndefinedBehavior { site, reason } => {
                write!(f, "undefined behaviour in {site}: {reason}")
            }
            Self::PoisonUsed { site, usage } => write!(f, "poison used as {usage:?} by {site}"),
            Self::Memory { site, error } => write!(f, "memory error in {site}: {error}"),
            Self::TypeMismatch { site, detail } => write!(f, "type mismatch in {site}: {detail}"),
            Self::UndefinedValue { site } => write!(f, "{site} reads a value never defined"),
            Self::AssertionFailed { site, message } => {
                write!(f, "assertion failed in {site}: {message}")
            }
            Self::CallDepthExceeded { site, limit } => {
                write!(f, "call depth limit {limit} exceeded at {site}")
            }
            Self::UnknownCallee { site, callee } => {
                write!(f, "{site} calls @{callee}, which has no body in the module")
            }
            Self::UnknownFunction { name } => write!(f, "no function @{name} in the module"),
            Self::WarpCollective { site } => {
                write!(
                    f,
                    "{site} is a warp collective: it needs a lockstep warp (Executor::run_cta)"
                )
            }
            Self::UnsupportedIntrinsic { site, name } => {
                write!(f, "unsupported intrinsic {name} in {site}")
            }
            Self::UnknownGlobal { site, name } => {
                write!(f, "{site} takes the address of @{name}, which is no llvm.mlir.global of the module")
            }
            Self::ArgumentMismatch { function, detail } => {
                write!(f, "bad arguments for @{function}: {detail}")
            }
            Self::OutOfFuel { fuel } => write!(f, "out of fuel after {fuel} blocks"),
        }
    }
}

impl std::error::Error for ExecError {}

/// Shorthand for the type-mismatch message of an operand.
pub(crate) fn describe_operand(expected: &str, found: Value) -> String {
    format!("expected {expected}, found {found}")
}
