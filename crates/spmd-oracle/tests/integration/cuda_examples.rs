//! The CUDA examples built on NVIDIA's headers (cooperative groups,
//! `cuda_fp16.h`/`cuda_bf16.h`, texture and surface objects, libdevice's
//! double math), run by the executor against clang's own route.
//!
//! `examples/cuda/{cooperative-groups,half-precision,texture-object,
//! double-math}.cu` go through clang against NVIDIA's CUDA headers and
//! libdevice and the LLVM IR import ([`import_cuda`]). Each kernel then
//! runs three ways on the same inputs, each on a fresh memory:
//!
//! * the **reference**: clang's imported module itself, at thread level
//!   (each thread alone, [`Executor::run_grid_traced`]); for the
//!   cooperative-groups kernels, whose shuffles, votes, `redux.sync` and
//!   barriers need a warp, in lockstep warps that reconverge at immediate
//!   post-dominators ([`Reconvergence::ImmediatePostDominator`], the SIMT
//!   reference of thread-level code with collectives);
//! * spmd's `spmd-gpu-to-nvvm` output in lockstep warps, with lane branches
//!   (the default) and with every divergent branch predicated by exec masks
//!   (`lane-branches=false`), both with [`VotePoison::Poison`].
//!
//! Every output buffer must be bit-identical across the three runs, and so
//! must every thread's sequence of stores and atomics (surface writes
//! included). Launches have more than one CTA and, where the kernel allows
//! it, a partial last warp (the cooperative-groups tile kernels need whole
//! warps: there the last warps have lanes past `n`). The inputs make every
//! divergent branch go both ways inside warps, which the tests check on the
//! outputs and on the lockstep runs' divergence counts.
//!
//! So that a mistake of the executor shared by all three runs cannot pass
//! unnoticed, the outputs are also checked against the host: exactly where
//! the example's arithmetic is exact (integers; halves and quarters in
//! `f16`/`bf16`), to libdevice's documented accuracy (relative `1e-14`) for
//! the double math; against bit patterns computed independently (exact
//! rationals rounded to nearest even) for `f16` and `bf16` results that
//! round; and against the values each example's comment states.
//!
//! Textures and surfaces are the executor's model
//! ([`Memory::create_texture_1d`], [`Memory::create_surface_2d`]): a
//! linear texture over a harness buffer (fetches past its end read zeros,
//! [`TextureAddressMode::Border`], as CUDA's linear textures do; one launch
//! of `tex_chase` walks past the end of a short texture) and a pitched 2D
//! surface with byte x coordinates (its row padding must stay untouched).

use crate::common::{context, import_cuda, lower_to_nvvm, lower_to_nvvm_with, parse, Rng};
use spmd_oracle::{
    ElementType, ExecError, Executor, GridDims, MemRefId, Memory, NoTrace, Reconvergence,
    TextureAddressMode, Value, VotePoison, WarpStats,
};
use std::time::Instant;

/// Blocks a thread (or warp) may enter.
const FUEL: u64 = 1 << 20;

/// How the reference runs clang's module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reference {
    /// Each thread alone.
    Threads,
    /// SIMT warps reconverging at immediate post-dominators (kernels with
    /// warp collectives or barriers).
    SimtWarps,
}

/// One example's three executors.
struct Example {
    name: &'static str,
    reference: Reference,
    clang: Executor,
    /// spmd's pipeline with lane branches, then predicated.
    lowered: [Executor; 2],
}

impl Example {
    /// `examples/cuda/<name>.cu` imported and lowered both ways; `None`
    /// where this machine cannot run clang.
    fn load(name: &'static str, reference: Reference) -> Option<Self> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let text = import_cuda(&format!("{root}/examples/cuda/{name}.cu"))?;
        let context = context();
        let clang = Executor::new(&parse(&context, &text));
        let clang = match reference {
            Reference::Threads => clang,
            Reference::SimtWarps => clang.with_reconvergence(Reconvergence::ImmediatePostDominator),
        };
        let lowered = [
            lower_to_nvvm(&context, &text),
            lower_to_nvvm_with(&context, &text, false),
        ]
        .map(|module| Executor::new(&module).with_vote_poison(VotePoison::Poison));
        Some(Self {
            name,
            reference,
            clang,
            lowered,
        })
    }
}

/// What a launch's setup makes in a fresh memory: the kernel's arguments
/// (the same for every thread) and the buffers to compare.
struct Setup {
    args: Vec<Value>,
    outputs: Vec<MemRefId>,
}

/// The results of a launch: the reference's output buffers (equal, bit for
/// bit, to the lowered runs'), and the lockstep runs' counts (lane
/// branches, predicated).
struct Outcome {
    outputs: Vec<Vec<Value>>,
    stats: [WarpStats; 2],
}

impl Outcome {
    fn f32s(&self, output: usize) -> Vec<f32> {
        self.outputs[output]
            .iter()
            .map(|value| match value {
                Value::F32(float) => *float,
                other => panic!("{other} is no f32"),
            })
            .collect()
    }

    fn f64s(&self, output: usize) -> Vec<f64> {
        self.outputs[output]
            .iter()
            .map(|value| match value {
                Value::F64(float) => *float,
                other => panic!("{other} is no f64"),
            })
            .collect()
    }

