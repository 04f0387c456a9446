//! IEEE 754 binary arithmetic in the four rounding modes of PTX (`.rn`,
//! `.rz`, `.rm`, `.rp`), correctly rounded, for the NVVM intrinsics with an
//! explicit rounding mode (`llvm.nvvm.add.rz.f`, `fma.rm.d`, `d2f.rp`,
//! `i2f.rz`, `f2ll.rm`, ...) and the inline PTX of CUDA's headers.
//!
//! The host computes round-to-nearest-even only, so the directed modes are
//! done here, exactly:
//!
//! * `+ - *` and `fma` form the exact result as a [`Dyadic`] (an integer
//!   times a power of two, with as many bits as it takes) and round it
//!   once ([`Dyadic::round`]);
//! * `/`, `sqrt` and `rcp` take the host's correctly rounded
//!   round-to-nearest result `q` and the exact sign of the remainder
//!   (`a - q * b`, `a - q * q`): the exact result lies strictly between
//!   `q` and its neighbour on the remainder's side, which decides every
//!   directed mode ([`adjust`]);
//! * conversions from integers and from `f64` to `f32` round a [`Dyadic`]
//!   too; conversions to integers round to an integral value in the mode
//!   and saturate like PTX's `cvt` (NaN gives 0).
//!
//! Values of either [`Format`] travel as `f64` (every `f32` is exact in
//! `f64`). Special operands (NaN, infinities, zeros) give the IEEE results,
//! which do not depend on the mode except for the sign of an exact zero
//! sum: `+0`, or `-0` when rounding down.

use std::cmp::Ordering;

/// A rounding-direction attribute: PTX's `.rn`, `.rz`, `.rm`, `.rp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Rounding {
    /// To nearest, ties to even (`.rn`).
    NearestEven,
    /// Toward zero (`.rz`).
    TowardZero,
    /// Toward negative infinity (`.rm`).
    Down,
    /// Toward positive infinity (`.rp`).
    Up,
}

impl Rounding {
    /// The mode of a PTX/NVVM suffix (`rn`, `rz`, `rm`, `rp`).
    pub fn of(suffix: &str) -> Option<Self> {
        Some(match suffix {
            "rn" => Self::NearestEven,
            "rz" => Self::TowardZero,
            "rm" => Self::Down,
            "rp" => Self::Up,
            _ => return None,
        })
    }
}

/// A binary interchange format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Format {
    /// binary16 (PTX's `.f16`).
    Half,
    /// bfloat16 (PTX's `.bf16`): `f32`'s exponent range, 8 significant
    /// bits.
    BFloat16,
    /// binary32 (`f32`).
    Single,
    /// binary64 (`f64`).
    Double,
}

impl Format {
    /// Significand bits, the hidden bit included.
    fn precision(self) -> i32 {
        match self {
            Self::Half => 11,
            Self::BFloat16 => 8,
            Self::Single => 24,
            Self::Double => 53,
        }
    }

    /// The exponent of the largest finite value's leading bit.
    fn max_exponent(self) -> i32 {
        match self {
            Self::Half => 15,
            Self::BFloat16 | Self::Single => 127,
            Self::Double => 1023,
        }
    }

    /// The exponent of the smallest subnormal (the last bit of every
    /// value).
    fn min_lsb(self) -> i32 {
        match self {
            Self::Half => -24,
            Self::BFloat16 => -133,
            Self::Single => -149,
            Self::Double => -1074,
        }
    }

    /// Whether the format is one of the 16-bit ones, narrower than half
    /// of `f64`'s precision: `f64` arithmetic rounded again to the format
    /// is then correctly rounded for `+ - * / sqrt` (the first rounding
    /// is innocuous, as `53 >= 2p + 2`); their `fma` rounds its exact
    /// value ([`Dyadic`]) rather than rely on an argument of that kind.
    fn is_narrow(self) -> bool {
        matches!(self, Self::Half | Self::BFloat16)
    }

    /// `value` rounded to nearest (ties to even) in this format; NaN stays
    /// NaN.
    pub fn narrow(self, value: f64) -> f64 {
        match self {
            Self::Single => f64::from(value as f32),
            Self::Double => value,
            Self::Half | Self::BFloat16 => match Dyadic::of_f64(value) {
                Some(exact) => exact.round(self, Rounding::NearestEven),
                None => value,
            },
        }
    }

    /// The largest finite value.
    fn max_finite(self) -> f64 {
        let precision = self.precision();
        (2.0 - 2f64.powi(1 - precision)) * 2f64.powi(self.max_exponent())
    }

    /// The least value of this format above `value` (which is in it).
    fn next_up(self, value: f64) -> f64 {
        match self {
            Self::Single => f64::from((value as f32).next_up()),
            Self::Double => value.next_up(),
            Self::Half | Self::BFloat16 => self.step(value, true),
        }
    }

    /// The greatest value of this format below `value`.
    fn next_down(self, value: f64) -> f64 {
        match self {
            Self::Single => f64::from((value as f32).next_down()),
            Self::Double => value.next_down(),
            Self::Half | Self::BFloat16 => self.step(value, false),
        }
    }

