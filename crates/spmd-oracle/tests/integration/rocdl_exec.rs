//! The differential below the spmd level for AMDGPU: random kernels through
//! the whole `spmd-gpu-to-rocdl` pipeline (reconverge, predicate,
//! lower-to-rocdl, upstream conversions), executed as LLVM+ROCDL code in
//! lockstep waves, against the thread-level run of the original kernel. The
//! AMDGPU counterpart of `nvvm_exec.rs`. Even seeds keep lane branches (the
//! pipeline's default: divergent branches over code that needs no
//! converged lanes, which the backend lowers with its own exec-mask code and
//! the executor runs as a diverged group), and every other one of them
//! (seed 2 mod 4) also leaves work shared by both sides of a branch under
//! it (`spmd.lane_shared_work`, what `spmd-compile --shared-work` chooses
//! per kernel); odd seeds make every divergent branch exec-mask code
//! (`lane-branches=false`).
//!
//! Both front doors are checked: the `gpu.func` rendering of each kernel
//! (the lowered kernel is the `llvm.func` inside the `gpu.module`, its
//! memref arguments expanded to descriptors) and the AMDGPU LLVM-dialect
//! rendering ([`RandomKernel::amdgpu_llvm_text`]: an `llvm.func
//! amdgpu_kernelcc` as the LLVM IR import gives HIP's output, lowered in
//! place). Both wave sizes are checked: 64 lanes (`gfx90a`) and 32
//! (`gfx1100`). For each launch size (two full waves, and one full wave
//! followed by one of 16 lanes: 128 and 80 threads in waves of 64, 64 and
//! 48 in waves of 32) and each `%n`, both programs run on fresh memories
//! with the same `%out` and `%ret` buffers, and:
//! * every thread performs exactly the same stores, in the same order, with
//!   the same values (so every `%ret[tid]` and every `%out` element agree);
//! * the final `%out` and `%ret` buffers are equal;
//! * the lockstep run never diverges outside a lane guard (the per-lane
//!   guards of side effects, branches on a lane's bit of an exec mask, lane
//!   branches),
//!   and the operands that AMDGPU keeps in scalar registers (the masks of
//!   `llvm.amdgcn.inverse.ballot`) are the same in every executing lane
//!   (checked inside [`Executor::run_cta`]).
//!
//! Ballots run with [`VotePoison::Poison`], LLVM's own semantics: a lane
//! whose predicate is poison makes the ballot poison.
//!
//! `SPMD_ROCDL_EXEC_SEEDS=<n>` sets the seeds per shape class (default
//! [`DEFAULT_SEEDS`]); the counts, and the operations the lowered kernels
//! issued per wave ([`WarpStats::issued_ops`]), are printed at the end for
//! each wave size.
//!
//! [`ROCDL_OPS_KERNEL`] checks the AMDGPU wave operations directly, in a
//! partial wave and in a diverged group, in both spellings (ROCDL ops and
//! `llvm.amdgcn.*` intrinsics); [`typed_errors_of_wave_operations`] and
//! [`poison_ballots_and_unsupported_operations`] what the executor reports
//! for their misuse.

use crate::common::{context, first_difference, lower_to_rocdl, parse, Form, RocdlRoute, Wave};
use spmd_oracle::{
    ExecError, Executor, GridDims, KernelShape, MemRefId, Memory, NoTrace, PoisonUse, RandomKernel,
    ThreadId, Value, VotePoison, WarpError, WarpStats,
};

const FUEL: u64 = 200_000;
const INPUTS: [i32; 3] = [0, 9, 40];
const DEFAULT_SEEDS: u64 = 10;

fn seeds_per_class() -> u64 {
    spmd::testing::seed_count("SPMD_ROCDL_EXEC_SEEDS", DEFAULT_SEEDS)
}

