//! Inline PTX (`llvm.inline_asm` with the `att` dialect clang gives CUDA's
//! `asm()`): a small interpreter for the instructions that NVIDIA's CUDA
//! headers and libdevice write by hand.
//!
//! [`AsmProgram::parse`] reads the assembly string and the constraint
//! string once, when the module is compiled; [`AsmProgram::run`] executes
//! it on the operands' bits for one thread ([`PtxThread`]: its ids, for
//! the special registers, and the memory, for textures and surfaces).
//! Registers (the `$N` operands, outputs first, then inputs, and the names
//! a `.reg` declares) hold raw bits; each instruction reads them as its
//! type says: `.bN`, `.uN`, `.sN` (N = 8, 16, 32, 64), `.f16`, `.bf16`,
//! `.f32`, `.f64`, the packed pairs `.f16x2` and `.bf16x2` (two 16-bit
//! floats in 32 bits, the first in the low half, computed lane by lane)
//! and `.pred` (one bit). The condition code's carry flag (`.cc`, `addc`,
//! `madc`, ...) is one bit, a *borrow* after `sub.cc`/`subc.cc` as in PTX.
//!
//! | instructions | semantics |
//! |---|---|
//! | `mov` | copies; `{a, b}` packs or unpacks halves (`mov.b32 {lo, hi}, r` splits 16-bit halves, `mov.b64` 32-bit ones); the special registers `%tid.{x,y,z}`, `%ntid.*`, `%ctaid.*`, `%nctaid.*`, `%laneid`, `%warpid`, `%lanemask_{eq,lt,le,gt,ge}` read the thread's ids, `%reserved_smem_offset_{begin,end,cap,0,1}` read 0 (the executor reserves no shared memory) |
//! | `add`, `addc`, `sub`, `subc` (`.cc`) | integer sum or difference with carry/borrow in and out |
//! | `mul.{lo,hi}`, `mad.{lo,hi}`, `madc.{lo,hi}` (`.cc`) | the low or high half of the product, plus an addend and the carry |
//! | `{add,sub,mul,fma,div,sqrt,rcp}.{rn,rz,rm,rp}[.ftz][.sat]` on `.f16`, `.bf16`, `.f32`, `.f64` and the pairs | correctly rounded in the mode ([`crate::rounding`]), `fma` rounded once; `add`, `sub`, `mul` without a mode round to nearest; `.sat` clamps to `[0, 1]` (NaN to 0); NaN results of the 16-bit formats are the canonical `0x7fff` |
//! | `{rcp,rsqrt,sqrt,ex2,lg2,sin,cos}.approx[.ftz]`, `div.{approx,full}` | the executor's deterministic approximations (as the NVVM intrinsics): the exact value rounded once |
//! | `neg`, `abs` | integers: two's complement; floats (pairs too): the sign bit flipped or cleared |
//! | `setp.cmp.type p, a, b` | `eq ne lt le gt ge` (signed for `.sN`), `lo ls hi hs` (unsigned); on floats ordered (false on NaN), `equ neu ltu leu gtu geu` unordered, `num`, `nan` |
//! | `selp.type d, a, b, p` | `p ? a : b` |
//! | `cvt` | integer to integer (extended by the source's signedness, truncated); float to float (`.rn .rz .rm .rp` correctly rounded when narrowing, exact when widening; `.rni .rzi .rmi .rpi` to an integral value of the same format); float to integer (`.rXi`, saturating, NaN to 0); integer to float (`.rX`, to nearest by default); `cvt.rX.{f16,bf16}x2.f32 d, a, b` packs `a` into the high half; `.ftz` flushes `f32` subnormals |
//! | `cvta[.to].{global,shared,local,const,param}` | the address unchanged (the executor has no numeric layout of the state spaces: a generic pointer made from it addresses no buffer) |
//! | `bfind[.shiftamt].{u,s}{32,64}` | position of the most significant non-sign bit, or the shift bringing it to the top; all ones if none |
//! | `tex.1d.v4.{f32,s32,u32}.s32 {a, b, c, d}, [t, {x}]` | texel `x` of texture object `t` in `a`, zeros in the rest ([`crate::texture`]) |
//! | `suld.b.2d.bN.{trap,clamp,zero} {d}, [s, {x, y}]`, `sust.b.2d.bN.mode [s, {x, y}], {v}` | a load or store of surface object `s` at byte `x`, row `y`, logged like a store ([`crate::texture`]) |
//! | `.reg .T names;`, `{` and `}` | declarations and scopes |
//!
//! Anything else (other instructions, modifiers such as `.sat` where it is
//! not listed, vector surface accesses, guard predicates `@p`) is an error
//! at parse time, which the executor reports when the operation runs.

use crate::arith::Fault;
use crate::error::PoisonUse;
use crate::interpreter::{thread_query, GridDims, ThreadId};
use crate::memory::{ElementType, Memory};
use crate::program::{special_register, FloatUnaryOp, GpuQuery};
use crate::rounding::{self, Arithmetic, Format, Rounding};
use crate::texture::SurfaceClamp;
use crate::value::{mask, sign_extend, IntValue, Value};
use std::collections::HashMap;

/// What an inline PTX block sees of the thread running it: its ids (for
/// the special registers), the memory (for textures and surfaces) and its
/// linear id (for the side-effect log).
pub(crate) struct PtxThread<'m> {
    pub id: ThreadId,
    pub dims: GridDims,
    pub linear: u32,
    pub memory: &'m mut Memory,
}

/// The type of an instruction's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PtxType {
    /// `.bN`: untyped bits.
    Bits(u32),
    /// `.uN`.
    Unsigned(u32),
    /// `.sN`.
    Signed(u32),
    /// `.f16`, `.bf16`, `.f32`, `.f64`.
    Float(Format),
    /// `.f16x2`, `.bf16x2`.
    Pair(Format),
    /// `.pred`.
    Pred,
}

impl PtxType {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "pred" => Self::Pred,
            "f16" => Self::Float(Format::Half),
            "bf16" => Self::Float(Format::BFloat16),
            "f32" => Self::Float(Format::Single),
            "f64" => Self::Float(Format::Double),
            "f16x2" => Self::Pair(Format::Half),
            "bf16x2" => Self::Pair(Format::BFloat16),
            _ => {
                let (kind, width) = name.split_at_checked(1)?;
                let width: u32 = width.parse().ok()?;
                if !matches!(width, 8 | 16 | 32 | 64) {
                    return None;
                }
                match kind {
                    "b" => Self::Bits(width),
                    "u" => Self::Unsigned(width),
                    "s" => Self::Signed(width),
                    _ => return None,
                }
            }
        })
    }

    fn width(self) -> u32 {
        match self {
            Self::Bits(width) | Self::Unsigned(width) | Self::Signed(width) => width,
            Self::Float(format) => format.width(),
            Self::Pair(_) => 32,
            Self::Pred => 1,
        }
    }

    fn is_integer(self) -> bool {
        matches!(self, Self::Bits(_) | Self::Unsigned(_) | Self::Signed(_))
    }

    fn is_float(self) -> bool {
        matches!(self, Self::Float(_) | Self::Pair(_))
    }

    /// The format of a float or pair type, and its lanes.
    fn lanes(self) -> Option<(Format, u32)> {
        match self {
            Self::Float(format) => Some((format, 1)),
            Self::Pair(format) => Some((format, 2)),
            _ => None,
        }
    }

    /// Integer bits as a wide integer (signed types sign-extended).
    fn integer(self, bits: u64) -> i128 {
        match self {
            Self::Signed(width) => i128::from(sign_extend(bits, width)),
            _ => i128::from(bits & mask(self.width())),
        }
    }
}

/// A special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Special {
    Query(GpuQuery),
    /// `%reserved_smem_offset_*`.
    ReservedShared,
}