    /// The neighbour of `value` (in a 16-bit format) above or below it.
    fn step(self, value: f64, up: bool) -> f64 {
        if value.is_nan() || value == if up { f64::INFINITY } else { f64::NEG_INFINITY } {
            return value;
        }
        if value == 0.0 {
            let tiny = 2f64.powi(self.min_lsb());
            return if up { tiny } else { -tiny };
        }
        // Away from zero is one more in the magnitude's bits, toward zero
        // one less.
        let bits = self.encode(value);
        let away = (value > 0.0) == up;
        self.decode(if away { bits + 1 } else { bits - 1 })
    }

    /// The width of an encoding, in bits.
    pub fn width(self) -> u32 {
        match self {
            Self::Half | Self::BFloat16 => 16,
            Self::Single => 32,
            Self::Double => 64,
        }
    }

    /// The fraction bits of an encoding (the significand without its
    /// hidden bit).
    fn fraction_bits(self) -> u32 {
        self.precision() as u32 - 1
    }

    /// The encoding of `value`, rounded to nearest in the format first.
    /// A NaN becomes the format's canonical quiet NaN for the 16-bit
    /// formats (`0x7fff`, the one PTX's `.f16` and `.bf16` arithmetic
    /// gives), the host's conversion for `f32`, itself for `f64`.
    pub fn encode(self, value: f64) -> u64 {
        match self {
            Self::Single => return u64::from((value as f32).to_bits()),
            Self::Double => return value.to_bits(),
            Self::Half | Self::BFloat16 => {}
        }
        if value.is_nan() {
            return 0x7fff;
        }
        let value = self.narrow(value);
        let sign = u64::from(value.is_sign_negative()) << (self.width() - 1);
        let magnitude = value.abs();
        let fraction = self.fraction_bits();
        let exponent_all_ones = (1u64 << (self.width() - 1 - fraction)) - 1;
        if magnitude == f64::INFINITY {
            return sign | (exponent_all_ones << fraction);
        }
        let min_normal = 2f64.powi(self.min_lsb() + fraction as i32);
        if magnitude < min_normal {
            // A subnormal (or zero): the multiple of the smallest one.
            return sign | (magnitude * 2f64.powi(-self.min_lsb())) as u64;
        }
        let bits = magnitude.to_bits();
        let exponent = ((bits >> 52) as i32) - 1023;
        let biased = (exponent + self.max_exponent()) as u64;
        sign | (biased << fraction) | ((bits >> (52 - fraction)) & ((1 << fraction) - 1))
    }

