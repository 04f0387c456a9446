//! Thread-level semantics of the LLVM dialect's memory, aggregate and
//! conversion operations (the pure arithmetic shares `arith.rs`).
//!
//! * Pointers are [`Pointer`]s: a buffer and a byte offset. Address
//!   arithmetic (`llvm.getelementptr`) never fails; `inbounds` gives poison
//!   when the base or the result lies outside the base's buffer (one past
//!   the end allowed). Accesses are checked by the memory: in bounds, one
//!   whole element, an address space that is generic or the buffer's.
//! * Aggregates live in the memory's aggregate table; `insertvalue` makes a
//!   new aggregate, `extractvalue` reads a leaf or makes a sub-aggregate.
//!   A poison container reads as all-poison leaves.
//! * `llvm.mlir.undef` is treated as poison (stricter than LLVM, where each
//!   use of undef may pick any value: a program that depends on undef being
//!   some particular value is reported rather than trusted).

use super::{read, stored_value, Frame, ThreadState};
use crate::arith::{self, int_operand, Fault};
use crate::error::{describe_operand, ExecError, OpSite, PoisonUse};
use crate::inline_ptx::PtxThread;
use crate::memory::{address_space, MemoryError, Pointer};
use crate::program::{int_unary, CastFlags, CastOp, GepPlan, Op, OpKind};
use crate::value::{sign_extend, IntValue, Value, ValueType};

