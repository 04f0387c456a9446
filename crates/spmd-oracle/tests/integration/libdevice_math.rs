//! NVIDIA's libdevice through spmd's pipeline.
//!
//! `tests/data/libdevice-math.cu` calls the CUDA math library (float and
//! double: exponentials, logarithms, powers, roots, trigonometry with its
//! table-driven range reduction, hyperbolics, error and gamma functions,
//! Bessel functions, rounding, remainders, classification), the fast
//! intrinsics (`__expf`, `__sinf`, `__fdividef`, `__powf`, ...), the
//! arithmetic with explicit rounding modes (`__fadd_rz`, `__fma_rd`,
//! `__dsqrt_ru`, ...), the conversions (`__float2int_rn`, `__ll2float_rz`,
//! `__double2float_rd`, ...) and the integer intrinsics (`__brev`,
//! `__byte_perm`, `__mul64hi`, ...). clang links libdevice and inlines it,
//! so each function becomes libdevice's own branchy code on a per-thread
//! input: divergent control flow, lookup tables in global memory, inline
//! PTX.
//!
//! Each function runs on [`DEFAULT_INPUTS`] inputs (special values: ±0,
//! ±inf, NaNs, subnormals, the extremes; values near the overflow,
//! underflow and range-reduction thresholds, the poles and integers; then a
//! seeded sweep of random bit patterns, magnitudes and nudged special
//! values): at thread level on clang's import, and in lockstep warps on the
//! output of `spmd-gpu-to-nvvm` with lane branches and, on the first
//! 1 / [`PREDICATED_SHARE`] of the inputs, fully predicated, with CTAs of
//! [`BLOCK`] threads, so that every CTA ends with a partial warp. Every
//! output must be bit-identical. libdevice's helpers that clang does not
//! inline (`__internal_trig_reduction_slowpathd`, `__internal_accurate_pow`,
//! `__internal_lgamma_pos`) become wave-level functions of their own, which
//! the warps call in lockstep.
//!
//! libdevice is written for NVVM, where PTX's instructions define what an
//! out-of-range conversion or shift gives; LLVM makes them poison. So for
//! some inputs clang's code itself is undefined: `sinpi` of huge or
//! non-finite doubles indexes its coefficient table with `fptosi` of
//! `2x`; `pow`'s test for odd integer exponents shifts `y`'s bits by its
//! exponent minus 1012 through a `zext nneg` (poison for small or huge
//! `|y|`), which decides `pow(±0, y)` and `pow(x < 0, y)`; `lround`,
//! `llround` and `lgammaf(NaN)` store `fptosi` of NaN or of huge values;
//! `__mul24` is a `mul nsw` of two 24-bit values. The thread-level run
//! says which inputs, and they leave the comparison (any result refines
//! undefined behaviour); at most a [`MAX_UNDEFINED`] share per function,
//! and each function with some is listed.
//!
//! [`libdevice_results_match_known_values`] checks results whose bits are
//! known (`exp(1)`, `sqrt(2)`, `pow(2, 10)`, directed roundings, ...) in
//! both runs, so that a mistake of the executor's that both runs share
//! cannot pass unnoticed where the answer is known.
//!
//! `SPMD_LIBDEVICE_INPUTS=<n>` sets the inputs per function (default
//! [`DEFAULT_INPUTS`]); `SPMD_LIBDEVICE_SEED=<s>` the sweep's seed.

use crate::common::{context, import_cuda, lower_to_nvvm_with, parse, Rng};
use spmd_oracle::{
    ElementType, ExecError, Executor, GridDims, MemRefId, Memory, NoTrace, Value, VotePoison,
    WarpStats,
};
use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::time::Instant;

const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/libdevice-math.cu");
/// Inputs per function of the default run.
const DEFAULT_INPUTS: usize = 2048;
/// The predicated form (`lane-branches=false`), about three times as slow
/// as the other, runs on the first 1 / `PREDICATED_SHARE` of the inputs
/// (all the special values, and the start of the sweep).
const PREDICATED_SHARE: usize = 2;
/// Threads per CTA: not a multiple of 32, so each CTA ends with a partial
/// warp (and the last CTA has threads past the inputs, which return).
const BLOCK: u32 = 80;
/// Blocks a thread (or warp) may enter: `fmod` of extreme operands loops
/// once per bit of their exponent difference.
const FUEL: u64 = 1 << 24;
/// The largest share of a function's inputs on which clang's code may be
/// undefined.
const MAX_UNDEFINED: f64 = 0.4;

/// The kernel families of `libdevice-math.cu`: element type, operands and
/// outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    F32Unary,
    F64Unary,
    F32Binary,
    F64Binary,
    F32Ternary,
    F64Ternary,
    F32Extra,
    F64Extra,
}

impl Family {
    const ALL: [Family; 8] = [
        Self::F32Unary,
        Self::F64Unary,
        Self::F32Binary,
        Self::F64Binary,
        Self::F32Ternary,
        Self::F64Ternary,
        Self::F32Extra,
        Self::F64Extra,
    ];

    /// The prefix of its kernels' names (`f32_unary_expf`), and, upper
    /// case, its macro in the source.
    fn prefix(self) -> &'static str {
        match self {
            Self::F32Unary => "f32_unary",
            Self::F64Unary => "f64_unary",
            Self::F32Binary => "f32_binary",
            Self::F64Binary => "f64_binary",
            Self::F32Ternary => "f32_ternary",
            Self::F64Ternary => "f64_ternary",
            Self::F32Extra => "f32_extra",
            Self::F64Extra => "f64_extra",
        }
    }

    fn double(self) -> bool {
        matches!(
            self,
            Self::F64Unary | Self::F64Binary | Self::F64Ternary | Self::F64Extra
        )
    }

    fn element(self) -> ElementType {
        if self.double() {
            ElementType::F64
        } else {
            ElementType::F32
        }
    }

    /// Float input buffers (`x`, `y`, `z`).
    fn float_inputs(self) -> usize {
        match self {
            Self::F32Unary | Self::F64Unary => 1,
            Self::F32Ternary | Self::F64Ternary => 3,
            _ => 2,
        }
    }

    /// Whether it takes `k` and writes `out2` and `iout`.
    fn extra(self) -> bool {
        matches!(self, Self::F32Extra | Self::F64Extra)
    }
}