    /// The value of the encoding `bits` (the low [`Format::width`] bits
    /// count). A NaN decodes to a quiet NaN of the same sign.
    pub fn decode(self, bits: u64) -> f64 {
        match self {
            Self::Single => return f64::from(f32::from_bits(bits as u32)),
            Self::Double => return f64::from_bits(bits),
            Self::Half | Self::BFloat16 => {}
        }
        let fraction = self.fraction_bits();
        let exponent_bits = self.width() - 1 - fraction;
        let negative = bits >> (self.width() - 1) & 1 == 1;
        let biased = (bits >> fraction) & ((1 << exponent_bits) - 1);
        let mantissa = bits & ((1 << fraction) - 1);
        let magnitude = if biased == (1 << exponent_bits) - 1 {
            if mantissa == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if biased == 0 {
            mantissa as f64 * 2f64.powi(self.min_lsb())
        } else {
            let exponent = biased as i32 - self.max_exponent();
            (mantissa | (1 << fraction)) as f64 * 2f64.powi(exponent - fraction as i32)
        };
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// True if `value` is a subnormal of this format.
    pub fn is_subnormal(self, value: f64) -> bool {
        value != 0.0 && value.abs() < 2f64.powi(self.min_lsb() + self.precision() - 1)
    }

    /// `value` with subnormals flushed to a zero of the same sign (PTX's
    /// `.ftz`).
    pub fn flush(self, value: f64) -> f64 {
        if self.is_subnormal(value) {
            0.0f64.copysign(value)
        } else {
            value
        }
    }
}

/// An exact binary number `(-1)^negative * magnitude * 2^exponent`, the
/// magnitude a natural number of any size (little-endian 64-bit limbs).
/// Zero keeps its sign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dyadic {
    negative: bool,
    magnitude: Vec<u64>,
    exponent: i32,
}

impl Dyadic {
    /// The value of a finite `f64` (`None` for NaN and infinities).
    pub fn of_f64(value: f64) -> Option<Self> {
        if !value.is_finite() {
            return None;
        }
        let bits = value.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1u64 << 52) - 1);
        let (significand, exponent) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1u64 << 52), biased - 1075)
        };
        Some(Self {
            negative: value.is_sign_negative(),
            magnitude: vec![significand],
            exponent,
        })
    }

    /// The value of an integer.
    pub fn of_int(value: i128) -> Self {
        let magnitude = value.unsigned_abs();
        Self {
            negative: value < 0,
            magnitude: vec![magnitude as u64, (magnitude >> 64) as u64],
            exponent: 0,
        }
    }

    /// True for either zero.
    pub fn is_zero(&self) -> bool {
        self.magnitude.iter().all(|&limb| limb == 0)
    }

    /// The sign: `Less` below zero, `Equal` for zero, `Greater` above.
    pub fn sign(&self) -> Ordering {
        match (self.is_zero(), self.negative) {
            (true, _) => Ordering::Equal,
            (false, true) => Ordering::Less,
            (false, false) => Ordering::Greater,
        }
    }

    /// `-self`.
    pub fn negate(mut self) -> Self {
        self.negative = !self.negative;
        self
    }

    /// The exact product.
    pub fn mul(&self, other: &Self) -> Self {
        let mut product = vec![0u64; self.magnitude.len() + other.magnitude.len()];
        for (i, &a) in self.magnitude.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &b) in other.magnitude.iter().enumerate() {
                let t = u128::from(a) * u128::from(b) + u128::from(product[i + j]) + carry;
                product[i + j] = t as u64;
                carry = t >> 64;
            }
            product[i + other.magnitude.len()] = carry as u64;
        }
        Self {
            negative: self.negative != other.negative,
            magnitude: product,
            exponent: self.exponent + other.exponent,
        }
    }

    /// The exact sum; an exact zero from operands that are not two zeros
    /// of one sign is `+0`, or `-0` when `mode` rounds down (IEEE 754's
    /// rule for the sign of a zero sum).
    pub fn add(&self, other: &Self, mode: Rounding) -> Self {
        if self.is_zero() && other.is_zero() && self.negative == other.negative {
            return self.clone();
        }
        let exponent = self.exponent.min(other.exponent);
        let a = shift_left(&self.magnitude, (self.exponent - exponent) as u32);
        let b = shift_left(&other.magnitude, (other.exponent - exponent) as u32);
        let (negative, magnitude) = if self.negative == other.negative {
            (self.negative, add_magnitudes(&a, &b))
        } else {
            match compare_magnitudes(&a, &b) {
                Ordering::Less => (other.negative, sub_magnitudes(&b, &a)),
                _ => (self.negative, sub_magnitudes(&a, &b)),
            }
        };
        let mut sum = Self {
            negative,
            magnitude,
            exponent,
        };
        if sum.is_zero() {
            sum.negative = mode == Rounding::Down;
        }
        sum
    }

    /// The value rounded to `format` in `mode` (an `f64` holding a value of
    /// the format): `±inf` or the largest finite value on overflow, as the
    /// mode directs.
    pub fn round(&self, format: Format, mode: Rounding) -> f64 {
        let sign = |value: f64| if self.negative { -value } else { value };
        let length = bit_length(&self.magnitude);
        if length == 0 {
            return sign(0.0);
        }
        let precision = format.precision();
        let leading = self.exponent + length as i32 - 1;
        let mut lsb = (leading - (precision - 1)).max(format.min_lsb());
        let shift = lsb - self.exponent;
        let mut kept = if shift <= 0 {
            // Exact: at most `precision` bits, shifted into place.
            low_u64(&self.magnitude) << (-shift)
        } else {
            let shift = shift as u32;
            let kept = low_u64(&shift_right(&self.magnitude, shift));
            let half = bit(&self.magnitude, shift - 1);
            let sticky = any_bit_below(&self.magnitude, shift - 1);
            let up = match mode {
                Rounding::NearestEven => half && (sticky || kept & 1 == 1),
                Rounding::TowardZero => false,
                Rounding::Down => self.negative && (half || sticky),
                Rounding::Up => !self.negative && (half || sticky),
            };
            kept + u64::from(up)
        };
        if kept == 1u64 << precision {
            kept >>= 1;
            lsb += 1;
        }
        let normal = kept >> (precision - 1) != 0;
        if normal && lsb + precision - 1 > format.max_exponent() {
            let to_infinity = match mode {
                Rounding::NearestEven => true,
                Rounding::TowardZero => false,
                Rounding::Down => self.negative,
                Rounding::Up => !self.negative,
            };
            return sign(if to_infinity {
                f64::INFINITY
            } else {
                format.max_finite()
            });
        }
        // `kept * 2^lsb` is exact in the format, so in `f64`: build it
        // from the bits of an `f64` (the product of two exact powers of
        // two below would underflow for the smallest subnormals).
        sign(scale(kept, lsb))
    }
}

/// `significand * 2^exponent` for a value exact in `f64`.
fn scale(significand: u64, exponent: i32) -> f64 {
    if significand == 0 {
        return 0.0;
    }
    let length = 64 - significand.leading_zeros() as i32;
    let leading = exponent + length - 1;
    if leading >= -1022 {
        // Normal: the significand, aligned to 53 bits, and the exponent.
        let aligned = if length <= 53 {
            significand << (53 - length)
        } else {
            significand >> (length - 53)
        };
        let biased = (leading + 1023) as u64;
        f64::from_bits((biased << 52) | (aligned & ((1u64 << 52) - 1)))
    } else {
        // Subnormal: the bits sit at 2^-1074.
        f64::from_bits(significand << (exponent + 1074))
    }
}

fn bit_length(magnitude: &[u64]) -> u32 {
    magnitude
        .iter()
        .rposition(|&limb| limb != 0)
        .map_or(0, |top| {
            top as u32 * 64 + 64 - magnitude[top].leading_zeros()
        })
}

fn low_u64(magnitude: &[u64]) -> u64 {
    magnitude.first().copied().unwrap_or(0)
}

