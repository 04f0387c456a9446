//! Which operations branch folding may merge or hoist.
//!
//! Three classes, by operation name:
//!
//! * **Convergent** ([`is_convergent`]): the set of threads that executes
//!   the operation together is part of its meaning (the one table of
//!   [`crate::ir::collectives`], plus what may hide a collective) — barriers, shuffles,
//!   votes, subgroup reductions, lane reads, every `spmd` operation
//!   (convergence tokens, reconvergence markers, exec-mask and ballot
//!   ops, Flow branches) and calls (their callee may be convergent).
//!   Merging two copies executed by disjoint thread sets into one, or
//!   hoisting one above a divergent branch, changes which threads meet,
//!   so these operations end every merged tail and every hoisted prefix.
//! * **Special-register reads** ([`reads_special_register`]): thread,
//!   lane, block and grid identity (`gpu.thread_id`,
//!   `nvvm.read.ptx.sreg.*`, `rocdl.workitem.id.*`, ...). The branch-folding notes'
//!   reserved-register gate: their values are defined by the hardware and
//!   must not become live into, or be computed in, a merged tail; they are
//!   never hoisted either.
//! * **Hoistable** ([`is_hoistable`]): operations whose effect does not
//!   depend on where in the thread's instruction stream they run, as long
//!   as every thread still runs them once with the same operands:
//!   arithmetic, `math`, `index`, plain loads and stores. Hoisting is only
//!   ever applied to the identical *leading* operations of both
//!   successors of a branch whose successors have no other predecessor,
//!   so every thread that reaches the branch executed exactly this
//!   operation, with exactly these operands, right after the branch; the
//!   hoisted copy runs it right before the branch instead. For a store this
//!   means the same value to the same address per thread; the only thing
//!   that changes is the interleaving with *other* threads on the other
//!   side of a divergent branch, which the SIMT model leaves unordered
//!   anyway (no barrier can sit between them: barriers are convergent and
//!   end the prefix). Atomics, calls and unknown operations are not
//!   hoisted.
//!
//! Tail merging needs less: both predecessors keep executing the same
//! operations in the same order per thread, so any non-convergent,
//! non-special-register operation without regions may be merged.

use crate::ir::{collectives, names};

/// Operations outside the table of [`collectives`] that may still hide a
/// collective: calls (their callee may be convergent), intrinsics and inline
/// assembly (this module reads names only, not the intrinsic or the PTX).
const OPAQUE_OPS: &[&str] = &[
    "func.call",
    "func.call_indirect",
    "llvm.call",
    names::LLVM_CALL_INTRINSIC,
    names::LLVM_INLINE_ASM,
];

const SPECIAL_REGISTER_PREFIXES: &[&str] = &[
    "nvvm.read.ptx.sreg.",
    "rocdl.workitem.",
    "rocdl.workgroup.",
    "rocdl.grid.",
    "rocdl.mbcnt.",
];

const SPECIAL_REGISTER_OPS: &[&str] = &[
    "gpu.thread_id",
    "gpu.lane_id",
    "gpu.global_id",
    "gpu.block_id",
    "gpu.block_dim",
    "gpu.grid_dim",
    "gpu.cluster_id",
    "gpu.cluster_dim",
    "gpu.cluster_block_id",
    "gpu.subgroup_id",
    "gpu.subgroup_size",
    "gpu.num_subgroups",
];

const HOISTABLE_PREFIXES: &[&str] = &[names::ARITH_PREFIX, names::MATH_PREFIX, names::INDEX_PREFIX];

const HOISTABLE_OPS: &[&str] = &[
    "memref.load",
    "memref.store",
    "memref.dim",
    "llvm.load",
    "llvm.store",
    names::LLVM_CONSTANT,
    names::UB_POISON,
];

/// True if the operation named `name` is convergent.
pub(crate) fn is_convergent(name: &str) -> bool {
    name.starts_with(names::SPMD_PREFIX)
        || collectives::is_convergent_name(name)
        || OPAQUE_OPS.contains(&name)
}

/// True if the operation named `name` reads a thread-identity or other
/// hardware-defined special register.
pub(crate) fn reads_special_register(name: &str) -> bool {
    SPECIAL_REGISTER_OPS.contains(&name)
        || SPECIAL_REGISTER_PREFIXES
            .iter()
            .any(|p| name.starts_with(p))
}

/// True if an operation named `name` may be hoisted out of both arms of a
/// branch (see the module documentation for the reasoning).
pub(crate) fn is_hoistable(name: &str) -> bool {
    !is_convergent(name)
        && !reads_special_register(name)
        && (HOISTABLE_OPS.contains(&name) || HOISTABLE_PREFIXES.iter().any(|p| name.starts_with(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_family() {
        for name in [
            "gpu.barrier",
            "gpu.shuffle",
            "gpu.subgroup_reduce",
            "nvvm.vote.ballot.sync",
            "nvvm.shfl.sync",
            "nvvm.barrier0",
            names::CONVERGENCE_ANCHOR,
            names::EXEC_READ,
            names::BALLOT,
            "func.call",
        ] {
            assert!(is_convergent(name), "{name}");
            assert!(!is_hoistable(name), "{name}");
        }
        for name in [
            "gpu.thread_id",
            "nvvm.read.ptx.sreg.tid.x",
            "nvvm.read.ptx.sreg.ntid.x",
            "rocdl.workitem.id.x",
        ] {
            assert!(reads_special_register(name), "{name}");
            assert!(!is_hoistable(name), "{name}");
        }
        for name in ["arith.addi", "math.sqrt", "memref.load", "memref.store"] {
            assert!(is_hoistable(name), "{name}");
        }
        for name in ["memref.atomic_rmw", "llvm.atomicrmw", "test.unknown"] {
            assert!(!is_hoistable(name), "{name}");
        }
    }
}
