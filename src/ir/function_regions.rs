//! Which regions of an operation are control-flow graphs to analyse.
//!
//! Every region of a function-like operation (`func.func`, `gpu.func`,
//! `llvm.func`: anything implementing `FunctionOpInterface`) at or below the
//! root, plus every other region with more than one block (such as
//! `scf.execute_region`). Each is an independent CFG: the regions nested in
//! a function's operations are listed separately, never merged into it.

use crate::ir::ffi;
use melior::ir::{
    attribute::StringAttribute, operation::OperationLike, OperationRef, RegionLike, RegionRef,
};

/// A region to analyse and a human-readable name for it.
pub struct CfgRegion<'c, 'a> {
    /// The operation owning the region.
    pub owner: OperationRef<'c, 'a>,
    /// The region.
    pub region: RegionRef<'c, 'a>,
    /// True if the owner implements `FunctionOpInterface` (the region is a
    /// function body).
    pub function_like: bool,
    /// `@symbol` for functions (with `#i` for region i > 0), otherwise
    /// `'op.name' in @enclosing`.
    pub label: String,
}

/// The CFG regions at or below `root`, in pre-order.
pub fn cfg_regions<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<CfgRegion<'c, 'a>> {
    let mut owners = Vec::new();
    collect_owners(root, &mut owners);
    let mut regions = Vec::new();
    for owner in owners {
        let function_like = super::query::is_function_like(owner);
        for (index, region) in owner.regions().enumerate() {
            // A function body with blocks, or any other region with a CFG.
            let blocks = count_blocks_up_to(region, 2);
            if blocks == 0 || (!function_like && blocks < 2) {
                continue;
            }
            let label = match (function_like, index) {
                (true, 0) => symbol_label(owner),
                (true, _) => format!("{}#{index}", symbol_label(owner)),
                (false, _) => format!(
                    "'{}' in {}",
                    owner.name().as_string_ref().as_str().unwrap_or("?"),
                    enclosing_label(owner)
                ),
            };
            regions.push(CfgRegion {
                owner,
                region,
                label,
                function_like,
            });
        }
    }
    regions
}

/// Pre-order list of `op` and every operation nested in it that owns a
/// region (the others cannot hold a CFG region), collected in one walk on
/// the C++ side.
fn collect_owners<'c, 'a>(op: OperationRef<'c, 'a>, out: &mut Vec<OperationRef<'c, 'a>>) {
    // SAFETY: a walk callback; the C++ walk below calls it only with the
    // vector passed there as `owners`.
    unsafe extern "C" fn push(op: mlir_sys::MlirOperation, owners: *mut std::ffi::c_void) {
        // SAFETY: `owners` is the vector passed below, alive for the walk.
        unsafe { (*owners.cast::<Vec<mlir_sys::MlirOperation>>()).push(op) };
    }
    let mut raw: Vec<mlir_sys::MlirOperation> = Vec::new();
    // SAFETY: a read-only walk of a live operation; `push` only appends.
    unsafe { ffi::spmdWalkRegionOwners(op.to_raw(), push, (&mut raw as *mut Vec<_>).cast()) };
    // SAFETY: every pointer is an operation nested in `op`, which outlives 'a.
    out.extend(
        raw.into_iter()
            .map(|raw| unsafe { OperationRef::from_raw(raw) }),
    );
}

/// The number of blocks of `region`, counting no further than `limit`.
fn count_blocks_up_to(region: RegionRef<'_, '_>, limit: usize) -> usize {
    let mut count = 0;
    let mut block = region.first_block();
    while let Some(b) = block {
        count += 1;
        if count == limit {
            break;
        }
        block = melior::ir::block::BlockLike::next_in_region(&b);
    }
    count
}

fn symbol_label(op: OperationRef<'_, '_>) -> String {
    op.attribute("sym_name")
        .ok()
        .and_then(|attribute| StringAttribute::try_from(attribute).ok())
        .map(|name| format!("@{}", name.value()))
        .unwrap_or_else(|| {
            format!(
                "<anonymous {}>",
                op.name().as_string_ref().as_str().unwrap_or("?")
            )
        })
}

fn enclosing_label(op: OperationRef<'_, '_>) -> String {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if super::query::is_function_like(p) {
            return symbol_label(p);
        }
        parent = p.parent_operation();
    }
    "<top level>".to_string()
}
