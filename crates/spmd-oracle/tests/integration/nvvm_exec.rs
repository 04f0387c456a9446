//! The differential below the spmd level: random kernels through the whole
//! `spmd-gpu-to-nvvm` pipeline (reconverge, predicate, lower-to-nvvm,
//! upstream conversions), executed as LLVM+NVVM code in lockstep warps,
//! against the thread-level run of the original kernel.
//!
//! Even seeds run the pipeline as it is by default, with divergent branches
//! over code that needs no converged lanes kept as per-lane branches
//! (`lane-branches=true`: the warp splits there and meets again at the
//! branch's immediate post-dominator); odd seeds predicate every divergent
//! branch (`lane-branches=false`).
//!
//! Both front doors are checked: the `gpu.func` rendering of each kernel
//! (the lowered kernel is the `llvm.func` inside the `gpu.module`, its
//! memref arguments expanded to descriptors) and the LLVM-dialect rendering
//! (an `llvm.func ptx_kernelcc` as clang's CUDA output imports, lowered in
//! place). For each launch size (64 threads: two full warps; 48: one full
//! warp and one of 16 lanes) and each `%n`, both programs run on fresh
//! memories with the same `%out` and `%ret` buffers, and:
//! * every thread performs exactly the same stores, in the same order, with
//!   the same values (so every `%ret[tid]` and every `%out` element agree);
//! * the final `%out` and `%ret` buffers are equal;
//! * the lockstep run never diverges outside a lane guard, and every
//!   `.sync` collective has the executing lanes as its member mask (checked
//!   inside [`Executor::run_cta`]).
//!
//! Votes run with [`VotePoison::Poison`], LLVM's own semantics: a lane
//! whose predicate is poison makes the vote poison. `spmd-lower-to-nvvm`
//! used to compute a ballot's predicate as `and %p, %my_exec_bit`, which is
//! poison when `%p` is (lanes whose exec bit is clear never computed it);
//! it now selects false for them.
//! [`ballot_predicates_of_inactive_lanes_are_poison`] is the smallest
//! kernel that showed it.
//!
//! Half of the LLVM renderings read the thread id with
//! `llvm.call_intrinsic`; the uniformity analysis once took that thread id
//! as uniform ([`call_intrinsic_read_of_the_thread_id_is_divergent`]), and
//! they are checked like the others since its table of divergence sources
//! covers every spelling.
//!
//! A third defect showed in about 0.7% of the kernels of a benchmark-size
//! run (none of the default seeds): a scalar branch of wave-level code is
//! uniform over the lanes that execute it, but at NVVM level every thread
//! evaluates its condition, and threads whose exec bit is clear may hold
//! poison there. The lowering now decides such branches by the active
//! lanes (`lower_to_nvvm::scalar_branch`);
//! [`scalar_branches_are_decided_by_the_active_lanes`] is the reduced
//! kernel.
//!
//! `SPMD_NVVM_EXEC_SEEDS=<n>` sets the seeds per shape class (default
//! [`DEFAULT_SEEDS`]); the counts are printed at the end.

use crate::common::{
    context, first_difference, import_cuda, lower_to_nvvm, lower_to_nvvm_with, parse, Form,
};
use spmd_oracle::{
    ElementType, Executor, GridDims, KernelShape, MemRefId, Memory, NoTrace, RandomKernel,
    ThreadId, Value, VotePoison, WarpError, WarpStats,
};

const FUEL: u64 = 200_000;
const LAUNCHES: [u32; 2] = [64, 48];
const INPUTS: [i32; 3] = [0, 9, 40];
const DEFAULT_SEEDS: u64 = 50;

fn seeds_per_class() -> u64 {
    spmd::testing::seed_count("SPMD_NVVM_EXEC_SEEDS", DEFAULT_SEEDS)
}

/// A fresh memory with `%out` and `%ret`.
fn buffers(kernel: &RandomKernel, threads: u32) -> (Memory, MemRefId, MemRefId) {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; kernel.out_len(threads) as usize]);
    let ret = memory.alloc_i32(&vec![0; threads as usize]);
    (memory, out, ret)
}

