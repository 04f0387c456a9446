//! Semantics of the pure operations (`arith`), independent of where they
//! sit in the IR.
//!
//! Each function takes operand values and the result type and returns the
//! result or a [`Fault`]; the interpreter attaches the operation's name and
//! location. Rules, following MLIR's `arith` documentation:
//!
//! * any poison operand makes the result poison (for `select`, a poison
//!   condition does; a poison unselected operand does not);
//! * results wrap modulo `2^width`; with `nsw`/`nuw` an overflowing
//!   `addi`/`subi`/`muli`/`shli` gives poison;
//! * a shift amount `>= width` gives poison;
//! * division or remainder by zero, and signed `MIN / -1`, are undefined
//!   behaviour (a [`Fault::UndefinedBehavior`]);
//! * `fptosi`/`fptoui` of NaN or an out-of-range value give poison.

use super::error::{describe_operand, ExecError, OpSite, PoisonUse};
use super::memory::MemoryError;
use super::program::{CastOp, FloatOp, IntOp, IntPredicate, OverflowFlags};
use super::value::{mask, sign_extend, IntValue, Value, ValueType};

/// An error before the operation's site is attached.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Fault {
    UndefinedBehavior(&'static str),
    Poison(PoisonUse),
    Type(String),
    Memory(MemoryError),
}

impl Fault {
    /// The error at `site`.
    pub fn at(self, site: &OpSite) -> ExecError {
        let site = site.clone();
        match self {
            Self::UndefinedBehavior(reason) => ExecError::UndefinedBehavior { site, reason },
            Self::Poison(usage) => ExecError::PoisonUsed { site, usage },
            Self::Type(detail) => ExecError::TypeMismatch { site, detail },
            Self::Memory(error) => ExecError::Memory { site, error },
        }
    }
}

impl From<MemoryError> for Fault {
    fn from(error: MemoryError) -> Self {
        Self::Memory(error)
    }
}

/// The integer payload of an integer or index operand.
pub(crate) fn int_operand(value: Value) -> Result<IntValue, Fault> {
    value
        .as_int()
        .ok_or_else(|| Fault::Type(describe_operand("an integer or index", value)))
}

fn same_width(a: IntValue, b: IntValue) -> Result<u32, Fault> {
    if a.width() == b.width() {
        Ok(a.width())
    } else {
        Err(Fault::Type(format!("operand widths differ: {a} and {b}")))
    }
}

fn build_int(result: &ValueType, bits: u64) -> Result<Value, Fault> {
    result
        .int_value(bits)
        .ok_or_else(|| Fault::Type(format!("result type {result} is not an integer")))
}

/// An integer binary operation.
pub(crate) fn int_binary(
    op: IntOp,
    flags: OverflowFlags,
    lhs: Value,
    rhs: Value,
    result: &ValueType,
) -> Result<Value, Fault> {
    if lhs.is_poison() || rhs.is_poison() {
        return Ok(Value::Poison);
    }
    let (a, b) = (int_operand(lhs)?, int_operand(rhs)?);
    let width = same_width(a, b)?;
    match int_bits(op, flags, a, b, width)? {
        Some(_) if violates_exact_or_disjoint(op, flags, a, b) => Ok(Value::Poison),
        Some(bits) => build_int(result, bits),
        None => Ok(Value::Poison),
    }
}

/// The LLVM dialect's `exact` (a division with a remainder, a right shift
/// dropping set bits) and `disjoint` (`or` of operands sharing a bit) give
/// poison. Called after `int_bits`, so divisors are non-zero and shift
/// amounts below the width.
fn violates_exact_or_disjoint(op: IntOp, flags: OverflowFlags, a: IntValue, b: IntValue) -> bool {
    let (ua, ub) = (a.unsigned(), b.unsigned());
    let exact = flags.exact
        && match op {
            IntOp::DivU => ua % ub != 0,
            IntOp::DivS => a.signed() % b.signed() != 0,
            IntOp::ShrU | IntOp::ShrS => ua & ((1u64 << ub) - 1) != 0,
            _ => false,
        };
    exact || (flags.disjoint && op == IntOp::Or && ua & ub != 0)
}

