//! The one table of collectives (`src/ir/collectives.rs`, read through
//! `spmd::testing::ir`) against the
//! operations MLIR 22 really registers: every NVVM, `gpu` and ROCDL
//! operation whose meaning depends on which threads execute it together is
//! a real, registered operation name and has a row, so a rename upstream or
//! a missing row fails here rather than as wrong code on a GPU.
//!
//! The table is internal; it is read through `spmd::testing`, so these
//! tests need the `testing` feature (on in a workspace build).
#![cfg(feature = "testing")]

use crate::common::context;
use spmd::testing::ir::{members_of_name, Lowering, Members};

/// Every warp collective, barrier and warp-wide operation of the NVVM, `gpu`
/// and ROCDL dialects of MLIR 22, with how wave-level code runs it.
const REGISTERED: &[(&str, Lowering)] = &[
    ("nvvm.shfl.sync", Lowering::UnderExecBit),
    ("nvvm.vote.sync", Lowering::UnderExecBit),
    ("nvvm.match.sync", Lowering::UnderExecBit),
    ("nvvm.redux.sync", Lowering::UnderExecBit),
    ("nvvm.bar.warp.sync", Lowering::UnderExecBit),
    ("nvvm.elect.sync", Lowering::UnderExecBit),
    ("nvvm.barrier0", Lowering::EveryLiveLane),
    ("nvvm.barrier", Lowering::EveryLiveLane),
    ("nvvm.barrier.arrive", Lowering::EveryLiveLane),
    ("nvvm.cluster.arrive", Lowering::EveryLiveLane),
    ("nvvm.cluster.wait", Lowering::EveryLiveLane),
    ("nvvm.fence.sc.cluster", Lowering::EveryLiveLane),
    ("nvvm.memory.barrier", Lowering::EveryLiveLane),
    ("nvvm.mma.sync", Lowering::EveryLiveLane),
    ("nvvm.wmma.mma", Lowering::EveryLiveLane),
    ("nvvm.wgmma.mma_async", Lowering::EveryLiveLane),
    ("nvvm.ldmatrix", Lowering::EveryLiveLane),
    ("nvvm.stmatrix", Lowering::EveryLiveLane),
    ("gpu.shuffle", Lowering::UnderExecBit),
    ("gpu.rotate", Lowering::UnderExecBit),
    ("gpu.barrier", Lowering::EveryLiveLane),
    ("gpu.all_reduce", Lowering::EveryLiveLane),
    ("gpu.subgroup_reduce", Lowering::EveryLiveLane),
    ("gpu.subgroup_broadcast", Lowering::EveryLiveLane),
    ("gpu.subgroup_mma_compute", Lowering::EveryLiveLane),
    ("rocdl.s.barrier", Lowering::EveryLiveLane),
    ("rocdl.barrier", Lowering::EveryLiveLane),
    ("rocdl.ds_bpermute", Lowering::EveryLiveLane),
    ("rocdl.ds_swizzle", Lowering::EveryLiveLane),
    ("rocdl.readlane", Lowering::EveryLiveLane),
    ("rocdl.readfirstlane", Lowering::EveryLiveLane),
    ("rocdl.ballot", Lowering::EveryLiveLane),
    ("rocdl.update.dpp", Lowering::EveryLiveLane),
    ("rocdl.permlanex16", Lowering::EveryLiveLane),
    ("rocdl.s.barrier.signal", Lowering::EveryLiveLane),
];

#[test]
fn every_registered_collective_has_its_row() {
    let context = context();
    for &(name, lowering) in REGISTERED {
        assert!(
            context.is_registered_operation(name),
            "{name} is not an operation of MLIR 22"
        );
        let members = members_of_name(name).unwrap_or_else(|| panic!("{name} has no row"));
        assert_eq!(members.lowering(), lowering, "{name}");
    }
}

#[test]
fn member_mask_operands_match_the_registered_operations() {
    // The mask is the first operand everywhere except redux.sync (value,
    // mask), for the NVVM ops and the intrinsics alike.
    assert_eq!(
        members_of_name("nvvm.redux.sync"),
        Some(Members::Mask { operand: 1 })
    );
    for name in ["nvvm.shfl.sync", "nvvm.vote.sync", "nvvm.match.sync"] {
        assert_eq!(members_of_name(name), Some(Members::Mask { operand: 0 }));
    }
}