/// One function: a kernel of the source, `FAMILY(id, expression)`.
#[derive(Clone, Debug)]
struct Function {
    family: Family,
    id: String,
    /// What the kernel computes, as the source spells it.
    expression: String,
}

impl Function {
    /// The kernel's symbol.
    fn symbol(&self) -> String {
        format!("{}_{}", self.family.prefix(), self.id)
    }

    /// For reports: `f64 pow(a, b)`.
    fn name(&self) -> String {
        let precision = if self.family.double() { "f64" } else { "f32" };
        format!("{precision} {}", self.expression)
    }

    /// The integer operand's domain.
    fn ints(&self) -> Ints {
        let id = self.id.as_str();
        if ["ldexp", "scalbn", "scalbln"]
            .iter()
            .any(|prefix| id.starts_with(prefix))
        {
            Ints::Exponent
        } else if id.starts_with("jn") || id.starts_with("yn") {
            Ints::Order
        } else {
            Ints::Bits
        }
    }

    /// A seed of its own.
    fn seed(&self, seed: u64) -> u64 {
        self.symbol().bytes().fold(seed, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
        })
    }
}

/// The functions of the source, in order: every line
/// `FAMILY(id, expression)`.
fn functions_of_source() -> Vec<Function> {
    let source = std::fs::read_to_string(SOURCE).expect("read libdevice-math.cu");
    let mut functions = Vec::new();
    for line in source.lines() {
        for family in Family::ALL {
            let Some(rest) = line
                .strip_prefix(&family.prefix().to_uppercase())
                .and_then(|rest| rest.strip_prefix('('))
                .and_then(|rest| rest.trim_end().strip_suffix(')'))
            else {
                continue;
            };
            let (id, expression) = rest.split_once(',').expect("FAMILY(id, expression)");
            functions.push(Function {
                family,
                id: id.trim().to_string(),
                expression: expression.trim().to_string(),
            });
        }
    }
    let symbols: BTreeSet<String> = functions.iter().map(Function::symbol).collect();
    assert_eq!(symbols.len(), functions.len(), "kernel names repeat");
    for family in Family::ALL {
        assert!(
            functions.iter().any(|function| function.family == family),
            "no {} kernel",
            family.prefix()
        );
    }
    functions
}

/// What the integer operand `k` of the extra kernels ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ints {
    /// Any 64-bit pattern (conversions, bit intrinsics).
    Bits,
    /// Scale exponents (`ldexp`, `scalbn`): around the formats' ranges.
    Exponent,
    /// Bessel orders (`jn`, `yn`): small.
    Order,
}

/// The inputs of one function's run: the bits of `x`, `y`, `z` (`f32`
/// bits zero-extended) and `k`.
#[derive(Clone, Debug, Default)]
struct Inputs {
    x: Vec<u64>,
    y: Vec<u64>,
    z: Vec<u64>,
    k: Vec<u64>,
}

impl Inputs {
    fn len(&self) -> usize {
        self.x.len()
    }

    /// The inputs at `indices`.
    fn select(&self, indices: &[usize]) -> Self {
        let pick = |column: &[u64]| indices.iter().map(|&i| column[i]).collect();
        Self {
            x: pick(&self.x),
            y: pick(&self.y),
            z: pick(&self.z),
            k: pick(&self.k),
        }
    }

    /// Input `index` as text, for reports.
    fn describe(&self, index: usize, double: bool) -> String {
        let float = |bits: u64| {
            if double {
                format!("{:#018x} ({:e})", bits, f64::from_bits(bits))
            } else {
                format!("{:#010x} ({:e})", bits, f32::from_bits(bits as u32))
            }
        };
        format!(
            "x = {}, y = {}, z = {}, k = {:#x} ({})",
            float(self.x[index]),
            float(self.y[index]),
            float(self.z[index]),
            self.k[index],
            self.k[index] as i64
        )
    }
}

/// The output buffers of a run, as bits: `out`, `out2`, `iout`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Outputs {
    out: Vec<u64>,
    out2: Vec<u64>,
    iout: Vec<u64>,
}

impl Outputs {
    fn select(&self, indices: &[usize]) -> Self {
        let pick = |column: &[u64]| indices.iter().map(|&i| column[i]).collect();
        Self {
            out: pick(&self.out),
            out2: pick(&self.out2),
            iout: pick(&self.iout),
        }
    }

    fn at(&self, index: usize) -> (u64, u64, u64) {
        (self.out[index], self.out2[index], self.iout[index])
    }
}

/// The test's CUDA source imported (see [`import_cuda`]).
fn import_libdevice_math() -> Option<String> {
    import_cuda(SOURCE)
}

