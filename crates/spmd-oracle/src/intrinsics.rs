//! Semantics of the NVVM and LLVM intrinsics that NVIDIA's libdevice and
//! CUDA's headers use beyond the plain float and integer operations: the
//! `.ftz` approximations, arithmetic and conversions with a rounding mode,
//! the bit-level helpers (`d2i.hi`, `lohi.i2d`, `mulhi`, `sad`, `prmt`,
//! `bitreverse`, funnel shifts, `is.fpclass`) and inline PTX.
//!
//! Exact operations are exact: rounding modes follow IEEE 754
//! ([`crate::rounding`]), conversions to integers saturate and take NaN to
//! 0 as PTX's `cvt` does. The approximations (`rcp.approx`, `ex2.approx`,
//! ...) are [`FloatUnaryOp`]'s deterministic stand-ins; their `.ftz` forms
//! flush subnormal operands and results to zeros of the same sign.
//!
//! A poison operand makes the result poison.

use crate::arith::Fault;
use crate::error::describe_operand;
use crate::inline_ptx::{AsmProgram, PtxThread};
use crate::program::FloatUnaryOp;
use crate::rounding::{self, Arithmetic, Format, Rounding};
use crate::value::{IntValue, Value, ValueType};

/// An intrinsic computed by [`NvvmOp::apply`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NvvmOp {
    /// A [`FloatUnaryOp`] with `.ftz` (`llvm.nvvm.ex2.approx.ftz.f`,
    /// `rcp.approx.ftz.d`, `fabs.ftz.f32`, ...).
    Flushed(FloatUnaryOp),
    /// `llvm.nvvm.{add,mul,div,fma,sqrt,rcp}.{rn,rz,rm,rp}[.ftz].{f,d}`.
    Rounded {
        arithmetic: Arithmetic,
        rounding: Rounding,
        flush: bool,
    },
    /// `llvm.nvvm.{f,d}2{i,ui,ll,ull}.{rn,rz,rm,rp}[.ftz]`: to the result's
    /// integer type, saturating, NaN to 0.
    FloatToInt {
        rounding: Rounding,
        signed: bool,
        flush: bool,
    },
    /// `llvm.nvvm.{i,ui,ll,ull}2{f,d}.{rn,rz,rm,rp}`.
    IntToFloat { rounding: Rounding, signed: bool },
    /// `llvm.nvvm.d2f.{rn,rz,rm,rp}[.ftz]`.
    NarrowToSingle { rounding: Rounding, flush: bool },
    /// `llvm.nvvm.d2i.hi`/`d2i.lo`: the high or low 32 bits of an `f64`.
    DoubleHalf { high: bool },
    /// `llvm.nvvm.lohi.i2d(lo, hi)`: the `f64` of those bits.
    JoinDouble,
    /// `llvm.nvvm.mulhi.{i,ui,ll,ull}`: the high half of the full product.
    MulHi { signed: bool },
    /// `llvm.nvvm.sad.{i,ui}(a, b, c)`: `|a - b| + c`.
    Sad { signed: bool },
    /// `llvm.nvvm.prmt(a, b, selector)`: PTX's `prmt.b32` (default mode).
    Permute,
    /// `llvm.intr.bitreverse`.
    BitReverse,
    /// `llvm.intr.fshl`/`fshr`: the high (left) or low (right) word of the
    /// concatenation `a:b` shifted by the third operand modulo the width.
    FunnelShift { left: bool },
    /// `llvm.intr.is.fpclass` with LLVM's class mask (bit 0 signalling
    /// NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0, 7
    /// +subnormal, 8 +normal, 9 +inf).
    IsFpClass(u32),
    /// `llvm.inline_asm` of PTX ([`AsmProgram`]).
    InlinePtx(Box<AsmProgram>),
}

impl NvvmOp {
    /// The number of operands.
    pub fn arity(&self) -> usize {
        match self {
            Self::Rounded { arithmetic, .. } => arithmetic.arity(),
            Self::JoinDouble | Self::MulHi { .. } => 2,
            Self::Sad { .. } | Self::Permute | Self::FunnelShift { .. } => 3,
            Self::InlinePtx(program) => program.inputs(),
            _ => 1,
        }
    }