/// The thread-level run of the original kernel, thread 0 first.
fn run_threads(
    executor: &Executor,
    kernel: &RandomKernel,
    form: Form,
    threads: u32,
    n: i32,
) -> Result<(Memory, MemRefId, MemRefId), String> {
    let (mut memory, out, ret) = buffers(kernel, threads);
    let dims = GridDims::linear(threads);
    let args = form.arguments(&memory, out, n, ret, false);
    for t in 0..threads {
        executor
            .run_thread(
                "kernel",
                &args,
                ThreadId::from_linear(t, &dims),
                &dims,
                &mut memory,
                &mut NoTrace,
                FUEL,
            )
            .map_err(|error| format!("thread {t} of the original: {error}"))?;
    }
    Ok((memory, out, ret))
}

/// The lockstep run of the lowered `llvm.func`.
fn run_warps(
    executor: &Executor,
    kernel: &RandomKernel,
    form: Form,
    threads: u32,
    n: i32,
) -> Result<(Memory, WarpStats), WarpError> {
    let (mut memory, out, ret) = buffers(kernel, threads);
    let args = form.arguments(&memory, out, n, ret, true);
    let dims = GridDims::linear(threads);
    let run = executor.run_cta(
        "kernel",
        &|_| args.clone(),
        &dims,
        [0, 0, 0],
        &mut memory,
        FUEL,
    )?;
    Ok((memory, run.stats))
}

/// Compares every launch and input of one kernel in one form; the number
/// of runs, or the first failure.
fn check_kernel(
    context: &melior::Context,
    kernel: &RandomKernel,
    form: Form,
    lane_branches: bool,
    stats: &mut WarpStats,
) -> Result<usize, String> {
    let original = parse(context, form.text(kernel));
    let lowered = lower_to_nvvm_with(context, form.text(kernel), lane_branches);
    let thread_level = Executor::new(&original);
    let warp_level = Executor::new(&lowered).with_vote_poison(VotePoison::Poison);
    let mut runs = 0;
    for threads in LAUNCHES {
        for n in INPUTS {
            let context = |error: String| format!("{form:?}, {threads} threads, n={n}: {error}");
            let expected = run_threads(&thread_level, kernel, form, threads, n).map_err(context)?;
            let (actual, run_stats) = run_warps(&warp_level, kernel, form, threads, n)
                .map_err(|error| context(error.to_string()))?;
            first_difference(threads, &expected, &actual).map_err(context)?;
            *stats += run_stats;
            runs += 1;
        }
    }
    Ok(runs)
}