/// Special and boundary values (as `f64`; the `f32` ones are converted).
fn special_values(double: bool) -> Vec<f64> {
    use std::f64::consts::{E, FRAC_PI_2, FRAC_PI_4, LN_2, PI};
    let mut values = vec![
        0.0,
        1.0,
        0.5,
        1.5,
        2.0,
        2.5,
        3.0,
        10.0,
        100.0,
        1e10,
        1e-10,
        0.1,
        PI,
        FRAC_PI_2,
        FRAC_PI_4,
        2.0 * PI,
        E,
        LN_2,
        f64::INFINITY,
        // Trigonometric range reduction: fast paths end, Payne-Hanek.
        105_615.0,
        48_039.0,
        1e5,
        1e6,
        2_147_483_648.0,
        1e9,
        1e15,
        1e22,
        1e30,
        3e37,
        1e300,
        // exp, exp2, exp10 overflow and underflow; tgamma, lgamma.
        88.72,
        88.722_839_355_468_75,
        87.33,
        103.97,
        104.0,
        127.0,
        128.0,
        126.0,
        149.0,
        150.0,
        38.53,
        45.0,
        35.04,
        171.62,
        709.78,
        709.8,
        745.13,
        746.0,
        1023.0,
        1024.0,
        1074.0,
        1075.0,
        308.25,
        323.0,
        // Integers and halves: poles, rounding ties, integer powers.
        4.0,
        5.5,
        7.0,
        0.25,
        0.75,
        1e-5,
        1e-20,
        20.0,
        1.0 / 3.0,
        // Near the domain edges of acosh, atanh, erfinv, log1p.
        1.0 + 2f64.powi(-20),
        1.0 - 2f64.powi(-20),
        0.999_999,
        2f64.powi(23),
        2f64.powi(23) + 0.5,
        2f64.powi(24) + 1.0,
        2f64.powi(31),
        2f64.powi(52),
        2f64.powi(52) + 0.5,
        2f64.powi(53) + 2.0,
        2f64.powi(62),
        2f64.powi(63),
        2f64.powi(64),
    ];
    if double {
        values.extend([
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            1.0f64.next_up(),
            1.0f64.next_down(),
            f64::EPSILON,
            2f64.powi(-1022) * 1.5,
            FRAC_PI_2.next_up(),
            PI.next_down(),
        ]);
    } else {
        values.extend([
            f64::from(f32::MAX),
            f64::from(f32::MIN_POSITIVE),
            f64::from(f32::from_bits(1)),
            f64::from(f32::from_bits(0x007f_ffff)),
            f64::from(1.0f32.next_up()),
            f64::from(1.0f32.next_down()),
            f64::from(f32::EPSILON),
            f64::from(std::f32::consts::FRAC_PI_2.next_up()),
            f64::from(std::f32::consts::PI.next_down()),
        ]);
    }
    // NaNs first (a quiet one with a payload, a negative one, a
    // signalling one), then each value and its negation.
    let mut all = vec![
        f64::NAN,
        f64::from_bits(0xfff8_0000_0000_0000),
        f64::from_bits(0x7ff0_0000_0000_0001),
        f64::from_bits(0x7ff8_0000_dead_beef),
    ];
    all.extend(values.iter().flat_map(|&v| [v, -v]));
    all
}

/// The bits of `value` in the kernel's format.
fn bits(value: f64, double: bool) -> u64 {
    if double {
        value.to_bits()
    } else if value.is_nan() {
        // Keep the NaN's payload and signalling bit.
        let bits = value.to_bits();
        let sign = ((bits >> 63) as u32) << 31;
        let quiet = if bits & (1 << 51) != 0 { 1 << 22 } else { 0 };
        u64::from(sign | 0x7f80_0000 | quiet | ((bits as u32) & 0x3f_ffff).max(1))
    } else {
        u64::from((value as f32).to_bits())
    }
}

/// The value of kernel-format `bits`, widened.
fn value(bits: u64, double: bool) -> f64 {
    if double {
        f64::from_bits(bits)
    } else {
        f64::from(f32::from_bits(bits as u32))
    }
}

/// `bits` moved `steps` representable values up (negative: down).
fn nudge(bits: u64, steps: i64, double: bool) -> u64 {
    let mut x = value(bits, double);
    for _ in 0..steps.unsigned_abs() {
        x = match (double, steps > 0) {
            (true, true) => x.next_up(),
            (true, false) => x.next_down(),
            (false, true) => f64::from((x as f32).next_up()),
            (false, false) => f64::from((x as f32).next_down()),
        };
    }
    self::bits(x, double)
}

/// One random float of the sweep: random bit patterns, log-uniform
/// magnitudes, small values, multiples of pi/4 and integers or halves
/// nudged by a few ulps, nudged special values.
fn sweep_value(rng: &mut Rng, specials: &[u64], double: bool) -> u64 {
    let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    let steps = rng.below(7) as i64 - 3;
    match rng.below(8) {
        0 | 1 => {
            let raw = rng.next();
            if double {
                raw
            } else {
                raw & 0xffff_ffff
            }
        }
        2 | 3 => {
            let range = if double { 80 } else { 40 };
            let exponent = rng.below(2 * range) as i32 - range as i32;
            bits(sign * rng.uniform(1.0, 2.0) * 2f64.powi(exponent), double)
        }
        4 => bits(rng.uniform(-10.0, 10.0), double),
        5 => {
            let k = rng.below(2000) as f64 - 1000.0;
            nudge(bits(k * std::f64::consts::FRAC_PI_4, double), steps, double)
        }
        6 => {
            let k = (rng.below(800) as f64 - 400.0) / 2.0;
            nudge(bits(k, double), steps, double)
        }
        _ => nudge(rng.pick(specials), steps, double),
    }
}

/// Special integers for `k`.
fn special_ints(domain: Ints) -> Vec<i64> {
    match domain {
        Ints::Bits => {
            let mut values = vec![
                0,
                1,
                -1,
                2,
                7,
                i64::from(i32::MIN),
                i64::from(i32::MAX),
                i64::from(u32::MAX),
                i64::MIN,
                i64::MAX,
                1 << 24,
                (1 << 24) + 1,
                (1 << 53) + 1,
                0x0123_4567_89ab_cdef,
                -0x0123_4567_89ab_cdef,
            ];
            values.extend((0..64).map(|shift| 1i64 << shift));
            values.extend((0..64).map(|shift| (1i64 << shift).wrapping_sub(1)));
            values
        }
        Ints::Exponent => {
            let mut values = vec![
                i64::from(i32::MIN),
                i64::from(i32::MAX),
                1 << 31,
                -(1 << 31) - 1,
                i64::MAX,
                i64::MIN,
            ];
            for e in [
                0, 1, 2, 23, 24, 52, 53, 126, 127, 128, 149, 150, 151, 1022, 1023,
            ] {
                values.extend([e, -e]);
            }
            for e in [1024, 1074, 1075, 1076, 2098, 2099, 5000] {
                values.extend([e, -e]);
            }
            values
        }
        Ints::Order => vec![0, 1, 2, 3, 4, 10, 25, -1, -2, -3],
    }
}

/// One random `k`.
fn sweep_int(rng: &mut Rng, domain: Ints) -> i64 {
    match domain {
        Ints::Bits => match rng.below(4) {
            0 | 1 => rng.next() as i64,
            2 => i64::from(rng.next() as i32),
            _ => rng.below(2001) as i64 - 1000,
        },
        Ints::Exponent => match rng.below(5) {
            0 => rng.next() as i64,
            _ => rng.below(2401) as i64 - 1200,
        },
        Ints::Order => rng.below(24) as i64 - 2,
    }
}