impl Special {
    fn of(name: &str) -> Option<Self> {
        let name = name.strip_prefix('%')?;
        if let Some(which) = name.strip_prefix("reserved_smem_offset_") {
            return matches!(which, "begin" | "end" | "cap" | "0" | "1")
                .then_some(Self::ReservedShared);
        }
        let name = name.replace("lanemask_", "lanemask.");
        special_register(&name).map(Self::Query)
    }
}

/// An operand of an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Operand {
    Register(usize),
    Immediate(u64),
    Special(Special),
    /// `{a, b, ...}`: a vector, or the halves of a packed value.
    Vector(Vec<Operand>),
    /// `[a, {x, y}]`: an object and its coordinates.
    Address(Vec<Operand>),
}

impl Operand {
    fn is_register(&self) -> bool {
        matches!(self, Self::Register(_))
    }

    /// The register of a register or a one-element vector of it.
    fn single_register(&self) -> Option<usize> {
        match self {
            Self::Register(index) => Some(*index),
            Self::Vector(items) if items.len() == 1 => items[0].single_register(),
            _ => None,
        }
    }
}

/// A `setp` comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Comparison {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl Comparison {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "eq" => Self::Eq,
            "ne" => Self::Ne,
            "lt" => Self::Lt,
            "le" => Self::Le,
            "gt" => Self::Gt,
            "ge" => Self::Ge,
            "lo" => Self::Lo,
            "ls" => Self::Ls,
            "hi" => Self::Hi,
            "hs" => Self::Hs,
            "equ" => Self::Equ,
            "neu" => Self::Neu,
            "ltu" => Self::Ltu,
            "leu" => Self::Leu,
            "gtu" => Self::Gtu,
            "geu" => Self::Geu,
            "num" => Self::Num,
            "nan" => Self::Nan,
            _ => return None,
        })
    }

    fn is_unsigned(self) -> bool {
        matches!(self, Self::Lo | Self::Ls | Self::Hi | Self::Hs)
    }

    /// The comparison of two integers (already widened by the type's
    /// signedness, or unsigned for `lo ls hi hs`).
    fn integers(self, a: i128, b: i128) -> Option<bool> {
        Some(match self {
            Self::Eq => a == b,
            Self::Ne => a != b,
            Self::Lt | Self::Lo => a < b,
            Self::Le | Self::Ls => a <= b,
            Self::Gt | Self::Hi => a > b,
            Self::Ge | Self::Hs => a >= b,
            _ => return None,
        })
    }

    /// The comparison of two floats: ordered ones are false, unordered
    /// ones true, when either is NaN.
    fn floats(self, a: f64, b: f64) -> Option<bool> {
        let unordered = a.is_nan() || b.is_nan();
        Some(match self {
            Self::Eq => a == b,
            Self::Ne => !unordered && a != b,
            Self::Lt => a < b,
            Self::Le => a <= b,
            Self::Gt => a > b,
            Self::Ge => a >= b,
            Self::Equ => unordered || a == b,
            Self::Neu => a != b,
            Self::Ltu => unordered || a < b,
            Self::Leu => unordered || a <= b,
            Self::Gtu => unordered || a > b,
            Self::Geu => unordered || a >= b,
            Self::Num => !unordered,
            Self::Nan => unordered,
            Self::Lo | Self::Ls | Self::Hi | Self::Hs => return None,
        })
    }
}

/// How an instruction computes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Opcode {
    Mov,
    /// `add`/`addc`/`sub`/`subc` on integers.
    AddSub {
        subtract: bool,
    },
    /// `mul.lo`/`mul.hi` on integers.
    Mul {
        high: bool,
    },
    /// `mad.lo`/`mad.hi`/`madc.*`: a product half plus an addend.
    Mad {
        high: bool,
    },
    /// Float arithmetic, correctly rounded.
    Rounded(Arithmetic, Rounding),
    Approximate(FloatUnaryOp),
    Bfind {
        shift_amount: bool,
    },
    Neg,
    Abs,
    Setp(Comparison),
    Selp,
    /// `cvt` from `from` to the instruction's type; `integral`: `.rXi`.
    Cvt {
        from: PtxType,
        rounding: Option<Rounding>,
        integral: bool,
    },
    Cvta,
    /// `tex.1d.v4`; the instruction's type is the texel's.
    Tex,
    SurfaceLoad(SurfaceClamp),
    SurfaceStore(SurfaceClamp),
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
struct Instruction {
    opcode: Opcode,
    /// The type of the destination and (but for `cvt`, `selp`'s
    /// predicate, `setp`'s destination and the memory accesses'
    /// addresses) of the sources.
    ty: PtxType,
    /// `.ftz`: subnormal `f32` (and, for arithmetic, any float) operands
    /// and results flushed to zero.
    flush: bool,
    /// `.sat`: float results clamped to `[0, 1]`.
    saturate: bool,
    carry_in: bool,
    carry_out: bool,
    /// `None` for `sust`.
    destination: Option<Operand>,
    sources: Vec<Operand>,
}

/// A parsed inline-assembly block.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AsmProgram {
    instructions: Vec<Instruction>,
    outputs: usize,
    inputs: usize,
    registers: usize,
    /// Per input: whether it is an object or coordinate of a texture or
    /// surface access.
    address_inputs: Vec<bool>,
    /// Whether the block reads textures or surfaces, or writes surfaces.
    touches_memory: bool,
    stores: bool,
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
        let mut address_inputs = vec![false; inputs];
        let memory = |instruction: &&Instruction| {
            matches!(
                instruction.opcode,
                Opcode::Tex | Opcode::SurfaceLoad(_) | Opcode::SurfaceStore(_)
            )
        };
        for instruction in instructions.iter().filter(memory) {
            for source in &instruction.sources {
                if let Operand::Address(items) = source {
                    mark_inputs(items, outputs, &mut address_inputs);
                }
            }
        }
        let touches_memory = instructions.iter().any(|i| memory(&i));
        let stores = instructions
            .iter()
            .any(|i| matches!(i.opcode, Opcode::SurfaceStore(_)));
        Ok(Self {
            instructions,
            outputs,
            inputs,
            registers,
            address_inputs,
            touches_memory,
            stores,
        })
    }

    /// Number of input operands.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// How a poison value in input `input` is misused, for a block that
    /// touches textures or surfaces (`None` for one that does not: its
    /// outputs are poison then).
    pub fn poison_use(&self, input: usize) -> Option<PoisonUse> {
        if !self.touches_memory {
            None
        } else if self.address_inputs.get(input).copied().unwrap_or(false) || !self.stores {
            Some(PoisonUse::Address)
        } else {
            Some(PoisonUse::StoredValue)
        }
    }

    /// Runs the block on the inputs' bits in `thread`; the outputs' bits.
    pub fn run(&self, inputs: &[u64], thread: &mut PtxThread) -> Result<Vec<u64>, Fault> {
        let mut registers = vec![0u64; self.registers];
        registers[self.outputs..self.outputs + inputs.len()].copy_from_slice(inputs);
        let mut carry = false;
        for instruction in &self.instructions {
            instruction.execute(&mut registers, &mut carry, thread)?;
        }
        Ok(registers[..self.outputs].to_vec())
    }
}

/// Marks the inputs (registers `outputs..`) named in `operands`.
fn mark_inputs(operands: &[Operand], outputs: usize, marks: &mut [bool]) {
    for operand in operands {
        match operand {
            Operand::Register(index) if *index >= outputs => {
                if let Some(mark) = marks.get_mut(index - outputs) {
                    *mark = true;
                }
            }
            Operand::Vector(items) | Operand::Address(items) => mark_inputs(items, outputs, marks),
            _ => {}
        }
    }
}

/// The modifiers of an instruction, consumed as the opcode recognises
/// them; any left over is an error.
struct Modifiers<'a> {
    list: Vec<&'a str>,
}

impl<'a> Modifiers<'a> {
    fn take(&mut self, modifier: &str) -> bool {
        match self.list.iter().position(|m| *m == modifier) {
            Some(index) => {
                self.list.remove(index);
                true
            }
            None => false,
        }
    }

