//! Decoding of AMDGPU code: the ROCDL dialect (`rocdl.*` operations, what
//! `convert-gpu-to-rocdl` and `spmd-lower-to-rocdl` emit) and the
//! `llvm.amdgcn.*` intrinsics (what the LLVM IR import leaves of HIP's
//! output, called with `llvm.call_intrinsic`).
//!
//! | spelling | kind |
//! |---|---|
//! | `rocdl.workitem.id.{x,y,z}`, `llvm.amdgcn.workitem.id.*` | thread id ([`GpuQuery::ThreadId`]) |
//! | `rocdl.workgroup.id.*`, `llvm.amdgcn.workgroup.id.*` | block id |
//! | `rocdl.workgroup.dim.*`, `rocdl.grid.dim.*` | block and grid sizes |
//! | `rocdl.wavefrontsize`, `llvm.amdgcn.wavefrontsize` | the wave size |
//! | `rocdl.mbcnt.{lo,hi}`, `llvm.amdgcn.mbcnt.{lo,hi}` | [`OpKind::Mbcnt`] (per lane) |
//! | `rocdl.ballot`, `llvm.amdgcn.ballot.{i32,i64}` | [`WarpOp::WaveBallot`] |
//! | `llvm.amdgcn.inverse.ballot[.{i32,i64}]` | [`WarpOp::InverseBallot`] |
//! | `rocdl.readlane`, `llvm.amdgcn.readlane[.*]` | [`WarpOp::ReadLane`] |
//! | `rocdl.readfirstlane`, `llvm.amdgcn.readfirstlane[.*]` | [`WarpOp::ReadFirstLane`] |
//! | `rocdl.s.barrier`, `rocdl.barrier`, `llvm.amdgcn.s.barrier` | a CTA barrier |
//! | `rocdl.s.waitcnt`, `rocdl.s.nop`, `rocdl.s.sleep`, `rocdl.sched.barrier` and their intrinsics | no-ops (memory is sequentially consistent) |
//!
//! Anything else named `rocdl.*` is [`OpKind::Unsupported`], any other
//! `llvm.amdgcn.*` intrinsic [`OpKind::UnsupportedIntrinsic`], so that
//! running it is a typed error.

use super::{GpuQuery, OpKind, WarpOp};