/// The inputs of `function`: special values first (for several operands,
/// the cross product of the first ones, then each with a random partner),
/// then the seeded sweep, `count` in all.
fn inputs(function: &Function, count: usize, seed: u64) -> Inputs {
    let family = function.family;
    let double = family.double();
    let specials: Vec<u64> = special_values(double)
        .iter()
        .map(|&v| bits(v, double))
        .collect();
    let ints = special_ints(function.ints());
    let mut rng = Rng(function.seed(seed));
    let mut inputs = Inputs::default();
    let push = |inputs: &mut Inputs, x: u64, y: u64, z: u64, k: i64| {
        inputs.x.push(x);
        inputs.y.push(y);
        inputs.z.push(z);
        inputs.k.push(k as u64);
    };
    if family.float_inputs() == 1 {
        for (index, &x) in specials.iter().enumerate() {
            push(&mut inputs, x, 0, 0, ints[index % ints.len()]);
        }
    } else {
        let side = ((count / 4) as f64).sqrt() as usize;
        let corner = &specials[..side.min(specials.len())];
        for &x in corner {
            for &y in corner {
                let z = rng.pick(&specials);
                push(&mut inputs, x, y, z, rng.pick(&ints));
            }
        }
        for &x in &specials {
            let y = sweep_value(&mut rng, &specials, double);
            let z = sweep_value(&mut rng, &specials, double);
            push(&mut inputs, x, y, z, rng.pick(&ints));
        }
    }
    for &k in &ints {
        let x = sweep_value(&mut rng, &specials, double);
        push(&mut inputs, x, x, x, k);
    }
    while inputs.len() < count {
        let x = sweep_value(&mut rng, &specials, double);
        let k = sweep_int(&mut rng, function.ints());
        let (y, z) = match rng.below(4) {
            // Related operands: nearby, with a product that cancels in
            // fma, a small multiple (remainders), a small integer (powers).
            0 => (nudge(x, rng.below(5) as i64 - 2, double), {
                let product = -value(x, double) * value(x, double);
                nudge(bits(product, double), rng.below(5) as i64 - 2, double)
            }),
            1 => {
                let factor = rng.below(9) as f64 - 4.0 + 0.5 * rng.below(2) as f64;
                (
                    bits(value(x, double) * factor, double),
                    sweep_value(&mut rng, &specials, double),
                )
            }
            2 => (
                bits(rng.below(41) as f64 - 20.0, double),
                sweep_value(&mut rng, &specials, double),
            ),
            _ => (
                sweep_value(&mut rng, &specials, double),
                sweep_value(&mut rng, &specials, double),
            ),
        };
        push(&mut inputs, x, y, z, k);
    }
    let keep: Vec<usize> = (0..count).collect();
    inputs.select(&keep)
}

/// Runs `function` on `inputs` with `run` (which gets the memory, the
/// kernel arguments and the launch); the output buffers.
fn launch(
    function: &Function,
    inputs: &Inputs,
    run: &mut dyn FnMut(&mut Memory, &[Value], &GridDims),
) -> Outputs {
    let family = function.family;
    let (double, n) = (family.double(), inputs.len());
    let mut memory = Memory::new();
    let floats = |memory: &mut Memory, column: &[u64]| -> MemRefId {
        let values: Vec<Value> = column
            .iter()
            .map(|&bits| {
                if double {
                    Value::F64(f64::from_bits(bits))
                } else {
                    Value::F32(f32::from_bits(bits as u32))
                }
            })
            .collect();
        memory
            .alloc_values(family.element(), &values)
            .expect("floats of the element type")
    };
    let int64s = |memory: &mut Memory, column: &[u64]| -> MemRefId {
        let values: Vec<Value> = column.iter().map(|&k| Value::i64(k as i64)).collect();
        memory
            .alloc_values(ElementType::Int(64), &values)
            .expect("i64s")
    };
    let zeros = vec![0u64; n];
    let x = floats(&mut memory, &inputs.x);
    let y = floats(&mut memory, &inputs.y);
    let z = floats(&mut memory, &inputs.z);
    let k = int64s(&mut memory, &inputs.k);
    let out = floats(&mut memory, &zeros);
    let out2 = floats(&mut memory, &zeros);
    let iout = int64s(&mut memory, &zeros);
    let pointer = |memref| Value::Ptr(memory.pointer_to(memref).expect("allocated"));
    let count = Value::i32(n as i32);
    let args = match (family.float_inputs(), family.extra()) {
        (_, true) => vec![
            pointer(x),
            pointer(y),
            pointer(k),
            pointer(out),
            pointer(out2),
            pointer(iout),
            count,
        ],
        (1, false) => vec![pointer(x), pointer(out), count],
        (2, false) => vec![pointer(x), pointer(y), pointer(out), count],
        _ => vec![pointer(x), pointer(y), pointer(z), pointer(out), count],
    };
    let dims = GridDims {
        block_dim: [BLOCK, 1, 1],
        grid_dim: [(n as u32).div_ceil(BLOCK).max(1), 1, 1],
        subgroup_size: 32,
    };
    run(&mut memory, &args, &dims);
    let read = |memref| -> Vec<u64> {
        let buffer = memory.buffer_of(memref).expect("allocated");
        memory
            .contents(buffer)
            .iter()
            .map(|value| match *value {
                Value::F32(float) => u64::from(float.to_bits()),
                Value::F64(float) => float.to_bits(),
                other => other.as_int().expect("an integer").unsigned(),
            })
            .collect()
    };
    Outputs {
        out: read(out),
        out2: read(out2),
        iout: read(iout),
    }
}

/// The thread-level run of clang's code: the outputs, and the inputs
/// (indices) on which a thread's execution is undefined (a poison address,
/// a poison stored, ...). Any other failure panics.
fn run_threads(executor: &Executor, function: &Function, inputs: &Inputs) -> (Outputs, Vec<usize>) {
    let mut undefined = Vec::new();
    let symbol = function.symbol();
    let outputs = launch(function, inputs, &mut |memory, args, dims| {
        let grid = executor.run_grid_traced(
            &symbol,
            dims,
            &|_| args.to_vec(),
            memory,
            &mut NoTrace,
            FUEL,
        );
        for (thread, outcome) in grid.outcomes.iter().enumerate() {
            match outcome {
                Ok(_) => {}
                Err(ExecError::PoisonUsed { .. } | ExecError::UndefinedBehavior { .. }) => {
                    undefined.push(thread)
                }
                Err(error) => panic!(
                    "{}: thread level, {}: {error}",
                    function.name(),
                    inputs.describe(thread, function.family.double())
                ),
            }
        }
    });
    (outputs, undefined)
}