/// Runs an operation of the LLVM-dialect kinds that `Executor::execute`
/// sends here; its result, if it has one.
pub(super) fn execute(
    op: &Op,
    frame: &Frame,
    thread: &mut ThreadState,
    globals: &[crate::program::Global],
    site: &OpSite,
) -> Result<Option<Value>, ExecError> {
    let operand = |index: usize| read(frame, op.operands[index], site);
    let memory_fault = |error: MemoryError| Fault::Memory(error).at(site);
    let result = (|| -> Result<Option<Value>, ExecError> {
        Ok(Some(match &op.kind {
            OpKind::ZeroAggregate => {
                let leaves = aggregate_leaves(&op.result_type, site)?
                    .iter()
                    .map(zero_of)
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| unsupported_type(op, site))?;
                Value::Aggregate(thread.memory.make_aggregate(leaves))
            }
            OpKind::IntUnary(unary, flag) => {
                let value = operand(0)?;
                let flag = match flag {
                    Some(flag) => Value::bool(*flag),
                    None => operand(1)?,
                };
                match (value, flag) {
                    (Value::Poison, _) | (_, Value::Poison) => Value::Poison,
                    (value, Value::Int(flag)) => {
                        let value = int_operand(value).map_err(|fault| fault.at(site))?;
                        int_unary(*unary, value, flag.is_true()).map_or(Value::Poison, Value::Int)
                    }
                    (_, other) => {
                        return Err(Fault::Type(describe_operand("an i1 flag", other)).at(site))
                    }
                }
            }
            OpKind::FloatUnary(unary) => match operand(0)? {
                Value::F32(float) => Value::F32(unary.apply(f64::from(float)) as f32),
                Value::F64(float) => Value::F64(unary.apply(float)),
                Value::Poison => Value::Poison,
                other => return Err(Fault::Type(describe_operand("a float", other)).at(site)),
            },
            OpKind::Fma => match (operand(0)?, operand(1)?, operand(2)?) {
                (Value::Poison, _, _) | (_, Value::Poison, _) | (_, _, Value::Poison) => {
                    Value::Poison
                }
                (Value::F32(a), Value::F32(b), Value::F32(c)) => Value::F32(a.mul_add(b, c)),
                (Value::F64(a), Value::F64(b), Value::F64(c)) => Value::F64(a.mul_add(b, c)),
                (other, _, _) => {
                    return Err(
                        Fault::Type(describe_operand("three floats of one type", other)).at(site),
                    )
                }
            },
            OpKind::Nvvm(nvvm) => {
                let operands = (0..op.operands.len())
                    .map(operand)
                    .collect::<Result<Vec<_>, _>>()?;
                let mut ptx = PtxThread {
                    id: thread.id,
                    dims: thread.dims,
                    linear: thread.linear,
                    memory: &mut *thread.memory,
                };
                nvvm.apply(&operands, &op.result_type, &mut ptx)
                    .map_err(|fault| fault.at(site))?
            }
            OpKind::Freeze => freeze(operand(0)?, &op.result_type, thread, op, site)?,
            OpKind::CastChecked(cast, flags) => {
                let value = operand(0)?;
                if violates(*cast, *flags, value, &op.result_type) {
                    Value::Poison
                } else {
                    arith::cast(*cast, value, &op.result_type).map_err(|fault| fault.at(site))?
                }
            }
            OpKind::InsertValue { start, count } => {
                let mut leaves = match operand(0)? {
                    Value::Poison => {
                        vec![Value::Poison; aggregate_leaves(&op.result_type, site)?.len()]
                    }
                    container => leaves_of(container, thread, site)?.to_vec(),
                };
                let inserted = match operand(1)? {
                    Value::Poison => vec![Value::Poison; *count],
                    Value::Aggregate(id) => {
                        thread.memory.aggregate(id).unwrap_or_default().to_vec()
                    }
                    scalar => vec![scalar],
                };
                let slot = leaves.get_mut(*start..*start + *count);
                match slot {
                    Some(slot) if slot.len() == inserted.len() => slot.copy_from_slice(&inserted),
                    _ => {
                        return Err(Fault::Type(format!(
                            "cannot insert {} leaves at {start}",
                            inserted.len()
                        ))
                        .at(site))
                    }
                }
                Value::Aggregate(thread.memory.make_aggregate(leaves))
            }
            OpKind::ExtractValue { start, count } => match operand(0)? {
                Value::Poison => Value::Poison,
                container => {
                    let leaves = leaves_of(container, thread, site)?
                        .get(*start..*start + *count)
                        .ok_or_else(|| {
                            Fault::Type(format!("no leaves {start}..{}", start + count)).at(site)
                        })?
                        .to_vec();
                    match (&op.result_type, leaves.first()) {
                        (ValueType::Aggregate(_), _) => {
                            Value::Aggregate(thread.memory.make_aggregate(leaves))
                        }
                        (_, Some(&leaf)) => leaf,
                        (_, None) => {
                            return Err(Fault::Type(format!("no leaf at {start}")).at(site))
                        }
                    }
                }
            },
            OpKind::Gep(plan) => gep(plan, op, frame, thread, site)?,
            OpKind::PtrLoad(access) => {
                let pointer = address(operand(0)?, site)?;
                thread
                    .memory
                    .load_pointer(pointer, access.element, access.space)
                    .map_err(memory_fault)?
            }
            OpKind::PtrStore(access) => {
                let value = stored_value(operand(0)?, site)?;
                let pointer = address(operand(1)?, site)?;
                thread
                    .memory
                    .store_pointer(pointer, access.element, access.space, value, thread.linear)
                    .map_err(memory_fault)?;
                return Ok(None);
            }
            OpKind::PtrAtomic(kind, access) => {
                let pointer = address(operand(0)?, site)?;
                let value = stored_value(operand(1)?, site)?;
                thread
                    .memory
                    .atomic_pointer(
                        *kind,
                        pointer,
                        access.element,
                        access.space,
                        value,
                        thread.linear,
                    )
                    .map_err(memory_fault)?
            }
            OpKind::CmpXchg(access) => {
                let pointer = address(operand(0)?, site)?;
                let expected = stored_value(operand(1)?, site)?;
                let new = stored_value(operand(2)?, site)?;
                let (old, swapped) = thread
                    .memory
                    .compare_exchange(
                        pointer,
                        access.element,
                        access.space,
                        expected,
                        new,
                        thread.linear,
                    )
                    .map_err(memory_fault)?;
                Value::Aggregate(
                    thread
                        .memory
                        .make_aggregate(vec![old, Value::bool(swapped)]),
                )
            }
            OpKind::PtrAlloca {
                element,
                per_item,
                space,
            } => {
                let items = match operand(0)? {
                    Value::Poison => return Err(Fault::Poison(PoisonUse::Size).at(site)),
                    value => int_operand(value).map_err(|fault| fault.at(site))?.signed(),
                };
                let count = items.checked_mul(*per_item as i64).unwrap_or(-1);
                let space = if *space == address_space::GENERIC {
                    address_space::LOCAL
                } else {
                    *space
                };
                let buffer = thread
                    .memory
                    .alloc_pointer_buffer(*element, count, space)
                    .map_err(memory_fault)?;
                Value::Ptr(Pointer::to_buffer(buffer))
            }
            OpKind::AddressOf { global, target } => {
                let unknown = || ExecError::UnknownGlobal {
                    site: site.clone(),
                    name: global.clone(),
                };
                let index = target.ok_or_else(unknown)?;
                let description = globals.get(index).ok_or_else(unknown)?;
                let element = description
                    .element
                    .ok_or_else(|| ExecError::Unsupported { site: site.clone() })?;
                let cta = (description.space == address_space::SHARED).then(|| thread.cta_linear());
                let buffer = thread
                    .memory
                    .global_buffer(
                        index,
                        cta,
                        (element, description.count, description.space),
                        &description.init,
                    )
                    .map_err(memory_fault)?;
                Value::Ptr(Pointer::to_buffer(buffer))
            }
            OpKind::PtrToInt => match operand(0)? {
                Value::Poison => Value::Poison,
                Value::Ptr(pointer) => op
                    .result_type
                    .int_value(pointer.address())
                    .ok_or_else(|| unsupported_type(op, site))?,
                other => return Err(Fault::Type(describe_operand("a pointer", other)).at(site)),
            },
            OpKind::IntToPtr => match operand(0)? {
                Value::Poison => Value::Poison,
                value => {
                    let int = int_operand(value).map_err(|fault| fault.at(site))?;
                    Value::Ptr(Pointer::from_address(int.unsigned()))
                }
            },
            OpKind::AddrSpaceCast(to) => match operand(0)? {
                Value::Ptr(pointer) => {
                    if let Some(buffer) = pointer.buffer {
                        let space = thread.memory.address_space(buffer);
                        if *to != address_space::GENERIC && space.is_some_and(|space| space != *to)
                        {
                            return Err(memory_fault(MemoryError::AddressSpaceMismatch {
                                buffer,
                                buffer_space: space.unwrap_or_default(),
                                pointer_space: *to,
                            }));
                        }
                    }
                    Value::Ptr(pointer)
                }
                Value::Poison => Value::Poison,
                other => return Err(Fault::Type(describe_operand("a pointer", other)).at(site)),
            },
            OpKind::Mbcnt { high } => match (operand(0)?, operand(1)?) {
                (Value::Poison, _) | (_, Value::Poison) => Value::Poison,
                (Value::Int(mask), Value::Int(addend)) => {
                    Value::Int(mbcnt(*high, mask, addend, thread.id.lane))
                }
                (other, _) => return Err(Fault::Type(describe_operand("two i32s", other)).at(site)),
            },
            OpKind::Warp(_) => return Err(ExecError::WarpCollective { site: site.clone() }),
            OpKind::UnsupportedIntrinsic(name) => {
                return Err(ExecError::UnsupportedIntrinsic {
                    site: site.clone(),
                    name: name.clone(),
                })
            }
            _ => return Err(ExecError::Unsupported { site: site.clone() }),
        }))
    })();
    result
}

