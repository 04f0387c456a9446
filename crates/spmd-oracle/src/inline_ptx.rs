//! Inline PTX (`llvm.inline_asm` with the `att` dialect clang gives CUDA's
//! `asm()`): a small interpreter for the instructions that NVIDIA's CUDA
//! headers and libdevice write by hand.
//!
//! [`AsmProgram::parse`] reads the assembly string and the constraint
//! string once, when the module is compiled; [`AsmProgram::run`] executes
//! it on the operands' bits. Registers (the `$N` operands, outputs first,
//! then inputs, and the names a `.reg` declares) hold raw bits; each
//! instruction reads them as its type says (`.u32`, `.s64`, `.f32`, ...).
//! The condition code's carry flag (`.cc`, `addc`, `madc`, ...) is one
//! bit, a *borrow* after `sub.cc`/`subc.cc` as in PTX.
//!
//! | instructions | semantics |
//! |---|---|
//! | `mov.{b,u,s}{32,64}`, `mov.b64` to and from `{lo, hi}` | copies, packing and unpacking 32-bit halves |
//! | `add`, `addc`, `sub`, `subc` (`.cc`) | integer sum or difference with carry/borrow in and out |
//! | `mul.{lo,hi}`, `mad.{lo,hi}`, `madc.{lo,hi}` (`.cc`) | the low or high half of the product, plus an addend and the carry |
//! | `{add,sub,mul,div,fma,sqrt,rcp}.{rn,rz,rm,rp}[.ftz].{f32,f64}` | correctly rounded in the mode ([`crate::rounding`]) |
//! | `{rcp,rsqrt,sqrt,ex2,lg2,sin,cos}.approx[.ftz].{f32,f64}` | the executor's deterministic approximations (as the NVVM intrinsics) |
//! | `bfind[.shiftamt].{u,s}{32,64}` | position of the most significant non-sign bit, or the shift bringing it to the top; all ones if none |
//! | `.reg .T names;`, `{` and `}` | declarations and scopes |
//!
//! Anything else is an error at parse time, which the executor reports
//! when the operation runs.

use crate::program::FloatUnaryOp;
use crate::rounding::{Arithmetic, Format, Rounding};
use std::collections::HashMap;

/// An operand of an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Operand {
    Register(usize),
    Immediate(u64),
    /// `{lo, hi}`: two 32-bit registers forming a 64-bit value.
    Pair(usize, usize),
}

/// How an instruction computes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Opcode {
    Mov,
    /// `add`/`addc`/`sub`/`subc`.
    AddSub {
        subtract: bool,
    },
    /// `mul.lo`/`mul.hi`.
    Mul {
        high: bool,
    },
    /// `mad.lo`/`mad.hi`/`madc.*`: a product half plus an addend.
    Mad {
        high: bool,
    },
    Rounded(Arithmetic, Rounding),
    Approximate(FloatUnaryOp),
    Bfind {
        shift_amount: bool,
    },
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
struct Instruction {
    opcode: Opcode,
    /// Operand width in bits (32 or 64).
    width: u32,
    signed: bool,
    /// `.ftz`: subnormal float operands and results flushed to zero.
    flush: bool,
    carry_in: bool,
    carry_out: bool,
    destination: Operand,
    sources: Vec<Operand>,
}

/// A parsed inline-assembly block.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AsmProgram {
    instructions: Vec<Instruction>,
    outputs: usize,
    inputs: usize,
    registers: usize,
}

impl AsmProgram {
    /// Parses `text` with the constraints `constraints` (`"=r,=r,r,l"`:
    /// outputs marked `=`, then inputs; clobbers `~{...}` are ignored).
    pub fn parse(text: &str, constraints: &str) -> Result<Self, String> {
        let mut outputs = 0;
        let mut inputs = 0;
        for constraint in constraints.split(',').map(str::trim) {
            if constraint.starts_with('~') || constraint.is_empty() {
                continue;
            }
            if constraint.starts_with('=') {
                if inputs > 0 {
                    return Err(format!("output constraint {constraint} after an input"));
                }
                outputs += 1;
            } else {
                inputs += 1;
            }
        }
        let mut names = HashMap::new();
        let mut registers = outputs + inputs;
        let mut instructions = Vec::new();
        for statement in text.split(';') {
            let statement =
                statement.trim_start_matches(|c: char| c.is_whitespace() || c == '{' || c == '}');
            let statement = statement.trim();
            if statement.is_empty() {
                continue;
            }
            if let Some(declaration) = statement.strip_prefix(".reg") {
                let mut words = declaration.trim().splitn(2, char::is_whitespace);
                let _type = words.next();
                for name in words.next().unwrap_or("").split(',').map(str::trim) {
                    if name.is_empty() {
                        continue;
                    }
                    names.insert(name.to_string(), registers);
                    registers += 1;
                }
                continue;
            }
            instructions.push(parse_instruction(statement, &names, outputs + inputs)?);
        }
        Ok(Self {
            instructions,
            outputs,
            inputs,
            registers,
        })
    }