    fn i32s(&self, output: usize) -> Vec<i32> {
        self.outputs[output]
            .iter()
            .map(|value| value.as_i64().expect("an integer") as i32)
            .collect()
    }
}

/// A grid of `grid` CTAs of `block` threads along x.
fn linear(block: u32, grid: u32) -> GridDims {
    GridDims {
        block_dim: [block, 1, 1],
        grid_dim: [grid, 1, 1],
        subgroup_size: 32,
    }
}

/// A pointer argument to `memref`'s buffer.
fn pointer(memory: &Memory, memref: MemRefId) -> Value {
    Value::Ptr(memory.pointer_to(memref).expect("allocated"))
}

/// The launch of a kernel `(const int *in, int *out, int n)`: `values` in,
/// `out` initialised to `out_init`, which is the output.
fn in_out_n(values: &[i32], out_init: &[i32], n: usize, memory: &mut Memory) -> Setup {
    let input = memory.alloc_i32(values);
    let out = memory.alloc_i32(out_init);
    Setup {
        args: vec![
            pointer(memory, input),
            pointer(memory, out),
            Value::i32(n as i32),
        ],
        outputs: vec![out],
    }
}

fn f32_buffer(memory: &mut Memory, values: &[f32]) -> MemRefId {
    let values: Vec<Value> = values.iter().map(|&x| Value::F32(x)).collect();
    memory
        .alloc_values(ElementType::F32, &values)
        .expect("f32s")
}

fn f64_buffer(memory: &mut Memory, values: &[f64]) -> MemRefId {
    let values: Vec<Value> = values.iter().map(|&x| Value::F64(x)).collect();
    memory
        .alloc_values(ElementType::F64, &values)
        .expect("f64s")
}

/// Runs `kernel` of `example` on `dims` the three ways, each on a fresh
/// memory from `setup`, and checks that they agree (panicking with the
/// first difference).
fn run(
    example: &Example,
    kernel: &str,
    dims: GridDims,
    setup: &dyn Fn(&mut Memory) -> Setup,
) -> Outcome {
    let what = format!(
        "{} {kernel} on {:?}x{:?}",
        example.name, dims.grid_dim, dims.block_dim
    );
    let mut memory = Memory::new();
    let Setup { args, outputs } = setup(&mut memory);
    match example.reference {
        Reference::Threads => {
            let grid = example.clang.run_grid_traced(
                kernel,
                &dims,
                &|_| args.clone(),
                &mut memory,
                &mut NoTrace,
                FUEL,
            );
            let failures: Vec<(usize, &ExecError)> = grid
                .outcomes
                .iter()
                .enumerate()
                .filter_map(|(thread, outcome)| outcome.as_ref().err().map(|e| (thread, e)))
                .collect();
            if let Some((thread, error)) = failures.first() {
                panic!("{what}, clang's module, thread {thread}: {error}");
            }
        }
        Reference::SimtWarps => {
            example
                .clang
                .run_grid_in_warps(kernel, &|_| args.clone(), &dims, &mut memory, FUEL)
                .unwrap_or_else(|error| panic!("{what}, clang's module in SIMT warps: {error}"));
        }
    }
    let contents = |memory: &Memory| -> Vec<Vec<Value>> {
        outputs
            .iter()
            .map(|&memref| memory.contents(memory.buffer_of(memref).expect("allocated")))
            .collect()
    };
    let expected = contents(&memory);
    let mut stats = [WarpStats::default(); 2];
    for (index, (form, executor)) in ["lane branches", "predicated"]
        .into_iter()
        .zip(&example.lowered)
        .enumerate()
    {
        let mut lowered = Memory::new();
        let Setup { args, .. } = setup(&mut lowered);
        let runs = executor
            .run_grid_in_warps(kernel, &|_| args.clone(), &dims, &mut lowered, FUEL)
            .unwrap_or_else(|error| panic!("{what}, spmd's pipeline ({form}): {error}"));
        for run in runs {
            stats[index] += run.stats;
        }
        for thread in 0..dims.num_threads() {
            let theirs: Vec<_> = memory.effects_of_thread(thread).collect();
            let ours: Vec<_> = lowered.effects_of_thread(thread).collect();
            assert!(
                ours.len() == theirs.len() && ours.iter().zip(&theirs).all(|(a, b)| a.same_as(b)),
                "{what}, spmd's pipeline ({form}), thread {thread}: effects {ours:?}, clang's \
                 {theirs:?}"
            );
        }
        for (output, (got, want)) in contents(&lowered).iter().zip(&expected).enumerate() {
            let first = got.iter().zip(want).position(|(a, b)| !a.same_as(*b));
            if let Some(index) = first {
                panic!(
                    "{what}, spmd's pipeline ({form}): output {output}[{index}] is {}, clang's {}",
                    got[index], want[index]
                );
            }
            assert_eq!(got.len(), want.len());
        }
    }
    Outcome {
        outputs: expected,
        stats,
    }
}

