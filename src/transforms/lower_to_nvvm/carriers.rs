//! Mask carriers that can be the bit itself.
//!
//! `--spmd-predicate` carries a mask across an `llvm` branch as an integer
//! of the wave's width (`spmd.mask.to_bits` before the branch,
//! `spmd.mask.from_bits` in the successor; docs/design.md, "How masks are
//! typed"), because the LLVM dialect's branches take LLVM types only. Here
//! every mask is the thread's own bit, an `i1`, which is an LLVM type too:
//! a carrier block argument that only ever receives `to_bits` results and
//! is only read by `from_bits` can hold the bit directly. Without this, each
//! such argument costs a zero-extension before every edge and a truncation
//! after it (three instructions per iteration of a divergent loop, which
//! `llc` alone does not remove). Carriers fed by anything else (a constant
//! empty mask, poison from an unreachable edge, a value that is not a mask)
//! keep their integer type and lower as before.

use super::SpmdOp;
use crate::ir::edit;
use crate::transforms::prepare::op_name;
use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, Type, Value};

fn is_spmd(op: OperationRef<'_, '_>, kind: SpmdOp) -> bool {
    SpmdOp::of(&op_name(op)) == Some(kind)
}

/// The mask a forwarded carrier value was made from, if it is a
/// `spmd.mask.to_bits` result.
fn carried_mask<'c: 'a, 'a>(value: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    let op = edit::defining_op(value)?;
    if !is_spmd(op, SpmdOp::MaskToBits) {
        return None;
    }
    op.operand(0).ok()
}

/// Retypes every carrier argument of `blocks` (a wave-level function body,
/// before masks are retyped) that only `to_bits` feeds and only
/// `from_bits` reads to `mask_type`, forwarding the masks themselves and
/// reading the argument directly; returns how many. Each edge's operands
/// are read once and written at most once.
pub(crate) fn narrow<'c>(blocks: &[BlockRef<'c, '_>], mask_type: Type<'c>) -> usize {
    let edges = super::incoming_edges(blocks);
    let mut narrowed = 0;
    for (index, block) in blocks.iter().enumerate().skip(1) {
        let Some(mut forwarded) = edges[index]
            .iter()
            .map(|&(terminator, slot)| edit::successor_operands(terminator, slot))
            .collect::<Option<Vec<Vec<Value>>>>()
        else {
            continue;
        };
        if forwarded.is_empty() {
            continue;
        }
        // Readers are replaced only after the edges are written: a cached
        // operand may be one of them (a mask forwarded around a loop).
        let mut unpacked = Vec::new();
        for position in 0..block.argument_count() {
            let argument: Value = block.argument(position).unwrap().into();
            let readers = edit::users(argument);
            if readers.is_empty()
                || !readers
                    .iter()
                    .all(|reader| is_spmd(*reader, SpmdOp::MaskFromBits))
            {
                continue;
            }
            let Some(masks) = forwarded
                .iter()
                .map(|values| values.get(position).copied().and_then(carried_mask))
                .collect::<Option<Vec<Value>>>()
            else {
                continue;
            };
            for (values, mask) in forwarded.iter_mut().zip(masks) {
                values[position] = mask;
            }
            block.argument(position).unwrap().set_type(mask_type);
            unpacked.push((argument, readers));
        }
        if unpacked.is_empty() {
            continue;
        }
        for (&(terminator, slot), values) in edges[index].iter().zip(&forwarded) {
            edit::set_successor_operands(terminator, slot, values);
        }
        for (argument, readers) in unpacked {
            for reader in readers {
                edit::replace_all_uses(reader.result(0).unwrap().into(), argument);
                // SAFETY: a `spmd.mask.from_bits` (one result, no regions)
                // whose result was just replaced. It has one operand, so it
                // is listed once, for one argument, and `readers` is
                // consumed here; `forwarded` and `masks` (which may hold its
                // result) are not used after the edges were written. The
                // caller's snapshots list blocks, not operations.
                unsafe { edit::erase_operation(reader) };
            }
            narrowed += 1;
        }
    }
    narrowed
}