/// AMDGPU's `mbcnt.lo` (`high`: `mbcnt.hi`) in lane `lane`: `addend` plus
/// the number of set bits of `mask` that stand for lanes below `lane`
/// among lanes 0 to 31 (32 to 63). `mbcnt.hi(-1, mbcnt.lo(-1, 0))` is the
/// lane id.
fn mbcnt(high: bool, mask: IntValue, addend: IntValue, lane: u32) -> IntValue {
    let below = 1u64.checked_shl(lane).map_or(u64::MAX, |bit| bit - 1);
    let half = if high {
        below >> 32
    } else {
        below & 0xFFFF_FFFF
    };
    let count = (mask.unsigned() & half).count_ones();
    IntValue::wrap(
        addend.width(),
        addend.unsigned().wrapping_add(u64::from(count)),
    )
}

fn unsupported_type(op: &Op, site: &OpSite) -> ExecError {
    ExecError::UnsupportedType {
        site: site.clone(),
        type_text: op.result_type.to_string(),
    }
}

fn aggregate_leaves<'t>(
    result_type: &'t ValueType,
    site: &OpSite,
) -> Result<&'t [ValueType], ExecError> {
    match result_type {
        ValueType::Aggregate(leaves) => Ok(leaves),
        other => Err(Fault::Type(format!("{other} is not an aggregate type")).at(site)),
    }
}

fn leaves_of<'m>(
    value: Value,
    thread: &'m ThreadState,
    site: &OpSite,
) -> Result<&'m [Value], ExecError> {
    match value {
        Value::Aggregate(id) => thread
            .memory
            .aggregate(id)
            .ok_or_else(|| Fault::Type(format!("unknown aggregate#{}", id.0)).at(site)),
        other => Err(Fault::Type(describe_operand("an aggregate", other)).at(site)),
    }
}

/// The zero of a scalar type.
fn zero_of(r#type: &ValueType) -> Option<Value> {
    match r#type {
        ValueType::Int(_) | ValueType::Index => r#type.int_value(0),
        ValueType::F32 => Some(Value::F32(0.0)),
        ValueType::F64 => Some(Value::F64(0.0)),
        ValueType::Ptr(_) => Some(Value::Ptr(Pointer::NULL)),
        _ => None,
    }
}

