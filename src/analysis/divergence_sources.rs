//! How each MLIR operation contributes to uniformity: the table that turns
//! op names into [`OpKind`]s for the uniformity analysis.
//!
//! | class | results | operations |
//! |---|---|---|
//! | thread identity | divergent | `gpu.thread_id`, `gpu.lane_id`, `gpu.global_id`, `nvvm.read.ptx.sreg.tid.*`, `nvvm.read.ptx.sreg.laneid`, `nvvm.read.ptx.sreg.lanemask.*`, `rocdl.workitem.id.*`, `rocdl.mbcnt.*` |
//! | memory | divergent | atomics: `memref.atomic_rmw`, `memref.generic_atomic_rmw`, `llvm.atomicrmw`, `llvm.cmpxchg` (each thread sees another old value) |
//! | cross-lane data | divergent | shuffles: `gpu.shuffle`, `nvvm.shfl.sync`, `rocdl.ds_bpermute`, `rocdl.permlanex16`, `gpu.rotate` |
//! | calls | divergent unless the call carries `spmd.uniform` | `func.call`, `func.call_indirect`, `llvm.call` |
//! | uniform by construction | uniform | block/grid/cluster ids and sizes, subgroup size/id/count, `nvvm.read.ptx.sreg.{ctaid,ntid,nctaid,nclusterid,clusterid,warpsize}.*`, `rocdl.workgroup.*`, `rocdl.grid.*`; subgroup-wide results: `gpu.subgroup_reduce`, `gpu.all_reduce`, ballots (`spmd.ballot`, `nvvm.vote.ballot.sync`, `nvvm.vote.sync`, `rocdl.ballot`), `rocdl.readfirstlane`; wave-level spmd ops (`spmd.exec.read`, `spmd.mask.*`) and convergence tokens |
//! | constants | uniform, compared by value | `arith.constant`, `llvm.mlir.constant`, `ub.poison` |
//! | everything else | data dependence | divergent iff an operand is (loads: iff the address is) |
//!
//! Operations with regions (`scf.if`, `scf.for`, ...) are summarised: their
//! results depend on their operands and on every value their regions use
//! from above, and they are a divergence source if any nested operation is.

use super::uniformity::OpKind;

const THREAD_IDENTITY_PREFIXES: &[&str] = &[
    "nvvm.read.ptx.sreg.tid.",
    "nvvm.read.ptx.sreg.lanemask",
    "rocdl.workitem.id.",
    "rocdl.mbcnt.",
];

const DIVERGENT_OPS: &[&str] = &[
    "gpu.thread_id",
    "gpu.lane_id",
    "gpu.global_id",
    "nvvm.read.ptx.sreg.laneid",
    "memref.atomic_rmw",
    "memref.generic_atomic_rmw",
    "llvm.atomicrmw",
    "llvm.cmpxchg",
    "gpu.shuffle",
    "gpu.rotate",
    "nvvm.shfl.sync",
    "rocdl.ds_bpermute",
    "rocdl.permlanex16",
];

const CALL_OPS: &[&str] = &["func.call", "func.call_indirect", "llvm.call"];

const UNIFORM_PREFIXES: &[&str] = &[
    "nvvm.read.ptx.sreg.ctaid.",
    "nvvm.read.ptx.sreg.ntid.",
    "nvvm.read.ptx.sreg.nctaid.",
    "nvvm.read.ptx.sreg.clusterid.",
    "nvvm.read.ptx.sreg.nclusterid.",
    "rocdl.workgroup.",
    "rocdl.grid.",
    "spmd.mask.",
    "spmd.convergence.",
];

const UNIFORM_OPS: &[&str] = &[
    "gpu.block_id",
    "gpu.block_dim",
    "gpu.grid_dim",
    "gpu.cluster_id",
    "gpu.cluster_dim",
    "gpu.cluster_block_id",
    "gpu.cluster_dim_blocks",
    "gpu.subgroup_size",
    "gpu.subgroup_id",
    "gpu.num_subgroups",
    "gpu.subgroup_reduce",
    "gpu.all_reduce",
    "nvvm.read.ptx.sreg.warpsize",
    "nvvm.vote.ballot.sync",
    "nvvm.vote.sync",
    "rocdl.ballot",
    "rocdl.readfirstlane",
    "spmd.ballot",
    "spmd.exec.read",
];

const CONSTANT_OPS: &[&str] = &["arith.constant", "llvm.mlir.constant", "ub.poison"];

/// What an operation named `name` does to uniformity, before looking at
/// nested regions. `call_marked_uniform` says whether the op carries the
/// `spmd.uniform` attribute (only meaningful for calls); `constant_key`
/// identifies the constant's value for [`OpKind::Constant`].
pub fn classify(name: &str, call_marked_uniform: bool, constant_key: impl FnOnce() -> u64) -> OpKind {
    if CALL_OPS.contains(&name) {
        return if call_marked_uniform { OpKind::Uniform } else { OpKind::Source };
    }
    if DIVERGENT_OPS.contains(&name) || THREAD_IDENTITY_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return OpKind::Source;
    }
    if UNIFORM_OPS.contains(&name) || UNIFORM_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return OpKind::Uniform;
    }
    if CONSTANT_OPS.contains(&name) {
        return OpKind::Constant(constant_key());
    }
    OpKind::Pure
}

#[cfg(test)]
mod tests {
    use super::{classify, OpKind};

    #[test]
    fn classifies_each_family() {
        let key = || 7;
        assert_eq!(classify("gpu.thread_id", false, key), OpKind::Source);
        assert_eq!(classify("nvvm.read.ptx.sreg.tid.x", false, key), OpKind::Source);
        assert_eq!(classify("rocdl.workitem.id.y", false, key), OpKind::Source);
        assert_eq!(classify("memref.atomic_rmw", false, key), OpKind::Source);
        assert_eq!(classify("func.call", false, key), OpKind::Source);
        assert_eq!(classify("func.call", true, key), OpKind::Uniform);
        assert_eq!(classify("gpu.shuffle", false, key), OpKind::Source);
        assert_eq!(classify("gpu.subgroup_reduce", false, key), OpKind::Uniform);
        assert_eq!(classify("nvvm.read.ptx.sreg.ctaid.x", false, key), OpKind::Uniform);
        assert_eq!(classify("arith.constant", false, key), OpKind::Constant(7));
        assert_eq!(classify("memref.load", false, key), OpKind::Pure);
        assert_eq!(classify("arith.addi", false, key), OpKind::Pure);
    }
}