#[test]
fn nvvm_lockstep_execution_matches_thread_level_on_random_kernels() {
    let context = context();
    let (mut runs, mut kernels, mut stats) = (0, 0, WarpStats::default());
    let mut failures = Vec::new();
    for seed in 0..seeds_per_class() {
        for (class, shape) in KernelShape::classes(3 + (seed as usize * 7) % 24) {
            let kernel = RandomKernel::build(seed * 37 + 11, &shape);
            // Even seeds keep lane branches (the pipeline's default), odd
            // ones predicate every divergent branch.
            let lane_branches = seed % 2 == 0;
            for form in [Form::Gpu, Form::Llvm] {
                match check_kernel(&context, &kernel, form, lane_branches, &mut stats) {
                    Ok(count) => runs += count,
                    Err(message) => {
                        if std::env::var_os("SPMD_NVVM_EXEC_DUMP").is_some() {
                            eprintln!("{class} seed {seed}: {message}\n{}", form.text(&kernel));
                        }
                        failures.push(format!(
                            "{class} seed {seed} (kernel seed {}, lane-branches={lane_branches}): {message}",
                            kernel.seed
                        ));
                    }
                }
                kernels += 1;
            }
        }
    }
    eprintln!(
        "nvvm_exec: {kernels} lowered kernels, {runs} lockstep runs, {} mismatches; {stats:?}",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {kernels} kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(stats.collectives > 0 && stats.divergent_guards > 0 && stats.uniform_branches > 0);
}

/// The smallest kernel found (by a search over 2 to 4 blocks and a line
/// reduction) where the poison of a ballot predicate matters: with the
/// poison predicate taken as true, which LLVM allows, a lane whose exec bit
/// is clear joins a ballot, `spmd.mask.select` on that ballot gives it a
/// value from a path it never took, and it stores poison to `%ret`.
const BALLOT_POISON_KERNEL: &str = r#"module attributes {gpu.container_module} {
  gpu.module @kernels {
  gpu.func @kernel(%out: memref<?xi32>, %n: i32, %ret: memref<?xi32>) kernel {
    %tid_index = gpu.thread_id x
    %tid = arith.index_cast %tid_index : index to i32
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c31 = arith.constant 31 : i32
    %f0 = arith.constant 24 : i32
    %a0 = arith.constant 17 : i32
    %k_slots = arith.constant 1 : i32
    %base = arith.muli %tid, %k_slots : i32
    %fl0 = arith.subi %f0, %one : i32
    %alive0 = arith.cmpi sgt, %fl0, %zero : i32
    %h0 = arith.muli %a0, %c31 : i32
    %s0 = arith.constant 1 : i32
    %acc0 = arith.addi %h0, %s0 : i32
    %v4 = arith.constant 3 : i32
    %v5 = arith.remui %base, %v4 : i32
    %v6 = arith.constant 2 : i32
    %v7 = arith.select %alive0, %v5, %v6 : i32
    cf.switch %v7 : i32, [default: ^bb2(%fl0, %acc0, %base : i32, i32, i32), 0: ^bb2(%fl0, %acc0, %one : i32, i32, i32), 1: ^bb1(%fl0, %acc0, %c31 : i32, i32, i32)]
  ^bb1(%f1: i32, %a1: i32, %m1: i32):
    %fl1 = arith.subi %f1, %one : i32
    %h1 = arith.muli %a1, %c31 : i32
    %s1 = arith.constant 2 : i32
    %acc1 = arith.addi %h1, %s1 : i32
    cf.br ^bb3(%fl1, %acc1, %base : i32, i32, i32)
  ^bb2(%f2: i32, %a2: i32, %m2: i32):
    %fl2 = arith.subi %f2, %one : i32
    %alive2 = arith.cmpi sgt, %fl2, %zero : i32
    %h2 = arith.muli %a2, %c31 : i32
    %s2 = arith.constant 3 : i32
    %acc2 = arith.addi %h2, %s2 : i32
    %v8 = arith.constant 3 : i32
    %v9 = arith.remui %tid, %v8 : i32
    %v10 = arith.constant 2 : i32
    %v11 = arith.select %alive2, %v9, %v10 : i32
    cf.switch %v11 : i32, [default: ^bb3(%fl2, %acc2, %fl0 : i32, i32, i32), 0: ^bb3(%fl2, %acc2, %fl0 : i32, i32, i32), 1: ^bb3(%fl2, %acc2, %base : i32, i32, i32)]
  ^bb3(%f3: i32, %a3: i32, %m3: i32):
    %h3 = arith.muli %a3, %c31 : i32
    %s3 = arith.constant 4 : i32
    %acc3 = arith.addi %h3, %s3 : i32
    %v12 = arith.xori %acc3, %base : i32
    memref.store %v12, %ret[%tid_index] : memref<?xi32>
    gpu.return
  }
  }
}"#;