fn bit(magnitude: &[u64], index: u32) -> bool {
    magnitude
        .get((index / 64) as usize)
        .is_some_and(|limb| limb >> (index % 64) & 1 == 1)
}

/// True if any bit below `index` is set.
fn any_bit_below(magnitude: &[u64], index: u32) -> bool {
    let (whole, part) = ((index / 64) as usize, index % 64);
    magnitude.iter().take(whole).any(|&limb| limb != 0)
        || (part > 0
            && magnitude
                .get(whole)
                .is_some_and(|limb| limb & ((1u64 << part) - 1) != 0))
}

fn shift_left(magnitude: &[u64], shift: u32) -> Vec<u64> {
    let (whole, part) = ((shift / 64) as usize, shift % 64);
    let mut result = vec![0u64; whole + magnitude.len() + 1];
    for (index, &limb) in magnitude.iter().enumerate() {
        result[whole + index] |= limb << part;
        if part > 0 {
            result[whole + index + 1] |= limb >> (64 - part);
        }
    }
    result
}

fn shift_right(magnitude: &[u64], shift: u32) -> Vec<u64> {
    let (whole, part) = ((shift / 64) as usize, shift % 64);
    (whole..magnitude.len())
        .map(|index| {
            let low = magnitude[index] >> part;
            let high = match magnitude.get(index + 1) {
                Some(next) if part > 0 => next << (64 - part),
                _ => 0,
            };
            low | high
        })
        .collect()
}