    /// The first modifier `parse` accepts, removed.
    fn take_with<T>(&mut self, parse: impl Fn(&str) -> Option<T>) -> Option<T> {
        let index = self.list.iter().position(|m| parse(m).is_some())?;
        parse(self.list.remove(index))
    }

    fn rounding(&mut self) -> Option<Rounding> {
        self.take_with(Rounding::of)
    }

    fn integral_rounding(&mut self) -> Option<Rounding> {
        self.take_with(|m| m.strip_suffix('i').and_then(Rounding::of))
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
    let base = parts[0];
    let mut operands = split_operands(rest)
        .into_iter()
        .map(|text| operand(text, names, arguments))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|reason| fail(&reason))?;
    let ty_of = |name: &str| PtxType::of(name).ok_or_else(|| fail("unknown type"));
    if matches!(base, "tex" | "suld" | "sust") {
        return memory_instruction(base, &parts, operands).map_err(|reason| fail(&reason));
    }
    let (ty, list) = match base {
        "cvt" if parts.len() >= 3 => (
            ty_of(parts[parts.len() - 2])?,
            parts[1..parts.len() - 2].to_vec(),
        ),
        _ if parts.len() >= 2 => (
            ty_of(parts[parts.len() - 1])?,
            parts[1..parts.len() - 1].to_vec(),
        ),
        _ => return Err(fail("no type")),
    };
    let mut modifiers = Modifiers { list };
    let cvt_source = if base == "cvt" {
        ty_of(parts[parts.len() - 1])?
    } else {
        PtxType::Pred
    };
    let float = ty.is_float();
    let flush = modifiers.take("ftz");
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
            let approximate = modifiers.take("approx");
            let full = base == "div" && modifiers.take("full");
            match (modifiers.rounding(), approximate || full, arithmetic) {
                (Some(rounding), false, _) => Opcode::Rounded(arithmetic, rounding),
                (None, true, Arithmetic::Rcp) => Opcode::Approximate(FloatUnaryOp::Recip),
                (None, true, Arithmetic::Sqrt) => Opcode::Approximate(FloatUnaryOp::Sqrt),
                (None, true, Arithmetic::Div) => {
                    Opcode::Rounded(Arithmetic::Div, Rounding::NearestEven)
                }
                (None, false, Arithmetic::Add | Arithmetic::Sub | Arithmetic::Mul) => {
                    Opcode::Rounded(arithmetic, Rounding::NearestEven)
                }
                _ => return Err(fail("no rounding mode")),
            }
        }
        "rsqrt" | "ex2" | "lg2" | "sin" | "cos" if float && modifiers.take("approx") => {
            Opcode::Approximate(match base {
                "rsqrt" => FloatUnaryOp::Rsqrt,
                "ex2" => FloatUnaryOp::Exp2,
                "lg2" => FloatUnaryOp::Log2,
                "sin" => FloatUnaryOp::Sin,
                _ => FloatUnaryOp::Cos,
            })
        }
        "add" | "addc" | "sub" | "subc" if ty.is_integer() => Opcode::AddSub {
            subtract: base.starts_with("sub"),
        },
        "mul" | "mad" | "madc" if ty.is_integer() => {
            let high = modifiers.take("hi");
            if !high && !modifiers.take("lo") {
                return Err(fail("a multiplication without .lo or .hi"));
            }
            if base == "mul" {
                Opcode::Mul { high }
            } else {
                Opcode::Mad { high }
            }
        }
        "bfind" if ty.is_integer() => Opcode::Bfind {
            shift_amount: modifiers.take("shiftamt"),
        },
        "neg" if !matches!(ty, PtxType::Unsigned(_) | PtxType::Pred) => Opcode::Neg,
        "abs" if !matches!(ty, PtxType::Unsigned(_) | PtxType::Pred) => Opcode::Abs,
        "setp" if !matches!(ty, PtxType::Pair(_) | PtxType::Pred) => {
            let comparison = modifiers
                .take_with(Comparison::of)
                .ok_or_else(|| fail("no comparison"))?;
            let valid = if float {
                !comparison.is_unsigned()
            } else {
                comparison.integers(0, 0).is_some()
            };
            if !valid {
                return Err(fail("a comparison of the wrong kind for the type"));
            }
            Opcode::Setp(comparison)
        }
        "selp" if ty != PtxType::Pred => Opcode::Selp,
        "cvt" => {
            let rounding = modifiers.rounding();
            let integral = modifiers.integral_rounding();
            let from = cvt_source;
            let valid = match (from.is_float(), ty.is_float()) {
                (true, true) => integral.is_none() || from == ty,
                (true, false) => integral.is_some() && rounding.is_none() && ty.is_integer(),
                (false, true) => integral.is_none() && from.is_integer(),
                (false, false) => {
                    rounding.is_none() && integral.is_none() && from.is_integer() && ty.is_integer()
                }
            };
            let narrowing = matches!((from, ty), (PtxType::Float(a), PtxType::Float(b)) if b.width() < a.width())
                || matches!(ty, PtxType::Pair(_));
            if !valid
                || (narrowing && rounding.is_none())
                || (rounding.is_some() && integral.is_some())
            {
                return Err(fail("an unsupported conversion"));
            }
            if matches!(ty, PtxType::Pair(_)) && from != PtxType::Float(Format::Single) {
                return Err(fail("a pair conversion from another type than f32"));
            }
            Opcode::Cvt {
                from,
                rounding: rounding.or(integral),
                integral: integral.is_some(),
            }
        }
        "cvta" if matches!(ty, PtxType::Unsigned(32 | 64)) => {
            modifiers.take("to");
            let space = ["global", "shared", "local", "const", "param"]
                .into_iter()
                .any(|space| modifiers.take(space));
            if !space {
                return Err(fail("cvta without a state space"));
            }
            Opcode::Cvta
        }
        _ => return Err(fail("unsupported instruction")),
    };
    // `.sat` on float arithmetic only (`cvt.sat` clamps to the
    // destination type's range, which is not modelled).
    let saturate =
        matches!(opcode, Opcode::Rounded(..) | Opcode::Approximate(_)) && modifiers.take("sat");
    let carry_out = modifiers.take("cc");
    if carry_out && !matches!(opcode, Opcode::AddSub { .. } | Opcode::Mad { .. }) {
        return Err(fail("unsupported modifier .cc"));
    }
    if let Some(modifier) = modifiers.list.first() {
        return Err(fail(&format!("unsupported modifier .{modifier}")));
    }
    let expected = match opcode {
        Opcode::Mov
        | Opcode::Approximate(_)
        | Opcode::Bfind { .. }
        | Opcode::Neg
        | Opcode::Abs
        | Opcode::Cvta => 2,
        Opcode::Cvt { .. } if matches!(ty, PtxType::Pair(_)) => 3,
        Opcode::Cvt { .. } => 2,
        Opcode::Rounded(arithmetic, _) => arithmetic.arity() + 1,
        Opcode::AddSub { .. } | Opcode::Mul { .. } | Opcode::Setp(_) => 3,
        Opcode::Mad { .. } | Opcode::Selp => 4,
        Opcode::Tex | Opcode::SurfaceLoad(_) | Opcode::SurfaceStore(_) => unreachable!(),
    };
    if operands.len() != expected {
        return Err(fail("wrong number of operands"));
    }
    let destination = operands.remove(0);
    let vectors = std::iter::once(&destination)
        .chain(&operands)
        .any(|operand| matches!(operand, Operand::Vector(_) | Operand::Address(_)));
    if vectors && (opcode != Opcode::Mov || matches!(ty, PtxType::Pred)) {
        return Err(fail("a vector or address operand outside mov"));
    }
    match &destination {
        Operand::Register(_) => {}
        Operand::Vector(items) if items.iter().all(Operand::is_register) => {}
        _ => return Err(fail("a destination that is not a register")),
    }
    for operand in std::iter::once(&destination).chain(&operands) {
        if let Operand::Vector(items) = operand {
            if items.is_empty() || ty.width() % items.len() as u32 != 0 {
                return Err(fail("a vector that does not split the type"));
            }
            if items.iter().any(|item| matches!(item, Operand::Vector(_))) {
                return Err(fail("a nested vector"));
            }
        }
    }
    let base_is = |name: &str| base == name;
    Ok(Instruction {
        opcode,
        ty,
        flush,
        saturate,
        carry_in: base_is("addc") || base_is("subc") || base_is("madc"),
        carry_out,
        destination: Some(destination),
        sources: operands,
    })
}

