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
use std::collections::HashMap;

/// Every edge into each block of `blocks` (by position): the terminator and
/// its successor slot; edges from or to blocks outside `blocks` are left
/// out.
pub(super) fn incoming<'c, 'a>(
    blocks: &[BlockRef<'c, 'a>],
) -> Vec<Vec<(OperationRef<'c, 'a>, usize)>> {
    let address = |block: BlockRef<'_, '_>| block.to_raw().ptr as usize;
    let position: HashMap<usize, usize> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| (address(*block), index))
        .collect();
    let mut edges = vec![Vec::new(); blocks.len()];
    for block in blocks {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        for slot in 0..terminator.successor_count() {
            let target = terminator.successor(slot).expect("counted successor");
            if let Some(&index) = position.get(&address(target)) {
                edges[index].push((terminator, slot));
            }
        }
    }
    edges
}

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
/// reading the argument directly; returns how many.
pub fn narrow<'c>(blocks: &[BlockRef<'c, '_>], mask_type: Type<'c>) -> usize {
    let edges = incoming(blocks);
    let mut narrowed = 0;
    for (index, block) in blocks.iter().enumerate().skip(1) {
        for position in 0..block.argument_count() {
            let argument: Value = block.argument(position).unwrap().into();
            let readers = edit::users(argument);
            let only_unpacked = !readers.is_empty()
                && readers
                    .iter()
                    .all(|reader| is_spmd(*reader, SpmdOp::MaskFromBits));
            let masks: Option<Vec<Value>> = edges[index]
                .iter()
                .map(|&(terminator, slot)| {
                    edit::successor_operands(terminator, slot)
                        .and_then(|values| values.get(position).copied())
                        .and_then(carried_mask)
                })
                .collect();
            let Some(masks) = masks.filter(|masks| only_unpacked && !masks.is_empty()) else {
                continue;
            };
            for (&(terminator, slot), mask) in edges[index].iter().zip(masks) {
                let mut values = edit::successor_operands(terminator, slot).expect("checked");
                values[position] = mask;
                edit::set_successor_operands(terminator, slot, &values);
            }
            block.argument(position).unwrap().set_type(mask_type);
            for reader in readers {
                edit::replace_all_uses(reader.result(0).unwrap().into(), argument);
                edit::erase_operation(reader);
            }
            narrowed += 1;
        }
    }
    narrowed
}