/// Asserts that `outcome`'s lane-branch run split warps.
fn assert_diverged(what: &str, outcome: &Outcome) {
    assert!(
        outcome.stats[0].divergent_guards > 0,
        "{what}: the lockstep warps never diverged: {:?}",
        outcome.stats[0]
    );
}

#[test]
fn cuda_examples_cooperative_groups() {
    let start = Instant::now();
    let Some(example) = Example::load("cooperative-groups", Reference::SimtWarps) else {
        return;
    };
    let mut rng = Rng(1);

    // cg_tile_summary: 3 CTAs of 64, n = 150: the fifth warp has 22 lanes
    // below n, the sixth none. Tiles with and without negative values,
    // with and without values of 100 or more, with repeated maxima.
    let n = 150usize;
    let values: Vec<i32> = (0..192)
        .map(|i| match (i / 32) % 3 {
            0 => rng.below(100) as i32,
            1 => rng.below(300) as i32 - 20,
            _ => [7, 99, 3, 99, 42][rng.below(5) as usize],
        })
        .collect();
    let summary = |values: Vec<i32>, n: usize| {
        move |memory: &mut Memory| in_out_n(&values, &vec![-7; 4 * values.len()], n, memory)
    };
    let outcome = run(
        &example,
        "cg_tile_summary",
        linear(64, 3),
        &summary(values.clone(), n),
    );
    let out = outcome.i32s(0);
    for tile in 0..6 {
        let members: Vec<i32> = (32 * tile..32 * tile + 32)
            .map(|i| if i < n { values[i] } else { 0 })
            .collect();
        let sum: i32 = members.iter().sum();
        let odd = members
            .iter()
            .enumerate()
            .fold(0u32, |bits, (lane, v)| bits | (((v & 1) as u32) << lane));
        let max = *members.iter().max().expect("32 lanes");
        for (lane, &v) in members.iter().enumerate() {
            let i = 32 * tile + lane;
            if i >= n {
                assert_eq!(&out[4 * i..4 * i + 4], &[-7; 4], "thread {i} past n wrote");
                continue;
            }
            let flags = i32::from(members.iter().any(|&v| v < 0))
                | (2 * i32::from(members.iter().all(|&v| v < 100)))
                | (4 * i32::from(v == max));
            assert_eq!(
                &out[4 * i..4 * i + 4],
                &[sum, sum, odd as i32, flags],
                "cg_tile_summary, thread {i}"
            );
        }
    }
    let flags: Vec<i32> = (0..n).map(|i| out[4 * i + 3]).collect();
    assert!(
        (0..8)
            .filter(|bit| flags.iter().any(|f| f & (1 << bit) != 0))
            .count()
            >= 3
    );
    // The comment's example: n = 32, in[i] = i.
    let outcome = run(
        &example,
        "cg_tile_summary",
        linear(32, 1),
        &summary((0..32).collect(), 32),
    );
    let out = outcome.i32s(0);
    for i in 0..32 {
        let flags = if i == 31 { 6 } else { 2 };
        assert_eq!(
            &out[4 * i..4 * i + 4],
            &[496, 496, 0xaaaa_aaaau32 as i32, flags]
        );
    }

    // cg_coalesced_count: only threads with positive values enter the
    // branch; 2 CTAs of 64 (n = 100: a warp with 4 lanes below n), then 3
    // CTAs of 48 (a partial warp of 16 lanes in each).
    let count = |values: Vec<i32>, n: usize| {
        move |memory: &mut Memory| {
            let input = memory.alloc_i32(&values);
            let out = memory.alloc_i32(&vec![-9; values.len()]);
            let counter = memory.alloc_i32(&[0]);
            Setup {
                args: vec![
                    pointer(memory, input),
                    pointer(memory, out),
                    pointer(memory, counter),
                    Value::i32(n as i32),
                ],
                outputs: vec![out, counter],
            }
        }
    };
    for (dims, n) in [(linear(64, 2), 100usize), (linear(48, 3), 140)] {
        let threads = dims.num_threads() as usize;
        let values: Vec<i32> = (0..threads)
            .map(|i| match i % 7 {
                0 | 3 => -(rng.below(5) as i32),
                _ => rng.below(9) as i32 - 2,
            })
            .collect();
        let outcome = run(
            &example,
            "cg_coalesced_count",
            dims,
            &count(values.clone(), n),
        );
        let (out, counter) = (outcome.i32s(0), outcome.i32s(1));
        let warp = 32.min(dims.block_dim[0] as usize);
        for i in 0..threads {
            let expected = if i >= n {
                -9
            } else if values[i] > 0 {
                let block = dims.block_dim[0] as usize;
                let first = i / block * block + (i % block) / warp * warp;
                let last = (first + warp).min(i / block * block + block).min(n);
                let size = (first..last).filter(|&j| values[j] > 0).count() as i32;
                let rank = (first..i).filter(|&j| values[j] > 0).count() as i32;
                1000 * size + rank
            } else {
                -1
            };
            assert_eq!(out[i], expected, "cg_coalesced_count, thread {i}");
        }
        let positives = values[..n].iter().filter(|&&v| v > 0).count() as i32;
        assert_eq!(counter, vec![positives]);
        assert!(out[..n].contains(&-1) && out[..n].iter().any(|&v| v >= 1000));
        assert_diverged("cg_coalesced_count", &outcome);
    }
    // The comment's example.
    let outcome = run(
        &example,
        "cg_coalesced_count",
        linear(32, 1),
        &count(vec![5, -1, 2, 0, 7, 7, -3, 1], 8),
    );
    assert_eq!(
        outcome.i32s(0),
        vec![5000, -1, 5001, -1, 5002, 5003, -1, 5004]
    );
    assert_eq!(outcome.i32s(1), vec![5]);

    // cg_block_sum: 3 CTAs of 128 over n = 300 (the comment's example with
    // ones, then random values).
    let block_sum = |values: Vec<i32>, n: usize| {
        move |memory: &mut Memory| in_out_n(&values, &[0; 3], n, memory)
    };
    let outcome = run(
        &example,
        "cg_block_sum",
        linear(128, 3),
        &block_sum(vec![1; 384], 300),
    );
    assert_eq!(outcome.i32s(0), vec![128, 128, 44]);
    let values: Vec<i32> = (0..384).map(|_| rng.below(2001) as i32 - 1000).collect();
    let outcome = run(
        &example,
        "cg_block_sum",
        linear(128, 3),
        &block_sum(values.clone(), 300),
    );
    let sums: Vec<i32> = (0..3)
        .map(|b| values[128 * b..(128 * b + 128).min(300)].iter().sum())
        .collect();
    assert_eq!(outcome.i32s(0), sums);
    assert!(outcome.stats.iter().all(|stats| stats.barriers > 0));
    assert_diverged("cg_block_sum", &outcome);
    eprintln!("cooperative-groups: {:.2}s", start.elapsed().as_secs_f64());
}