/// The launch sizes for `wave`: two full waves, and a full wave and a
/// partial one of 16 lanes.
fn launches(wave: Wave) -> [u32; 2] {
    [2 * wave.size, wave.size + 16]
}

/// A launch of one CTA of `threads` threads in waves of `wave`.
fn dims(threads: u32, wave: Wave) -> GridDims {
    GridDims {
        subgroup_size: wave.size,
        ..GridDims::linear(threads)
    }
}

/// The two front doors of `spmd-gpu-to-rocdl` for a random kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AmdForm {
    /// [`RandomKernel::gpu_text`].
    Gpu,
    /// [`RandomKernel::amdgpu_llvm_text`], whose arguments are those of the
    /// NVVM LLVM-dialect form.
    Llvm,
}

impl AmdForm {
    fn text(self, kernel: &RandomKernel) -> &str {
        match self {
            Self::Gpu => &kernel.gpu_text,
            Self::Llvm => &kernel.amdgpu_llvm_text,
        }
    }

    /// The kernel's arguments (see [`Form::arguments`]).
    fn arguments(
        self,
        memory: &Memory,
        out: MemRefId,
        n: i32,
        ret: MemRefId,
        lowered: bool,
    ) -> Vec<Value> {
        let form = match self {
            Self::Gpu => Form::Gpu,
            Self::Llvm => Form::Llvm,
        };
        form.arguments(memory, out, n, ret, lowered)
    }
}

/// A fresh memory with `%out` and `%ret`.
fn buffers(kernel: &RandomKernel, threads: u32) -> (Memory, MemRefId, MemRefId) {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; kernel.out_len(threads) as usize]);
    let ret = memory.alloc_i32(&vec![0; threads as usize]);
    (memory, out, ret)
}

/// One launch: the kernel, its form, the launch and `%n`.
#[derive(Clone, Copy)]
struct Launch<'k> {
    kernel: &'k RandomKernel,
    form: AmdForm,
    dims: GridDims,
    n: i32,
}

/// The thread-level run of the original kernel, thread 0 first.
fn run_threads(
    executor: &Executor,
    launch: Launch,
) -> Result<(Memory, MemRefId, MemRefId), String> {
    let threads = launch.dims.threads_per_block();
    let (mut memory, out, ret) = buffers(launch.kernel, threads);
    let args = launch.form.arguments(&memory, out, launch.n, ret, false);
    for t in 0..threads {
        executor
            .run_thread(
                "kernel",
                &args,
                ThreadId::from_linear(t, &launch.dims),
                &launch.dims,
                &mut memory,
                &mut NoTrace,
                FUEL,
            )
            .map_err(|error| format!("thread {t} of the original: {error}"))?;
    }
    Ok((memory, out, ret))
}

/// The lockstep run of the lowered `llvm.func`.
fn run_waves(executor: &Executor, launch: Launch) -> Result<(Memory, WarpStats), WarpError> {
    let threads = launch.dims.threads_per_block();
    let (mut memory, out, ret) = buffers(launch.kernel, threads);
    let args = launch.form.arguments(&memory, out, launch.n, ret, true);
    let run = executor.run_cta(
        "kernel",
        &|_| args.clone(),
        &launch.dims,
        [0, 0, 0],
        &mut memory,
        FUEL,
    )?;
    Ok((memory, run.stats))
}

/// Compares every launch and input of one kernel in one form and wave
/// size; the number of runs, or the first failure.
fn check_kernel(
    context: &melior::Context,
    kernel: &RandomKernel,
    form: AmdForm,
    wave: Wave,
    route: RocdlRoute,
    stats: &mut WarpStats,
) -> Result<usize, String> {
    let original = parse(context, form.text(kernel));
    let lowered = lower_to_rocdl(context, form.text(kernel), wave, route);
    let thread_level = Executor::new(&original);
    let wave_level = Executor::new(&lowered).with_vote_poison(VotePoison::Poison);
    let mut runs = 0;
    for threads in launches(wave) {
        for n in INPUTS {
            let launch = Launch {
                kernel,
                form,
                dims: dims(threads, wave),
                n,
            };
            let context = |error: String| format!("{form:?}, {threads} threads, n={n}: {error}");
            let expected = run_threads(&thread_level, launch).map_err(context)?;
            let (actual, run_stats) =
                run_waves(&wave_level, launch).map_err(|error| context(error.to_string()))?;
            first_difference(threads, &expected, &actual).map_err(context)?;
            *stats += run_stats;
            runs += 1;
        }
    }
    Ok(runs)
}

