//! `--spmd-predicate` end to end: the wave-level executor against the
//! thread-level one on random kernels.
//!
//! Each random kernel of every class is made reconverging by
//! `spmd-reconverge` (each ordering) or `spmd-structurize{irreducible=fix}`
//! (or, for predication with lane branches only, by
//! `spmd-reconverge{lane-branches=true}`, which leaves some divergent
//! branches without a rejoin point),
//! then lowered by `spmd-predicate` with both values of
//! `skip-empty-blocks`, and with `lane-branches=true` (divergent branches
//! over code that needs no converged lanes stay per-lane branches, which
//! the wave executor runs lane by lane up to the join). The reconverged thread-level function runs on 64
//! threads, the wave-level one on 2 waves of 32 lanes (lane `l` of wave `w`
//! is thread `32 w + l`; and, lowered with `wave-size=64`, on one wave of
//! 64 lanes), for several `%n`, and:
//! * every lane returns what its thread returns;
//! * every lane performs exactly its thread's side effects, in order, and
//!   the final memories are equal;
//! * every lane is active in exactly the blocks its thread visits, in
//!   order (so no lane runs anything, side effects included, with its exec
//!   bit off);
//! * at every rejoin point, every lane that diverged towards it is active
//!   again, and after every rejoin marked `spmd.exec_full` every lane is
//!   (checked inside [`Executor::run_wave`]).
//!
//! `SPMD_PREDICATE_SEEDS=<n>` raises the seeds per class (default 6).

use crate::common::{context, parse, run_pipeline, try_pipeline};
use melior::ir::operation::OperationLike;
use spmd_oracle::{
    BlockLog, Executor, GridDims, KernelShape, Memory, RandomKernel, ThreadId, Value, WaveError,
    WaveRun,
};

const THREADS: u32 = 64;

/// The positions of the gate blocks in `@kernel` of a wave-level module:
/// a lane branch whose condition is `spmd.mask.select %exec, %true, ..`
/// with nothing else in the block.
fn gate_blocks(module: &melior::ir::Module) -> Vec<usize> {
    use melior::ir::{block::BlockLike, operation::OperationLike, RegionLike};
    let name =
        |op: melior::ir::OperationRef| op.name().as_string_ref().as_str().unwrap().to_string();
    let mut kernel = module.body().first_operation();
    while let Some(op) = kernel {
        if op
            .attribute("sym_name")
            .is_ok_and(|n| n.to_string() == "\"kernel\"")
        {
            break;
        }
        kernel = op.next_in_block();
    }
    let Some(kernel) = kernel else {
        return Vec::new();
    };
    let mut gates = Vec::new();
    let mut block = kernel.region(0).ok().and_then(|r| r.first_block());
    let mut index = 0;
    while let Some(b) = block {
        let mut ops = Vec::new();
        let mut op = b.first_operation();
        while let Some(o) = op {
            ops.push(name(o));
            op = o.next_in_block();
        }
        let marked = b
            .terminator()
            .and_then(|t| t.attribute("spmd.uniformity").ok())
            .is_some_and(|mark| mark.to_string().contains("divergent"));
        if marked && ops == ["spmd.exec.read", "spmd.mask.select", "cf.cond_br"] {
            let select = b.first_operation().and_then(|o| o.next_in_block()).unwrap();
            let chosen = select.operand(1).unwrap().to_string();
            if chosen.contains("arith.constant true") {
                gates.push(index);
            }
        }
        index += 1;
        block = b.next_in_region();
    }
    gates
}

/// `kernel` (a `func.func @kernel` module) with a call to an empty
/// function after every third store to `%out`: a call may hide a
/// collective, so the regions around it park, and with
/// `lane-branches=true` the divergent branches inside those parking
/// regions become gated lane branches (and gates).
fn with_opaque_calls(kernel: &str) -> String {
    let mut stores = 0;
    let mut lines = Vec::new();
    for line in kernel.lines() {
        if line.trim_start().starts_with("func.func @kernel(") {
            lines.extend(["  func.func @opaque() {", "    return", "  }"].map(String::from));
        }
        lines.push(line.to_string());
        if line.contains("memref.store") && line.contains("%out[") {
            stores += 1;
            if stores % 3 == 0 {
                lines.push("    func.call @opaque() : () -> ()".to_string());
            }
        }
    }
    lines.join("\n")
}
const WAVE: u32 = 32;
const FUEL: u64 = 200_000;

/// Thread-level run: per thread, results and block trace.
struct ThreadRuns {
    results: Vec<Vec<Value>>,
    blocks: Vec<Vec<usize>>,
    memory: Memory,
    out: spmd_oracle::MemRefId,
}

