//! The names of the operations and attributes spmd reads or writes, in one
//! place. Passes compare against these constants (or ask
//! [`is_op`](super::edit::is_op)), never against a string spelled at the
//! call site.

// --- The spmd dialect -------------------------------------------------------

/// The dialect namespace.
pub(crate) const SPMD_DIALECT: &str = "spmd";
/// Prefix of every spmd operation and attribute name.
pub(crate) const SPMD_PREFIX: &str = "spmd.";
/// `spmd.flow_br`: the branch of a Flow block.
pub(crate) const FLOW_BR: &str = "spmd.flow_br";
/// `spmd.reconvergence.head`: the head marker of a divergent region.
pub(crate) const RECONVERGENCE_HEAD: &str = "spmd.reconvergence.head";
/// `spmd.reconvergence.tail`: the tail marker of a divergent region.
pub(crate) const RECONVERGENCE_TAIL: &str = "spmd.reconvergence.tail";
/// Prefix of the convergence-token operations.
pub(crate) const CONVERGENCE_PREFIX: &str = "spmd.convergence.";
/// `spmd.convergence.entry`.
pub(crate) const CONVERGENCE_ENTRY: &str = "spmd.convergence.entry";
/// `spmd.convergence.anchor`.
pub(crate) const CONVERGENCE_ANCHOR: &str = "spmd.convergence.anchor";
/// `spmd.convergence.loop`.
pub(crate) const CONVERGENCE_LOOP: &str = "spmd.convergence.loop";
/// Prefix of the exec-mask operations.
pub(crate) const EXEC_PREFIX: &str = "spmd.exec.";
/// `spmd.exec.read`.
pub(crate) const EXEC_READ: &str = "spmd.exec.read";
/// `spmd.exec.write`.
pub(crate) const EXEC_WRITE: &str = "spmd.exec.write";
/// `spmd.exec.br_zero`: the wave-level branch on an empty mask.
pub(crate) const EXEC_BR_ZERO: &str = "spmd.exec.br_zero";
/// Unit attribute on a rejoin's `spmd.exec.write` after which every live
/// lane of the wave is active again (no lane waits for a later rejoin):
/// `--spmd-predicate` sets it, the wave executor checks it, and the NVVM
/// lowering needs no lane guard until the next narrowing write.
pub(crate) const EXEC_FULL_ATTR: &str = "spmd.exec_full";
/// `spmd.ballot`.
pub(crate) const BALLOT: &str = "spmd.ballot";
/// `spmd.mask.and`.
pub(crate) const MASK_AND: &str = "spmd.mask.and";
/// `spmd.mask.andn`.
pub(crate) const MASK_ANDN: &str = "spmd.mask.andn";
/// `spmd.mask.or`.
pub(crate) const MASK_OR: &str = "spmd.mask.or";
/// `spmd.mask.empty`.
pub(crate) const MASK_EMPTY: &str = "spmd.mask.empty";
/// `spmd.mask.select`.
pub(crate) const MASK_SELECT: &str = "spmd.mask.select";
/// `spmd.mask.to_bits`.
pub(crate) const MASK_TO_BITS: &str = "spmd.mask.to_bits";
/// `spmd.mask.from_bits`.
pub(crate) const MASK_FROM_BITS: &str = "spmd.mask.from_bits";

// --- spmd attributes --------------------------------------------------------

/// The discardable `#spmd.uniformity<...>` mark of a branch.
pub(crate) const UNIFORMITY_ATTR: &str = "spmd.uniformity";
/// The attribute [`predicate_function`](crate::predicate_function)
/// (`--spmd-predicate`) puts on a function it lowered to wave-level code:
/// the lanes per wave the code was lowered for (an `i64`; the reference
/// executor reads it back).
pub const WAVE_SIZE_ATTR: &str = "spmd.wave_size";
/// Argument attribute: the argument is the same in every thread.
pub(crate) const UNIFORM_ARGUMENT_ATTR: &str = "spmd.uniform";
/// Argument attribute: the argument may differ between threads.
pub(crate) const DIVERGENT_ARGUMENT_ATTR: &str = "spmd.divergent";
/// Function attribute (unit): with lane branches, a divergent branch whose
/// two sides share work before their join may stay a per-lane branch too,
/// because the target's own structurizer (AMDGPU's StructurizeCFG) runs
/// that work once for both groups. `spmd-compile --target amdgcn` sets it
/// on the kernels whose code it makes smaller (`--shared-work`).
pub const LANE_SHARED_WORK_ATTR: &str = "spmd.lane_shared_work";
/// The `id` of a reconvergence marker.
pub(crate) const MARKER_ID_ATTR: &str = "id";

// --- Upstream operations and attributes --------------------------------------

/// `arith.constant`.
pub(crate) const ARITH_CONSTANT: &str = "arith.constant";
/// `arith.cmpi`.
pub(crate) const ARITH_CMPI: &str = "arith.cmpi";
/// `cf.br`.
pub(crate) const CF_BR: &str = "cf.br";
/// `cf.cond_br`.
pub(crate) const CF_COND_BR: &str = "cf.cond_br";
/// `cf.switch`.
pub(crate) const CF_SWITCH: &str = "cf.switch";
/// `llvm.switch`.
pub(crate) const LLVM_SWITCH: &str = "llvm.switch";
/// `llvm.mlir.constant`.
pub(crate) const LLVM_CONSTANT: &str = "llvm.mlir.constant";
/// `llvm.call_intrinsic`.
pub(crate) const LLVM_CALL_INTRINSIC: &str = "llvm.call_intrinsic";
/// `llvm.inline_asm`.
pub(crate) const LLVM_INLINE_ASM: &str = "llvm.inline_asm";
/// Prefix of the LLVM dialect's operations.
pub(crate) const LLVM_PREFIX: &str = "llvm.";
/// `ub.poison`.
pub(crate) const UB_POISON: &str = "ub.poison";
/// `memref.alloca`.
pub(crate) const MEMREF_ALLOCA: &str = "memref.alloca";
/// `gpu.func`.
pub(crate) const GPU_FUNC: &str = "gpu.func";
/// The `value` of a constant op.
pub(crate) const VALUE_ATTR: &str = "value";
/// The `case_values` of a switch.
pub(crate) const CASE_VALUES_ATTR: &str = "case_values";
/// The `predicate` of a comparison.
pub(crate) const PREDICATE_ATTR: &str = "predicate";
/// The intrinsic name of an `llvm.call_intrinsic`.
pub(crate) const INTRINSIC_ATTR: &str = "intrin";
/// The PTX text of an `llvm.inline_asm`.
pub(crate) const ASM_STRING_ATTR: &str = "asm_string";
/// Prefix of the `arith` dialect's operations.
pub(crate) const ARITH_PREFIX: &str = "arith.";
/// Prefix of the `cf` dialect's operations.
pub(crate) const CF_PREFIX: &str = "cf.";
/// Prefix of the `index` dialect's operations.
pub(crate) const INDEX_PREFIX: &str = "index.";
/// Prefix of the `math` dialect's operations.
pub(crate) const MATH_PREFIX: &str = "math.";
/// Prefix of the `memref` dialect's operations.
pub(crate) const MEMREF_PREFIX: &str = "memref.";
/// Prefix of the LLVM dialect's intrinsic operations (`llvm.intr.fabs`).
pub(crate) const LLVM_INTRINSIC_PREFIX: &str = "llvm.intr.";
