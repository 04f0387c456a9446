//! Masks that cross terminators which only take LLVM-compatible operands.
//!
//! The predicated function threads rejoin masks through block arguments of
//! type `!spmd.mask`. `cf.br`, `cf.cond_br` and `spmd.exec.br_zero` forward
//! any type, but the LLVM dialect's branches (`llvm.br`, `llvm.cond_br`,
//! `llvm.switch`) verify that every successor operand is an
//! LLVM-compatible type, which `!spmd.mask` is not. So the typing rule of
//! the pass's output is:
//!
//! > A mask-typed block argument stays `!spmd.mask` unless some terminator
//! > that forwards a value into it belongs to the `llvm` dialect. Then the
//! > argument is an `iN` *carrier* (N = the wave size): every predecessor
//! > passes `spmd.mask.to_bits %m : iN`, and the block starts with
//! > `spmd.mask.from_bits %arg : iN`, which the rest of the block uses.
//!
//! ```text
//!   ^a:                                   ^a:
//!     llvm.br ^j(%m : !spmd.mask)   ==>     %b = spmd.mask.to_bits %m : i32
//!   ^j(%r: !spmd.mask):                     llvm.br ^j(%b : i32)
//!     spmd.exec.write %r                  ^j(%rb: i32):
//!                                           %r = spmd.mask.from_bits %rb : i32
//!                                           spmd.exec.write %r
//! ```
//!
//! The rule is per argument, not per function, so a function mixing `cf`
//! and `llvm` branches only pays for the arguments that need it; a function
//! written only with `cf` branches is unchanged. `--spmd-lower-to-nvvm`
//! turns both conversions into nothing (the mask is already an `iN` there),
//! and the wave executor checks that the bits fit the wave.

use crate::ir::key::{BlockKey, OperationKey, ValueKey};
use crate::ir::names;
use crate::{ir::edit, transforms::prepare::op_name};
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        BlockRef, Location, OperationRef, RegionRef, Type, Value, ValueLike,
    },
    Context,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// True for terminators whose successor operands must be LLVM-compatible.
pub(crate) fn needs_llvm_operands(terminator: OperationRef<'_, '_>) -> bool {
    op_name(terminator).starts_with(names::LLVM_PREFIX)
}

/// Applies the carrier rule to `region`; returns how many block arguments
/// became carriers.
pub(crate) fn carry_masks_across_llvm_branches<'c>(
    context: &'c Context,
    region: RegionRef<'c, '_>,
    mask: Type<'c>,
    wave_size: u32,
) -> usize {
    let blocks = edit::blocks(region);
    let carriers = carrier_arguments(&blocks, mask);
    if carriers.is_empty() {
        return 0;
    }
    let bits: Type<'c> = IntegerType::new(context, wave_size.max(1)).into();
    for block in &blocks {
        pass_bits(*block, &carriers, bits);
    }
    // In block order, then argument order: the output must not depend on
    // where the blocks happen to be allocated.
    let position: HashMap<BlockKey, usize> = blocks
        .iter()
        .enumerate()
        .map(|(position, block)| (block_key(*block), position))
        .collect();
    let ordered: BTreeMap<(usize, usize), BlockRef<'c, '_>> = carriers
        .iter()
        .map(|(&(key, index), &block)| {
            (
                (position.get(&key).copied().unwrap_or(usize::MAX), index),
                block,
            )
        })
        .collect();
    for (&(_, index), &block) in &ordered {
        unpack_argument(block, index, bits, mask);
    }
    carriers.len()
}

type ArgumentKey = (BlockKey, usize);

fn block_key(block: BlockRef<'_, '_>) -> BlockKey {
    BlockKey::of(&block)
}

/// The mask-typed arguments that an `llvm` terminator forwards into.
fn carrier_arguments<'c, 'a>(
    blocks: &[BlockRef<'c, 'a>],
    mask: Type<'c>,
) -> HashMap<ArgumentKey, BlockRef<'c, 'a>> {
    let mut carriers = HashMap::new();
    for block in blocks {
        let Some(terminator) = block.terminator() else {
            continue;
        };
        if !needs_llvm_operands(terminator) {
            continue;
        }
        for slot in 0..terminator.successor_count() {
            let target = terminator.successor(slot).expect("slot in range");
            let Some(operands) = edit::successor_operands(terminator, slot) else {
                continue;
            };
            for (index, operand) in operands.iter().enumerate() {
                if operand.r#type() == mask && index < target.argument_count() {
                    carriers.insert((block_key(target), index), target);
                }
            }
        }
    }
    carriers
}

/// Every terminator of `block` forwarding a mask into a carrier passes
/// `spmd.mask.to_bits` of it instead.
fn pass_bits<'c>(
    block: BlockRef<'c, '_>,
    carriers: &HashMap<ArgumentKey, BlockRef<'c, '_>>,
    bits: Type<'c>,
) {
    let Some(terminator) = block.terminator() else {
        return;
    };
    let mut converted: HashMap<ValueKey, Value<'c, '_>> = HashMap::new();
    for slot in 0..terminator.successor_count() {
        let target = terminator.successor(slot).expect("slot in range");
        let Some(mut operands) = edit::successor_operands(terminator, slot) else {
            continue;
        };
        let mut changed = false;
        for (index, operand) in operands.iter_mut().enumerate() {
            if !carriers.contains_key(&(block_key(target), index)) {
                continue;
            }
            let key = ValueKey::of(operand);
            let packed = *converted.entry(key).or_insert_with(|| {
                let op = convert(names::MASK_TO_BITS, *operand, bits, terminator.location());
                block
                    .insert_operation_before(terminator, op)
                    .result(0)
                    .unwrap()
                    .into()
            });
            *operand = packed;
            changed = true;
        }
        if changed {
            edit::set_successor_operands(terminator, slot, &operands);
        }
    }
}

/// Argument `index` of `block` becomes an `iN`; its old uses read
/// `spmd.mask.from_bits` of it.
fn unpack_argument<'c>(block: BlockRef<'c, '_>, index: usize, bits: Type<'c>, mask: Type<'c>) {
    let argument: Value = block
        .argument(index)
        .expect("carrier index in range")
        .into();
    let location = block.argument(index).unwrap().location();
    let users: Vec<(OperationRef, usize)> = edit::uses(argument);
    block.argument(index).unwrap().set_type(bits);
    let unpacked = edit::insert_at_start(
        block,
        convert(names::MASK_FROM_BITS, argument, mask, location),
    );
    let value: Value = unpacked.result(0).unwrap().into();
    let mut seen = HashSet::new();
    for (user, operand) in users {
        if seen.insert((OperationKey::of(&user), operand)) {
            edit::set_operand(user, operand, value);
        }
    }
}

fn convert<'c>(
    name: &str,
    operand: Value<'c, '_>,
    result: Type<'c>,
    location: Location<'c>,
) -> melior::ir::Operation<'c> {
    OperationBuilder::new(name, location)
        .add_operands(&[operand])
        .add_results(&[result])
        .build()
        .unwrap_or_else(|_| panic!("valid {name}"))
}