/// The `f32` of the half with bits `bits` (a normal or zero half).
fn half(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let fraction = f32::from(bits & 0x3ff) / 1024.0;
    sign * (1.0 + fraction) * 2f32.powi(exponent - 15)
}

#[test]
fn cuda_examples_half_precision() {
    let start = Instant::now();
    let Some(example) = Example::load("half-precision", Reference::Threads) else {
        return;
    };
    let mut rng = Rng(2);

    // half_clamp_square: 3 CTAs of 48 (a partial warp of 16 in each),
    // n = 130. Quarters in [-6, 6] (exact in half: the expected values are
    // the host's), then values that round: 0.1, 1/3, 2.7182817, ...
    let (scale, limit) = (2.0f32, 8.0f32);
    let mut values: Vec<f32> = (0..144).map(|_| rng.below(49) as f32 / 4.0 - 6.0).collect();
    let inexact = [
        0.1f32,
        1.0 / 3.0,
        -2.718_281_7,
        3.999,
        -4.001,
        1e-3,
        5e-8,
        70000.0,
    ];
    for (slot, &value) in inexact.iter().enumerate() {
        values[100 + slot] = value;
    }
    let n = 130;
    let clamp = |values: Vec<f32>, n: i32| {
        move |memory: &mut Memory| {
            let input = f32_buffer(memory, &values);
            let out = f32_buffer(memory, &vec![-99.0; values.len()]);
            Setup {
                args: vec![
                    pointer(memory, input),
                    pointer(memory, out),
                    Value::i32(n),
                    Value::F32(scale),
                    Value::F32(limit),
                ],
                outputs: vec![out],
            }
        }
    };
    let outcome = run(
        &example,
        "half_clamp_square",
        linear(48, 3),
        &clamp(values.clone(), n),
    );
    assert_diverged("half_clamp_square", &outcome);
    let out = outcome.f32s(0);
    let mut sides = [0; 3];
    for (i, &x) in values.iter().enumerate() {
        if i >= n as usize {
            assert_eq!(out[i], -99.0, "thread {i} past n wrote");
            continue;
        }
        let h = x * scale;
        let (expected, side) = if h > limit {
            (limit, 0)
        } else if h < -limit {
            (-limit, 1)
        } else {
            (h * h + 0.25, 2)
        };
        if i < 100 {
            sides[side] += 1;
            assert_eq!(out[i], expected, "half_clamp_square, in = {x}");
        }
    }
    assert!(sides.iter().all(|&count| count > 5), "{sides:?}");
    // Rounded: 0.1 is the half 0x2e66, doubled 0x3266; 0x3266^2 + 0.25 =
    // 0.28998047... rounds once to the half 0x34a4 = 0.2900390625.
    assert_eq!(out[100], half(0x34a4));
    assert_eq!(half(0x34a4), 0.290_039_06);
    // 70000 is no half (inf), above the limit.
    assert_eq!(out[107], limit);
    // The comment's example.
    let outcome = run(
        &example,
        "half_clamp_square",
        linear(32, 1),
        &clamp(vec![1.0, 5.0, -6.0, 0.5], 4),
    );
    assert_eq!(outcome.f32s(0), vec![4.25, 8.0, -8.0, 1.25]);
    // Products that round to half: scale 1.1 is the half 0x3c66; e.g.
    // 3.3h * 1.1h = 3.6305... rounds to 0x4342 = 3.62890625, whose square
    // plus 0.25 rounds once to 13.421875. (The bits: exact rationals
    // rounded to nearest even by an independent implementation.)
    let scaled = |values: Vec<f32>| {
        let setup = clamp(values, 4);
        move |memory: &mut Memory| {
            let mut made = setup(memory);
            made.args[3] = Value::F32(1.1);
            made
        }
    };
    let outcome = run(
        &example,
        "half_clamp_square",
        linear(32, 1),
        &scaled(vec![3.3, -0.45, 7.7, 2.2]),
    );
    assert_eq!(
        outcome.f32s(0),
        vec![13.421_875, 0.494_873_05, 8.0, 6.097_656_3]
    );

    // half2_sum_product: 2 CTAs of 48 over n2 = 80 pairs; halves in
    // [-4, 4] (exact), the sign of a[2i] picks the branch.
    let pairs = 96;
    let a: Vec<f32> = (0..2 * pairs)
        .map(|_| rng.below(17) as f32 / 2.0 - 4.0)
        .collect();
    let b: Vec<f32> = (0..2 * pairs)
        .map(|_| rng.below(17) as f32 / 2.0 - 4.0)
        .collect();
    let sum_product = |a: Vec<f32>, b: Vec<f32>, n2: i32| {
        move |memory: &mut Memory| {
            let (x, y) = (f32_buffer(memory, &a), f32_buffer(memory, &b));
            let out = f32_buffer(memory, &vec![-99.0; a.len()]);
            Setup {
                args: vec![
                    pointer(memory, x),
                    pointer(memory, y),
                    pointer(memory, out),
                    Value::i32(n2),
                ],
                outputs: vec![out],
            }
        }
    };
    let n2 = 80;
    let outcome = run(
        &example,
        "half2_sum_product",
        linear(48, 2),
        &sum_product(a.clone(), b.clone(), n2),
    );
    assert_diverged("half2_sum_product", &outcome);
    let out = outcome.f32s(0);
    for i in 0..2 * pairs {
        let pair = i / 2;
        let expected = if pair >= n2 as usize {
            -99.0
        } else if a[2 * pair] >= 0.0 {
            (a[i] + b[i]) + a[i] * b[i]
        } else {
            (a[i] + b[i]) - a[i] * b[i]
        };
        assert_eq!(out[i], expected, "half2_sum_product, element {i}");
    }
    let negative = (0..n2 as usize).filter(|&p| a[2 * p] < 0.0).count();
    assert!(negative > 10 && negative < 70);
    let outcome = run(
        &example,
        "half2_sum_product",
        linear(32, 1),
        &sum_product(vec![1.0, 2.0, -1.0, 3.0], vec![3.0, 4.0, 2.0, 0.5], 2),
    );
    assert_eq!(outcome.f32s(0), vec![7.0, 14.0, 3.0, 2.0]);
    // Sums and products that round to half, lane by lane: (0.1h + 1/3h)
    // + 0.1h * 1/3h = 0.43310546875 + 0.0333251953125 -> 0.46630859375.
    let outcome = run(
        &example,
        "half2_sum_product",
        linear(32, 1),
        &sum_product(
            vec![0.1, -0.7, -0.1, 0.7],
            vec![1.0 / 3.0, 2.9, 1.0 / 3.0, 2.9],
            2,
        ),
    );
    assert_eq!(
        outcome.f32s(0),
        vec![0.466_308_6, 0.167_968_75, 0.266_601_56, 1.570_312_5]
    );

    // bf16_relu_axpy: 3 CTAs of 48, n = 140; halves in [-8, 8] (exact in
    // bf16), then values that round (bf16 keeps 8 bits).
    let mut x: Vec<f32> = (0..144).map(|_| rng.below(33) as f32 / 2.0 - 8.0).collect();
    let mut y: Vec<f32> = (0..144).map(|_| rng.below(33) as f32 / 2.0 - 8.0).collect();
    x[120] = 0.1;
    y[120] = 1.0 / 3.0;
    x[121] = 257.0;
    y[121] = 0.5;
    let axpy = |x: Vec<f32>, y: Vec<f32>, n: i32, a: f32| {
        move |memory: &mut Memory| {
            let (xs, ys) = (f32_buffer(memory, &x), f32_buffer(memory, &y));
            let out = f32_buffer(memory, &vec![-99.0; x.len()]);
            Setup {
                args: vec![
                    pointer(memory, xs),
                    pointer(memory, ys),
                    pointer(memory, out),
                    Value::i32(n),
                    Value::F32(a),
                ],
                outputs: vec![out],
            }
        }
    };
    let outcome = run(
        &example,
        "bf16_relu_axpy",
        linear(48, 3),
        &axpy(x.clone(), y.clone(), 140, 2.0),
    );
    assert_diverged("bf16_relu_axpy", &outcome);
    let out = outcome.f32s(0);
    for i in 0..120 {
        let expected = if x[i] > 0.0 { 2.0 * x[i] + y[i] } else { y[i] };
        assert_eq!(
            out[i], expected,
            "bf16_relu_axpy, x = {}, y = {}",
            x[i], y[i]
        );
    }
    assert_eq!(out[140..], [-99.0; 4]);
    // bf16(0.1) = 0x3dcd, bf16(1/3) = 0x3eab: 2 * 0x3dcd + 0x3eab =
    // 0.5341796875 (136.75 units of 2^-8) rounds once to 0x3f09 =
    // 0.53515625.
    assert_eq!(out[120], f32::from_bits(0x3f09_0000));
    assert_eq!(out[120], 0.535_156_25);
    // 257 is no bf16: it rounds to 256 (a tie, to even); 512.5 rounds to
    // 512.
    assert_eq!(out[121], 512.0);
    let outcome = run(
        &example,
        "bf16_relu_axpy",
        linear(32, 1),
        &axpy(vec![1.0, -1.0, 3.0], vec![0.5, 4.0, -2.0], 3, 2.0),
    );
    assert_eq!(outcome.f32s(0), vec![2.5, 4.0, 4.0]);
    eprintln!("half-precision: {:.2}s", start.elapsed().as_secs_f64());
}