/// What one wave size's share of the differential did.
#[derive(Default)]
struct Totals {
    kernels: usize,
    runs: usize,
    failures: Vec<String>,
    stats: WarpStats,
}

/// Every seed and shape class, both forms, in waves of `wave`.
fn check_wave(context: &melior::Context, wave: Wave) -> Totals {
    let mut totals = Totals::default();
    for seed in 0..seeds_per_class() {
        for (class, shape) in KernelShape::classes(3 + (seed as usize * 7) % 24) {
            let kernel = RandomKernel::build(seed * 37 + 11, &shape);
            let route = RocdlRoute {
                lane_branches: seed % 2 == 0,
                lane_shared_work: seed % 4 == 2,
            };
            for form in [AmdForm::Gpu, AmdForm::Llvm] {
                match check_kernel(context, &kernel, form, wave, route, &mut totals.stats) {
                    Ok(count) => totals.runs += count,
                    Err(message) => {
                        if std::env::var_os("SPMD_ROCDL_EXEC_DUMP").is_some() {
                            eprintln!("{class} seed {seed}: {message}\n{}", form.text(&kernel));
                        }
                        totals.failures.push(format!(
                            "wave{} {class} seed {seed} (kernel seed {}, {route:?}): {message}",
                            wave.size, kernel.seed
                        ));
                    }
                }
                totals.kernels += 1;
            }
        }
    }
    totals
}