/// `tex.1d.v4.dtype.s32 {a, b, c, d}, [t, {x}]`,
/// `suld.b.2d.bN.mode {d}, [s, {x, y}]`, `sust.b.2d.bN.mode [s, {x, y}], {v}`.
fn memory_instruction(
    base: &str,
    parts: &[&str],
    mut operands: Vec<Operand>,
) -> Result<Instruction, String> {
    let address = |operand: &Operand, coordinates: usize| -> Result<(), String> {
        match operand {
            Operand::Address(items)
                if items.len() == 2
                    && !matches!(items[0], Operand::Vector(_) | Operand::Address(_))
                    && matches!(&items[1], Operand::Vector(c) if c.len() == coordinates
                        && c.iter().all(|c| !matches!(c, Operand::Vector(_) | Operand::Address(_)))) =>
            {
                Ok(())
            }
            _ => Err(format!(
                "the address is not [object, {{{coordinates} coordinates}}]"
            )),
        }
    };
    let instruction = |opcode, ty, destination, sources| Instruction {
        opcode,
        ty,
        flush: false,
        saturate: false,
        carry_in: false,
        carry_out: false,
        destination,
        sources,
    };
    if base == "tex" {
        let [_, "1d", "v4", texel, "s32"] = parts else {
            return Err("a texture fetch other than tex.1d.v4.T.s32".into());
        };
        let ty = match *texel {
            "f32" => PtxType::Float(Format::Single),
            "s32" => PtxType::Signed(32),
            "u32" => PtxType::Unsigned(32),
            _ => return Err(format!("texels of type .{texel}")),
        };
        if operands.len() != 2 {
            return Err("wrong number of operands".into());
        }
        address(&operands[1], 1)?;
        match &operands[0] {
            Operand::Vector(items)
                if items.len() == 4 && items.iter().all(Operand::is_register) => {}
            _ => return Err("a destination other than four registers".into()),
        }
        let source = operands.pop().expect("two operands");
        let destination = operands.pop();
        return Ok(instruction(Opcode::Tex, ty, destination, vec![source]));
    }
    let (geometry, bits, mode) = match parts {
        [_, "b", geometry, bits] => (*geometry, *bits, "trap"),
        [_, "b", geometry, bits, mode] => (*geometry, *bits, *mode),
        _ => return Err("a surface access other than .b.2d.bN[.mode]".into()),
    };
    if geometry != "2d" {
        return Err(format!("a .{geometry} surface access"));
    }
    let ty = match PtxType::of(bits) {
        Some(ty @ PtxType::Bits(_)) => ty,
        _ => return Err(format!("a surface access of .{bits}")),
    };
    let clamp = SurfaceClamp::of(mode).ok_or_else(|| format!("the surface mode .{mode}"))?;
    if operands.len() != 2 {
        return Err("wrong number of operands".into());
    }
    if base == "suld" {
        address(&operands[1], 2)?;
        if operands[0].single_register().is_none() {
            return Err("a destination other than one register".into());
        }
        let source = operands.pop().expect("two operands");
        let destination = operands.pop();
        Ok(instruction(
            Opcode::SurfaceLoad(clamp),
            ty,
            destination,
            vec![source],
        ))
    } else {
        address(&operands[0], 2)?;
        let value_is_scalar = match &operands[1] {
            Operand::Vector(items) => items.len() == 1,
            Operand::Address(_) => false,
            _ => true,
        };
        if !value_is_scalar {
            return Err("a vector surface store".into());
        }
        Ok(instruction(Opcode::SurfaceStore(clamp), ty, None, operands))
    }
}

/// The comma-separated operands, `{...}` and `[...]` kept whole.
fn split_operands(text: &str) -> Vec<&str> {
    let mut operands = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (index, character) in text.char_indices() {
        match character {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
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
    let text = text.trim();
    let items = |inner: &str| -> Result<Vec<Operand>, String> {
        split_operands(inner)
            .into_iter()
            .map(|item| operand(item, names, arguments))
            .collect()
    };
    if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return items(inner).map(Operand::Vector);
    }
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return items(inner).map(Operand::Address);
    }
    if let Some(number) = text.strip_prefix('$') {
        return number
            .parse::<usize>()
            .ok()
            .filter(|&number| number < arguments)
            .map(Operand::Register)
            .ok_or_else(|| format!("no operand {text}"));
    }
    if text.starts_with('%') && !names.contains_key(text) {
        return Special::of(text)
            .map(Operand::Special)
            .ok_or_else(|| format!("unknown special register {text}"));
    }
    let hex = |digits: &str, length: usize| {
        (digits.len() == length)
            .then(|| u64::from_str_radix(digits, 16).ok())
            .flatten()
    };
    let literal = if let Some(digits) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))
    {
        u64::from_str_radix(digits, 16).ok()
    } else if let Some(digits) = text.strip_prefix("0f").or_else(|| text.strip_prefix("0F")) {
        hex(digits, 8)
    } else if let Some(digits) = text.strip_prefix("0d").or_else(|| text.strip_prefix("0D")) {
        hex(digits, 16)
    } else if let Some(negative) = text.strip_prefix('-') {
        negative.parse::<u64>().ok().map(u64::wrapping_neg)
    } else {
        text.parse::<u64>().ok()
    };
    match literal {
        Some(value) => Ok(Operand::Immediate(value)),
        None => names
            .get(text)
            .copied()
            .map(Operand::Register)
            .ok_or_else(|| format!("undeclared register {text}")),
    }
}

/// The raw bits of a scalar value.
fn bits_of(value: Value) -> Result<u64, Fault> {
    match value {
        Value::F32(float) => Ok(u64::from(float.to_bits())),
        Value::F64(float) => Ok(float.to_bits()),
        other => crate::arith::int_operand(other).map(IntValue::unsigned),
    }
}

impl Instruction {
    /// Reads `operand` as `ty`.
    fn read(
        &self,
        registers: &[u64],
        operand: &Operand,
        ty: PtxType,
        thread: &PtxThread,
    ) -> Result<u64, Fault> {
        let bits = match operand {
            Operand::Register(index) => registers[*index],
            Operand::Immediate(value) => *value,
            Operand::Special(Special::Query(query)) => {
                u64::from(thread_query(*query, &thread.id, &thread.dims))
            }
            Operand::Special(Special::ReservedShared) => 0,
            Operand::Vector(items) => {
                let part = ty.width() / items.len() as u32;
                let mut packed = 0;
                for (index, item) in items.iter().enumerate() {
                    let bits = self.read(registers, item, PtxType::Bits(part), thread)?;
                    packed |= (bits & mask(part)) << (part * index as u32);
                }
                packed
            }
            Operand::Address(_) => {
                return Err(Fault::Type("an address read as a value".into()));
            }
        };
        Ok(bits & mask(ty.width()))
    }

    /// Writes `value` (of type `ty`) to the destination.
    fn write(&self, registers: &mut [u64], ty: PtxType, value: u64) {
        match &self.destination {
            Some(Operand::Register(index)) => registers[*index] = value & mask(ty.width()),
            Some(Operand::Vector(items)) => {
                let part = ty.width() / items.len() as u32;
                for (index, item) in items.iter().enumerate() {
                    if let Operand::Register(register) = item {
                        registers[*register] = (value >> (part * index as u32)) & mask(part);
                    }
                }
            }
            _ => {}
        }
    }