#[test]
fn cuda_examples_texture_object() {
    let start = Instant::now();
    let Some(example) = Example::load("texture-object", Reference::Threads) else {
        return;
    };
    let mut rng = Rng(3);

    // tex_gather: a float texture of 40 texels; indices in [-6, 46), so
    // that about a quarter of the threads fetch nothing; 3 CTAs of 48, n =
    // 130. `tex_len` is the texture's length.
    let texels: Vec<f32> = (0..40).map(|k| k as f32 * 1.5 - 7.0).collect();
    let gather = |texels: Vec<f32>, indices: Vec<i32>, n: i32| {
        move |memory: &mut Memory| {
            let buffer = f32_buffer(memory, &texels);
            let texture = memory
                .create_texture_1d(buffer, TextureAddressMode::Border)
                .expect("a texture");
            let idx = memory.alloc_i32(&indices);
            let out = f32_buffer(memory, &vec![-99.0; indices.len()]);
            Setup {
                args: vec![
                    Value::i64(texture as i64),
                    pointer(memory, idx),
                    pointer(memory, out),
                    Value::i32(n),
                    Value::i32(texels.len() as i32),
                ],
                outputs: vec![out],
            }
        }
    };
    let indices: Vec<i32> = (0..144).map(|_| rng.below(52) as i32 - 6).collect();
    let outcome = run(
        &example,
        "tex_gather",
        linear(48, 3),
        &gather(texels.clone(), indices.clone(), 130),
    );
    assert_diverged("tex_gather", &outcome);
    let out = outcome.f32s(0);
    for (i, &j) in indices.iter().enumerate() {
        let expected = match i {
            130.. => -99.0,
            _ if (0..40).contains(&j) => 2.0 * texels[j as usize],
            _ => -1.0,
        };
        assert_eq!(out[i], expected, "tex_gather, idx = {j}");
    }
    let misses = indices[..130]
        .iter()
        .filter(|j| !(0..40).contains(*j))
        .count();
    assert!(misses > 10 && misses < 60, "{misses}");
    let outcome = run(
        &example,
        "tex_gather",
        linear(32, 1),
        &gather(vec![10.0, 20.0, 30.0], vec![2, -1, 0, 7], 4),
    );
    assert_eq!(outcome.f32s(0), vec![60.0, -1.0, 20.0, -1.0]);

    // tex_chase: an int texture of n = 80 texels, each -1 (a stop) or
    // another index, with cycles: each thread walks its own number of
    // steps, up to max_steps = 16. 2 CTAs of 48.
    let chase = |texels: Vec<i32>, n: i32, max_steps: i32| {
        move |memory: &mut Memory| {
            let buffer = memory.alloc_i32(&texels);
            let texture = memory
                .create_texture_1d(buffer, TextureAddressMode::Border)
                .expect("a texture");
            let out = memory.alloc_i32(&vec![-9; 96]);
            Setup {
                args: vec![
                    Value::i64(texture as i64),
                    pointer(memory, out),
                    Value::i32(n),
                    Value::i32(max_steps),
                ],
                outputs: vec![out],
            }
        }
    };
    let n = 80;
    let links: Vec<i32> = (0..n)
        .map(|_| match rng.below(6) {
            0 => -1,
            _ => rng.below(n as u64) as i32,
        })
        .collect();
    // The host's walk; texels past the texture read 0 (the border).
    let walk = |links: &[i32], start: usize| {
        let (mut position, mut steps) = (start, 0);
        while steps < 16 {
            let next = links.get(position).copied().unwrap_or(0);
            if next < 0 {
                break;
            }
            position = next as usize;
            steps += 1;
        }
        steps
    };
    // Then a texture of 60 texels for the same 80 threads: the last 20
    // start past its end, and links may lead there; those fetches read 0
    // (TextureAddressMode::Border), a link to texel 0, which stops the walk
    // (where clamping to the edge would read texel 59, a self-loop).
    let mut short = links[..60].to_vec();
    short[0] = -1;
    short[59] = 59;
    for texels in [links.clone(), short] {
        let outcome = run(
            &example,
            "tex_chase",
            linear(48, 2),
            &chase(texels.clone(), n, 16),
        );
        assert_diverged("tex_chase", &outcome);
        let out = outcome.i32s(0);
        for (i, &steps) in out.iter().enumerate() {
            let expected = if i >= n as usize {
                -9
            } else {
                walk(&texels, i)
            };
            let length = texels.len();
            assert_eq!(steps, expected, "tex_chase, {length} texels, thread {i}");
        }
        let distinct: std::collections::BTreeSet<i32> = out[..n as usize].iter().copied().collect();
        assert!(
            distinct.len() >= 4 && distinct.contains(&16),
            "{distinct:?}"
        );
        if texels.len() == 60 {
            assert_eq!(
                out[60..80],
                [1; 20],
                "past the texture: one step to texel 0"
            );
        }
    }
    for (links, n, expected) in [
        (vec![1, 2, -1, 0], 4, vec![2, 1, 0, 3]),
        (vec![1, 0], 2, vec![16, 16]),
    ] {
        let outcome = run(&example, "tex_chase", linear(32, 1), &chase(links, n, 16));
        assert_eq!(outcome.i32s(0)[..n as usize], expected);
    }

    // surf_write: a 2D launch of 3 x 2 CTAs of 16 x 3 threads (48: a
    // partial warp) over a 40 x 5 surface whose rows are 64 floats apart
    // (the padding must stay as it was), values of both signs.
    let surface = |values: Vec<f32>, width: u64, height: u64, pitch: u64| {
        move |memory: &mut Memory| {
            let rows = f32_buffer(memory, &vec![-7.0; (height * pitch) as usize]);
            let handle = memory
                .create_surface_2d(rows, width, height, 4 * pitch)
                .expect("a surface");
            let input = f32_buffer(memory, &values);
            let written = memory.alloc_i32(&vec![-9; values.len()]);
            Setup {
                args: vec![
                    Value::i64(handle as i64),
                    pointer(memory, input),
                    pointer(memory, written),
                    Value::i32(width as i32),
                    Value::i32(height as i32),
                ],
                outputs: vec![rows, written],
            }
        }
    };
    let (width, height, pitch) = (40usize, 5usize, 64usize);
    let values: Vec<f32> = (0..width * height)
        .map(|_| rng.below(41) as f32 / 4.0 - 5.0)
        .collect();
    let dims = GridDims {
        block_dim: [16, 3, 1],
        grid_dim: [3, 2, 1],
        subgroup_size: 32,
    };
    let outcome = run(
        &example,
        "surf_write",
        dims,
        &surface(values.clone(), width as u64, height as u64, pitch as u64),
    );
    assert_diverged("surf_write", &outcome);
    let (rows, written) = (outcome.f32s(0), outcome.i32s(1));
    for y in 0..height {
        for x in 0..pitch {
            let expected = match values.get(y * width + x) {
                _ if x >= width => -7.0,
                Some(&v) if v >= 0.0 => v + 0.5,
                _ => 0.0,
            };
            assert_eq!(rows[y * pitch + x], expected, "surface ({x}, {y})");
        }
    }
    for (k, &v) in values.iter().enumerate() {
        assert_eq!(written[k], i32::from(v >= 0.0));
    }
    let negative = values.iter().filter(|&&v| v < 0.0).count();
    assert!(negative > 40 && negative < 160);
    let outcome = run(
        &example,
        "surf_write",
        linear(32, 1),
        &surface(vec![1.0, -3.0, 0.0], 3, 1, 3),
    );
    assert_eq!(outcome.f32s(0), vec![1.5, 0.0, 0.5]);
    assert_eq!(outcome.i32s(1), vec![1, 0, 1]);
    eprintln!("texture-object: {:.2}s", start.elapsed().as_secs_f64());
}