    /// Number of input operands.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Runs the block on the inputs' bits; the outputs' bits.
    pub fn run(&self, inputs: &[u64]) -> Vec<u64> {
        let mut registers = vec![0u64; self.registers];
        registers[self.outputs..self.outputs + inputs.len()].copy_from_slice(inputs);
        let mut carry = false;
        for instruction in &self.instructions {
            instruction.execute(&mut registers, &mut carry);
        }
        registers[..self.outputs].to_vec()
    }
}

fn parse_instruction(
    statement: &str,
    names: &HashMap<String, usize>,
    arguments: usize,
) -> Result<Instruction, String> {
    let fail = |reason: &str| format!("`{statement}`: {reason}");
    let (mnemonic, rest) = statement
        .split_once(char::is_whitespace)
        .unwrap_or((statement, ""));
    let parts: Vec<&str> = mnemonic.split('.').collect();
    let type_name = *parts.last().ok_or_else(|| fail("no type"))?;
    let (signed, width, float) = match type_name {
        "u32" | "b32" => (false, 32, false),
        "s32" => (true, 32, false),
        "u64" | "b64" => (false, 64, false),
        "s64" => (true, 64, false),
        "f32" => (false, 32, true),
        "f64" => (false, 64, true),
        _ => return Err(fail("unknown type")),
    };
    let modifiers = &parts[1..parts.len() - 1];
    let has = |modifier: &str| modifiers.contains(&modifier);
    let rounding = modifiers.iter().find_map(|modifier| Rounding::of(modifier));
    let base = parts[0];
    let opcode = match base {
        "mov" => Opcode::Mov,
        "add" | "sub" | "mul" | "div" | "fma" | "sqrt" | "rcp" if float => {
            let arithmetic = match base {
                "add" => Arithmetic::Add,
                "sub" => Arithmetic::Sub,
                "mul" => Arithmetic::Mul,
                "div" => Arithmetic::Div,
                "fma" => Arithmetic::Fma,
                "sqrt" => Arithmetic::Sqrt,
                _ => Arithmetic::Rcp,
            };
            match (rounding, has("approx")) {
                (Some(rounding), _) => Opcode::Rounded(arithmetic, rounding),
                (None, true) if arithmetic == Arithmetic::Rcp => {
                    Opcode::Approximate(FloatUnaryOp::Recip)
                }
                (None, true) if arithmetic == Arithmetic::Sqrt => {
                    Opcode::Approximate(FloatUnaryOp::Sqrt)
                }
                _ => return Err(fail("no rounding mode")),
            }
        }
        "rsqrt" | "ex2" | "lg2" | "sin" | "cos" if float && has("approx") => {
            Opcode::Approximate(match base {
                "rsqrt" => FloatUnaryOp::Rsqrt,
                "ex2" => FloatUnaryOp::Exp2,
                "lg2" => FloatUnaryOp::Log2,
                "sin" => FloatUnaryOp::Sin,
                _ => FloatUnaryOp::Cos,
            })
        }
        "add" | "addc" | "sub" | "subc" if !float => Opcode::AddSub {
            subtract: base.starts_with("sub"),
        },
        "mul" if !float && (has("lo") || has("hi")) => Opcode::Mul { high: has("hi") },
        "mad" | "madc" if !float && (has("lo") || has("hi")) => Opcode::Mad { high: has("hi") },
        "bfind" if !float => Opcode::Bfind {
            shift_amount: has("shiftamt"),
        },
        _ => return Err(fail("unsupported instruction")),
    };
    let mut operands = split_operands(rest)
        .into_iter()
        .map(|text| operand(text, names, arguments))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|reason| fail(&reason))?;
    let expected = match opcode {
        Opcode::Mov | Opcode::Approximate(_) | Opcode::Bfind { .. } => 2,
        Opcode::Rounded(arithmetic, _) => arithmetic.arity() + 1,
        Opcode::AddSub { .. } | Opcode::Mul { .. } => 3,
        Opcode::Mad { .. } => 4,
    };
    if operands.len() != expected {
        return Err(fail("wrong number of operands"));
    }
    let uses_pair = operands
        .iter()
        .any(|operand| matches!(operand, Operand::Pair(..)));
    if uses_pair && (opcode != Opcode::Mov || width != 64) {
        return Err(fail("a {lo, hi} pair outside mov.b64"));
    }
    let destination = operands.remove(0);
    if matches!(destination, Operand::Immediate(_)) {
        return Err(fail("an immediate destination"));
    }
    Ok(Instruction {
        opcode,
        width,
        signed,
        flush: has("ftz"),
        carry_in: matches!(base, "addc" | "subc" | "madc"),
        carry_out: has("cc"),
        destination,
        sources: operands,
    })
}