    /// The result on `operands` ([`NvvmOp::arity`] of them), of type
    /// `result`, in `thread` (an inline-PTX block with several outputs
    /// makes its aggregate in the thread's memory, one that touches
    /// textures or surfaces reads or writes it). A block without outputs
    /// gives poison (its op has no result).
    pub fn apply(
        &self,
        operands: &[Value],
        result: &ValueType,
        thread: &mut PtxThread,
    ) -> Result<Value, Fault> {
        if let Some(input) = operands.iter().position(|value| value.is_poison()) {
            // Poison flows through pure operations; a texture or surface
            // access on it is undefined.
            return match self {
                Self::InlinePtx(program) => match program.poison_use(input) {
                    Some(usage) => Err(Fault::Poison(usage)),
                    None => Ok(Value::Poison),
                },
                _ => Ok(Value::Poison),
            };
        }
        let integer = |index: usize| crate::arith::int_operand(operands[index]);
        Ok(match self {
            Self::Flushed(unary) => {
                let (value, format) = float(operands[0])?;
                let exact = unary.apply(format.flush(value));
                build_float(result, format.flush(format.narrow(exact)))?
            }
            Self::Rounded {
                arithmetic,
                rounding,
                flush,
            } => {
                let (_, format) = float(operands[0])?;
                let values = operands
                    .iter()
                    .map(|&operand| {
                        float(operand).map(|(value, _)| flush_if(*flush, format, value))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let value = arithmetic.apply(&values, format, *rounding);
                build_float(result, flush_if(*flush, format, value))?
            }
            Self::FloatToInt {
                rounding,
                signed,
                flush,
            } => {
                let (value, format) = float(operands[0])?;
                let width = int_width(result)?;
                let bits = rounding::float_to_int(
                    flush_if(*flush, format, value),
                    *rounding,
                    *signed,
                    width,
                );
                Value::Int(IntValue::wrap(width, bits))
            }
            Self::IntToFloat { rounding, signed } => {
                let value = integer(0)?;
                let wide = if *signed {
                    i128::from(value.signed())
                } else {
                    i128::from(value.unsigned())
                };
                let format = match result {
                    ValueType::F32 => Format::Single,
                    _ => Format::Double,
                };
                build_float(result, rounding::int_to_float(wide, format, *rounding))?
            }
            Self::NarrowToSingle { rounding, flush } => {
                let (value, _) = float(operands[0])?;
                let narrowed = f64::from(rounding::narrow_to_single(value, *rounding));
                build_float(result, flush_if(*flush, Format::Single, narrowed))?
            }
            Self::DoubleHalf { high } => {
                let bits = match operands[0] {
                    Value::F64(value) => value.to_bits(),
                    other => return Err(Fault::Type(describe_operand("an f64", other))),
                };
                let half = if *high { bits >> 32 } else { bits };
                Value::Int(IntValue::wrap(32, half))
            }
            Self::JoinDouble => {
                let (low, high) = (integer(0)?.unsigned(), integer(1)?.unsigned());
                Value::F64(f64::from_bits((high << 32) | (low & 0xffff_ffff)))
            }
            Self::MulHi { signed } => {
                let (a, b) = (integer(0)?, integer(1)?);
                let width = a.width();
                let widen = |value: IntValue| {
                    if *signed {
                        i128::from(value.signed())
                    } else {
                        i128::from(value.unsigned())
                    }
                };
                let product = widen(a).wrapping_mul(widen(b)) as u128;
                Value::Int(IntValue::wrap(width, (product >> width) as u64))
            }
            Self::Sad { signed } => {
                let (a, b, c) = (integer(0)?, integer(1)?, integer(2)?);
                let difference = if *signed {
                    a.signed().abs_diff(b.signed())
                } else {
                    a.unsigned().abs_diff(b.unsigned())
                };
                Value::Int(IntValue::wrap(
                    a.width(),
                    difference.wrapping_add(c.unsigned()),
                ))
            }
            Self::Permute => {
                let (a, b, selector) = (integer(0)?, integer(1)?, integer(2)?);
                Value::Int(IntValue::wrap(
                    32,
                    u64::from(permute(
                        a.unsigned() as u32,
                        b.unsigned() as u32,
                        selector.unsigned() as u32,
                    )),
                ))
            }
            Self::BitReverse => {
                let value = integer(0)?;
                let width = value.width();
                Value::Int(IntValue::wrap(
                    width,
                    value.unsigned().reverse_bits() >> (64 - width),
                ))
            }
            Self::FunnelShift { left } => {
                let (a, b, amount) = (integer(0)?, integer(1)?, integer(2)?);
                let width = a.width();
                let shift = (amount.unsigned() % u64::from(width)) as u32;
                let (a, b) = (a.unsigned(), b.unsigned());
                let bits = match (shift, left) {
                    (0, true) => a,
                    (0, false) => b,
                    (_, true) => (a << shift) | (b >> (width - shift)),
                    (_, false) => (b >> shift) | (a << (width - shift)),
                };
                Value::Int(IntValue::wrap(width, bits))
            }
            Self::IsFpClass(mask) => {
                let (value, format) = float(operands[0])?;
                Value::bool(mask & (1 << fp_class(value, format, operands[0])) != 0)
            }
            Self::InlinePtx(program) => {
                let inputs = operands
                    .iter()
                    .map(|&operand| bits_of(operand))
                    .collect::<Result<Vec<_>, _>>()?;
                let outputs = program.run(&inputs, thread)?;
                match result {
                    ValueType::Aggregate(leaves) if leaves.len() == outputs.len() => {
                        let values = leaves
                            .iter()
                            .zip(&outputs)
                            .map(|(leaf, &bits)| value_of_bits(leaf, bits))
                            .collect::<Result<Vec<_>, _>>()?;
                        Value::Aggregate(thread.memory.make_aggregate(values))
                    }
                    scalar if outputs.len() == 1 => value_of_bits(scalar, outputs[0])?,
                    _ if outputs.is_empty() => Value::Poison,
                    other => {
                        return Err(Fault::Type(format!(
                            "{} inline PTX outputs for a result of type {other}",
                            outputs.len()
                        )))
                    }
                }
            }
        })
    }
}

/// A float operand and its format.
fn float(value: Value) -> Result<(f64, Format), Fault> {
    match value {
        Value::F32(float) => Ok((f64::from(float), Format::Single)),
        Value::F64(float) => Ok((float, Format::Double)),
        other => Err(Fault::Type(describe_operand("a float", other))),
    }
}

fn flush_if(flush: bool, format: Format, value: f64) -> f64 {
    if flush {
        format.flush(value)
    } else {
        value
    }
}

fn build_float(result: &ValueType, value: f64) -> Result<Value, Fault> {
    match result {
        ValueType::F32 => Ok(Value::F32(value as f32)),
        ValueType::F64 => Ok(Value::F64(value)),
        other => Err(Fault::Type(format!("result type {other} is not a float"))),
    }
}

fn int_width(result: &ValueType) -> Result<u32, Fault> {
    result
        .int_width()
        .ok_or_else(|| Fault::Type(format!("result type {result} is not an integer")))
}

/// The raw bits of a scalar (an inline-PTX operand).
fn bits_of(value: Value) -> Result<u64, Fault> {
    match value {
        Value::F32(float) => Ok(u64::from(float.to_bits())),
        Value::F64(float) => Ok(float.to_bits()),
        other => crate::arith::int_operand(other).map(IntValue::unsigned),
    }
}

/// The scalar of type `r#type` with the bits `bits`.
fn value_of_bits(r#type: &ValueType, bits: u64) -> Result<Value, Fault> {
    match r#type {
        ValueType::F32 => Ok(Value::F32(f32::from_bits(bits as u32))),
        ValueType::F64 => Ok(Value::F64(f64::from_bits(bits))),
        other => other
            .int_value(bits)
            .ok_or_else(|| Fault::Type(format!("an inline PTX output of type {other}"))),
    }
}

/// LLVM's floating-point class (the bit of `is.fpclass`'s mask) of a value
/// of `format`; `original` keeps the NaN's signalling bit.
fn fp_class(value: f64, format: Format, original: Value) -> u32 {
    let negative = value.is_sign_negative();
    let side = |positive: u32, negative_class: u32| {
        if negative {
            negative_class
        } else {
            positive
        }
    };
    if value.is_nan() {
        let quiet = match original {
            Value::F32(float) => float.to_bits() & (1 << 22) != 0,
            _ => value.to_bits() & (1 << 51) != 0,
        };
        return u32::from(quiet);
    }
    if value.is_infinite() {
        side(9, 2)
    } else if value == 0.0 {
        side(6, 5)
    } else if format.is_subnormal(value) {
        side(7, 4)
    } else {
        side(8, 3)
    }
}

/// `prmt.b32 d, a, b, c` in the default mode: byte `i` of the result is
/// byte `c[4i+2:4i]` of `b:a` (`a` the low word), or that byte's sign
/// replicated if `c[4i+3]` is set.
fn permute(a: u32, b: u32, selector: u32) -> u32 {
    let bytes = (u64::from(b) << 32) | u64::from(a);
    (0..4).fold(0u32, |result, index| {
        let nibble = (selector >> (4 * index)) & 0xf;
        let byte = (bytes >> (8 * (nibble & 7))) as u8;
        let byte = if nibble & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        result | (u32::from(byte) << (8 * index))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(op: NvvmOp, operands: &[Value], result: ValueType) -> Value {
        let dims = crate::interpreter::GridDims::linear(1);
        let mut thread = PtxThread {
            id: crate::interpreter::ThreadId::from_linear(0, &dims),
            dims,
            linear: 0,
            memory: &mut crate::memory::Memory::new(),
        };
        op.apply(operands, &result, &mut thread).unwrap()
    }

    #[test]
    fn double_halves_round_trip() {
        let x = -1234.5678f64;
        let high = apply(
            NvvmOp::DoubleHalf { high: true },
            &[Value::F64(x)],
            ValueType::Int(32),
        );
        let low = apply(
            NvvmOp::DoubleHalf { high: false },
            &[Value::F64(x)],
            ValueType::Int(32),
        );
        assert_eq!(high, Value::i32((x.to_bits() >> 32) as u32 as i32));
        assert_eq!(
            apply(NvvmOp::JoinDouble, &[low, high], ValueType::F64),
            Value::F64(x)
        );
    }

    #[test]
    fn integer_helpers() {
        let i32_ = |v: i64| Value::i32(v as i32);
        assert_eq!(
            apply(
                NvvmOp::MulHi { signed: true },
                &[i32_(-2), i32_(0x4000_0000)],
                ValueType::Int(32)
            ),
            i32_(-1)
        );
        assert_eq!(
            apply(
                NvvmOp::MulHi { signed: false },
                &[i32_(-2), i32_(0x4000_0000)],
                ValueType::Int(32)
            ),
            i32_(0x3fff_ffff)
        );
        assert_eq!(
            apply(
                NvvmOp::MulHi { signed: false },
                &[Value::i64(-1), Value::i64(-1)],
                ValueType::Int(64)
            ),
            Value::i64(-2)
        );
        assert_eq!(
            apply(
                NvvmOp::Sad { signed: true },
                &[i32_(-5), i32_(7), i32_(100)],
                ValueType::Int(32)
            ),
            i32_(112)
        );
        assert_eq!(
            apply(
                NvvmOp::Sad { signed: false },
                &[i32_(-5), i32_(7), i32_(0)],
                ValueType::Int(32)
            ),
            i32_(-12)
        );
        assert_eq!(permute(0x4433_2211, 0x8877_6655, 0x5140), 0x6622_5511);
        assert_eq!(permute(0x0000_8000, 0, 0x0009), 0x0000_00ff);
        assert_eq!(
            apply(NvvmOp::BitReverse, &[i32_(1)], ValueType::Int(32)),
            i32_(i64::from(i32::MIN))
        );
        let funnel = |left, a, b, s| {
            apply(
                NvvmOp::FunnelShift { left },
                &[i32_(a), i32_(b), i32_(s)],
                ValueType::Int(32),
            )
        };
        assert_eq!(funnel(true, 0x1234_5678, 0x9abc_def0, 8), i32_(0x3456_789a));
        assert_eq!(
            funnel(false, 0x1234_5678, 0x9abc_def0, 8),
            i32_(0x789a_bcde)
        );
        assert_eq!(
            funnel(true, 0x1234_5678, 0x9abc_def0, 32),
            i32_(0x1234_5678)
        );
    }

    #[test]
    fn float_classes() {
        let class = |value: Value| {
            let (x, format) = float(value).unwrap();
            fp_class(x, format, value)
        };
        assert_eq!(class(Value::F32(f32::NAN)), 1);
        assert_eq!(class(Value::F32(f32::from_bits(0x7f80_0001))), 0);
        assert_eq!(class(Value::F64(f64::NEG_INFINITY)), 2);
        assert_eq!(class(Value::F32(-1.0)), 3);
        assert_eq!(class(Value::F32(-1e-40)), 4);
        assert_eq!(class(Value::F64(1e-40)), 8);
        assert_eq!(class(Value::F64(-0.0)), 5);
        assert_eq!(class(Value::F64(0.0)), 6);
        assert_eq!(class(Value::F64(1e-310)), 7);
        assert_eq!(class(Value::F32(f32::INFINITY)), 9);
        assert_eq!(
            apply(
                NvvmOp::IsFpClass(0b10_0110_0000),
                &[Value::F32(-0.0)],
                ValueType::Int(1)
            ),
            Value::bool(true)
        );
    }

    #[test]
    fn conversions_and_flushing() {
        let convert = |rounding, value: f32| {
            apply(
                NvvmOp::FloatToInt {
                    rounding,
                    signed: true,
                    flush: false,
                },
                &[Value::F32(value)],
                ValueType::Int(32),
            )
        };
        assert_eq!(convert(Rounding::Up, 1e-40), Value::i32(1));
        assert_eq!(convert(Rounding::Down, -0.5), Value::i32(-1));
        assert_eq!(convert(Rounding::NearestEven, f32::NAN), Value::i32(0));
        assert_eq!(convert(Rounding::TowardZero, 3e9), Value::i32(i32::MAX));
        let flushed = apply(
            NvvmOp::FloatToInt {
                rounding: Rounding::Up,
                signed: true,
                flush: true,
            },
            &[Value::F32(1e-40)],
            ValueType::Int(32),
        );
        assert_eq!(flushed, Value::i32(0));
        assert_eq!(
            apply(
                NvvmOp::IntToFloat {
                    rounding: Rounding::Up,
                    signed: false
                },
                &[Value::i32(-1)],
                ValueType::F32
            ),
            Value::F32(2f32.powi(32))
        );
        assert_eq!(
            apply(
                NvvmOp::Flushed(FloatUnaryOp::Recip),
                &[Value::F64(1e-310)],
                ValueType::F64
            ),
            Value::F64(f64::INFINITY)
        );
        assert_eq!(
            apply(
                NvvmOp::Flushed(FloatUnaryOp::Recip),
                &[Value::F32(-1e38)],
                ValueType::F32
            ),
            Value::F32(-0.0)
        );
        assert_eq!(
            apply(
                NvvmOp::Rounded {
                    arithmetic: Arithmetic::Add,
                    rounding: Rounding::Up,
                    flush: false
                },
                &[Value::F32(1.0), Value::Poison],
                ValueType::F32
            ),
            Value::Poison
        );
    }
}