/// The result bits, `None` for poison.
fn int_bits(
    op: IntOp,
    flags: OverflowFlags,
    a: IntValue,
    b: IntValue,
    width: u32,
) -> Result<Option<u64>, Fault> {
    let (sa, sb, ua, ub) = (
        i128::from(a.signed()),
        i128::from(b.signed()),
        a.unsigned(),
        b.unsigned(),
    );
    let bits = match op {
        IntOp::Add => {
            return Ok(checked(
                flags,
                sa + sb,
                u128::from(ua) + u128::from(ub),
                width,
            ))
        }
        IntOp::Sub => {
            let signed_ok = !flags.nsw || fits_signed(sa - sb, width);
            let unsigned_ok = !flags.nuw || ua >= ub;
            return Ok((signed_ok && unsigned_ok).then(|| ua.wrapping_sub(ub)));
        }
        IntOp::Mul => {
            return Ok(checked(
                flags,
                sa * sb,
                u128::from(ua) * u128::from(ub),
                width,
            ))
        }
        IntOp::DivS | IntOp::RemS | IntOp::CeilDivS | IntOp::FloorDivS => {
            signed_division(op, sa, sb, width)?
        }
        IntOp::DivU | IntOp::RemU | IntOp::CeilDivU => unsigned_division(op, ua, ub)?,
        IntOp::And => ua & ub,
        IntOp::Or => ua | ub,
        IntOp::Xor => ua ^ ub,
        IntOp::Shl => return Ok(shift_left(flags, a, ub, width)),
        IntOp::ShrS => return Ok((ub < u64::from(width)).then(|| (a.signed() >> ub) as u64)),
        IntOp::ShrU => return Ok((ub < u64::from(width)).then(|| ua >> ub)),
        IntOp::MinS => sa.min(sb) as u64,
        IntOp::MaxS => sa.max(sb) as u64,
        IntOp::MinU => ua.min(ub),
        IntOp::MaxU => ua.max(ub),
    };
    Ok(Some(bits))
}

/// The wrapped result of an add/mul, or `None` if a flag is violated.
/// `signed` and `unsigned` are the exact results.
fn checked(flags: OverflowFlags, signed: i128, unsigned: u128, width: u32) -> Option<u64> {
    let fits_unsigned = unsigned <= u128::from(mask(width));
    if (flags.nsw && !fits_signed(signed, width)) || (flags.nuw && !fits_unsigned) {
        None
    } else {
        Some(signed as u64)
    }
}

/// True if `value` is representable as a signed `width`-bit integer.
fn fits_signed(value: i128, width: u32) -> bool {
    value == i128::from(sign_extend(value as u64, width))
}

fn shift_left(flags: OverflowFlags, a: IntValue, amount: u64, width: u32) -> Option<u64> {
    if amount >= u64::from(width) {
        return None;
    }
    let bits = (a.unsigned() << amount) & mask(width);
    let lost_unsigned = (bits >> amount) != a.unsigned();
    let lost_signed = (sign_extend(bits, width) >> amount) != a.signed();
    if (flags.nuw && lost_unsigned) || (flags.nsw && lost_signed) {
        None
    } else {
        Some(bits)
    }
}

fn signed_division(op: IntOp, a: i128, b: i128, width: u32) -> Result<u64, Fault> {
    if b == 0 {
        return Err(Fault::UndefinedBehavior("division by zero"));
    }
    let min = i128::from(sign_extend(1u64 << (width - 1), width));
    if a == min && b == -1 {
        return Err(Fault::UndefinedBehavior("signed division overflow"));
    }
    let quotient = a / b;
    let result = match op {
        IntOp::DivS => quotient,
        IntOp::RemS => a % b,
        IntOp::CeilDivS if a % b != 0 && (a < 0) == (b < 0) => quotient + 1,
        IntOp::FloorDivS if a % b != 0 && (a < 0) != (b < 0) => quotient - 1,
        _ => quotient,
    };
    Ok(result as u64)
}

fn unsigned_division(op: IntOp, a: u64, b: u64) -> Result<u64, Fault> {
    if b == 0 {
        return Err(Fault::UndefinedBehavior("division by zero"));
    }
    Ok(match op {
        IntOp::RemU => a % b,
        IntOp::CeilDivU => a.div_ceil(b),
        _ => a / b,
    })
}