/// The comma-separated operands, `{a, b}` kept whole.
fn split_operands(text: &str) -> Vec<&str> {
    let mut operands = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (index, character) in text.char_indices() {
        match character {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                operands.push(text[start..index].trim());
                start = index + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        operands.push(last);
    }
    operands
}

fn operand(
    text: &str,
    names: &HashMap<String, usize>,
    arguments: usize,
) -> Result<Operand, String> {
    let register = |name: &str| -> Result<usize, String> {
        let name = name.trim();
        if let Some(number) = name.strip_prefix('$') {
            return number
                .parse::<usize>()
                .ok()
                .filter(|&number| number < arguments)
                .ok_or_else(|| format!("no operand {name}"));
        }
        names
            .get(name)
            .copied()
            .ok_or_else(|| format!("undeclared register {name}"))
    };
    if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        let (low, high) = inner
            .split_once(',')
            .ok_or_else(|| format!("a vector of other than two registers: {text}"))?;
        return Ok(Operand::Pair(register(low)?, register(high)?));
    }
    let literal = if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(negative) = text.strip_prefix('-') {
        negative.parse::<u64>().ok().map(u64::wrapping_neg)
    } else {
        text.parse::<u64>().ok()
    };
    match literal {
        Some(value) => Ok(Operand::Immediate(value)),
        None => register(text).map(Operand::Register),
    }
}

impl Instruction {
    fn mask(&self) -> u64 {
        crate::value::mask(self.width)
    }

    fn read(&self, registers: &[u64], operand: &Operand) -> u64 {
        match *operand {
            Operand::Register(index) => registers[index] & self.mask(),
            Operand::Immediate(value) => value & self.mask(),
            Operand::Pair(low, high) => (registers[low] & 0xffff_ffff) | (registers[high] << 32),
        }
    }

    fn write(&self, registers: &mut [u64], value: u64) {
        match self.destination {
            Operand::Register(index) => registers[index] = value & self.mask(),
            Operand::Pair(low, high) => {
                registers[low] = value & 0xffff_ffff;
                registers[high] = value >> 32;
            }
            Operand::Immediate(_) => {}
        }
    }

    /// The source as a signed or unsigned integer of the instruction's
    /// width, widened.
    fn integer(&self, bits: u64) -> i128 {
        if self.signed {
            i128::from(crate::value::sign_extend(bits, self.width))
        } else {
            i128::from(bits)
        }
    }

    fn format(&self) -> Format {
        if self.width == 32 {
            Format::Single
        } else {
            Format::Double
        }
    }

    fn float(&self, bits: u64) -> f64 {
        let value = match self.format() {
            Format::Single => f64::from(f32::from_bits(bits as u32)),
            Format::Double => f64::from_bits(bits),
        };
        if self.flush {
            self.format().flush(value)
        } else {
            value
        }
    }