fn run_threads(executor: &Executor, out_len: u64, n: i32) -> ThreadRuns {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; out_len as usize]);
    let dims = GridDims::linear(THREADS);
    let mut log = BlockLog {
        function: executor.function_index("kernel").unwrap(),
        ..Default::default()
    };
    let mut results = Vec::new();
    for t in 0..THREADS {
        let args = RandomKernel::arguments(out, n, t);
        let id = ThreadId::from_linear(t, &dims);
        results.push(
            executor
                .run_thread("kernel", &args, id, &dims, &mut memory, &mut log, FUEL)
                .expect("thread runs"),
        );
    }
    let blocks = (0..THREADS)
        .map(|t| log.blocks.remove(&t).unwrap_or_default())
        .collect();
    ThreadRuns {
        results,
        blocks,
        memory,
        out,
    }
}

/// Wave-level run: waves of `wave` lanes.
fn run_waves(
    executor: &Executor,
    out_len: u64,
    n: i32,
    wave: u32,
) -> Result<(Vec<WaveRun>, Memory), WaveError> {
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; out_len as usize]);
    let dims = GridDims::linear(THREADS);
    let mut waves = Vec::new();
    for first in (0..THREADS).step_by(wave as usize) {
        let args: Vec<Vec<Value>> = (first..first + wave)
            .map(|t| RandomKernel::arguments(out, n, t))
            .collect();
        waves.push(executor.run_wave("kernel", &args, first, &dims, &mut memory, FUEL)?);
    }
    Ok((waves, memory))
}

/// Compares the wave run with the thread run; `Err` names the first lane
/// that differs.
/// `gates`: the gate blocks predication inserted (ascending), which the
/// thread-level function does not have: a lane's blocks are compared
/// without them, renumbered as before their insertion.
fn compare(
    threads: &ThreadRuns,
    waves: &[WaveRun],
    memory: &Memory,
    gates: &[usize],
) -> Result<(), String> {
    let size = THREADS as usize / waves.len();
    let thread_block = |block: &usize| -> Option<usize> {
        match gates.binary_search(block) {
            Ok(_) => None,
            Err(before) => Some(block - before),
        }
    };
    for t in 0..THREADS as usize {
        let (wave, lane) = (&waves[t / size], t % size);
        let blocks: Vec<usize> = wave.blocks[lane].iter().filter_map(thread_block).collect();
        if wave.results[lane] != threads.results[t] {
            return Err(format!(
                "thread {t}: returned {:?}, expected {:?}",
                wave.results[lane], threads.results[t]
            ));
        }
        if blocks != threads.blocks[t] {
            return Err(format!(
                "thread {t}: active in blocks {blocks:?}, visits {:?}",
                threads.blocks[t]
            ));
        }
        let ours: Vec<_> = memory.effects_of_thread(t as u32).collect();
        let theirs: Vec<_> = threads.memory.effects_of_thread(t as u32).collect();
        if ours != theirs {
            return Err(format!(
                "thread {t}: side effects {ours:?}, expected {theirs:?}"
            ));
        }
    }
    if memory.read_i64s(threads.out) != threads.memory.read_i64s(threads.out) {
        return Err("final memories differ".to_string());
    }
    Ok(())
}

fn seeds_per_class() -> u64 {
    spmd::testing::seed_count("SPMD_PREDICATE_SEEDS", 6)
}

const ORDERINGS: [&str; 4] = ["df", "dfpd", "bf", "rpot"];