#[test]
fn rocdl_lockstep_execution_matches_thread_level_on_random_kernels() {
    let context = context();
    let mut failures = Vec::new();
    for wave in [Wave::W64, Wave::W32] {
        let totals = check_wave(&context, wave);
        let stats = totals.stats;
        eprintln!(
            "rocdl_exec wave{} ({}): {} lowered kernels, {} lockstep runs, {} mismatches; \
             {} operations issued by {} waves ({:.1} per wave); {stats:?}",
            wave.size,
            wave.chipset,
            totals.kernels,
            totals.runs,
            totals.failures.len(),
            stats.issued_ops,
            stats.waves,
            stats.issued_ops as f64 / stats.waves.max(1) as f64,
        );
        if totals.failures.is_empty() {
            assert!(stats.collectives > 0 && stats.divergent_guards > 0 && stats.waves > 0);
        }
        failures.extend(totals.failures);
    }
    assert!(
        failures.is_empty(),
        "{} kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Output slots per thread of [`ROCDL_OPS_KERNEL`].
const OPS_SLOTS: u32 = 7;

/// The AMDGPU wave operations in a hand-written kernel, for waves of `W`
/// lanes (`@M@`: the mask type `iW`; `@TOP@`: `W - 1`): thread `t` of a
/// block of `T` threads stores to `%out[7 t + k]`
/// * k = 0: its lane id (`mbcnt.hi(-1, mbcnt.lo(-1, 0))`);
/// * k = 1: the number of odd lanes of its wave (a ballot);
/// * k = 2: the thread id of its wave's last lane (a `readlane` of the
///   highest bit of the ballot of `true`);
/// * k = 3: its own bit of the odd-lane ballot (an inverse ballot);
/// * in the lanes `l` with `l % 3 == 0` only (a lane guard, which the wave
///   runs as a diverged group), k = 4: the number of lanes of that group
///   (a ballot inside it), k = 5: the thread id of its first lane
///   (`readfirstlane`);
/// * k = 6: after a barrier, what thread `(t + 40) % T` wrote to shared
///   memory before it (with two waves, mostly a thread of the other one).
///
/// `@...@` placeholders are the spellings of [`OpSpelling`].
const ROCDL_OPS_KERNEL: &str = r#"module {
  llvm.mlir.global internal @exchange() {addr_space = 3 : i32} : !llvm.array<256 x i32>
  llvm.func amdgpu_kernelcc @ops(%out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %tid = @TID@
    %size = rocdl.workgroup.dim.x : i32
    %all = llvm.mlir.constant(-1 : i32) : i32
    %zero = llvm.mlir.constant(0 : i32) : i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %three = llvm.mlir.constant(3 : i32) : i32
    %forty = llvm.mlir.constant(40 : i32) : i32
    %slots = llvm.mlir.constant(7 : i32) : i32
    %true = llvm.mlir.constant(true) : i1
    %base = llvm.mul %tid, %slots : i32
    %lo = @MBCNT_LO@
    %lane = @MBCNT_HI@
    %p0 = llvm.getelementptr %out[%base] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %lane, %p0 : i32, !llvm.ptr<1>
    %bit = llvm.and %lane, %one : i32
    %odd = llvm.icmp "eq" %bit, %one : i32
    %ballot = @BALLOT_ODD@
    %count_wide = llvm.intr.ctpop(%ballot) : (@M@) -> @M@
    %count = @NARROW_COUNT@
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %count, %p1 : i32, !llvm.ptr<1>
    %exec = @BALLOT_TRUE@
    %leading = "llvm.intr.ctlz"(%exec) <{is_zero_poison = false}> : (@M@) -> @M@
    %top = llvm.mlir.constant(@TOP@ : @M@) : @M@
    %last_wide = llvm.sub %top, %leading : @M@
    %last = @NARROW_LAST@
    %from_last = @READLANE@
    %p2 = llvm.getelementptr %p0[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %from_last, %p2 : i32, !llvm.ptr<1>
    %mine = llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.@M@"(%ballot) : (@M@) -> i1
    %mine32 = llvm.zext %mine : i1 to i32
    %p3 = llvm.getelementptr %p0[3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %mine32, %p3 : i32, !llvm.ptr<1>
    %third = llvm.urem %lane, %three : i32
    %in_group = llvm.icmp "eq" %third, %zero : i32
    llvm.cond_br %in_group, ^group, ^join
  ^group:
    %members = @BALLOT_TRUE@
    %members_wide = llvm.intr.ctpop(%members) : (@M@) -> @M@
    %member_count = @NARROW_MEMBERS@
    %p4 = llvm.getelementptr %p0[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %member_count, %p4 : i32, !llvm.ptr<1>
    %first = @READFIRSTLANE@
    %p5 = llvm.getelementptr %p0[5] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %first, %p5 : i32, !llvm.ptr<1>
    llvm.br ^join
  ^join:
    %shared = llvm.mlir.addressof @exchange : !llvm.ptr<3>
    %mine_slot = llvm.getelementptr %shared[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x i32>
    llvm.store %tid, %mine_slot : i32, !llvm.ptr<3>
    @BARRIER@
    %shifted = llvm.add %tid, %forty : i32
    %other = llvm.urem %shifted, %size : i32
    %other_slot = llvm.getelementptr %shared[0, %other] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x i32>
    %theirs = llvm.load %other_slot : !llvm.ptr<3> -> i32
    %p6 = llvm.getelementptr %p0[6] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %theirs, %p6 : i32, !llvm.ptr<1>
    llvm.return
  }
}"#;

/// How [`ROCDL_OPS_KERNEL`] spells its operations: as ROCDL ops (what
/// `convert-gpu-to-rocdl` and `spmd-lower-to-rocdl` write) or as the
/// `llvm.amdgcn.*` intrinsics that the LLVM IR import leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpSpelling {
    Rocdl,
    Intrinsics,
}

/// The placeholders of [`ROCDL_OPS_KERNEL`] that stand for one operation
/// (or a barrier with its fences), with its ROCDL and its intrinsic
/// spelling (`@M@`: the mask type).
const SPELLINGS: [(&str, &str, &str); 8] = [
    (
        "@TID@",
        "rocdl.workitem.id.x : i32",
        r#"llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"() : () -> i32"#,
    ),
    (
        "@MBCNT_LO@",
        "rocdl.mbcnt.lo %all, %zero : (i32, i32) -> i32",
        r#"llvm.call_intrinsic "llvm.amdgcn.mbcnt.lo"(%all, %zero) : (i32, i32) -> i32"#,
    ),
    (
        "@MBCNT_HI@",
        "rocdl.mbcnt.hi %all, %lo : (i32, i32) -> i32",
        r#"llvm.call_intrinsic "llvm.amdgcn.mbcnt.hi"(%all, %lo) : (i32, i32) -> i32"#,
    ),
    (
        "@BALLOT_ODD@",
        "rocdl.ballot %odd : @M@",
        r#"llvm.call_intrinsic "llvm.amdgcn.ballot.@M@"(%odd) : (i1) -> @M@"#,
    ),
    (
        "@BALLOT_TRUE@",
        "rocdl.ballot %true : @M@",
        r#"llvm.call_intrinsic "llvm.amdgcn.ballot.@M@"(%true) : (i1) -> @M@"#,
    ),
    (
        "@READLANE@",
        "rocdl.readlane %tid, %last : (i32, i32) -> i32",
        r#"llvm.call_intrinsic "llvm.amdgcn.readlane.i32"(%tid, %last) : (i32, i32) -> i32"#,
    ),
    (
        "@READFIRSTLANE@",
        "rocdl.readfirstlane %tid : i32",
        r#"llvm.call_intrinsic "llvm.amdgcn.readfirstlane.i32"(%tid) : (i32) -> i32"#,
    ),
    (
        "@BARRIER@",
        r#"llvm.fence syncscope("workgroup") release
    rocdl.s.barrier
    llvm.fence syncscope("workgroup") acquire"#,
        r#"llvm.call_intrinsic "llvm.amdgcn.s.barrier"() : () -> ()"#,
    ),
];

/// [`ROCDL_OPS_KERNEL`] for `wave`, spelled `spelling`.
fn ops_kernel(wave: Wave, spelling: OpSpelling) -> String {
    let narrow = |value: &str| {
        if wave.size == 64 {
            format!("llvm.trunc {value} : i64 to i32")
        } else {
            format!("llvm.add {value}, %zero : i32")
        }
    };
    let mut text = ROCDL_OPS_KERNEL.to_string();
    for (placeholder, rocdl, intrinsic) in SPELLINGS {
        let chosen = match spelling {
            OpSpelling::Rocdl => rocdl,
            OpSpelling::Intrinsics => intrinsic,
        };
        text = text.replace(placeholder, chosen);
    }
    for (placeholder, value) in [
        ("@NARROW_COUNT@", narrow("%count_wide")),
        ("@NARROW_LAST@", narrow("%last_wide")),
        ("@NARROW_MEMBERS@", narrow("%members_wide")),
        ("@TOP@", (wave.size - 1).to_string()),
        ("@M@", format!("i{}", wave.size)),
    ] {
        text = text.replace(placeholder, &value);
    }
    text
}

/// What [`ROCDL_OPS_KERNEL`] stores for a CTA of `threads` threads in
/// waves of `wave` lanes (-1: not written).
fn ops_expectation(wave: u32, threads: u32) -> Vec<i64> {
    let mut out = Vec::new();
    for tid in 0..threads {
        let (index, lane) = (tid / wave, tid % wave);
        let lanes = wave.min(threads - index * wave);
        let in_group = lane % 3 == 0;
        let group = |value: u32| if in_group { i64::from(value) } else { -1 };
        out.extend([
            i64::from(lane),
            i64::from(lanes / 2),
            i64::from(index * wave + lanes - 1),
            i64::from(lane % 2),
            group(lanes.div_ceil(3)),
            group(index * wave),
            i64::from((tid + 40) % threads),
        ]);
    }
    out
}

/// The operations of the function in `text`, written one a line, between
/// its `llvm.func` line and its closing brace (block labels aside).
fn op_lines(text: &str) -> u64 {
    text.lines()
        .skip_while(|line| !line.contains("llvm.func"))
        .skip(1)
        .take_while(|line| line.trim() != "}")
        .filter(|line| !line.trim_start().starts_with('^'))
        .count() as u64
}

#[test]
fn rocdl_wave_operations_in_partial_waves_and_diverged_groups() {
    let context = context();
    for (wave, threads) in [(Wave::W64, 80), (Wave::W64, 64), (Wave::W32, 48)] {
        for spelling in [OpSpelling::Rocdl, OpSpelling::Intrinsics] {
            let text = ops_kernel(wave, spelling);
            let module = parse(&context, &text);
            let mut memory = Memory::new();
            let out = memory.alloc_i32(&vec![-1; (threads * OPS_SLOTS) as usize]);
            let args = vec![Value::Ptr(memory.pointer_to(out).expect("allocated"))];
            let run = Executor::new(&module).run_cta(
                "ops",
                &|_| args.clone(),
                &dims(threads, wave),
                [0, 0, 0],
                &mut memory,
                FUEL,
            );
            let what = format!("waves of {}, {threads} threads, {spelling:?}", wave.size);
            let run = run.unwrap_or_else(|error| panic!("{what}: {error}\n{text}"));
            assert_eq!(
                memory.read_i64s(out),
                ops_expectation(wave.size, threads),
                "{what}"
            );
            let waves = u64::from(threads.div_ceil(wave.size));
            assert_eq!(run.stats.waves, waves, "{what}");
            assert_eq!(run.stats.barriers, 1, "{what}");
            assert_eq!(run.stats.divergent_guards, waves, "{what}");
            // Per wave: 4 ballots and readlanes outside the group, 2 in it.
            assert_eq!(run.stats.collectives, 6 * waves, "{what}");
            assert_eq!(run.stats.partial_collectives, 2 * waves, "{what}");
            // Every wave runs every block (lane 0 is in the group), and
            // issues each operation, one a line, once.
            assert_eq!(run.stats.issued_ops, waves * op_lines(&text), "{what}");
        }
    }
}

/// A kernel around `@BODY@` for [`typed_errors_of_wave_operations`].
const MISUSE_KERNEL: &str = r#"module {
  llvm.func amdgpu_kernelcc @misuse(%out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %true = llvm.mlir.constant(true) : i1
    %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    @BODY@
    llvm.return
  }
}"#;

/// Runs [`MISUSE_KERNEL`] with `body` on 80 threads in waves of 64, with
/// `vote_poison`, and at thread level (thread 0).
fn misuse(body: &str, vote_poison: VotePoison) -> (Result<(), WarpError>, Result<(), String>) {
    let context = context();
    let text = MISUSE_KERNEL.replace("@BODY@", body);
    let module = parse(&context, &text);
    let executor = Executor::new(&module).with_vote_poison(vote_poison);
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[0; 80]);
    let args = vec![Value::Ptr(memory.pointer_to(out).expect("allocated"))];
    let launch = dims(80, Wave::W64);
    let lockstep = executor
        .run_cta(
            "misuse",
            &|_| args.clone(),
            &launch,
            [0, 0, 0],
            &mut memory,
            FUEL,
        )
        .map(|_| ());
    let thread = executor
        .run_thread(
            "misuse",
            &args,
            ThreadId::from_linear(0, &launch),
            &launch,
            &mut memory,
            &mut NoTrace,
            FUEL,
        )
        .map(|_| ())
        .map_err(|error| error.to_string());
    (lockstep, thread)
}

/// The error of the lane that failed a lockstep run, if one did.
fn lane_error(result: &Result<(), WarpError>) -> Option<ExecError> {
    match result {
        Err(WarpError::Lane { error, .. }) => Some(error.clone()),
        _ => None,
    }
}

/// Misused wave operations are typed errors of the lockstep run, never
/// panics; thread-level runs refuse wave operations.
#[test]
fn typed_errors_of_wave_operations() {
    // A readlane whose lane differs between lanes.
    let (lockstep, thread) = misuse(
        "%v = rocdl.readlane %tid, %tid : (i32, i32) -> i32",
        VotePoison::Poison,
    );
    assert!(
        matches!(lockstep, Err(WarpError::NonUniform { .. })),
        "{lockstep:?}"
    );
    assert!(thread.is_err_and(|error| error.contains("lockstep warp")));
    // An inverse ballot of a divergent mask, and of a mask of the wrong width.
    let (lockstep, _) = misuse(
        r#"%m = llvm.zext %tid : i32 to i64
    %b = llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.i64"(%m) : (i64) -> i1"#,
        VotePoison::Poison,
    );
    assert!(
        matches!(lockstep, Err(WarpError::NonUniform { .. })),
        "{lockstep:?}"
    );
    let (lockstep, _) = misuse(
        "%b = llvm.call_intrinsic \"llvm.amdgcn.inverse.ballot.i32\"(%c8) : (i32) -> i1",
        VotePoison::Poison,
    );
    assert!(
        matches!(lane_error(&lockstep), Some(ExecError::TypeMismatch { .. })),
        "{lockstep:?}"
    );
    // A barrier in divergent code (lanes 0 to 7 of each wave).
    let (lockstep, _) = misuse(
        r#"%low = llvm.icmp "ult" %tid, %c8 : i32
    llvm.cond_br %low, ^a, ^b
  ^a:
    rocdl.s.barrier
    llvm.br ^b
  ^b:"#,
        VotePoison::Poison,
    );
    assert!(
        matches!(lockstep, Err(WarpError::WarpDiverged { .. })),
        "{lockstep:?}"
    );
}

/// A poison ballot predicate follows [`VotePoison`]; operations outside
/// the subset are typed errors.
#[test]
fn poison_ballots_and_unsupported_operations() {
    // A ballot over a poison predicate (lanes from 8 on), stored.
    let poison_ballot = r#"%poison = llvm.mlir.poison : i1
    %low = llvm.icmp "ult" %tid, %c8 : i32
    %q = llvm.select %low, %true, %poison : i1, i1
    %b = rocdl.ballot %q : i32
    llvm.store %b, %p : i32, !llvm.ptr<1>"#;
    let (lockstep, _) = misuse(poison_ballot, VotePoison::Poison);
    assert!(
        matches!(
            lane_error(&lockstep),
            Some(ExecError::PoisonUsed {
                usage: PoisonUse::StoredValue,
                ..
            })
        ),
        "{lockstep:?}"
    );
    assert_eq!(misuse(poison_ballot, VotePoison::False).0, Ok(()));
    // Operations and intrinsics outside the subset.
    let (lockstep, _) = misuse(
        "%x = rocdl.ds_bpermute %tid, %tid : (i32, i32) -> i32",
        VotePoison::Poison,
    );
    assert!(
        matches!(lane_error(&lockstep), Some(ExecError::Unsupported { .. })),
        "{lockstep:?}"
    );
    let (lockstep, _) = misuse(
        "%x = llvm.call_intrinsic \"llvm.amdgcn.ds.bpermute\"(%tid, %tid) : (i32, i32) -> i32",
        VotePoison::Poison,
    );
    assert!(
        matches!(
            lane_error(&lockstep),
            Some(ExecError::UnsupportedIntrinsic { .. })
        ),
        "{lockstep:?}"
    );
}

/// The `gpu` dialect's id and size queries and barrier, for
/// [`gpu_queries_through_convert_gpu_to_rocdl`]: thread `t` of block `b`
/// stores its lane id, the wave size, the block size, the grid size and
/// its block id to `%out[5 (b B + t) + k]`, with a barrier between two
/// of the stores.
const GPU_QUERIES_KERNEL: &str = r#"module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @queries(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %block = gpu.block_id x
      %size = gpu.block_dim x
      %grid = gpu.grid_dim x
      %lane = gpu.lane_id
      %wave = gpu.subgroup_size : index
      %c5 = arith.constant 5 : index
      %first = arith.muli %block, %size : index
      %global = arith.addi %first, %tid : index
      %base = arith.muli %global, %c5 : index
      %values = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %i0 = arith.addi %base, %values : index
      %v0 = arith.index_cast %lane : index to i32
      memref.store %v0, %out[%i0] : memref<?xi32>
      %i1 = arith.addi %base, %c1 : index
      %v1 = arith.index_cast %wave : index to i32
      memref.store %v1, %out[%i1] : memref<?xi32>
      gpu.barrier
      %i2 = arith.addi %base, %c2 : index
      %v2 = arith.index_cast %size : index to i32
      memref.store %v2, %out[%i2] : memref<?xi32>
      %i3 = arith.addi %base, %c3 : index
      %v3 = arith.index_cast %grid : index to i32
      memref.store %v3, %out[%i3] : memref<?xi32>
      %i4 = arith.addi %base, %c4 : index
      %v4 = arith.index_cast %block : index to i32
      memref.store %v4, %out[%i4] : memref<?xi32>
      gpu.return
    }
  }
}"#;