    fn float_bits(&self, value: f64) -> u64 {
        let value = if self.flush {
            self.format().flush(value)
        } else {
            value
        };
        match self.format() {
            Format::Single => u64::from((value as f32).to_bits()),
            Format::Double => value.to_bits(),
        }
    }

    fn execute(&self, registers: &mut [u64], carry: &mut bool) {
        let sources: Vec<u64> = self
            .sources
            .iter()
            .map(|source| self.read(registers, source))
            .collect();
        let carry_in = u128::from(self.carry_in && *carry);
        let width = self.width;
        let result = match self.opcode {
            Opcode::Mov => sources[0],
            Opcode::AddSub { subtract } => {
                let (a, b) = (u128::from(sources[0]), u128::from(sources[1]));
                let (value, flag) = if subtract {
                    (a.wrapping_sub(b).wrapping_sub(carry_in), a < b + carry_in)
                } else {
                    let sum = a + b + carry_in;
                    (sum, sum >> width != 0)
                };
                if self.carry_out {
                    *carry = flag;
                }
                value as u64
            }
            Opcode::Mul { high } => self.product_half(sources[0], sources[1], high),
            Opcode::Mad { high } => {
                let product = u128::from(self.product_half(sources[0], sources[1], high));
                let sum = product + u128::from(sources[2]) + carry_in;
                if self.carry_out {
                    *carry = sum >> width != 0;
                }
                sum as u64
            }
            Opcode::Rounded(arithmetic, rounding) => {
                let operands: Vec<f64> = sources.iter().map(|&bits| self.float(bits)).collect();
                self.float_bits(arithmetic.apply(&operands, self.format(), rounding))
            }
            Opcode::Approximate(unary) => self.float_bits(unary.apply(self.float(sources[0]))),
            Opcode::Bfind { shift_amount } => {
                let value = if self.signed && self.integer(sources[0]) < 0 {
                    !sources[0] & self.mask()
                } else {
                    sources[0]
                };
                if value == 0 {
                    u64::MAX
                } else {
                    let leading = value.leading_zeros() - (64 - width);
                    let position = width - 1 - leading;
                    u64::from(if shift_amount { leading } else { position })
                }
            }
        };
        self.write(registers, result);
    }