fn compare_magnitudes(a: &[u64], b: &[u64]) -> Ordering {
    let length = a.len().max(b.len());
    for index in (0..length).rev() {
        let (x, y) = (
            a.get(index).copied().unwrap_or(0),
            b.get(index).copied().unwrap_or(0),
        );
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

fn add_magnitudes(a: &[u64], b: &[u64]) -> Vec<u64> {
    let length = a.len().max(b.len());
    let mut result = Vec::with_capacity(length + 1);
    let mut carry = false;
    for index in 0..length {
        let (x, y) = (
            a.get(index).copied().unwrap_or(0),
            b.get(index).copied().unwrap_or(0),
        );
        let (sum, c1) = x.overflowing_add(y);
        let (sum, c2) = sum.overflowing_add(u64::from(carry));
        result.push(sum);
        carry = c1 || c2;
    }
    result.push(u64::from(carry));
    result
}

/// `a - b` for `a >= b`.
fn sub_magnitudes(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut borrow = false;
    a.iter()
        .enumerate()
        .map(|(index, &x)| {
            let y = b.get(index).copied().unwrap_or(0);
            let (difference, b1) = x.overflowing_sub(y);
            let (difference, b2) = difference.overflowing_sub(u64::from(borrow));
            borrow = b1 || b2;
            difference
        })
        .collect()
}

/// The operation of a rounded arithmetic intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Arithmetic {
    Add,
    Sub,
    Mul,
    Div,
    /// `a * b + c`, rounded once.
    Fma,
    Sqrt,
    /// `1 / a`.
    Rcp,
}

impl Arithmetic {
    /// Operands taken.
    pub fn arity(self) -> usize {
        match self {
            Self::Sqrt | Self::Rcp => 1,
            Self::Fma => 3,
            _ => 2,
        }
    }

    /// The result of the operation on `operands` (values of `format`,
    /// [`Arithmetic::arity`] of them), rounded in `mode`.
    pub fn apply(self, operands: &[f64], format: Format, mode: Rounding) -> f64 {
        let nearest = self.nearest(operands, format);
        let exact_fma = self == Self::Fma && format.is_narrow();
        if (mode == Rounding::NearestEven && !exact_fma) || !operands.iter().all(|x| x.is_finite())
        {
            // The host rounds to nearest (for the 16-bit formats through
            // `f64`, innocuously except for `fma`), and a special operand
            // gives a result that no mode changes.
            return nearest;
        }
        let exact = |value: f64| Dyadic::of_f64(value).expect("finite operands");
        match self {
            Self::Add | Self::Sub | Self::Mul | Self::Fma => {
                let (a, b) = (exact(operands[0]), exact(operands[1]));
                let result = match self {
                    Self::Add => a.add(&b, mode),
                    Self::Sub => a.add(&b.negate(), mode),
                    Self::Mul => a.mul(&b),
                    _ => a.mul(&b).add(&exact(operands[2]), mode),
                };
                result.round(format, mode)
            }
            Self::Div | Self::Rcp => {
                let (a, b) = match self {
                    Self::Div => (operands[0], operands[1]),
                    _ => (1.0, operands[0]),
                };
                if a == 0.0 || b == 0.0 {
                    return nearest;
                }
                // a/b - q has the sign of (a - q*b) * sign(b).
                let q = finite_or_max(nearest, format);
                let remainder = exact(a).add(&exact(q).mul(&exact(b)).negate(), mode);
                let sign = if b < 0.0 {
                    remainder.sign().reverse()
                } else {
                    remainder.sign()
                };
                adjust(q, overflowed(nearest, sign), format, mode)
            }
            Self::Sqrt => {
                let a = operands[0];
                if a <= 0.0 {
                    return nearest;
                }
                let remainder = exact(a).add(&exact(nearest).mul(&exact(nearest)).negate(), mode);
                adjust(nearest, remainder.sign(), format, mode)
            }
        }
    }

    /// The round-to-nearest result (the host's, exact for `f32` through
    /// `f64` where the double precision suffices; for `fma` in the 16-bit
    /// formats, only where an operand is not finite).
    fn nearest(self, operands: &[f64], format: Format) -> f64 {
        let (a, b) = (operands[0], operands.get(1).copied().unwrap_or(0.0));
        match (self, format) {
            (Self::Add, _) => format.narrow(a + b),
            (Self::Sub, _) => format.narrow(a - b),
            (Self::Mul, _) => format.narrow(a * b),
            (Self::Div, _) => format.narrow(a / b),
            (Self::Rcp, _) => format.narrow(1.0 / a),
            (Self::Sqrt, _) => format.narrow(a.sqrt()),
            (Self::Fma, Format::Single) => {
                f64::from((a as f32).mul_add(b as f32, operands[2] as f32))
            }
            (Self::Fma, _) => format.narrow(a.mul_add(b, operands[2])),
        }
    }
}

/// `value`, or the largest finite value of its sign if it is infinite.
fn finite_or_max(value: f64, format: Format) -> f64 {
    if value.is_infinite() {
        format.max_finite().copysign(value)
    } else {
        value
    }
}

/// The remainder's sign for a round-to-nearest result that overflowed: the
/// exact result lies beyond the largest finite value.
fn overflowed(nearest: f64, sign: Ordering) -> Ordering {
    match nearest {
        f64::INFINITY => Ordering::Greater,
        f64::NEG_INFINITY => Ordering::Less,
        _ => sign,
    }
}

/// The exact result rounded in `mode`, from `q` (the round-to-nearest
/// result, finite) and the sign of `exact - q`: the exact result lies
/// strictly between `q` and its neighbour on that side.
fn adjust(q: f64, remainder: Ordering, format: Format, mode: Rounding) -> f64 {
    let positive = q > 0.0 || (q == 0.0 && remainder == Ordering::Greater);
    let down = match mode {
        Rounding::NearestEven => return q,
        Rounding::Down => true,
        Rounding::Up => false,
        Rounding::TowardZero => positive,
    };
    match (down, remainder) {
        (true, Ordering::Less) => format.next_down(q),
        (false, Ordering::Greater) => format.next_up(q),
        _ => q,
    }
}

/// An integer converted to `format` in `mode` (PTX's `cvt.rX.f32.s64`, ...).
pub(crate) fn int_to_float(value: i128, format: Format, mode: Rounding) -> f64 {
    Dyadic::of_int(value).round(format, mode)
}

/// An `f64` converted to `f32` in `mode` (`cvt.rX.f32.f64`); NaN stays
/// NaN as the host converts it.
pub(crate) fn narrow_to_single(value: f64, mode: Rounding) -> f32 {
    convert_float(value, Format::Single, mode) as f32
}

/// A float (of any format, as an `f64`) rounded to `format` in `mode`
/// (`cvt.rX.f16.f32`, `cvt.rX.bf16.f64`, ...): correctly rounded, once;
/// `±inf` or the largest finite value on overflow as the mode directs.
/// NaN and infinities stay as they are.
pub(crate) fn convert_float(value: f64, format: Format, mode: Rounding) -> f64 {
    match Dyadic::of_f64(value) {
        Some(exact) => exact.round(format, mode),
        None => value,
    }
}

/// A float converted to an integer of `width` bits in `mode`, as PTX's
/// `cvt.rXi.{s,u}N.fM`: rounded to an integral value, then clamped to the
/// integer's range; NaN gives 0. The bits of the result.
pub(crate) fn float_to_int(value: f64, mode: Rounding, signed: bool, width: u32) -> u64 {
    if value.is_nan() {
        return 0;
    }
    let integral = match mode {
        Rounding::NearestEven => value.round_ties_even(),
        Rounding::TowardZero => value.trunc(),
        Rounding::Down => value.floor(),
        Rounding::Up => value.ceil(),
    };
    let (low, high) = if signed {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    } else {
        (0, (1i128 << width) - 1)
    };
    // Every integral f64 of magnitude below 2^127 is exact in i128, and
    // `as` saturates beyond.
    let clamped = (integral as i128).clamp(low, high);
    clamped as u64 & crate::value::mask(width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Rounding::*;

    fn f32_op(op: Arithmetic, operands: &[f32], mode: Rounding) -> f32 {
        let wide: Vec<f64> = operands.iter().map(|&x| f64::from(x)).collect();
        op.apply(&wide, Format::Single, mode) as f32
    }

    #[test]
    fn nearest_agrees_with_the_host() {
        let values = [1.0f64, 3.0, -7.5, 1e-310, 2.0f64.powi(60) + 1.0, 0.1];
        for &a in &values {
            for &b in &values {
                let exact = Dyadic::of_f64(a)
                    .unwrap()
                    .add(&Dyadic::of_f64(b).unwrap(), NearestEven);
                assert_eq!(exact.round(Format::Double, NearestEven), a + b, "{a} + {b}");
                let product = Dyadic::of_f64(a).unwrap().mul(&Dyadic::of_f64(b).unwrap());
                assert_eq!(
                    product.round(Format::Double, NearestEven),
                    a * b,
                    "{a} * {b}"
                );
                assert_eq!(
                    product.round(Format::Single, NearestEven),
                    (a * b) as f32 as f64
                );
            }
        }
    }

    #[test]
    fn directed_sums_bracket_the_exact_value() {
        // 1 + 2^-30 is not an f32: RZ and RM give 1, RP the next float.
        let tiny = 2f32.powi(-30);
        assert_eq!(f32_op(Arithmetic::Add, &[1.0, tiny], TowardZero), 1.0);
        assert_eq!(f32_op(Arithmetic::Add, &[1.0, tiny], Down), 1.0);
        assert_eq!(f32_op(Arithmetic::Add, &[1.0, tiny], Up), 1.0f32.next_up());
        assert_eq!(f32_op(Arithmetic::Add, &[-1.0, -tiny], TowardZero), -1.0);
        assert_eq!(
            f32_op(Arithmetic::Add, &[-1.0, -tiny], Down),
            (-1.0f32).next_down()
        );
        assert_eq!(
            f32_op(Arithmetic::Sub, &[1.0, tiny], Down),
            1.0f32.next_down()
        );
        // Far apart operands (beyond f64's precision): only the sign of
        // the small one matters.
        let (big, small) = (1e300, 1e-300);
        assert_eq!(
            Arithmetic::Add.apply(&[big, small], Format::Double, Up),
            big.next_up()
        );
        assert_eq!(
            Arithmetic::Add.apply(&[big, -small], Format::Double, Down),
            big.next_down()
        );
        assert_eq!(
            Arithmetic::Add.apply(&[big, -small], Format::Double, Up),
            big
        );
        // An exact zero sum is -0 only when rounding down.
        assert!(Arithmetic::Add
            .apply(&[1.0, -1.0], Format::Double, Down)
            .is_sign_negative());
        assert!(Arithmetic::Add
            .apply(&[1.0, -1.0], Format::Double, Up)
            .is_sign_positive());
        assert!(Arithmetic::Add
            .apply(&[-0.0, -0.0], Format::Double, Up)
            .is_sign_negative());
    }

    #[test]
    fn overflow_and_underflow_follow_the_mode() {
        let max = f64::MAX;
        assert_eq!(
            Arithmetic::Mul.apply(&[max, 2.0], Format::Double, TowardZero),
            max
        );
        assert_eq!(
            Arithmetic::Mul.apply(&[max, 2.0], Format::Double, Up),
            f64::INFINITY
        );
        assert_eq!(
            Arithmetic::Mul.apply(&[max, -2.0], Format::Double, Up),
            -max
        );
        assert_eq!(
            Arithmetic::Mul.apply(&[max, -2.0], Format::Double, Down),
            f64::NEG_INFINITY
        );
        assert_eq!(
            Arithmetic::Div.apply(&[max, 0.5], Format::Double, Down),
            max
        );
        assert_eq!(
            Arithmetic::Div.apply(&[max, 0.5], Format::Double, Up),
            f64::INFINITY
        );
        let min = f64::from_bits(1);
        assert_eq!(Arithmetic::Mul.apply(&[min, 0.5], Format::Double, Up), min);
        assert_eq!(
            Arithmetic::Mul.apply(&[min, 0.5], Format::Double, TowardZero),
            0.0
        );
        assert_eq!(
            Arithmetic::Mul.apply(&[min, -0.5], Format::Double, Down),
            -min
        );
        assert!(Arithmetic::Mul
            .apply(&[min, -0.5], Format::Double, Up)
            .is_sign_negative());
        // f32 subnormals.
        let min32 = f32::from_bits(1);
        assert_eq!(f32_op(Arithmetic::Mul, &[min32, 0.75], Up), min32);
        assert_eq!(f32_op(Arithmetic::Mul, &[min32, 0.75], NearestEven), min32);
        assert_eq!(f32_op(Arithmetic::Mul, &[min32, 0.25], NearestEven), 0.0);
        assert_eq!(
            f32_op(Arithmetic::Mul, &[f32::MAX, 1.5], TowardZero),
            f32::MAX
        );
    }

    #[test]
    fn quotients_and_roots_use_the_remainder_sign() {
        // 1/3 rounds up to nearest: the float below is RD's and RZ's.
        let third = 1.0f32 / 3.0;
        assert!(f64::from(third) > 1.0 / 3.0);
        assert_eq!(
            f32_op(Arithmetic::Div, &[1.0, 3.0], Down),
            third.next_down()
        );
        assert_eq!(f32_op(Arithmetic::Div, &[1.0, 3.0], Up), third);
        assert_eq!(
            f32_op(Arithmetic::Div, &[-1.0, 3.0], TowardZero),
            -third.next_down()
        );
        assert_eq!(f32_op(Arithmetic::Div, &[1.0, -3.0], Down), -third);
        assert_eq!(
            f32_op(Arithmetic::Div, &[1.0, -3.0], Up),
            -third.next_down()
        );
        assert_eq!(f32_op(Arithmetic::Div, &[6.0, 3.0], Up), 2.0);
        assert_eq!(
            f32_op(Arithmetic::Rcp, &[3.0], TowardZero),
            third.next_down()
        );
        assert_eq!(f32_op(Arithmetic::Rcp, &[0.0], Up), f32::INFINITY);
        // sqrt(2) rounds up to nearest in f64, down in f32.
        let root = 2f64.sqrt();
        assert_eq!(
            Arithmetic::Sqrt.apply(&[2.0], Format::Double, Down),
            root.next_down()
        );
        assert_eq!(Arithmetic::Sqrt.apply(&[2.0], Format::Double, Up), root);
        assert_eq!(Arithmetic::Sqrt.apply(&[4.0], Format::Double, Up), 2.0);
        assert!(Arithmetic::Sqrt.apply(&[-1.0], Format::Double, Up).is_nan());
        assert_eq!(f32_op(Arithmetic::Sqrt, &[2.0], TowardZero), 2f32.sqrt());
        assert_eq!(f32_op(Arithmetic::Sqrt, &[2.0], Up), 2f32.sqrt().next_up());
    }

    #[test]
    fn fused_multiply_add_rounds_once() {
        // (1 + 2^-52)(1 - 2^-52) = 1 - 2^-104: below 1, so RZ/RM give the
        // float below 1, RN and RP give 1.
        let (a, b) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON);
        assert_eq!(
            Arithmetic::Fma.apply(&[a, b, 0.0], Format::Double, NearestEven),
            1.0
        );
        assert_eq!(Arithmetic::Fma.apply(&[a, b, 0.0], Format::Double, Up), 1.0);
        assert_eq!(
            Arithmetic::Fma.apply(&[a, b, 0.0], Format::Double, Down),
            1.0f64.next_down()
        );
        assert_eq!(
            Arithmetic::Fma.apply(&[a, b, -1.0], Format::Double, Down),
            -(2f64.powi(-104))
        );
        assert_eq!(
            f32_op(Arithmetic::Fma, &[3.0, 1.0 / 3.0, -1.0], Up),
            2f32.powi(-25) * 1.0
        );
    }

    #[test]
    fn conversions_round_in_the_mode() {
        let big = (1i128 << 60) + 1;
        assert_eq!(
            int_to_float(big, Format::Single, Up),
            f64::from(2f32.powi(60).next_up())
        );
        assert_eq!(int_to_float(big, Format::Single, Down), 2f64.powi(60));
        assert_eq!(
            int_to_float(-big, Format::Double, TowardZero),
            -(2f64.powi(60))
        );
        assert_eq!(
            int_to_float(-big, Format::Double, Down),
            -(2f64.powi(60)).next_up()
        );
        assert_eq!(int_to_float(0, Format::Single, Down), 0.0);
        assert_eq!(
            int_to_float(u64::MAX as i128, Format::Double, NearestEven),
            2f64.powi(64)
        );
        // 0.1f32 lies above 0.1.
        assert_eq!(narrow_to_single(0.1, Down), 0.1f32.next_down());
        assert_eq!(narrow_to_single(0.1, Up), 0.1f32);
        assert_eq!(narrow_to_single(0.1, NearestEven), 0.1f32);
        assert_eq!(narrow_to_single(1e300, TowardZero), f32::MAX);
        assert_eq!(narrow_to_single(1e300, NearestEven), f32::INFINITY);
        assert_eq!(narrow_to_single(1e-300, Up), f32::from_bits(1));
        assert_eq!(narrow_to_single(-1e-300, Up), -0.0);
        assert!(narrow_to_single(f64::NAN, Up).is_nan());
        assert_eq!(float_to_int(2.5, NearestEven, true, 32), 2);
        assert_eq!(float_to_int(-2.5, Down, true, 32) as u32 as i32, -3);
        assert_eq!(float_to_int(-2.5, Up, true, 32) as u32 as i32, -2);
        assert_eq!(float_to_int(1e20, TowardZero, true, 32), i32::MAX as u64);
        assert_eq!(float_to_int(-1e20, TowardZero, true, 64), i64::MIN as u64);
        assert_eq!(float_to_int(-3.0, TowardZero, false, 32), 0);
        assert_eq!(float_to_int(f64::INFINITY, TowardZero, false, 64), u64::MAX);
        assert_eq!(float_to_int(f64::NAN, Up, true, 32), 0);
    }

    /// Random operands (all exponents, subnormals and specials included):
    /// rounding the exact result to nearest gives the host's IEEE result,
    /// and the directed modes bracket it: RD <= RN <= RU, RD and RU equal
    /// or adjacent, RZ the one toward zero.
    #[test]
    fn directed_modes_bracket_the_hosts_results() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let bits = state ^ (state >> 29);
            // Half the time a value of moderate exponent, so that sums and
            // products round rather than overflow.
            if bits & 1 == 0 {
                f64::from_bits(bits)
            } else {
                f64::from_bits((bits & 0x800f_ffff_ffff_ffff) | (0x3e0u64 + (bits >> 55)) << 52)
            }
        };
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for _ in 0..4000 {
            let (a, b, c) = (next(), next(), next());
            for format in [
                Format::Half,
                Format::BFloat16,
                Format::Single,
                Format::Double,
            ] {
                let operands = [a, b, c].map(|x| format.narrow(x));
                for op in [
                    Arithmetic::Add,
                    Arithmetic::Sub,
                    Arithmetic::Mul,
                    Arithmetic::Div,
                    Arithmetic::Fma,
                    Arithmetic::Sqrt,
                    Arithmetic::Rcp,
                ] {
                    let operands = &operands[..op.arity()];
                    let nearest = op.apply(operands, format, NearestEven);
                    let [down, up, zero] =
                        [Down, Up, TowardZero].map(|mode| op.apply(operands, format, mode));
                    let context = format!("{op:?} {format:?} {operands:?}");
                    if nearest.is_nan() {
                        assert!(down.is_nan() && up.is_nan() && zero.is_nan(), "{context}");
                        continue;
                    }
                    assert!(
                        down <= nearest && nearest <= up,
                        "{context}: {down} {nearest} {up}"
                    );
                    // (An exact zero sum is -0 when rounding down, +0
                    // otherwise: equal numbers.)
                    assert!(
                        down == up || same(format.next_up(down), up),
                        "{context}: {down} {up}"
                    );
                    let toward = if down >= 0.0 && up > 0.0 { down } else { up };
                    assert!(same(zero, toward) || down == up, "{context}: {zero}");
                    // Through an exact sum or product, nearest is the host's.
                    let exact = |x: f64| Dyadic::of_f64(x);
                    if let (Some(x), Some(y)) =
                        (exact(operands[0]), operands.get(1).and_then(|&y| exact(y)))
                    {
                        let host = match (op, format) {
                            (Arithmetic::Add, _) => {
                                Some((x.add(&y, NearestEven), operands[0] + operands[1]))
                            }
                            (Arithmetic::Mul, _) => Some((x.mul(&y), operands[0] * operands[1])),
                            _ => None,
                        };
                        if let Some((exact, host)) = host {
                            if host.is_finite() {
                                assert!(
                                    same(exact.round(format, NearestEven), format.narrow(host)),
                                    "{context}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every 16-bit encoding decodes to a value that encodes back to it
    /// (NaNs to the canonical one), in increasing order; bfloat16 is the
    /// top half of an `f32`, rounded to nearest even.
    #[test]
    fn sixteen_bit_formats_encode_and_decode() {
        for format in [Format::Half, Format::BFloat16] {
            let mut previous = f64::NEG_INFINITY;
            for magnitude in 0..0x8000u64 {
                for bits in [magnitude, magnitude | 0x8000] {
                    let value = format.decode(bits);
                    if value.is_nan() {
                        assert_eq!(format.encode(value), 0x7fff, "{format:?} {bits:#x}");
                    } else {
                        assert_eq!(format.encode(value), bits, "{format:?} {bits:#x}");
                    }
                }
                let value = format.decode(magnitude);
                if !value.is_nan() {
                    assert!(
                        magnitude == 0 || value > previous,
                        "{format:?} {magnitude:#x}"
                    );
                    if value.is_finite() {
                        assert_eq!(format.next_down(format.next_up(value)), value);
                    }
                    previous = value;
                }
            }
            assert_eq!(
                format.decode(format.encode(format.max_finite())),
                format.max_finite()
            );
        }
        assert_eq!(Format::Half.max_finite(), 65504.0);
        assert_eq!(Format::Half.decode(0x0001), 2f64.powi(-24));
        assert!(Format::Half.is_subnormal(2f64.powi(-15)));
        assert!(!Format::Half.is_subnormal(2f64.powi(-14)));
        for bits in (0..0x1_0000u64).step_by(7) {
            let expected = f64::from(f32::from_bits((bits as u32) << 16));
            let value = Format::BFloat16.decode(bits);
            assert!(value == expected || (value.is_nan() && expected.is_nan()));
        }
        // Rounding an f32 to bfloat16: its low 16 bits decide.
        let mut state = 0x9e37_79b9u32;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let x = f32::from_bits(state);
            if !x.is_finite() {
                continue;
            }
            let (high, low) = (state >> 16, state & 0xffff);
            let up = low > 0x8000 || (low == 0x8000 && high & 1 == 1);
            let expected = u64::from(high + u32::from(up));
            assert_eq!(Format::BFloat16.encode(f64::from(x)), expected, "{x:e}");
        }
        // Halves: 1 + 2^-11 is a tie (to 1), 65520 rounds to infinity.
        assert_eq!(Format::Half.encode(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(Format::Half.encode(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(Format::Half.encode(65520.0), 0x7c00);
        assert_eq!(Format::Half.encode(-1e-9), 0x8000);
        assert_eq!(
            convert_float(0.1, Format::Half, Down),
            Format::Half.decode(0x2e66)
        );
        assert_eq!(
            convert_float(0.1, Format::Half, Up),
            Format::Half.decode(0x2e67)
        );
        assert_eq!(convert_float(1e6, Format::Half, TowardZero), 65504.0);
    }

    #[test]
    fn flushing_keeps_the_sign() {
        assert_eq!(Format::Single.flush(1e-40), 0.0);
        assert!(Format::Single.flush(-1e-40).is_sign_negative());
        assert_eq!(Format::Single.flush(1e-30), 1e-30);
        assert_eq!(Format::Double.flush(1e-40), 1e-40);
        assert_eq!(Format::Double.flush(1e-310), 0.0);
    }
}