#[test]
fn predicate_matches_thread_level_execution_on_random_kernels() {
    let context = context();
    let mut checked = 0;
    let mut rejoins = 0;
    let mut lane_branch_kernels = 0;
    let mut gated_kernels = 0;
    let mut failures = Vec::new();
    for seed in 0..seeds_per_class() {
        for (class, shape) in KernelShape::classes(3 + (seed as usize * 5) % 20) {
            let mut kernel = RandomKernel::build(seed * 31 + 7, &shape);
            if seed % 2 == 1 {
                kernel.text = with_opaque_calls(&kernel.text);
            }
            let producers = [
                format!(
                    "spmd-reconverge{{ordering={}}}",
                    ORDERINGS[seed as usize % 4]
                ),
                "spmd-structurize{irreducible=fix}".to_string(),
                // Leaves alone the branches lane-branches keeps without a
                // rejoin point: only predication with lane branches takes
                // its output.
                format!(
                    "spmd-reconverge{{ordering={} lane-branches=true}}",
                    ORDERINGS[seed as usize % 4]
                ),
            ];
            for producer in &producers {
                let lanes_only = producer.contains("lane-branches=true");
                let mut thread_level = parse(&context, &kernel.text);
                run_pipeline(
                    &context,
                    &mut thread_level,
                    &format!("builtin.module({producer})"),
                );
                let thread_executor = Executor::new(&thread_level);
                let runs: Vec<ThreadRuns> = [0, 9, 40]
                    .iter()
                    .map(|&n| run_threads(&thread_executor, kernel.out_len(THREADS), n))
                    .collect();
                for (skip, wave, lanes) in [
                    (true, WAVE, false),
                    (false, WAVE, false),
                    (true, 2 * WAVE, false),
                    (true, WAVE, true),
                ] {
                    if lanes_only && !lanes {
                        continue;
                    }
                    let mut wave_level = parse(&context, &thread_level.as_operation().to_string());
                    let pass = format!(
                        "spmd-predicate{{skip-empty-blocks={skip} wave-size={wave} lane-branches={lanes}}}"
                    );
                    run_pipeline(
                        &context,
                        &mut wave_level,
                        &format!("builtin.module({pass})"),
                    );
                    assert!(wave_level.as_operation().verify(), "invalid wave-level IR");
                    if lanes
                        && wave_level
                            .as_operation()
                            .to_string()
                            .contains("spmd.uniformity<divergent>")
                    {
                        lane_branch_kernels += 1;
                        let text = wave_level.as_operation().to_string();
                        if text.contains("spmd.mask.select") && text.contains("spmd.exec.write") {
                            gated_kernels += 1;
                        }
                    }
                    let executor = Executor::new(&wave_level);
                    let gates = gate_blocks(&wave_level);
                    for (threads, n) in runs.iter().zip([0, 9, 40]) {
                        let what =
                            format!("{class} seed {seed} {producer} skip={skip} wave={wave} lanes={lanes} n={n}");
                        let outcome = run_waves(&executor, kernel.out_len(THREADS), n, wave)
                            .map_err(|e| e.to_string())
                            .and_then(|(waves, memory)| {
                                rejoins += waves.iter().map(|w| w.rejoins_checked).sum::<usize>();
                                compare(threads, &waves, &memory, &gates)
                            });
                        if let Err(message) = outcome {
                            if std::env::var_os("SPMD_PREDICATE_DUMP").is_some() {
                                eprintln!(
                                    "{what}: {message}\nthread level:\n{}\nwave level:\n{}",
                                    thread_level.as_operation(),
                                    wave_level.as_operation()
                                );
                            }
                            failures.push(format!("{what}: {message}"));
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "predicate: {checked} runs, {rejoins} rejoins checked, {lane_branch_kernels} kernels with lane branches ({gated_kernels} with parking regions too)"
    );
    assert!(lane_branch_kernels > 0, "no kernel kept a lane branch");
    assert!(checked >= 6 * 4 * (2 * 4 + 1) * 3 || seeds_per_class() < 6);
    assert!(rejoins > 0, "no rejoin point was ever checked");
}

/// The checks can fail: a wave-level function that forgets to park the
/// lanes leaving for the join (so they run the `then` block's store with
/// their thread never there) and one that forgets to rejoin them.
#[test]
fn the_wave_checker_catches_broken_predication() {
    let context = context();
    let thread_level = r#"func.func @kernel(%out: memref<?xi32>, %n: i32, %tid: i32 {spmd.divergent}) -> i32 {
      %c0 = arith.constant 0 : i32
      %i = arith.index_cast %tid : i32 to index
      %odd_bit = arith.andi %tid, %n : i32
      %odd = arith.cmpi ne, %odd_bit, %c0 : i32
      cf.cond_br %odd, ^join, ^then
    ^then:
      %seven = arith.constant 7 : i32
      memref.store %seven, %out[%i] : memref<?xi32>
      cf.br ^join
    ^join:
      return %tid : i32
    }"#;
    // `drop` removes the park (exec keeps the leaving lanes) or the rejoin.
    let wave_level = |park: bool, rejoin: bool| {
        format!(
            r#"func.func @kernel(%out: memref<?xi32>, %n: i32, %tid: i32 {{spmd.divergent}}) -> i32 {{
      %c0 = arith.constant 0 : i32
      %i = arith.index_cast %tid : i32 to index
      %odd_bit = arith.andi %tid, %n : i32
      %odd = arith.cmpi ne, %odd_bit, %c0 : i32
      %leave = spmd.ballot %odd : !spmd.mask
      %exec = spmd.exec.read : !spmd.mask
      %rest = spmd.mask.andn %exec, %leave : !spmd.mask
      {}
      spmd.exec.br_zero ^join, ^then
    ^then:
      %seven = arith.constant 7 : i32
      memref.store %seven, %out[%i] : memref<?xi32>
      cf.br ^join
    ^join:
      %now = spmd.exec.read : !spmd.mask
      %all = spmd.mask.or %now, %leave : !spmd.mask
      {}
      return %tid : i32
    }}"#,
            if park {
                "spmd.exec.write %rest {spmd.park = 0} : !spmd.mask"
            } else {
                "spmd.exec.write %exec {spmd.park = 0} : !spmd.mask"
            },
            if rejoin {
                "spmd.exec.write %all {spmd.rejoin = 0} : !spmd.mask"
            } else {
                "spmd.exec.write %now {spmd.rejoin = 0} : !spmd.mask"
            },
        )
    };
    let original = parse(&context, thread_level);
    let threads = run_threads(&Executor::new(&original), u64::from(THREADS), 1);
    let check = |park: bool, rejoin: bool| -> Result<(), String> {
        let module = parse(&context, &wave_level(park, rejoin));
        let (waves, memory) = run_waves(&Executor::new(&module), u64::from(THREADS), 1, WAVE)
            .map_err(|e| e.to_string())?;
        compare(&threads, &waves, &memory, &[])
    };
    assert_eq!(check(true, true), Ok(()));
    let no_park = check(false, true).unwrap_err();
    assert!(no_park.contains("thread 1: active in blocks"), "{no_park}");
    let no_rejoin = check(true, false).unwrap_err();
    assert!(
        no_rejoin.contains("rejoin point 0") && no_rejoin.contains("not active again"),
        "{no_rejoin}"
    );
    // A write that claims every lane is active again while lanes wait.
    let run = |text: &str| -> Result<(), String> {
        let module = parse(&context, text);
        let (waves, memory) = run_waves(&Executor::new(&module), u64::from(THREADS), 1, WAVE)
            .map_err(|e| e.to_string())?;
        compare(&threads, &waves, &memory, &[])
    };
    let false_full = run(&wave_level(true, true).replace(
        "spmd.exec.write %rest {spmd.park = 0}",
        "spmd.exec.write %rest {spmd.park = 0, spmd.exec_full}",
    ))
    .unwrap_err();
    assert!(
        false_full.contains("spmd.exec_full in block 0"),
        "{false_full}"
    );
    // A lane branch taken with exec partial whose condition lets the lanes
    // that are not active into its region (it is not gated by exec).
    let ungated = run(
        r#"func.func @kernel(%out: memref<?xi32>, %n: i32, %tid: i32 {spmd.divergent}) -> i32 {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %i = arith.index_cast %tid : i32 to index
      %odd_bit = arith.andi %tid, %n : i32
      %odd = arith.cmpi ne, %odd_bit, %c0 : i32
      %leave = spmd.ballot %odd : !spmd.mask
      %exec = spmd.exec.read : !spmd.mask
      %rest = spmd.mask.andn %exec, %leave : !spmd.mask
      spmd.exec.write %rest {spmd.park = 0} : !spmd.mask
      cf.cond_br %true, ^then, ^join {spmd.uniformity = #spmd.uniformity<divergent>}
    ^then:
      %seven = arith.constant 7 : i32
      memref.store %seven, %out[%i] : memref<?xi32>
      cf.br ^join
    ^join:
      %now = spmd.exec.read : !spmd.mask
      %all = spmd.mask.or %now, %leave : !spmd.mask
      spmd.exec.write %all {spmd.rejoin = 0} : !spmd.mask
      return %tid : i32
    }"#,
    )
    .unwrap_err();
    assert!(
        ungated.contains("a lane that is not active enters the lane region"),
        "{ungated}"
    );
}

/// `wave-size` is recorded on the function and the executor refuses larger
/// waves; unsupported sizes are rejected with a diagnostic.
#[test]
fn wave_size_is_recorded_and_checked() {
    let context = context();
    let text = r#"func.func @kernel(%out: memref<?xi32>, %n: i32, %tid: i32 {spmd.divergent}) -> i32 {
      return %tid : i32
    }"#;
    let mut module = parse(&context, text);
    run_pipeline(
        &context,
        &mut module,
        "builtin.module(spmd-predicate{wave-size=16})",
    );
    assert!(module
        .as_operation()
        .to_string()
        .contains("spmd.wave_size = 16 : i64"));
    let executor = Executor::new(&module);
    let error = run_waves(&executor, u64::from(THREADS), 0, WAVE)
        .err()
        .expect("a wave of 32 for a 16-lane function");
    assert!(
        matches!(
            error,
            WaveError::BadWaveSize {
                lanes: 32,
                wave_size: Some(16)
            }
        ),
        "{error}"
    );
    assert!(run_waves(&executor, u64::from(THREADS), 0, 16).is_ok());
    for bad in ["48", "0", "128"] {
        let mut module = parse(&context, text);
        let pipeline = format!("builtin.module(spmd-predicate{{wave-size={bad}}})");
        assert!(
            try_pipeline(&context, &mut module, &pipeline).is_err(),
            "wave-size={bad} accepted"
        );
    }
}