#[test]
fn ballot_predicates_of_inactive_lanes_are_poison() {
    let context = context();
    let lowered = lower_to_nvvm(&context, BALLOT_POISON_KERNEL);
    let failures: Vec<String> = [VotePoison::Poison, VotePoison::True]
        .into_iter()
        .filter_map(|vote_poison| {
            let executor = Executor::new(&lowered).with_vote_poison(vote_poison);
            let mut memory = Memory::new();
            let out = memory.alloc_i32(&[0; 32]);
            let ret = memory.alloc_i32(&[0; 32]);
            let args = memory.expand_memrefs(&RandomKernel::gpu_arguments(out, 0, ret));
            let run = executor.run_cta(
                "kernel",
                &|_| args.clone(),
                &GridDims::linear(32),
                [0, 0, 0],
                &mut memory,
                FUEL,
            );
            run.err().map(|error| format!("{vote_poison:?}: {error}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Found by `SPMD_NVVM_EXEC_SEEDS=500` (multi_exit_switch, kernel seed
/// 11962) and reduced by hand: `^bb1` is entered by two edges of the
/// divergent switch, so its block arguments are merged per lane and are
/// poison in the lanes that went to `^bb3`. Its `cf.cond_br` is uniform
/// over the lanes that run it (`%x` is `%n` on both edges), so it stays a
/// scalar branch; at NVVM level every thread of the warp evaluates it, and
/// the lanes whose exec bit is clear branch on poison (on the hardware: on
/// whatever their register holds, so the warp may split at a branch the
/// lowering takes as warp-uniform, before `.sync` ops over the whole warp).
const INACTIVE_LANE_CONDITION_KERNEL: &str = r#"module attributes {gpu.container_module} {
  gpu.module @kernels {
  gpu.func @kernel(%out: memref<?xi32>, %n: i32, %ret: memref<?xi32>) kernel {
    %tid_index = gpu.thread_id x
    %tid = arith.index_cast %tid_index : index to i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %three = arith.constant 3 : i32
    %r = arith.remui %tid, %three : i32
    cf.switch %r : i32, [default: ^bb1(%n, %two : i32, i32), 0: ^bb1(%n, %three : i32, i32), 1: ^bb3]
  ^bb1(%x: i32, %y: i32):
    %c = arith.cmpi slt, %x, %two : i32
    cf.cond_br %c, ^bb5(%y : i32), ^bb4
  ^bb3:
    cf.br ^bb5(%one : i32)
  ^bb5(%v: i32):
    memref.store %v, %ret[%tid_index] : memref<?xi32>
    gpu.return
  ^bb4:
    gpu.return
  }
  }
}"#;

#[test]
fn scalar_branches_are_decided_by_the_active_lanes() {
    let context = context();
    let lowered = lower_to_nvvm(&context, INACTIVE_LANE_CONDITION_KERNEL);
    let executor = Executor::new(&lowered);
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[0; 256]);
    let ret = memory.alloc_i32(&[0; 64]);
    let args = memory.expand_memrefs(&RandomKernel::gpu_arguments(out, 0, ret));
    let run = executor.run_cta(
        "kernel",
        &|_| args.clone(),
        &GridDims::linear(64),
        [0, 0, 0],
        &mut memory,
        FUEL,
    );
    assert!(run.is_ok(), "{}", run.unwrap_err());
}

/// A thread id read with `llvm.call_intrinsic` (as some front ends and
/// hand-written LLVM-dialect code do) must be divergent like
/// `nvvm.read.ptx.sreg.tid.x`. When the uniformity analysis took it as
/// uniform, the branch on `tid < 16` stayed a scalar branch and the
/// ballot of the nested divergent branch, whose member mask is the whole
/// warp, ran in half of it: undefined in PTX, [`WarpError::WarpDiverged`]
/// here.
const CALL_INTRINSIC_TID_KERNEL: &str = r#"module {
  llvm.func ptx_kernelcc @kernel(%out: !llvm.ptr) {
    %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
    %lane = nvvm.read.ptx.sreg.laneid : i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %t64 = llvm.zext %tid : i32 to i64
    %p = llvm.getelementptr inbounds %out[%t64] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %low = llvm.icmp "ult" %tid, %c16 : i32
    llvm.cond_br %low, ^a, ^join
  ^a:
    %bit = llvm.and %lane, %one : i32
    %odd = llvm.icmp "eq" %bit, %one : i32
    llvm.cond_br %odd, ^store, ^join
  ^store:
    llvm.store %lane, %p : i32, !llvm.ptr
    llvm.br ^join
  ^join:
    llvm.return
  }
}"#;

/// Runs [`CALL_INTRINSIC_TID_KERNEL`] (or its `nvvm.read.ptx.sreg.tid.x`
/// variant) lowered, on one warp; `%out` afterwards.
fn run_tid_kernel(source: &str) -> Result<Vec<i64>, WarpError> {
    let context = context();
    let lowered = lower_to_nvvm(&context, source);
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[-1; 32]);
    let args = vec![Value::Ptr(memory.pointer_to(out).expect("allocated"))];
    Executor::new(&lowered).run_cta(
        "kernel",
        &|_| args.clone(),
        &GridDims::linear(32),
        [0, 0, 0],
        &mut memory,
        FUEL,
    )?;
    Ok(memory.read_i64s(out))
}

/// Odd lanes below 16 store their lane id.
fn tid_kernel_expectation() -> Vec<i64> {
    (0..32)
        .map(|lane| if lane < 16 && lane % 2 == 1 { lane } else { -1 })
        .collect()
}

#[test]
fn nvvm_read_of_the_thread_id_is_divergent() {
    let source = CALL_INTRINSIC_TID_KERNEL.replace(
        r#"llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32"#,
        "nvvm.read.ptx.sreg.tid.x : i32",
    );
    assert_eq!(
        run_tid_kernel(&source).expect("lockstep run"),
        tid_kernel_expectation()
    );
}

#[test]
fn call_intrinsic_read_of_the_thread_id_is_divergent() {
    assert_eq!(
        run_tid_kernel(CALL_INTRINSIC_TID_KERNEL).expect("lockstep run"),
        tid_kernel_expectation()
    );
}

/// `examples/cuda/<name>.cu` imported (see [`import_cuda`]).
fn import_cuda_example(name: &str) -> Option<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    import_cuda(&format!("{root}/examples/cuda/{name}.cu"))
}