/// `|got - want| <= 1e-14 |want|` (NaN for NaN).
fn close(got: f64, want: f64) -> bool {
    (got.is_nan() && want.is_nan()) || (got - want).abs() <= 1e-14 * want.abs()
}

#[test]
fn cuda_examples_double_math() {
    let start = Instant::now();
    let Some(example) = Example::load("double-math", Reference::Threads) else {
        return;
    };
    let mut rng = Rng(4);
    let doubles = |values: Vec<f64>, outputs: usize, extra: Option<i32>| {
        move |memory: &mut Memory| {
            let input = f64_buffer(memory, &values);
            let out = f64_buffer(memory, &vec![-99.0; outputs]);
            let mut args = vec![
                pointer(memory, input),
                pointer(memory, out),
                Value::i32(values.len() as i32),
            ];
            args.extend(extra.map(Value::i32));
            Setup {
                args,
                outputs: vec![out],
            }
        }
    };

    // piecewise_math: 3 CTAs of 48 (a partial warp each), n = 144: values
    // from every range, mixed within warps, and NaN, infinities, huge.
    let mut values: Vec<f64> = (0..144)
        .map(|_| match rng.below(5) {
            0 => rng.uniform(-60.0, -10.0),
            1 => rng.uniform(-10.0, 0.0),
            2 => rng.uniform(0.0, 1.0),
            3 => rng.uniform(1.0, 100.0),
            _ => rng.uniform(100.0, 1e6),
        })
        .collect();
    values[..8].copy_from_slice(&[
        -20.0,
        -1.0,
        0.25,
        4.0,
        200.0,
        f64::NAN,
        f64::INFINITY,
        1e300,
    ]);
    values[8] = f64::NEG_INFINITY;
    let outcome = run(
        &example,
        "piecewise_math",
        linear(48, 3),
        &doubles(values.clone(), 144, None),
    );
    assert_diverged("piecewise_math", &outcome);
    let out = outcome.f64s(0);
    for (i, &x) in values.iter().enumerate() {
        let expected = if x < -10.0 {
            (x / 10.0).exp()
        } else if x < 0.0 {
            x.atan() + x.sin()
        } else if x < 1.0 {
            x.sqrt() * x.cos()
        } else if x < 100.0 {
            x.ln() + x.powf(1.5)
        } else {
            x.floor().atan2(7.0)
        };
        assert!(
            close(out[i], expected),
            "piecewise_math({x}) = {}, expected {expected}",
            out[i]
        );
    }
    let example_values = [
        0.1353352832366127,
        -1.626869148205345,
        0.4844562108553224,
        9.386_294_361_119_89,
        1.535810607966371,
    ];
    for (got, want) in out.iter().zip(example_values) {
        assert!(close(*got, want), "{got} != {want}");
    }

    // newton_cbrt: per-thread trip counts (and a[i] <= 0: none); 2 CTAs
    // of 48, n = 90.
    let mut cubes: Vec<f64> = (0..90)
        .map(|_| match rng.below(4) {
            0 => -rng.uniform(0.0, 10.0),
            1 => rng.uniform(0.0, 1.0),
            2 => rng.uniform(1.0, 1e3),
            _ => rng.uniform(1e3, 1e9),
        })
        .collect();
    cubes[..5].copy_from_slice(&[27.0, 1e-3, 8.0, 1000.0, -5.0]);
    let outcome = run(
        &example,
        "newton_cbrt",
        linear(48, 2),
        &doubles(cubes.clone(), 180, None),
    );
    assert_diverged("newton_cbrt", &outcome);
    let out = outcome.f64s(0);
    let mut trips = std::collections::BTreeSet::new();
    for (i, &v) in cubes.iter().enumerate() {
        let (root, steps) = (out[2 * i], out[2 * i + 1]);
        if v <= 0.0 {
            assert_eq!((root, steps), (0.0, 0.0));
            continue;
        }
        // The host's iteration, in plain double arithmetic.
        let (mut y, mut host_steps) = (1.0 + v / 3.0, 0);
        while host_steps < 50 {
            let step = (y * y * y - v) / (3.0 * y * y);
            y -= step;
            host_steps += 1;
            if step.abs() <= 1e-15 * y.abs() {
                break;
            }
        }
        assert!(
            (root - v.cbrt()).abs() <= 1e-14 * v.cbrt(),
            "cbrt({v}) = {root}"
        );
        assert!(
            (steps - f64::from(host_steps)).abs() <= 1.0,
            "cbrt({v}): {steps} steps"
        );
        trips.insert(steps as i64);
    }
    assert!(trips.len() >= 5, "{trips:?}");
    for (i, (root, steps)) in [
        (3.0, 9.0),
        (0.1, 11.0),
        (2.0, 7.0),
        (10.0, 14.0),
        (0.0, 0.0),
    ]
    .into_iter()
    .enumerate()
    {
        assert!((out[2 * i] - root).abs() <= 1e-14, "{}", out[2 * i]);
        assert!((out[2 * i + 1] - steps).abs() <= 1.0, "{}", out[2 * i + 1]);
    }

    // decaying_series: weights in [0, 1) (0 stops at once), m = 60 terms
    // at most: 0.9^k never underflows, 1e-6^k does after 50.
    let mut weights: Vec<f64> = (0..100)
        .map(|_| match rng.below(3) {
            0 => rng.uniform(0.0, 1.0),
            1 => rng.uniform(0.0, 1e-4),
            _ => rng.uniform(0.9, 1.0),
        })
        .collect();
    weights[..2].copy_from_slice(&[0.0, 0.5]);
    let outcome = run(
        &example,
        "decaying_series",
        linear(48, 3),
        &doubles(weights.clone(), 100, Some(60)),
    );
    assert_diverged("decaying_series", &outcome);
    let out = outcome.f64s(0);
    for (i, &w) in weights.iter().enumerate() {
        let (mut sum, mut magnitude) = (0.0f64, 0.0f64);
        for k in 0..60 {
            let weight = w.powf(f64::from(k));
            if k > 0 && weight.abs() < 1e-300 {
                break;
            }
            sum += weight * (f64::from(k) * 0.5).sin();
            magnitude += (weight * (f64::from(k) * 0.5).sin()).abs();
        }
        assert!(
            (out[i] - sum).abs() <= 1e-14 * magnitude,
            "series({w}) = {}, expected {sum}",
            out[i]
        );
    }
    let outcome = run(
        &example,
        "decaying_series",
        linear(32, 1),
        &doubles(vec![0.0, 0.5], 2, Some(3)),
    );
    let out = outcome.f64s(0);
    assert_eq!(out[0], 0.0);
    assert!(close(out[1], 0.4500805155040756), "{}", out[1]);
    eprintln!("double-math: {:.2}s", start.elapsed().as_secs_f64());
}