    /// A float operand of `format` (flushed under `.ftz`).
    fn float_in(&self, format: Format, bits: u64) -> f64 {
        let value = format.decode(bits);
        if self.flush {
            format.flush(value)
        } else {
            value
        }
    }

    /// The bits of a float result of `format` (flushed under `.ftz`,
    /// clamped under `.sat`).
    fn float_out(&self, format: Format, value: f64) -> u64 {
        let value = if self.flush {
            format.flush(value)
        } else {
            value
        };
        let value = match self.saturate {
            true if value.is_nan() => 0.0,
            true => value.clamp(0.0, 1.0),
            false => value,
        };
        format.encode(value)
    }

    /// `compute` on each lane of a float or pair type: the lanes' source
    /// bits in, the lane's result bits out.
    fn lanewise(
        &self,
        sources: &[u64],
        compute: impl Fn(Format, &[u64]) -> u64,
    ) -> Result<u64, Fault> {
        let (format, lanes) = self
            .ty
            .lanes()
            .ok_or_else(|| Fault::Type(format!("{:?} is no float type", self.ty)))?;
        let width = format.width();
        let mut result = 0;
        for lane in 0..lanes {
            let shift = lane * width;
            let lane_sources: Vec<u64> = sources
                .iter()
                .map(|bits| (bits >> shift) & mask(width))
                .collect();
            result |= (compute(format, &lane_sources) & mask(width)) << shift;
        }
        Ok(result)
    }