/// The lockstep run of the lowered code.
fn run_warps(
    executor: &Executor,
    function: &Function,
    inputs: &Inputs,
) -> Result<(Outputs, WarpStats), String> {
    let mut result = Ok(WarpStats::default());
    let symbol = function.symbol();
    let outputs = launch(function, inputs, &mut |memory, args, dims| {
        result = executor
            .run_grid_in_warps(&symbol, &|_| args.to_vec(), dims, memory, FUEL)
            .map(|runs| {
                runs.iter().fold(WarpStats::default(), |mut sum, run| {
                    sum += run.stats;
                    sum
                })
            })
            .map_err(|error| error.to_string());
    });
    result.map(|stats| (outputs, stats))
}

/// The first output that differs, described.
fn first_difference(
    function: &Function,
    inputs: &Inputs,
    expected: &Outputs,
    actual: &Outputs,
) -> Option<String> {
    let double = function.family.double();
    let differ = (0..inputs.len())
        .filter(|&index| expected.at(index) != actual.at(index))
        .count();
    (0..inputs.len()).find_map(|index| {
        let (want, got) = (expected.at(index), actual.at(index));
        (want != got).then(|| {
            format!(
                "{} ({differ} of {} inputs differ; the first, #{index}: {}): thread level \
                 gives (out, out2, iout) = ({:#x}, {:#x}, {:#x}), lockstep warps \
                 ({:#x}, {:#x}, {:#x}) [out: {:e} vs {:e}]",
                function.name(),
                inputs.len(),
                inputs.describe(index, double),
                want.0,
                want.1,
                want.2,
                got.0,
                got.1,
                got.2,
                value(want.0, double),
                value(got.0, double),
            )
        })
    })
}

/// Whether the results are not trivial: outputs take several values, some
/// differ from `x`, and not nearly all are NaN.
fn check_not_trivial(
    function: &Function,
    inputs: &Inputs,
    outputs: &Outputs,
) -> Result<(), String> {
    let double = function.family.double();
    let n = inputs.len();
    let mut distinct = BTreeSet::new();
    let mut numbers = 0;
    let mut changed = false;
    for index in 0..n {
        let (out, out2, iout) = outputs.at(index);
        distinct.insert((out, out2, iout));
        if !value(out, double).is_nan() || iout != 0 {
            numbers += 1;
        }
        changed |= out != inputs.x[index] || out2 != 0 || iout != 0;
    }
    let name = function.name();
    if distinct.len() < 2 || !changed {
        return Err(format!("{name}: every output is the same or the input"));
    }
    if numbers * 100 < n {
        return Err(format!("{name}: only {numbers} of {n} outputs are not NaN"));
    }
    Ok(())
}

/// Per function: the inputs compared, the undefined ones, the NaN results,
/// what the warps did, the first failure.
struct Report {
    function: Function,
    compared: usize,
    undefined: Vec<usize>,
    nans: usize,
    stats: [WarpStats; 2],
    failure: Option<String>,
}

/// Runs one function at thread level and in both lockstep forms.
fn check_function(
    executors: &[Executor; 3],
    function: &Function,
    inputs: &Inputs,
    mut report_time: impl FnMut(&str, f64),
) -> Report {
    let start = Instant::now();
    let (all_outputs, undefined) = run_threads(&executors[0], function, inputs);
    report_time("threads", start.elapsed().as_secs_f64());
    let defined: Vec<usize> = (0..inputs.len())
        .filter(|index| undefined.binary_search(index).is_err())
        .collect();
    let (inputs, expected) = (inputs.select(&defined), all_outputs.select(&defined));
    let double = function.family.double();
    let mut report = Report {
        function: function.clone(),
        compared: inputs.len(),
        nans: expected
            .out
            .iter()
            .filter(|&&bits| value(bits, double).is_nan())
            .count(),
        undefined,
        stats: Default::default(),
        failure: None,
    };
    let share = report.undefined.len() as f64 / (report.compared + report.undefined.len()) as f64;
    if share > MAX_UNDEFINED {
        report.failure = Some(format!(
            "{}: clang's code is undefined on {} of {} inputs",
            function.name(),
            report.undefined.len(),
            report.compared + report.undefined.len()
        ));
        return report;
    }
    if let Err(failure) = check_not_trivial(function, &inputs, &expected) {
        report.failure = Some(failure);
        return report;
    }
    for (form, executor) in executors[1..].iter().enumerate() {
        let start = Instant::now();
        let lane_branches = form == 0;
        let share = if lane_branches { 1 } else { PREDICATED_SHARE };
        let first: Vec<usize> = (0..inputs.len().div_ceil(share)).collect();
        let (inputs, expected) = (inputs.select(&first), expected.select(&first));
        let failure = match run_warps(executor, function, &inputs) {
            Ok((actual, stats)) => {
                report.stats[form] = stats;
                first_difference(function, &inputs, &expected, &actual)
            }
            Err(error) => Some(format!("{}: lockstep run failed: {error}", function.name())),
        };
        report_time(
            if lane_branches {
                "warps (lane branches)"
            } else {
                "warps (predicated)"
            },
            start.elapsed().as_secs_f64(),
        );
        if let Some(failure) = failure {
            report.failure = Some(format!("lane-branches={lane_branches}: {failure}"));
            return report;
        }
    }
    report
}

/// Inputs per function.
fn inputs_per_function() -> usize {
    spmd::testing::seed_count("SPMD_LIBDEVICE_INPUTS", DEFAULT_INPUTS).max(16)
}

/// The three executors: clang's import (thread level), and the pipeline's
/// output with lane branches and fully predicated (lockstep warps); with
/// the seconds it took to import, lower and compile them. Built once per
/// test binary (the executors keep no reference to the MLIR context);
/// `None` when the import is skipped.
fn executors() -> Option<&'static ([Executor; 3], f64)> {
    static EXECUTORS: OnceLock<Option<([Executor; 3], f64)>> = OnceLock::new();
    EXECUTORS
        .get_or_init(|| {
            let start = Instant::now();
            let text = import_libdevice_math()?;
            let context = context();
            let original = parse(&context, &text);
            let lowered = lower_to_nvvm_with(&context, &text, true);
            let predicated = lower_to_nvvm_with(&context, &text, false);
            let warps = |module| Executor::new(module).with_vote_poison(VotePoison::Poison);
            let executors = [
                Executor::new(&original),
                warps(&lowered),
                warps(&predicated),
            ];
            Some((executors, start.elapsed().as_secs_f64()))
        })
        .as_ref()
}