/// Buffers of `count` `f32`s holding 0, 1, 2, ... and of `sums` zeros, and
/// the kernel arguments `(in, out, n)`.
fn float_inputs(memory: &mut Memory, count: u64, sums: u64) -> (MemRefId, Vec<Value>) {
    let input = memory.alloc_init(
        ElementType::F32,
        &[count],
        &(0..count as i64).collect::<Vec<_>>(),
    );
    let out = memory.alloc_init(ElementType::F32, &[sums], &[]);
    let pointer = |memref| Value::Ptr(memory.pointer_to(memref).expect("allocated"));
    let args = vec![pointer(input), pointer(out), Value::i32(count as i32)];
    (out, args)
}

/// The CUDA examples through clang, the import and the whole pipeline,
/// run in lockstep warps: the Collatz loop (divergent trip counts, an early
/// exit) against the thread-level run of clang's code, and the two
/// reductions (shuffles, shared memory, barriers, a float atomic) against
/// their sums. Launches have a partial warp or several CTAs.
#[test]
fn nvvm_cuda_examples_run_in_lockstep_warps() {
    let context = context();
    let Some(collatz) = import_cuda_example("divergent-while") else {
        return;
    };
    let (original, lowered) = (parse(&context, &collatz), lower_to_nvvm(&context, &collatz));
    let dims = GridDims {
        block_dim: [48, 1, 1],
        grid_dim: [2, 1, 1],
        subgroup_size: 32,
    };
    let starts: Vec<i32> = (0..96).map(|i| 1 + (i * 7919) % 1000).collect();
    let run = |executor_run: &dyn Fn(&mut Memory, &[Value])| {
        let mut memory = Memory::new();
        let (start, steps) = (memory.alloc_i32(&starts), memory.alloc_i32(&[0; 96]));
        let args = vec![
            Value::Ptr(memory.pointer_to(start).expect("allocated")),
            Value::Ptr(memory.pointer_to(steps).expect("allocated")),
            Value::i32(90),
            Value::i32(60),
        ];
        executor_run(&mut memory, &args);
        memory.read_i64s(steps)
    };
    let expected = run(&|memory, args| {
        let grid = Executor::new(&original).run_grid_traced(
            "collatz_steps",
            &dims,
            &|_| args.to_vec(),
            memory,
            &mut NoTrace,
            FUEL,
        );
        assert!(grid.first_error().is_none(), "{:?}", grid.first_error());
    });
    let actual = run(&|memory, args| {
        Executor::new(&lowered)
            .with_vote_poison(VotePoison::Poison)
            .run_grid_in_warps("collatz_steps", &|_| args.to_vec(), &dims, memory, FUEL)
            .expect("lockstep run");
    });
    assert_eq!(actual, expected);
    assert!(expected.contains(&-1) && expected[90..].iter().all(|&steps| steps == 0));

    // reduce-shared has no warp collective of its own, and its divergent
    // regions are short enough to run without a skip vote.
    for (name, kernel, sums, shuffles) in [
        ("reduce-warp", "_Z11reduce_warpPKfPfi", 1, true),
        ("reduce-shared", "reduce_shared", 2, false),
    ] {
        let Some(text) = import_cuda_example(name) else {
            return;
        };
        let lowered = lower_to_nvvm(&context, &text);
        let dims = GridDims {
            block_dim: [128, 1, 1],
            grid_dim: [2, 1, 1],
            subgroup_size: 32,
        };
        let mut memory = Memory::new();
        let (out, args) = float_inputs(&mut memory, 150, sums);
        let runs = Executor::new(&lowered)
            .with_vote_poison(VotePoison::Poison)
            .run_grid_in_warps(kernel, &|_| args.clone(), &dims, &mut memory, FUEL)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        assert!(
            runs.iter()
                .all(|run| run.stats.barriers > 0 && (run.stats.collectives > 0) == shuffles),
            "{name}"
        );
        // reduce-warp adds every CTA's sum to out[0]; reduce-shared writes
        // CTA b's sum to out[b].
        let expected = if sums == 1 {
            vec![(0..150).sum::<i64>()]
        } else {
            vec![(0..128).sum(), (128..150).sum()]
        };
        assert_eq!(memory.read_i64s(out), expected, "{name}");
    }
}