/// `arith.cmpi`.
pub(crate) fn compare_int(predicate: IntPredicate, lhs: Value, rhs: Value) -> Result<Value, Fault> {
    if lhs.is_poison() || rhs.is_poison() {
        return Ok(Value::Poison);
    }
    let (a, b) = (int_or_address(lhs)?, int_or_address(rhs)?);
    same_width(a, b)?;
    let (sa, sb, ua, ub) = (a.signed(), b.signed(), a.unsigned(), b.unsigned());
    let flag = match predicate {
        IntPredicate::Eq => ua == ub,
        IntPredicate::Ne => ua != ub,
        IntPredicate::Slt => sa < sb,
        IntPredicate::Sle => sa <= sb,
        IntPredicate::Sgt => sa > sb,
        IntPredicate::Sge => sa >= sb,
        IntPredicate::Ult => ua < ub,
        IntPredicate::Ule => ua <= ub,
        IntPredicate::Ugt => ua > ub,
        IntPredicate::Uge => ua >= ub,
    };
    Ok(Value::bool(flag))
}

/// An integer operand, or a pointer's synthetic address (`llvm.icmp` on
/// pointers).
fn int_or_address(value: Value) -> Result<IntValue, Fault> {
    match value {
        Value::Ptr(pointer) => Ok(IntValue::wrap(64, pointer.address())),
        other => int_operand(other),
    }
}

/// `arith.select`.
pub(crate) fn select(condition: Value, on_true: Value, on_false: Value) -> Result<Value, Fault> {
    match condition {
        Value::Poison => Ok(Value::Poison),
        Value::Int(flag) if flag.width() == 1 => {
            Ok(if flag.is_true() { on_true } else { on_false })
        }
        other => Err(Fault::Type(describe_operand("an i1 condition", other))),
    }
}

/// A float operand widened to `f64`, with whether it was an `f32`.
fn float_operand(value: Value) -> Result<(f64, bool), Fault> {
    match value {
        Value::F32(float) => Ok((f64::from(float), true)),
        Value::F64(float) => Ok((float, false)),
        other => Err(Fault::Type(describe_operand("a float", other))),
    }
}

fn build_float(result: &ValueType, value: f64) -> Result<Value, Fault> {
    match result {
        ValueType::F32 => Ok(Value::F32(value as f32)),
        ValueType::F64 => Ok(Value::F64(value)),
        other => Err(Fault::Type(format!("result type {other} is not a float"))),
    }
}

/// A float binary operation. `f32` operations are computed in `f64` and
/// rounded once, which is exact for `+ - * /` (the double has more than
/// twice the precision).
pub(crate) fn float_binary(
    op: FloatOp,
    lhs: Value,
    rhs: Value,
    result: &ValueType,
) -> Result<Value, Fault> {
    if lhs.is_poison() || rhs.is_poison() {
        return Ok(Value::Poison);
    }
    let ((a, _), (b, _)) = (float_operand(lhs)?, float_operand(rhs)?);
    let value = match op {
        FloatOp::Add => a + b,
        FloatOp::Sub => a - b,
        FloatOp::Mul => a * b,
        FloatOp::Div => a / b,
        FloatOp::Rem => a % b,
        FloatOp::Maximum if a.is_nan() || b.is_nan() => f64::NAN,
        FloatOp::Minimum if a.is_nan() || b.is_nan() => f64::NAN,
        FloatOp::Maximum | FloatOp::MaxNum => a.max(b),
        FloatOp::Minimum | FloatOp::MinNum => a.min(b),
        FloatOp::CopySign => a.copysign(b),
    };
    build_float(result, value)
}

/// `arith.negf`.
pub(crate) fn negate_float(operand: Value) -> Result<Value, Fault> {
    match operand {
        Value::Poison => Ok(Value::Poison),
        Value::F32(float) => Ok(Value::F32(-float)),
        Value::F64(float) => Ok(Value::F64(-float)),
        other => Err(Fault::Type(describe_operand("a float", other))),
    }
}

/// `arith.cmpf` with MLIR's predicate numbering.
pub(crate) fn compare_float(predicate: u8, lhs: Value, rhs: Value) -> Result<Value, Fault> {
    if lhs.is_poison() || rhs.is_poison() {
        return Ok(Value::Poison);
    }
    let ((a, _), (b, _)) = (float_operand(lhs)?, float_operand(rhs)?);
    let unordered = a.is_nan() || b.is_nan();
    // 1..=6 are oeq, ogt, oge, olt, ole, one; 8..=13 the same relations
    // unordered (ueq ... une).
    let flag = match predicate {
        0 => false,
        1..=6 => !unordered && relation(predicate, a, b),
        7 => !unordered,
        8..=13 => unordered || relation(predicate - 7, a, b),
        14 => unordered,
        _ => true,
    };
    Ok(Value::bool(flag))
}