    fn execute(
        &self,
        registers: &mut [u64],
        carry: &mut bool,
        thread: &mut PtxThread,
    ) -> Result<(), Fault> {
        let ty = self.ty;
        let source_type = |index: usize| match self.opcode {
            Opcode::Cvt { from, .. } => from,
            Opcode::Selp if index == 2 => PtxType::Pred,
            Opcode::Cvta => PtxType::Unsigned(ty.width()),
            _ => ty,
        };
        let memory = matches!(
            self.opcode,
            Opcode::Tex | Opcode::SurfaceLoad(_) | Opcode::SurfaceStore(_)
        );
        let sources: Vec<u64> = if memory {
            Vec::new()
        } else {
            self.sources
                .iter()
                .enumerate()
                .map(|(index, source)| self.read(registers, source, source_type(index), thread))
                .collect::<Result<_, _>>()?
        };
        let carry_in = u128::from(self.carry_in && *carry);
        let width = ty.width();
        let result = match self.opcode {
            Opcode::Mov | Opcode::Cvta => sources[0],
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
            Opcode::Rounded(arithmetic, rounding) => self.lanewise(&sources, |format, bits| {
                let operands: Vec<f64> = bits.iter().map(|&b| self.float_in(format, b)).collect();
                self.float_out(format, arithmetic.apply(&operands, format, rounding))
            })?,
            Opcode::Approximate(unary) => self.lanewise(&sources, |format, bits| {
                self.float_out(format, unary.apply(self.float_in(format, bits[0])))
            })?,
            Opcode::Neg | Opcode::Abs if ty.is_float() => {
                self.lanewise(&sources, |format, bits| {
                    let sign = 1u64 << (format.width() - 1);
                    let value = if self.flush && format.is_subnormal(format.decode(bits[0])) {
                        bits[0] & sign
                    } else {
                        bits[0]
                    };
                    match self.opcode {
                        Opcode::Neg => value ^ sign,
                        _ => value & !sign,
                    }
                })?
            }
            Opcode::Neg => (ty.integer(sources[0]).wrapping_neg()) as u64,
            Opcode::Abs => ty.integer(sources[0]).unsigned_abs() as u64,
            Opcode::Bfind { shift_amount } => {
                let negative = ty.integer(sources[0]) < 0;
                let value = if matches!(ty, PtxType::Signed(_)) && negative {
                    !sources[0] & mask(width)
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
            Opcode::Setp(comparison) => {
                let outcome = match ty {
                    PtxType::Float(format) => comparison.floats(
                        self.float_in(format, sources[0]),
                        self.float_in(format, sources[1]),
                    ),
                    _ if comparison.is_unsigned() => comparison.integers(
                        i128::from(sources[0] & mask(width)),
                        i128::from(sources[1] & mask(width)),
                    ),
                    _ => comparison.integers(ty.integer(sources[0]), ty.integer(sources[1])),
                };
                let outcome =
                    outcome.ok_or_else(|| Fault::Type(format!("setp.{comparison:?} on {ty:?}")))?;
                self.write(registers, PtxType::Pred, u64::from(outcome));
                return Ok(());
            }
            Opcode::Selp => {
                if sources[2] != 0 {
                    sources[0]
                } else {
                    sources[1]
                }
            }
            Opcode::Cvt {
                from,
                rounding,
                integral,
            } => self.convert(&sources, from, rounding, integral),
            Opcode::Tex => {
                let (handle, coordinates) = self.address(registers, thread, 1)?;
                let access = match ty {
                    PtxType::Float(_) => ElementType::F32,
                    _ => ElementType::Int(32),
                };
                let texel = thread
                    .memory
                    .texture_fetch_1d(handle, coordinates[0], access)?;
                // The texel first, zeros in the other components.
                bits_of(texel)?
            }
            Opcode::SurfaceLoad(clamp) => {
                let (handle, coordinates) = self.address(registers, thread, 2)?;
                let value = thread.memory.surface_load_2d(
                    handle,
                    (coordinates[0], coordinates[1]),
                    ElementType::Int(width),
                    clamp,
                )?;
                bits_of(value)?
            }
            Opcode::SurfaceStore(clamp) => {
                let (handle, coordinates) = self.address(registers, thread, 2)?;
                let bits = self.read(registers, &self.sources[1], ty, thread)?;
                thread.memory.surface_store_2d(
                    handle,
                    (coordinates[0], coordinates[1]),
                    ElementType::Int(width),
                    Value::Int(IntValue::wrap(width, bits)),
                    clamp,
                    thread.linear,
                )?;
                return Ok(());
            }
        };
        if self.opcode == Opcode::Tex {
            // Four components of the texel's type.
            if let Some(Operand::Vector(items)) = &self.destination {
                for (index, item) in items.iter().enumerate() {
                    if let Operand::Register(register) = item {
                        registers[*register] = if index == 0 { result } else { 0 };
                    }
                }
            }
            return Ok(());
        }
        if let Some(Operand::Vector(items)) = &self.destination {
            if matches!(self.opcode, Opcode::SurfaceLoad(_)) {
                if let Some(register) = items[0].single_register() {
                    registers[register] = result & mask(width);
                }
                return Ok(());
            }
        }
        self.write(registers, ty, result);
        Ok(())
    }

    /// The object handle and the signed 32-bit coordinates of a texture
    /// or surface access (its address operand).
    fn address(
        &self,
        registers: &[u64],
        thread: &PtxThread,
        coordinates: usize,
    ) -> Result<(u64, Vec<i64>), Fault> {
        let Some(Operand::Address(items)) = self
            .sources
            .iter()
            .find(|source| matches!(source, Operand::Address(_)))
        else {
            return Err(Fault::Type("no address operand".into()));
        };
        let handle = self.read(registers, &items[0], PtxType::Bits(64), thread)?;
        let Operand::Vector(axes) = &items[1] else {
            return Err(Fault::Type("no coordinates".into()));
        };
        let values = axes
            .iter()
            .take(coordinates)
            .map(|axis| {
                self.read(registers, axis, PtxType::Signed(32), thread)
                    .map(|bits| sign_extend(bits, 32))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((handle, values))
    }

    /// `cvt` of `sources` (one, or two for a pair) from `from`.
    fn convert(
        &self,
        sources: &[u64],
        from: PtxType,
        rounding: Option<Rounding>,
        integral: bool,
    ) -> u64 {
        let to = self.ty;
        let mode = rounding.unwrap_or(Rounding::NearestEven);
        // `.ftz` of `cvt` applies to `f32` only.
        let flush = |format: Format, value: f64| {
            if self.flush && format == Format::Single {
                format.flush(value)
            } else {
                value
            }
        };
        let float_to = |format: Format, value: f64| -> u64 {
            let value = if integral {
                match mode {
                    Rounding::NearestEven => value.round_ties_even(),
                    Rounding::TowardZero => value.trunc(),
                    Rounding::Down => value.floor(),
                    Rounding::Up => value.ceil(),
                }
            } else {
                rounding::convert_float(value, format, mode)
            };
            format.encode(flush(format, value))
        };
        match (from, to) {
            (PtxType::Float(source), PtxType::Float(format)) => {
                float_to(format, flush(source, source.decode(sources[0])))
            }
            (PtxType::Float(Format::Single), PtxType::Pair(format)) => {
                let high = float_to(
                    format,
                    flush(Format::Single, Format::Single.decode(sources[0])),
                );
                let low = float_to(
                    format,
                    flush(Format::Single, Format::Single.decode(sources[1])),
                );
                (high << 16) | low
            }
            (PtxType::Float(source), _) => {
                let value = flush(source, source.decode(sources[0]));
                let signed = matches!(to, PtxType::Signed(_));
                rounding::float_to_int(value, mode, signed, to.width())
            }
            (_, PtxType::Float(format)) => {
                let value = rounding::int_to_float(from.integer(sources[0]), format, mode);
                format.encode(flush(format, value))
            }
            _ => from.integer(sources[0]) as u64 & mask(to.width()),
        }
    }

    /// The low or high half of the full product of two sources.
    fn product_half(&self, a: u64, b: u64, high: bool) -> u64 {
        let width = self.ty.width();
        let product = self.ty.integer(a).wrapping_mul(self.ty.integer(b)) as u128;
        let half = if high { product >> width } else { product };
        half as u64 & mask(width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `program` on `inputs` as thread 5 (lane 5) of a CTA of 64.
    fn run_in(
        program: &AsmProgram,
        inputs: &[u64],
        memory: &mut Memory,
    ) -> Result<Vec<u64>, Fault> {
        let dims = GridDims::linear(64);
        let mut thread = PtxThread {
            id: ThreadId::from_linear(37, &dims),
            dims,
            linear: 37,
            memory,
        };
        program.run(inputs, &mut thread)
    }

    fn run(program: &AsmProgram, inputs: &[u64]) -> Vec<u64> {
        run_in(program, inputs, &mut Memory::new()).unwrap()
    }

    fn parse(text: &str, constraints: &str) -> AsmProgram {
        AsmProgram::parse(text, constraints).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    /// libdevice's 32 x 32 + 32 -> 64 multiply-add.
    #[test]
    fn wide_multiply_add_carries_into_the_high_half() {
        let program = parse(
            "{\n\tmad.lo.cc.u32   $0, $2, $3, $4;\n\tmadc.hi.u32     $1, $2, $3,  0;\n\t}",
            "=r,=r,r,r,r",
        );
        assert_eq!((program.outputs, program.inputs()), (2, 3));
        let (a, b, c) = (0xffff_ffffu64, 0xffff_fff0u64, 0x7fu64);
        let wide = u128::from(a) * u128::from(b) + u128::from(c);
        let out = run(&program, &[a, b, c]);
        assert_eq!(out, vec![wide as u64 & 0xffff_ffff, (wide >> 32) as u64]);
    }

    /// The 128-bit addition and multiplication of CUDA's headers.
    #[test]
    fn multiword_arithmetic_through_pairs() {
        let add = parse(
            "{\n\t.reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3;\n\
             \tmov.b64 {a0,a1}, $2;\n\tmov.b64 {a2,a3}, $3;\n\
             \tmov.b64 {b0,b1}, $4;\n\tmov.b64 {b2,b3}, $5;\n\
             \tadd.cc.u32 r0, a0, b0; \n\taddc.cc.u32 r1, a1, b1; \n\
             \taddc.cc.u32 r2, a2, b2; \n\taddc.u32 r3, a3, b3; \n\
             \tmov.b64 $0, {r0,r1};\n\tmov.b64 $1, {r2,r3};\n\t}",
            "=l,=l,l,l,l,l",
        );
        let (x, y) = (0x0123_4567_89ab_cdef_ffff_ffff_ffff_fff0u128, 0x11u128);
        let words = |v: u128| [v as u64, (v >> 64) as u64];
        let [xl, xh] = words(x);
        let [yl, yh] = words(y);
        assert_eq!(run(&add, &[xl, xh, yl, yh]), words(x + y).to_vec());
        let sub = parse(
            "{ .reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3;\n\
             mov.b64 {a0,a1}, $2; mov.b64 {a2,a3}, $3; mov.b64 {b0,b1}, $4; mov.b64 {b2,b3}, $5;\n\
             sub.cc.u32 r0, a0, b0; subc.cc.u32 r1, a1, b1; subc.cc.u32 r2, a2, b2; subc.u32 r3, a3, b3;\n\
             mov.b64 $0, {r0,r1}; mov.b64 $1, {r2,r3}; }",
            "=l,=l,l,l,l,l",
        );
        assert_eq!(
            run(&sub, &[yl, yh, xl, xh]),
            words(y.wrapping_sub(x)).to_vec()
        );
        let mul = parse(
            "{ .reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi;\n\
             mov.b64 {alo,ahi}, $2; mov.b64 {blo,bhi}, $3;\n\
             mul.lo.u32 r0, alo, blo; mul.hi.u32 r1, alo, blo;\n\
             mad.lo.cc.u32 r1, alo, bhi, r1; madc.hi.u32 r2, alo, bhi, 0;\n\
             mad.lo.cc.u32 r1, ahi, blo, r1; madc.hi.cc.u32 r2, ahi, blo, r2;\n\
             madc.hi.u32 r3, ahi, bhi, 0; mad.lo.cc.u32 r2, ahi, bhi, r2;\n\
             addc.u32 r3, r3, 0; mov.b64 $0, {r0,r1}; mov.b64 $1, {r2,r3}; }",
            "=l,=l,l,l",
        );
        let (a, b) = (0xfedc_ba98_7654_3210u64, 0x8000_0000_ffff_ffffu64);
        let product = u128::from(a) * u128::from(b);
        assert_eq!(run(&mul, &[a, b]), words(product).to_vec());
    }

    #[test]
    fn float_instructions_round_and_flush() {
        let sub = parse("sub.rm.f32 $0, $1, $2;", "=f,f,f");
        let bits = |x: f32| u64::from(x.to_bits());
        let tiny = 2f32.powi(-30);
        assert_eq!(
            run(&sub, &[bits(1.0), bits(tiny)]),
            vec![bits(1.0f32.next_down())]
        );
        let rcp = parse("rcp.approx.ftz.f32 $0,$1;", "=f,f");
        assert_eq!(run(&rcp, &[bits(4.0)]), vec![bits(0.25)]);
        // A subnormal operand is flushed: 1/0 = inf.
        assert_eq!(run(&rcp, &[bits(1e-40)]), vec![bits(f32::INFINITY)]);
        let rsqrt = parse("rsqrt.approx.ftz.f64 $0, $1;", "=d,d");
        assert_eq!(run(&rsqrt, &[4.0f64.to_bits()]), vec![0.5f64.to_bits()]);
        let saturated = parse("add.rn.sat.f32 $0, $1, $2;", "=f,f,f");
        assert_eq!(run(&saturated, &[bits(0.75), bits(0.5)]), vec![bits(1.0)]);
        let nan = bits(f32::NAN);
        assert_eq!(run(&saturated, &[nan, bits(0.5)]), vec![bits(0.0)]);
    }

    #[test]
    fn bfind_finds_the_leading_bit() {
        let shift = parse("bfind.shiftamt.u32 $0, $1;", "=r,r");
        assert_eq!(run(&shift, &[1]), vec![31]);
        assert_eq!(run(&shift, &[0x8000_0000]), vec![0]);
        assert_eq!(run(&shift, &[0]), vec![0xffff_ffff]);
        let position = parse("bfind.s32 $0, $1;", "=r,r");
        assert_eq!(run(&position, &[0xffff_fff0]), vec![3]);
    }

    #[test]
    fn unknown_instructions_registers_and_modifiers_are_errors() {
        for (text, constraints) in [
            ("brev.b32 $0, $1;", "=r,r"),
            ("add.u32 $0, $1, r9;", "=r,r"),
            ("add.u32 $0, $1, $5;", "=r,r"),
            ("add.u32 $0, $1;", "=r,r"),
            ("add.sat.s32 $0, $1, $2;", "=r,r,r"),
            ("mul.wide.u32 $0, $1, $2;", "=l,r,r"),
            ("fma.f32 $0, $1, $2, $3;", "=f,f,f,f"),
            ("mov.u32 $0, %clock;", "=r"),
            ("cvt.f16.f32 $0, $1;", "=h,f"),
            ("cvt.rn.s32.f32 $0, $1;", "=r,f"),
            ("cvt.sat.u8.u32 $0, $1;", "=r,r"),
            ("cvt.rn.sat.f16.f32 $0, $1;", "=h,f"),
            ("neg.sat.f32 $0, $1;", "=f,f"),
            ("setp.lo.f32 p, $1, $2;", "=r,f,f"),
            ("@p add.u32 $0, $1, $2;", "=r,r,r"),
            (
                "tex.2d.v4.f32.s32 {$0, $1, $2, $3}, [$4, {$5, $6}];",
                "=f,=f,=f,=f,l,r,r",
            ),
            (
                "sust.b.2d.v2.b32.trap [$0, {$1, $2}], {$3, $4};",
                "l,r,r,r,r",
            ),
            ("sust.b.2d.b32.wrap [$0, {$1, $2}], {$3};", "l,r,r,r"),
        ] {
            assert!(AsmProgram::parse(text, constraints).is_err(), "{text}");
        }
    }

    /// Cooperative groups read the lane id and lane masks, and a generic
    /// address of reserved shared memory, with inline PTX.
    #[test]
    fn special_registers_read_the_thread() {
        // Thread 37 of a CTA of 64: lane 5 of warp 1.
        let lane = parse("mov.u32 $0, %laneid;", "=r");
        assert_eq!(run(&lane, &[]), vec![5]);
        let below = parse("mov.u32 $0, %lanemask_lt;", "=r");
        assert_eq!(run(&below, &[]), vec![0b1_1111]);
        let ids = parse(
            "{ .reg .u32 t, w; mov.u32 t, %tid.x; mov.u32 w, %warpid; mad.lo.u32 $0, w, 1000, t; }",
            "=r",
        );
        assert_eq!(run(&ids, &[]), vec![1037]);
        let reserved = parse(
            "{\n\t .reg .u32 start;\n\t .reg .u64 extended;\n\t mov.u32 start, \
             %reserved_smem_offset_1;\n\t cvt.u64.u32 extended, start;\n\t cvta.shared.u64 $0, \
             extended;\n\t}",
            "=l",
        );
        assert_eq!(run(&reserved, &[]), vec![0]);
    }

    /// `cuda_fp16.hpp`'s and `cuda_bf16.hpp`'s conversions, with known bit
    /// patterns.
    #[test]
    fn half_conversions_round_correctly() {
        let bits = |x: f32| u64::from(x.to_bits());
        let to_half = parse("{  cvt.rn.f16.f32 $0, $1;}\n", "=h,f");
        let cases: [(f32, u64); 12] = [
            (1.0, 0x3c00),
            (-2.0, 0xc000),
            (0.1, 0x2e66),
            (65504.0, 0x7bff),
            // Halfway between 65504 and 65536 (not a half): even is up, to inf.
            (65520.0, 0x7c00),
            (65519.99, 0x7bff),
            (f32::INFINITY, 0x7c00),
            (2f32.powi(-24), 0x0001),
            // Half of the smallest subnormal: a tie, to even (zero).
            (2f32.powi(-25), 0x0000),
            (2f32.powi(-25) * 1.5, 0x0001),
            (-0.0, 0x8000),
            // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.
            (1.0 + 2f32.powi(-11), 0x3c00),
        ];
        for (value, expected) in cases {
            assert_eq!(run(&to_half, &[bits(value)]), vec![expected], "{value}");
        }
        assert_eq!(run(&to_half, &[bits(f32::NAN)]), vec![0x7fff]);
        // Other modes: 0.1 lies between 0x2e66 (below) and 0x2e67.
        for (mode, expected) in [("rz", 0x2e66), ("rm", 0x2e66), ("rp", 0x2e67)] {
            let program = parse(&format!("cvt.{mode}.f16.f32 $0, $1;"), "=h,f");
            assert_eq!(run(&program, &[bits(0.1)]), vec![expected], "{mode}");
        }
        // From f64, rounded once: 1 + 2^-11 + 2^-40 is just above the tie.
        let from_double = parse("cvt.rn.f16.f64 $0, $1;", "=h,d");
        let above = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(run(&from_double, &[above.to_bits()]), vec![0x3c01]);
        let to_float = parse("{  cvt.f32.f16 $0, $1;}\n", "=f,h");
        for (half, value) in [
            (0x3c00, 1.0),
            (0x2e66, 0.099_975_586),
            (0x0001, 2f32.powi(-24)),
            (0xfbff, -65504.0),
            (0x7c00, f32::INFINITY),
        ] {
            assert_eq!(run(&to_float, &[half]), vec![bits(value)], "{half:#x}");
        }
        assert!(f32::from_bits(run(&to_float, &[0x7e00])[0] as u32).is_nan());
        // bfloat16: the top half of an f32, rounded to nearest even.
        let to_bf16 = parse("{  cvt.rn.bf16.f32 $0, $1;}\n", "=h,f");
        for (value, expected) in [
            (1.0f32, 0x3f80),
            (0.1, 0x3dcd),
            (f32::from_bits(0x3f80_8000), 0x3f80),
            (f32::from_bits(0x3f81_8000), 0x3f82),
            (f32::from_bits(0x3f80_8001), 0x3f81),
            (f32::MAX, 0x7f80),
        ] {
            assert_eq!(run(&to_bf16, &[bits(value)]), vec![expected], "{value}");
        }
        let from_bf16 = parse("{ cvt.f32.bf16 $0, $1;}\n", "=f,h");
        assert_eq!(run(&from_bf16, &[0xc0a0]), vec![bits(-5.0)]);
        // __floats2half2_rn(a, b): a in the low half.
        let pack = parse("{ cvt.rn.f16x2.f32 $0, $2, $1; }\n", "=r,f,f");
        assert_eq!(run(&pack, &[bits(1.0), bits(-2.0)]), vec![0xc000_3c00]);
        let low = parse(
            "{.reg .f16 low,high;\n  mov.b32 {low,high},$1;\n  cvt.f32.f16 $0, low;}\n",
            "=f,r",
        );
        let high = parse(
            "{.reg .f16 low,high;\n  mov.b32 {low,high},$1;\n  cvt.f32.f16 $0, high;}\n",
            "=f,r",
        );
        assert_eq!(run(&low, &[0xc000_3c00]), vec![bits(1.0)]);
        assert_eq!(run(&high, &[0xc000_3c00]), vec![bits(-2.0)]);
        // Integers and integral rounding.
        let to_int = parse("cvt.rni.s32.f16 $0, $1;", "=r,h");
        assert_eq!(run(&to_int, &[0xc100]), vec![0xffff_fffe]); // -2.5 to -2
        let from_int = parse("cvt.rz.f16.s32 $0, $1;", "=h,r");
        assert_eq!(run(&from_int, &[2049]), vec![0x6800]); // 2048
        let widen = parse("cvt.s64.s32 $0, $1;", "=l,r");
        assert_eq!(run(&widen, &[0xffff_fffe]), vec![u64::MAX - 1]);
    }

    /// Half-precision arithmetic rounds each result to half; `fma` rounds
    /// once.
    #[test]
    fn half_arithmetic_rounds_to_half() {
        let mul = parse("{mul.f16 $0,$1,$2;\n}", "=h,h,h");
        // 0.1h * 2 = 0.2h exactly; 0.1h * 0.1h = 0.0099945068... rounds to
        // 0x211e.
        assert_eq!(run(&mul, &[0x2e66, 0x4000]), vec![0x3266]);
        assert_eq!(run(&mul, &[0x2e66, 0x2e66]), vec![0x211e]);
        // Overflow to infinity.
        assert_eq!(run(&mul, &[0x7bff, 0x4000]), vec![0x7c00]);
        let fma = parse("{fma.rn.f16 $0,$1,$2,$3;\n}", "=h,h,h,h");
        // (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20: a tie between two halves, to
        // the even one.
        let one_up = 0x3c01;
        assert_eq!(run(&fma, &[one_up, one_up, 0xbc00]), vec![0x1800]);
        // (1 + 2^-10)^2 - 3 * 2^-11 = 1 + 2^-11 + 2^-20, just above the
        // tie between 1 and 1 + 2^-10: fused, it rounds up; rounding the
        // product first (1 + 2^-9) makes an exact tie, which goes to 1.
        assert_eq!(run(&fma, &[one_up, one_up, 0x9600]), vec![0x3c01]);
        let product = run(&mul, &[one_up, one_up])[0];
        assert_eq!(product, 0x3c02);
        let add = parse("add.rn.f16 $0, $1, $2;", "=h,h,h");
        assert_eq!(run(&add, &[product, 0x9600]), vec![0x3c00]);
        // 0.2h * 0.2h + 0.25: the comment's h * h + 0.25 rounds once.
        assert_eq!(run(&fma, &[0x3266, 0x3266, 0x3400]), vec![0x34a4]);
        let add2 = parse("{add.f16x2 $0,$1,$2;\n}", "=r,r,r");
        // (1, 2) + (3, 4) = (4, 6).
        assert_eq!(run(&add2, &[0x4000_3c00, 0x4400_4200]), vec![0x4600_4400]);
        let sub2 = parse("{sub.f16x2 $0,$1,$2;\n}", "=r,r,r");
        assert_eq!(run(&sub2, &[0x4000_3c00, 0x4400_4200]), vec![0xc000_c000]);
        let neg = parse("{neg.f16 $0,$1;\n}", "=h,h");
        assert_eq!(run(&neg, &[0x3c00]), vec![0xbc00]);
        let abs2 = parse("{abs.f16x2 $0,$1;\n}", "=r,r");
        assert_eq!(run(&abs2, &[0xbc00_c000]), vec![0x3c00_4000]);
        // bf16 fma: 2 * 1.5 + 0.5 = 3.5 (0x4060).
        let bfma = parse("{fma.rn.bf16 $0,$1,$2,$3;\n}", "=h,h,h,h");
        assert_eq!(run(&bfma, &[0x4000, 0x3fc0, 0x3f00]), vec![0x4060]);
        // NaN results are canonical.
        let add = parse("add.f16 $0, $1, $2;", "=h,h,h");
        assert_eq!(run(&add, &[0x7c00, 0xfc00]), vec![0x7fff]);
    }

    /// `__hgt`, `__hlt`: a predicate and a select.
    #[test]
    fn comparisons_set_predicates() {
        let greater = parse(
            "{ .reg .pred __$$temp3;\n  setp.gt.f16  __$$temp3, $1, $2;\n  selp.u16 $0, 1, 0, __$$temp3;}",
            "=h,h,h",
        );
        assert_eq!(run(&greater, &[0x4000, 0x3c00]), vec![1]);
        assert_eq!(run(&greater, &[0x3c00, 0x4000]), vec![0]);
        assert_eq!(run(&greater, &[0x7e00, 0x3c00]), vec![0]);
        let unordered = parse(
            "{ .reg .pred p; setp.gtu.f32 p, $1, $2; selp.b32 $0, 7, 9, p; }",
            "=r,f,f",
        );
        let nan = u64::from(f32::NAN.to_bits());
        assert_eq!(run(&unordered, &[nan, 0]), vec![7]);
        let signed = parse(
            "{ .reg .pred p; setp.lt.s32 p, $1, $2; selp.b32 $0, 1, 0, p; }",
            "=r,r,r",
        );
        assert_eq!(run(&signed, &[0xffff_ffff, 1]), vec![1]);
        let unsigned = parse(
            "{ .reg .pred p; setp.lo.u32 p, $1, $2; selp.b32 $0, 1, 0, p; }",
            "=r,r,r",
        );
        assert_eq!(run(&unsigned, &[0xffff_ffff, 1]), vec![0]);
    }

    /// `tex1Dfetch<float>` and `surf2Dwrite`, as clang's headers write them.
    #[test]
    fn textures_and_surfaces() {
        use crate::texture::TextureAddressMode;
        let mut memory = Memory::new();
        let texels = memory
            .alloc_values(ElementType::F32, &[Value::F32(10.0), Value::F32(20.0)])
            .unwrap();
        let texture = memory
            .create_texture_1d(texels, TextureAddressMode::Border)
            .unwrap();
        let fetch = parse(
            "tex.1d.v4.f32.s32\t{$0, $1, $2, $3}, [$4, {$5}];",
            "=f,=f,=f,=f,l,r",
        );
        assert_eq!(fetch.poison_use(0), Some(PoisonUse::Address));
        let out = run_in(&fetch, &[texture, 1], &mut memory).unwrap();
        assert_eq!(out, vec![u64::from(20f32.to_bits()), 0, 0, 0]);
        let out = run_in(&fetch, &[texture, 0xffff_ffff], &mut memory).unwrap();
        assert_eq!(out, vec![0, 0, 0, 0]);
        // A fetch of int texels from a float texture, an unknown handle.
        let int_fetch = parse(
            "tex.1d.v4.s32.s32\t{$0, $1, $2, $3}, [$4, {$5}];",
            "=r,=r,=r,=r,l,r",
        );
        assert!(matches!(
            run_in(&int_fetch, &[texture, 0], &mut memory),
            Err(Fault::Memory(
                crate::memory::MemoryError::TexelTypeMismatch { .. }
            ))
        ));
        assert!(matches!(
            run_in(&fetch, &[texture + 1, 0], &mut memory),
            Err(Fault::Memory(crate::memory::MemoryError::UnknownTexture(_)))
        ));
        let rows = memory.alloc(ElementType::F32, &[4]);
        let surface = memory.create_surface_2d(rows, 2, 2, 8).unwrap();
        let store = parse("sust.b.2d.b32.trap [$0, {$1, $2}], {$3};", "l,r,r,r");
        assert_eq!(store.poison_use(3), Some(PoisonUse::StoredValue));
        assert_eq!(store.poison_use(1), Some(PoisonUse::Address));
        let value = u64::from(1.5f32.to_bits());
        assert_eq!(
            run_in(&store, &[surface, 4, 1, value], &mut memory),
            Ok(vec![])
        );
        let buffer = memory.buffer_of(rows).unwrap();
        assert_eq!(memory.contents(buffer)[3], Value::F32(1.5));
        assert_eq!(memory.side_effects().last().unwrap().thread, 37);
        let load = parse("suld.b.2d.b32.trap {$0}, [$1, {$2, $3}];", "=r,l,r,r");
        assert_eq!(
            run_in(&load, &[surface, 4, 1], &mut memory),
            Ok(vec![value])
        );
        assert!(matches!(
            run_in(&store, &[surface, 8, 0, value], &mut memory),
            Err(Fault::Memory(
                crate::memory::MemoryError::SurfaceOutOfBounds { .. }
            ))
        ));
        // Pure blocks make poison, memory blocks report it.
        assert_eq!(parse("add.u32 $0, $1, 1;", "=r,r").poison_use(0), None);
    }
}
