//! FoldOperations: upstream folders and canonicalization patterns, applied
//! to the non-control-flow operations of the function body only.
//!
//! ```text
//!  %a = arith.addi %x, %c0            (gone: %a := %x)
//!  %k = arith.constant 3 : i32
//!  %c = arith.cmpi slt, %k, %k        %false = arith.constant false
//!  cf.cond_br %c, ^a, ^b        ==>   cf.cond_br %false, ^a, ^b
//! ```
//!
//! The branch itself is left alone: OptimizeBranches folds it in the same
//! round, through the property gate.
//!
//! # Division of labour with `-canonicalize`
//!
//! Most of what `-canonicalize` removes from kernels is arithmetic: folds of
//! constants, `select`s of a constant condition, identities like `x + 0`.
//! Once a branch condition folds to a constant, the branch and the blocks
//! behind it go away. That part is safe for SIMT code and this step reuses
//! it as is: it hands the eligible operations of the region to MLIR's
//! greedy driver (`spmdFoldOperations` in the C API) with
//!
//! * the folders and the canonicalization patterns of exactly those
//!   operations' names, and the driver in `ExistingAndNewOps` mode, so
//!   nothing else (no terminator, no `cf` or `spmd` operation, no
//!   convergent operation) ever enters its worklist;
//! * region simplification disabled: the driver never merges, erases or
//!   creates a block and never touches an edge.
//!
//! Every CFG edit therefore stays with the gated rules of this pass
//! ([`super::branches`], [`super::tail_merge`]), which check each one
//! against the property gate. What `-canonicalize` does besides (the `cf`
//! patterns, identical-block merging, dead-block erasure) is exactly what
//! can break a property: it deleted the back edge of a loop holding
//! `spmd.convergence.loop` on the random corpus.
//!
//! # Eligible operations
//!
//! Operations directly in the region's blocks, outside Flow blocks (an
//! upstream pattern could turn a selector comparison into an operation a
//! Flow block may not hold; OptimizeBranches folds constant comparisons
//! there itself), that are not terminators, have
//! no successors and no regions, are not `cf` or `spmd` operations, are not
//! convergent ([`super::safety::is_convergent`]: barriers, shuffles, votes,
//! subgroup operations, calls) and do not read a special register. Patterns
//! rooted at an eligible operation replace that operation's results by
//! equivalent values; they do not move other operations, so a convergent
//! operation keeps its block and position. The C++ side checks this with a
//! rewrite listener: every ineligible operation is protected, and moving,
//! replacing or erasing one (or touching a block) is reported as an error.
//! Convergent operations may still get an operand replaced in place by an
//! equal value (a folded constant), which changes nothing about who
//! executes them. Constants the folders create are materialized at the
//! start of the entry block, where OptimizeBranches puts them anyway.

use super::{edit, prepare, safety, Folder};
use crate::ir::names;
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike};

/// Which operations the greedy driver may see (see the module docs).
pub(crate) fn is_eligible(op: OperationRef<'_, '_>) -> bool {
    let name = prepare::op_name(op);
    !op.block().is_some_and(super::is_flow_block)
        && op.successor_count() == 0
        && op.region_count() == 0
        && op.next_in_block().is_some()
        && !name.starts_with(names::CF_PREFIX)
        && !name.starts_with(names::SPMD_PREFIX)
        && !safety::is_convergent(&name)
        && !safety::reads_special_register(&name)
}

/// Runs the folding step once on the folder's region. `Ok(true)` if the
/// number of operations went down; `Err` names an internal error (the
/// driver touched a protected operation or a block).
pub(crate) fn fold_operations(folder: &mut Folder<'_, '_, '_>) -> Result<bool, &'static str> {
    // The driver materializes constants in the entry block; a Flow entry
    // block must hold nothing but its branch, so the step stays off there.
    if folder
        .region
        .first_block()
        .is_some_and(super::is_flow_block)
    {
        return Ok(false);
    }
    let (mut eligible, mut protected) = (Vec::new(), Vec::new());
    let mut next = folder.region.first_block();
    while let Some(block) = next {
        for op in edit::operations(block) {
            if is_eligible(op) {
                eligible.push(op);
            } else {
                protected.push(op);
            }
        }
        next = block.next_in_region();
    }
    if eligible.is_empty() {
        return Ok(false);
    }
    let (_, before) = super::count(folder.region);
    // SAFETY: `eligible` and `protected` are dropped right after the call;
    // the folder re-reads the region's blocks and operations afterwards and
    // keeps no handle to an operation of this step.
    let folded = unsafe { edit::fold_operations(&eligible, &protected, folder.region) };
    folded.map_err(|()| "the folding step moved or erased a protected operation or a block")?;
    let (_, after) = super::count(folder.region);
    if after < before {
        folder.stats.ops_folded += before - after;
        folder.edits += 1;
        return Ok(true);
    }
    Ok(false)
}