/// Relation 1..=6 of `cmpf` (eq, gt, ge, lt, le, ne) on ordered operands.
fn relation(relation: u8, a: f64, b: f64) -> bool {
    match relation {
        1 => a == b,
        2 => a > b,
        3 => a >= b,
        4 => a < b,
        5 => a <= b,
        _ => a != b,
    }
}

/// The conversions.
pub(crate) fn cast(op: CastOp, operand: Value, result: &ValueType) -> Result<Value, Fault> {
    if operand.is_poison() {
        return Ok(Value::Poison);
    }
    match op {
        CastOp::ExtS | CastOp::IndexCast => {
            build_int(result, int_operand(operand)?.signed() as u64)
        }
        CastOp::ExtU | CastOp::Trunc | CastOp::IndexCastUnsigned => {
            build_int(result, int_operand(operand)?.unsigned())
        }
        CastOp::SIToFP | CastOp::UIToFP => int_to_float(op, int_operand(operand)?, result),
        CastOp::FPToSI => float_to_int(operand, result, true),
        CastOp::FPToUI => float_to_int(operand, result, false),
        CastOp::ExtF | CastOp::TruncF => build_float(result, float_operand(operand)?.0),
        CastOp::Bitcast => bitcast(operand, result),
    }
}

/// `sitofp`/`uitofp`, rounded once to the result type (through `f64`, a
/// 64-bit integer converted to `f32` would be rounded twice).
fn int_to_float(op: CastOp, value: IntValue, result: &ValueType) -> Result<Value, Fault> {
    let signed = op == CastOp::SIToFP;
    match result {
        ValueType::F32 if signed => Ok(Value::F32(value.signed() as f32)),
        ValueType::F32 => Ok(Value::F32(value.unsigned() as f32)),
        _ if signed => build_float(result, value.signed() as f64),
        _ => build_float(result, value.unsigned() as f64),
    }
}

/// `fptosi`/`fptoui`: truncation toward zero; poison if out of range.
fn float_to_int(operand: Value, result: &ValueType, signed: bool) -> Result<Value, Fault> {
    let (value, _) = float_operand(operand)?;
    let width = result
        .int_width()
        .ok_or_else(|| Fault::Type(format!("result type {result} is not an integer")))?;
    let truncated = value.trunc();
    let (low, high) = if signed {
        (-(2f64.powi(width as i32 - 1)), 2f64.powi(width as i32 - 1))
    } else {
        (0.0, 2f64.powi(width as i32))
    };
    if value.is_nan() || truncated < low || truncated >= high {
        return Ok(Value::Poison);
    }
    let bits = if signed {
        truncated as i64 as u64
    } else {
        truncated as u64
    };
    build_int(result, bits)
}

fn bitcast(operand: Value, result: &ValueType) -> Result<Value, Fault> {
    if let (Value::Ptr(_), ValueType::Ptr(_)) = (operand, result) {
        return Ok(operand);
    }
    let bits = match operand {
        Value::F32(float) => u64::from(float.to_bits()),
        Value::F64(float) => float.to_bits(),
        other => int_operand(other)?.unsigned(),
    };
    match result {
        ValueType::F32 => Ok(Value::F32(f32::from_bits(bits as u32))),
        ValueType::F64 => Ok(Value::F64(f64::from_bits(bits))),
        other => build_int(other, bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sitofp`/`uitofp` of a 64-bit integer to `f32` round once: through
    /// `f64`, 2^60 + 2^36 + 1 would round to 2^60 + 2^36, a tie that rounds
    /// to even, 2^60.
    #[test]
    fn wide_integers_convert_to_f32_with_one_rounding() {
        let value = Value::i64((1 << 60) + (1 << 36) + 1);
        let expected = Value::F32(2f32.powi(60) + 2f32.powi(37));
        assert_eq!(cast(CastOp::SIToFP, value, &ValueType::F32), Ok(expected));
        assert_eq!(cast(CastOp::UIToFP, value, &ValueType::F32), Ok(expected));
        assert_eq!(
            cast(CastOp::UIToFP, Value::i64(-1), &ValueType::F32),
            Ok(Value::F32(2f32.powi(64)))
        );
        assert_eq!(
            cast(CastOp::SIToFP, Value::i64(-1), &ValueType::F64),
            Ok(Value::F64(-1.0))
        );
        assert_eq!(
            cast(CastOp::SIToFP, Value::Poison, &ValueType::F32),
            Ok(Value::Poison)
        );
    }
}