/// Every function of `libdevice-math.cu`, thread level on clang's code
/// against lockstep warps after `spmd-gpu-to-nvvm`: bit-identical outputs.
#[test]
fn libdevice_functions_agree_through_the_pipeline() {
    let functions = functions_of_source();
    let Some((executors, compile_time)) = executors() else {
        return;
    };
    let count = inputs_per_function();
    let seed = spmd::testing::seed_count("SPMD_LIBDEVICE_SEED", 0x5eed_u64);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let times = std::sync::Mutex::new(std::collections::BTreeMap::<String, f64>::new());
    let reports: Vec<Report> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut reports = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(function) = functions.get(index) else {
                            break;
                        };
                        let inputs = inputs(function, count, seed);
                        let record = |what: &str, seconds: f64| {
                            *times
                                .lock()
                                .expect("no poisoned lock")
                                .entry(what.to_string())
                                .or_default() += seconds;
                        };
                        reports.push(check_function(executors, function, &inputs, record));
                    }
                    reports
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("worker"))
            .collect()
    });
    let mut failures = Vec::new();
    let (mut compared, mut undefined) = (0, 0);
    let mut stats = [WarpStats::default(); 2];
    for report in &reports {
        compared += report.compared;
        undefined += report.undefined.len();
        stats[0] += report.stats[0];
        stats[1] += report.stats[1];
        let function = &report.function;
        if !report.undefined.is_empty() {
            let all = inputs(function, count, seed);
            let sample: Vec<String> = report
                .undefined
                .iter()
                .take(4)
                .map(|&index| {
                    let double = function.family.double();
                    format!(
                        "({:e}, {:e})",
                        value(all.x[index], double),
                        value(all.y[index], double)
                    )
                })
                .collect();
            eprintln!(
                "{}: clang's code undefined on {} inputs (x, y) = {}, ...",
                function.name(),
                report.undefined.len(),
                sample.join(", ")
            );
        }
        if let Some(failure) = &report.failure {
            failures.push(failure.clone());
        }
    }
    eprintln!(
        "libdevice: {} functions, {count} inputs each: {compared} compared, {undefined} undefined \
         at thread level; {} NaN results; import and compile {compile_time:.1}s; {:?}",
        reports.len(),
        reports.iter().map(|report| report.nans).sum::<usize>(),
        times.lock().expect("no poisoned lock"),
    );
    eprintln!("lockstep warps, lane branches: {:?}", stats[0]);
    eprintln!("lockstep warps, predicated: {:?}", stats[1]);
    assert!(
        failures.is_empty(),
        "{} of {} functions differ:\n{}",
        failures.len(),
        reports.len(),
        failures.join("\n")
    );
    assert_eq!(reports.len(), functions.len());
    assert!(
        stats[0].divergent_guards > 0 && stats[1].divergent_guards > 0,
        "the warps never diverged"
    );
    // Random bit patterns are outside many domains, but most results are
    // numbers.
    let nans = reports.iter().map(|report| report.nans).sum::<usize>();
    assert!(
        compared / 100 < nans && nans < compared * 2 / 5,
        "{nans} of {compared} results are NaN"
    );
}

/// An output buffer.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Out,
    Out2,
    Iout,
}

impl Outputs {
    fn slot(&self, slot: Slot, index: usize) -> u64 {
        match slot {
            Slot::Out => self.out[index],
            Slot::Out2 => self.out2[index],
            Slot::Iout => self.iout[index],
        }
    }
}

/// A known result: kernel, operands `x, y, z` (converted to the kernel's
/// format) and `k`, and the expected bits of outputs.
struct Known {
    symbol: &'static str,
    operands: [f64; 3],
    k: i64,
    expected: Vec<(Slot, u64)>,
}