    /// The low or high half of the full product of two sources.
    fn product_half(&self, a: u64, b: u64, high: bool) -> u64 {
        let product = self.integer(a).wrapping_mul(self.integer(b)) as u128;
        let half = if high { product >> self.width } else { product };
        half as u64 & self.mask()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libdevice's 32 x 32 + 32 -> 64 multiply-add.
    #[test]
    fn wide_multiply_add_carries_into_the_high_half() {
        let program = AsmProgram::parse(
            "{\n\tmad.lo.cc.u32   $0, $2, $3, $4;\n\tmadc.hi.u32     $1, $2, $3,  0;\n\t}",
            "=r,=r,r,r,r",
        )
        .unwrap();
        assert_eq!((program.outputs, program.inputs()), (2, 3));
        let (a, b, c) = (0xffff_ffffu64, 0xffff_fff0u64, 0x7fu64);
        let wide = u128::from(a) * u128::from(b) + u128::from(c);
        let out = program.run(&[a, b, c]);
        assert_eq!(out, vec![wide as u64 & 0xffff_ffff, (wide >> 32) as u64]);
    }

    /// The 128-bit addition and multiplication of CUDA's headers.
    #[test]
    fn multiword_arithmetic_through_pairs() {
        let add = AsmProgram::parse(
            "{\n\t.reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3;\n\
             \tmov.b64 {a0,a1}, $2;\n\tmov.b64 {a2,a3}, $3;\n\
             \tmov.b64 {b0,b1}, $4;\n\tmov.b64 {b2,b3}, $5;\n\
             \tadd.cc.u32 r0, a0, b0; \n\taddc.cc.u32 r1, a1, b1; \n\
             \taddc.cc.u32 r2, a2, b2; \n\taddc.u32 r3, a3, b3; \n\
             \tmov.b64 $0, {r0,r1};\n\tmov.b64 $1, {r2,r3};\n\t}",
            "=l,=l,l,l,l,l",
        )
        .unwrap();
        let (x, y) = (0x0123_4567_89ab_cdef_ffff_ffff_ffff_fff0u128, 0x11u128);
        let words = |v: u128| [v as u64, (v >> 64) as u64];
        let [xl, xh] = words(x);
        let [yl, yh] = words(y);
        assert_eq!(add.run(&[xl, xh, yl, yh]), words(x + y).to_vec());
        let sub = AsmProgram::parse(
            "{ .reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3;\n\
             mov.b64 {a0,a1}, $2; mov.b64 {a2,a3}, $3; mov.b64 {b0,b1}, $4; mov.b64 {b2,b3}, $5;\n\
             sub.cc.u32 r0, a0, b0; subc.cc.u32 r1, a1, b1; subc.cc.u32 r2, a2, b2; subc.u32 r3, a3, b3;\n\
             mov.b64 $0, {r0,r1}; mov.b64 $1, {r2,r3}; }",
            "=l,=l,l,l,l,l",
        )
        .unwrap();
        assert_eq!(
            sub.run(&[yl, yh, xl, xh]),
            words(y.wrapping_sub(x)).to_vec()
        );
        let mul = AsmProgram::parse(
            "{ .reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi;\n\
             mov.b64 {alo,ahi}, $2; mov.b64 {blo,bhi}, $3;\n\
             mul.lo.u32 r0, alo, blo; mul.hi.u32 r1, alo, blo;\n\
             mad.lo.cc.u32 r1, alo, bhi, r1; madc.hi.u32 r2, alo, bhi, 0;\n\
             mad.lo.cc.u32 r1, ahi, blo, r1; madc.hi.cc.u32 r2, ahi, blo, r2;\n\
             madc.hi.u32 r3, ahi, bhi, 0; mad.lo.cc.u32 r2, ahi, bhi, r2;\n\
             addc.u32 r3, r3, 0; mov.b64 $0, {r0,r1}; mov.b64 $1, {r2,r3}; }",
            "=l,=l,l,l",
        )
        .unwrap();
        let (a, b) = (0xfedc_ba98_7654_3210u64, 0x8000_0000_ffff_ffffu64);
        let product = u128::from(a) * u128::from(b);
        assert_eq!(mul.run(&[a, b]), words(product).to_vec());
    }

    #[test]
    fn float_instructions_round_and_flush() {
        let sub = AsmProgram::parse("sub.rm.f32 $0, $1, $2;", "=f,f,f").unwrap();
        let bits = |x: f32| u64::from(x.to_bits());
        let tiny = 2f32.powi(-30);
        assert_eq!(
            sub.run(&[bits(1.0), bits(tiny)]),
            vec![bits(1.0f32.next_down())]
        );
        let rcp = AsmProgram::parse("rcp.approx.ftz.f32 $0,$1;", "=f,f").unwrap();
        assert_eq!(rcp.run(&[bits(4.0)]), vec![bits(0.25)]);
        // A subnormal operand is flushed: 1/0 = inf.
        assert_eq!(rcp.run(&[bits(1e-40)]), vec![bits(f32::INFINITY)]);
        let rsqrt = AsmProgram::parse("rsqrt.approx.ftz.f64 $0, $1;", "=d,d").unwrap();
        assert_eq!(rsqrt.run(&[4.0f64.to_bits()]), vec![0.5f64.to_bits()]);
    }

    #[test]
    fn bfind_finds_the_leading_bit() {
        let shift = AsmProgram::parse("bfind.shiftamt.u32 $0, $1;", "=r,r").unwrap();
        assert_eq!(shift.run(&[1]), vec![31]);
        assert_eq!(shift.run(&[0x8000_0000]), vec![0]);
        assert_eq!(shift.run(&[0]), vec![0xffff_ffff]);
        let position = AsmProgram::parse("bfind.s32 $0, $1;", "=r,r").unwrap();
        assert_eq!(position.run(&[0xffff_fff0]), vec![3]);
    }

    #[test]
    fn unknown_instructions_and_registers_are_errors() {
        assert!(AsmProgram::parse("brev.b32 $0, $1;", "=r,r").is_err());
        assert!(AsmProgram::parse("add.u32 $0, $1, r9;", "=r,r").is_err());
        assert!(AsmProgram::parse("add.u32 $0, $1, $5;", "=r,r").is_err());
        assert!(AsmProgram::parse("add.u32 $0, $1;", "=r,r").is_err());
    }
}