/// `llvm.freeze`: poison (also in leaves) becomes zero, an arbitrary but
/// fixed choice.
fn freeze(
    value: Value,
    result_type: &ValueType,
    thread: &mut ThreadState,
    op: &Op,
    site: &OpSite,
) -> Result<Value, ExecError> {
    match (value, result_type) {
        (Value::Poison, ValueType::Aggregate(leaves)) => {
            let zeros = leaves
                .iter()
                .map(zero_of)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| unsupported_type(op, site))?;
            Ok(Value::Aggregate(thread.memory.make_aggregate(zeros)))
        }
        (Value::Poison, scalar) => zero_of(scalar).ok_or_else(|| unsupported_type(op, site)),
        (Value::Aggregate(id), ValueType::Aggregate(types)) => {
            let leaves = leaves_of(Value::Aggregate(id), thread, site)?.to_vec();
            if !leaves.iter().any(|leaf| leaf.is_poison()) {
                return Ok(value);
            }
            let frozen = leaves
                .iter()
                .zip(types)
                .map(|(leaf, r#type)| {
                    if leaf.is_poison() {
                        zero_of(r#type)
                    } else {
                        Some(*leaf)
                    }
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| unsupported_type(op, site))?;
            Ok(Value::Aggregate(thread.memory.make_aggregate(frozen)))
        }
        _ => Ok(value),
    }
}

/// Whether a conversion's `nneg`/`nsw`/`nuw` flag makes the result poison.
fn violates(cast: CastOp, flags: CastFlags, value: Value, result_type: &ValueType) -> bool {
    let Some(int) = value.as_int() else {
        return false;
    };
    if flags.nneg && int.signed() < 0 {
        return true;
    }
    if cast == CastOp::Trunc {
        if let Some(width) = result_type.int_width() {
            let truncated = IntValue::wrap(width, int.unsigned());
            if flags.nuw && truncated.unsigned() != int.unsigned() {
                return true;
            }
            if flags.nsw && sign_extend(truncated.unsigned(), width) != int.signed() {
                return true;
            }
        }
    }
    false
}

/// The pointer of an access; poison is an error.
fn address(value: Value, site: &OpSite) -> Result<Pointer, ExecError> {
    match value {
        Value::Ptr(pointer) => Ok(pointer),
        Value::Poison => Err(Fault::Poison(PoisonUse::Address).at(site)),
        other => Err(Fault::Type(describe_operand("a pointer", other)).at(site)),
    }
}

fn gep(
    plan: &GepPlan,
    op: &Op,
    frame: &Frame,
    thread: &ThreadState,
    site: &OpSite,
) -> Result<Value, ExecError> {
    let base = match read(frame, op.operands[0], site)? {
        Value::Ptr(pointer) => pointer,
        Value::Poison => return Ok(Value::Poison),
        other => return Err(Fault::Type(describe_operand("a pointer", other)).at(site)),
    };
    let mut offset = plan.constant;
    for &(operand, scale) in &plan.dynamic {
        let index = match read(frame, op.operands[operand], site)? {
            Value::Poison => return Ok(Value::Poison),
            value => int_operand(value).map_err(|fault| fault.at(site))?.signed(),
        };
        offset = offset.wrapping_add(index.wrapping_mul(scale));
    }
    let result = base.offset_by(offset);
    if plan.inbounds {
        let inside = |pointer: Pointer| match pointer.buffer {
            Some(buffer) => thread
                .memory
                .buffer_bytes(buffer)
                .is_some_and(|bytes| (0..=bytes as i64).contains(&pointer.offset)),
            None => offset == 0,
        };
        if !inside(base) || !inside(result) {
            return Ok(Value::Poison);
        }
    }
    Ok(Value::Ptr(result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbcnt_counts_the_mask_bits_of_lower_lanes() {
        let i32_ = |bits: u64| IntValue::wrap(32, bits);
        let lane_id = |lane: u32| {
            let low = mbcnt(false, i32_(u64::MAX), i32_(0), lane);
            mbcnt(true, i32_(u64::MAX), low, lane).unsigned()
        };
        assert_eq!(
            (0..64).map(lane_id).collect::<Vec<_>>(),
            (0..64).collect::<Vec<_>>()
        );
        // Lanes 1 and 3 of 0b1010 are below lane 5; bit 33 (lane 33) is
        // not in the low half.
        assert_eq!(mbcnt(false, i32_(0b1010), i32_(7), 5).unsigned(), 9);
        assert_eq!(mbcnt(true, i32_(0b10), i32_(0), 34).unsigned(), 1);
        assert_eq!(mbcnt(true, i32_(0b10), i32_(0), 33).unsigned(), 0);
    }
}