/// Results whose bits are known: exact operations, exact cases of the
/// math functions (`pow(2, 10)`, `exp(0)`, `tgamma(5)`, ...), correctly
/// rounded ones (`sqrt`, `exp(1)`), and the rounding modes.
fn known_values() -> Vec<Known> {
    let f = |x: f32| u64::from(x.to_bits());
    let d = |x: f64| x.to_bits();
    let known = |symbol, operands: [f64; 3], k, expected: Vec<(Slot, u64)>| Known {
        symbol,
        operands,
        k,
        expected,
    };
    let out = |bits| vec![(Slot::Out, bits)];
    let iout = |value: i64| vec![(Slot::Iout, value as u64)];
    let unary = |symbol, x, bits| known(symbol, [x, 0.0, 0.0], 0, out(bits));
    let binary = |symbol, x, y, bits| known(symbol, [x, y, 0.0], 0, out(bits));
    let tiny = 2f64.powi(-30);
    let third_below = 0x3fd5_5555_5555_5555;
    vec![
        // Doubles.
        unary("f64_unary_exp", 1.0, 0x4005_bf0a_8b14_5769),
        unary("f64_unary_exp", 0.0, d(1.0)),
        unary("f64_unary_exp2", 10.0, d(1024.0)),
        unary("f64_unary_log", 1.0, d(0.0)),
        unary("f64_unary_log2", 1024.0, d(10.0)),
        unary("f64_unary_sin", 0.0, d(0.0)),
        unary("f64_unary_sin", -0.0, d(-0.0)),
        unary("f64_unary_cos", 0.0, d(1.0)),
        unary("f64_unary_tanh", 0.0, d(0.0)),
        unary("f64_unary_sqrt", 2.0, 0x3ff6_a09e_667f_3bcd),
        unary("f64_unary_cbrt", 27.0, d(3.0)),
        unary("f64_unary_tgamma", 5.0, d(24.0)),
        unary("f64_unary_lgamma", 1.0, d(0.0)),
        unary("f64_unary_erf", 0.0, d(0.0)),
        unary("f64_unary_erfc", 0.0, d(1.0)),
        unary("f64_unary_normcdf", 0.0, d(0.5)),
        // Not 1: libdevice expands j0 around its first zero, and that
        // polynomial gives 1 - 2^-52 at 0 (evaluated with the host's fma
        // too); an absolute error of 2.2e-16, as CUDA documents.
        unary("f64_unary_j0", 0.0, 0x3fef_ffff_ffff_fffe),
        unary("f64_unary_floor", -2.5, d(-3.0)),
        unary("f64_unary_ceil", -2.5, d(-2.0)),
        unary("f64_unary_round", 2.5, d(3.0)),
        unary("f64_unary_rint", 2.5, d(2.0)),
        unary("f64_unary_exp", f64::NEG_INFINITY, d(0.0)),
        unary("f64_unary_log", 0.0, d(f64::NEG_INFINITY)),
        unary("f64_unary_drcp_rn", 4.0, d(0.25)),
        unary("f64_unary_dsqrt_rd", 2.0, 0x3ff6_a09e_667f_3bcc),
        unary("f64_unary_dsqrt_ru", 2.0, 0x3ff6_a09e_667f_3bcd),
        binary("f64_binary_pow", 2.0, 10.0, d(1024.0)),
        binary("f64_binary_pow", -2.0, 3.0, d(-8.0)),
        binary("f64_binary_pow", f64::NAN, 0.0, d(1.0)),
        binary("f64_binary_pow", 1.0, f64::NAN, d(1.0)),
        binary("f64_binary_hypot", 3.0, 4.0, d(5.0)),
        binary("f64_binary_fmod", 7.0, 3.0, d(1.0)),
        binary("f64_binary_remainder", 7.0, 2.0, d(-1.0)),
        binary("f64_binary_fmin", f64::NAN, 1.0, d(1.0)),
        binary("f64_binary_nextafter", 1.0, 2.0, d(1.0f64.next_up())),
        binary("f64_binary_ddiv_rd", 1.0, 3.0, third_below),
        binary("f64_binary_ddiv_ru", 1.0, 3.0, third_below + 1),
        binary("f64_binary_dadd_rz", 1.0, tiny * tiny, d(1.0)),
        binary("f64_binary_dadd_ru", 1.0, tiny * tiny, d(1.0f64.next_up())),
        binary("f64_binary_dmul_rd", -1.0 / 3.0, 3.0, d(-1.0)),
        known(
            "f64_ternary_fma_rd",
            [1.0 + f64::EPSILON, 1.0 - f64::EPSILON, 0.0],
            0,
            out(d(1.0f64.next_down())),
        ),
        known(
            "f64_extra_frexp",
            [8.0, 0.0, 0.0],
            0,
            vec![(Slot::Out, d(0.5)), (Slot::Iout, 4)],
        ),
        known(
            "f64_extra_modf",
            [3.25, 0.0, 0.0],
            0,
            vec![(Slot::Out, d(0.25)), (Slot::Out2, d(3.0))],
        ),
        known(
            "f64_extra_sincospi",
            [0.5, 0.0, 0.0],
            0,
            vec![(Slot::Out, d(1.0)), (Slot::Out2, d(0.0))],
        ),
        known("f64_extra_ldexp", [1.0, 0.0, 0.0], 10, out(d(1024.0))),
        known("f64_extra_ldexp", [1.0, 0.0, 0.0], -1075, out(d(0.0))),
        known("f64_extra_ilogb", [1024.0, 0.0, 0.0], 0, iout(10)),
        known("f64_extra_llrint", [2.5, 0.0, 0.0], 0, iout(2)),
        known("f64_extra_llround", [2.5, 0.0, 0.0], 0, iout(3)),
        known("f64_extra_double2int_rd", [-2.5, 0.0, 0.0], 0, iout(-3)),
        known("f64_extra_double2uint_rz", [-1.0, 0.0, 0.0], 0, iout(0)),
        known(
            "f64_extra_double2ll_ru",
            [1e300, 0.0, 0.0],
            0,
            iout(i64::MAX),
        ),
        known(
            "f64_extra_double2float_rd",
            [0.1, 0.0, 0.0],
            0,
            out(d(f64::from(0.1f32.next_down()))),
        ),
        known(
            "f64_extra_double2float_ru",
            [0.1, 0.0, 0.0],
            0,
            out(d(f64::from(0.1f32))),
        ),
        known(
            "f64_extra_double2hiint",
            [1.0, 0.0, 0.0],
            0,
            iout(0x3ff0_0000),
        ),
        known(
            "f64_extra_hiloint2double",
            [0.0; 3],
            0x3ff0_0000 << 32,
            out(d(1.0)),
        ),
        known(
            "f64_extra_ll2double_rz",
            [0.0; 3],
            (1 << 60) + 1,
            out(d(2f64.powi(60))),
        ),
        known(
            "f64_extra_ll2double_ru",
            [0.0; 3],
            (1 << 60) + 1,
            out(d(2f64.powi(60) + 256.0)),
        ),
        known(
            "f64_extra_i64_to_f64",
            [0.0; 3],
            (1 << 53) + 1,
            out(d(2f64.powi(53))),
        ),
        // Floats.
        unary("f32_unary_sqrtf", 2.0, 0x3fb5_04f3),
        unary("f32_unary_expf", 0.0, f(1.0)),
        unary("f32_unary_exp2f", 10.0, f(1024.0)),
        unary("f32_unary_logf", 1.0, f(0.0)),
        unary("f32_unary_log2f", 1024.0, f(10.0)),
        unary("f32_unary_sinf", 0.0, f(0.0)),
        unary("f32_unary_cosf", 0.0, f(1.0)),
        unary("f32_unary_floorf", -2.5, f(-3.0)),
        unary("f32_unary_roundf", -2.5, f(-3.0)),
        unary("f32_unary_rintf", 2.5, f(2.0)),
        unary("f32_unary_saturatef", 2.0, f(1.0)),
        unary("f32_unary_saturatef", f64::NAN, f(0.0)),
        unary("f32_unary_frcp_rd", 3.0, 0x3eaa_aaaa),
        unary("f32_unary_fsqrt_rd", 2.0, 0x3fb5_04f3),
        unary("f32_unary_fsqrt_ru", 2.0, 0x3fb5_04f4),
        binary("f32_binary_powf", 2.0, 10.0, f(1024.0)),
        binary("f32_binary_fadd_rz", 1.0, tiny, f(1.0)),
        binary("f32_binary_fadd_ru", 1.0, tiny, f(1.0f32.next_up())),
        binary("f32_binary_fsub_rd", 1.0, tiny, f(1.0f32.next_down())),
        binary("f32_binary_fdiv_rd", 1.0, 3.0, 0x3eaa_aaaa),
        binary("f32_binary_fdiv_ru", 1.0, 3.0, 0x3eaa_aaab),
        binary("f32_binary_div", 1.0, 3.0, 0x3eaa_aaab),
        binary("f32_binary_copysignf", 1.0, -0.0, f(-1.0)),
        binary("f32_binary_nextafterf", 1.0, 2.0, f(1.0f32.next_up())),
        binary("f32_binary_fdimf", 3.0, 5.0, f(0.0)),
        known(
            "f32_ternary_fmaf_rz",
            [
                f64::from(1.0f32 + f32::EPSILON),
                f64::from(1.0f32 - f32::EPSILON),
                0.0,
            ],
            0,
            out(0x3f7f_ffff),
        ),
        known("f32_ternary_fmaf", [2.0, 3.0, 4.0], 0, out(f(10.0))),
        known(
            "f32_extra_sincosf",
            [0.0; 3],
            0,
            vec![(Slot::Out, f(0.0)), (Slot::Out2, f(1.0))],
        ),
        known(
            "f32_extra_modff",
            [-3.25, 0.0, 0.0],
            0,
            vec![(Slot::Out, f(-0.25)), (Slot::Out2, f(-3.0))],
        ),
        known(
            "f32_extra_remquof",
            [7.0, 2.0, 0.0],
            0,
            vec![(Slot::Out, f(-1.0)), (Slot::Iout, 4)],
        ),
        known("f32_extra_float2int_rn", [2.5, 0.0, 0.0], 0, iout(2)),
        known("f32_extra_float2int_rd", [-2.5, 0.0, 0.0], 0, iout(-3)),
        known("f32_extra_float2int_ru", [-2.5, 0.0, 0.0], 0, iout(-2)),
        known(
            "f32_extra_float2ll_rz",
            [-1e30, 0.0, 0.0],
            0,
            iout(i64::MIN),
        ),
        known(
            "f32_extra_int2float_rz",
            [0.0; 3],
            0x7fff_ffff,
            out(0x4eff_ffff),
        ),
        known(
            "f32_extra_int2float_rn",
            [0.0; 3],
            0x7fff_ffff,
            out(0x4f00_0000),
        ),
        known(
            "f32_extra_i64_to_f32",
            [0.0; 3],
            (1 << 60) + (1 << 36) + 1,
            out(f(2f32.powi(60) + 2f32.powi(37))),
        ),
        known("f32_extra_int_as_float", [0.0; 3], 0x3f80_0000, out(f(1.0))),
        known(
            "f32_extra_float_as_int",
            [1.0, 0.0, 0.0],
            0,
            iout(0x3f80_0000),
        ),
        known("f32_extra_isnan", [f64::NAN, 0.0, 0.0], 0, iout(1)),
        known("f32_extra_signbit", [-0.0, 0.0, 0.0], 0, iout(1)),
        known("f32_extra_popc", [0.0; 3], 0xff, iout(8)),
        known("f32_extra_clz", [0.0; 3], 1, iout(31)),
        known("f32_extra_ffs", [0.0; 3], 8, iout(4)),
        known("f32_extra_brev", [0.0; 3], 1, iout(0x8000_0000)),
        known(
            "f32_extra_byte_perm",
            [0.0; 3],
            0x8877_6655_4433_2211u64 as i64,
            iout(0x6622_5511),
        ),
        known(
            "f32_extra_mulhi",
            [0.0; 3],
            (2 << 32) | 0xffff_ffff,
            iout(-1),
        ),
        known("f32_extra_sad", [0.0; 3], (5 << 32) | 0xffff_fffd, iout(15)),
        known("f32_extra_mul24", [0.0; 3], (-4i64 << 32) | 3, iout(-12)),
        known("f32_extra_rhadd", [0.0; 3], (4 << 32) | 3, iout(4)),
    ]
}