/// Upstream `convert-gpu-to-rocdl` of the `gpu` queries (`rocdl.mbcnt.*`
/// for the lane id, `rocdl.wavefrontsize`, `rocdl.workgroup.dim.x`,
/// `rocdl.grid.dim.x`, `rocdl.workgroup.id.x`, `rocdl.barrier`) runs in
/// lockstep waves: two blocks of 80 threads in waves of 64 and 32.
#[test]
fn gpu_queries_through_convert_gpu_to_rocdl() {
    let context = context();
    melior::utility::register_all_passes();
    for wave in [Wave::W64, Wave::W32] {
        let mut module = parse(&context, GPU_QUERIES_KERNEL);
        let pipeline = format!(
            "builtin.module(gpu.module(convert-gpu-to-rocdl{{chipset={}}}))",
            wave.chipset
        );
        crate::common::run_pipeline(&context, &mut module, &pipeline);
        let launch = GridDims {
            block_dim: [80, 1, 1],
            grid_dim: [2, 1, 1],
            subgroup_size: wave.size,
        };
        let mut memory = Memory::new();
        let out = memory.alloc_i32(&[-1; 800]);
        let args = memory.expand_memrefs(&[Value::MemRef(out)]);
        let runs = Executor::new(&module)
            .run_grid_in_warps("queries", &|_| args.clone(), &launch, &mut memory, FUEL)
            .unwrap_or_else(|error| panic!("waves of {}: {error}", wave.size));
        assert!(runs.iter().all(|run| run.stats.barriers == 1));
        let expected: Vec<i64> = (0..160u32)
            .flat_map(|global| {
                let (block, tid) = (global / 80, global % 80);
                [tid % wave.size, wave.size, 80, 2, block].map(i64::from)
            })
            .collect();
        assert_eq!(memory.read_i64s(out), expected, "waves of {}", wave.size);
    }
}