/// `x`, `y`, `z` as 0, 1, 2.
fn dimension(suffix: &str) -> Option<usize> {
    match suffix {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

/// A CTA barrier (`s_barrier`, HIP's `__syncthreads()` with its fences).
const BARRIER: OpKind = OpKind::Warp(WarpOp::Barrier {
    has_id: false,
    has_count: false,
});

/// The kind of a `rocdl.*` operation (`name` with its prefix); every name
/// gets one ([`OpKind::Unsupported`] outside the subset).
pub(super) fn decode(name: &str) -> OpKind {
    let Some(rest) = name.strip_prefix("rocdl.") else {
        return OpKind::Unsupported;
    };
    id_query(rest)
        .or_else(|| wave_op(rest))
        .unwrap_or(OpKind::Unsupported)
}

/// The id and size registers (`rest` without `rocdl.` or `llvm.amdgcn.`).
fn id_query(rest: &str) -> Option<OpKind> {
    if rest == "wavefrontsize" {
        return Some(OpKind::Gpu(GpuQuery::SubgroupSize));
    }
    let (base, suffix) = rest.rsplit_once('.')?;
    let d = dimension(suffix)?;
    Some(OpKind::Gpu(match base {
        "workitem.id" => GpuQuery::ThreadId(d),
        "workgroup.id" => GpuQuery::BlockId(d),
        "workgroup.dim" => GpuQuery::BlockDim(d),
        "grid.dim" => GpuQuery::GridDim(d),
        _ => return None,
    }))
}

/// Wave operations, barriers and scheduling no-ops (`rest` without
/// `rocdl.` or `llvm.amdgcn.`, and without an overload suffix).
fn wave_op(rest: &str) -> Option<OpKind> {
    Some(match rest {
        "mbcnt.lo" => OpKind::Mbcnt { high: false },
        "mbcnt.hi" => OpKind::Mbcnt { high: true },
        "ballot" => OpKind::Warp(WarpOp::WaveBallot),
        "inverse.ballot" => OpKind::Warp(WarpOp::InverseBallot),
        "readlane" => OpKind::Warp(WarpOp::ReadLane),
        "readfirstlane" => OpKind::Warp(WarpOp::ReadFirstLane),
        "s.barrier" | "barrier" => BARRIER,
        "s.waitcnt" | "s.nop" | "s.sleep" | "sched.barrier" => OpKind::Marker,
        _ => return None,
    })
}

/// The kind of intrinsic `name` if it is an `llvm.amdgcn.*` one (an
/// [`OpKind::UnsupportedIntrinsic`] for those outside the subset); `None`
/// for other names. Overloaded intrinsics may carry their type suffix
/// (`llvm.amdgcn.ballot.i64`, `llvm.amdgcn.readlane.i32`).
pub(super) fn intrinsic_kind(name: &str) -> Option<OpKind> {
    let rest = name.strip_prefix("llvm.amdgcn.")?;
    let without_suffix = rest
        .rsplit_once('.')
        .filter(|(_, suffix)| is_type_suffix(suffix))
        .map_or(rest, |(base, _)| base);
    let kind = id_query(rest)
        .filter(|kind| {
            !matches!(
                kind,
                OpKind::Gpu(GpuQuery::BlockDim(_) | GpuQuery::GridDim(_))
            )
        })
        .or_else(|| wave_op(without_suffix))
        // `barrier` is the ROCDL op's name, not an intrinsic's.
        .filter(|kind| *kind != BARRIER || without_suffix == "s.barrier");
    Some(kind.unwrap_or_else(|| OpKind::UnsupportedIntrinsic(name.to_string())))
}

/// An LLVM overload suffix: `i1` ... `i64`, `f32`, `f64`, `p0`, `p1`, ...
fn is_type_suffix(suffix: &str) -> bool {
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match suffix.split_at_checked(1) {
        Some(("i" | "f" | "p", rest)) => digits(rest),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocdl_operations() {
        assert_eq!(
            decode("rocdl.workitem.id.y"),
            OpKind::Gpu(GpuQuery::ThreadId(1))
        );
        assert_eq!(
            decode("rocdl.workgroup.dim.x"),
            OpKind::Gpu(GpuQuery::BlockDim(0))
        );
        assert_eq!(
            decode("rocdl.grid.dim.z"),
            OpKind::Gpu(GpuQuery::GridDim(2))
        );
        assert_eq!(
            decode("rocdl.wavefrontsize"),
            OpKind::Gpu(GpuQuery::SubgroupSize)
        );
        assert_eq!(decode("rocdl.mbcnt.hi"), OpKind::Mbcnt { high: true });
        assert_eq!(decode("rocdl.ballot"), OpKind::Warp(WarpOp::WaveBallot));
        assert_eq!(decode("rocdl.readlane"), OpKind::Warp(WarpOp::ReadLane));
        assert_eq!(decode("rocdl.s.barrier"), BARRIER);
        assert_eq!(decode("rocdl.barrier"), BARRIER);
        assert_eq!(decode("rocdl.s.waitcnt"), OpKind::Marker);
        assert_eq!(decode("rocdl.ds_bpermute"), OpKind::Unsupported);
        assert_eq!(decode("rocdl.workitem.id.w"), OpKind::Unsupported);
    }

    #[test]
    fn amdgcn_intrinsics() {
        let kind = |name: &str| intrinsic_kind(name).expect("an amdgcn name");
        assert_eq!(
            kind("llvm.amdgcn.workitem.id.x"),
            OpKind::Gpu(GpuQuery::ThreadId(0))
        );
        assert_eq!(
            kind("llvm.amdgcn.workgroup.id.z"),
            OpKind::Gpu(GpuQuery::BlockId(2))
        );
        assert_eq!(kind("llvm.amdgcn.mbcnt.lo"), OpKind::Mbcnt { high: false });
        assert_eq!(
            kind("llvm.amdgcn.ballot.i64"),
            OpKind::Warp(WarpOp::WaveBallot)
        );
        assert_eq!(
            kind("llvm.amdgcn.inverse.ballot.i32"),
            OpKind::Warp(WarpOp::InverseBallot)
        );
        assert_eq!(
            kind("llvm.amdgcn.inverse.ballot"),
            OpKind::Warp(WarpOp::InverseBallot)
        );
        assert_eq!(
            kind("llvm.amdgcn.readlane.i32"),
            OpKind::Warp(WarpOp::ReadLane)
        );
        assert_eq!(
            kind("llvm.amdgcn.readfirstlane.f32"),
            OpKind::Warp(WarpOp::ReadFirstLane)
        );
        assert_eq!(kind("llvm.amdgcn.s.barrier"), BARRIER);
        for unsupported in [
            "llvm.amdgcn.barrier",
            "llvm.amdgcn.workgroup.dim.x",
            "llvm.amdgcn.ds.bpermute",
            "llvm.amdgcn.dispatch.ptr",
        ] {
            assert_eq!(
                kind(unsupported),
                OpKind::UnsupportedIntrinsic(unsupported.into())
            );
        }
        assert_eq!(intrinsic_kind("llvm.nvvm.barrier0"), None);
    }
}