/// Known results ([`known_values`]) at thread level and in both lockstep
/// forms: a mistake of the executor that both runs share cannot pass
/// unnoticed there.
#[test]
fn libdevice_results_match_known_values() {
    let functions = functions_of_source();
    let Some((executors, _)) = executors() else {
        return;
    };
    let cases = known_values();
    let symbols: BTreeSet<&str> = cases.iter().map(|case| case.symbol).collect();
    let mut failures = Vec::new();
    for symbol in symbols {
        let function = functions
            .iter()
            .find(|function| function.symbol() == symbol)
            .unwrap_or_else(|| panic!("no kernel {symbol}"));
        let double = function.family.double();
        let cases: Vec<&Known> = cases.iter().filter(|case| case.symbol == symbol).collect();
        let column = |operand: usize| {
            cases
                .iter()
                .map(|case| bits(case.operands[operand], double))
                .collect()
        };
        let inputs = Inputs {
            x: column(0),
            y: column(1),
            z: column(2),
            k: cases.iter().map(|case| case.k as u64).collect(),
        };
        let (threads, undefined) = run_threads(&executors[0], function, &inputs);
        assert!(undefined.is_empty(), "{symbol}: undefined at thread level");
        let mut runs = vec![("thread level", threads)];
        for (what, executor) in [
            ("lane branches", &executors[1]),
            ("predicated", &executors[2]),
        ] {
            let (outputs, _) = run_warps(executor, function, &inputs)
                .unwrap_or_else(|error| panic!("{symbol}, {what}: {error}"));
            runs.push((what, outputs));
        }
        for (what, outputs) in &runs {
            for (index, case) in cases.iter().enumerate() {
                for &(slot, expected) in &case.expected {
                    let got = outputs.slot(slot, index);
                    if got != expected {
                        failures.push(format!(
                            "{} ({what}), {}: {slot:?} is {got:#x}, expected {expected:#x}",
                            function.name(),
                            inputs.describe(index, double)
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
