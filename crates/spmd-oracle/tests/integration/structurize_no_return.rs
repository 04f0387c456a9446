//! `--spmd-structurize` on kernels that never return (issue #30): a loop
//! nest in the LLVM dialect and an irreducible backtracking matcher in
//! `cf`, each written by hand with no path to a return, so the transform
//! has to create the return block their infinite loops' never-taken exits
//! go to. Each output must
//! * pass the MLIR verifier and `--spmd-verify-structured`, and not change
//!   when structurized again;
//! * behave like the original under our SIMT executor. Neither kernel ends,
//!   so every thread of both runs must run out of fuel, and the stores of
//!   each thread must agree as far as the shorter run got (the transformed
//!   code enters more blocks per iteration, so it gets less far on the same
//!   fuel); the created return is never reached.
//!
//! A variant of each kernel that does end, through a branch added to the
//! outermost loop, is compared to completion with [`compare_records`] (it
//! has a return, so it goes through the ordinary preparation: what the
//! never-ending kernel adds is only the created return block).

use crate::common::{context, parse, try_pipeline as run};
use melior::ir::{operation::OperationLike, Module};
use spmd_oracle::{
    compare_records, ElementType, ExecError, Executor, GridRun, Memory, RunRecord, ThreadId, Value,
};

/// Threads per run (two subgroups).
const THREADS: u32 = 64;

/// Blocks each thread may enter in a run of a never-ending kernel.
const FUEL_FOREVER: u64 = 4_000;

/// Blocks each thread may enter in a run of a variant that ends.
const FUEL_ENDING: u64 = 200_000;

/// Stores each thread must have made, in the shorter of the two runs of a
/// never-ending kernel, for the comparison to mean something.
const MIN_STORES: usize = 20;

/// A hand-written kernel `@kernel` and how to run it.
struct Kernel {
    name: &'static str,
    text: String,
    pipeline: &'static str,
    /// The initial contents of the `i32` buffers, in argument order.
    buffers: Vec<Vec<i64>>,
    /// Passes buffers as `!llvm.ptr` (else as memrefs).
    pointers: bool,
    /// The arguments of a thread, given the handles of the buffers.
    args: fn(&[Value], ThreadId) -> Vec<Value>,
}

/// The loop nest: a divergent spin loop (each thread spins `tid % 8 + 1`
/// times), a loop that stores and repeats while `j < %a`, and an outer
/// loop around both. With `ending`, the outer loop leaves after four
/// rounds; otherwise nothing leaves it.
fn spin_nest(ending: bool) -> Kernel {
    let (latch, done) = if ending {
        (
            "^latch(%r1 : i32)",
            r#"^latch(%q: i32):
  %more = llvm.icmp "slt" %q, %c4 : i32
  llvm.cond_br %more, ^outer(%q : i32), ^done
^done:
  llvm.return"#,
        )
    } else {
        ("^outer(%r1 : i32)", "")
    };
    let text = format!(
        r#"llvm.func @kernel(%out: !llvm.ptr, %a: i32) {{
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  %c4 = llvm.mlir.constant(4 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %lim = llvm.urem %tid, %c8 : i32
  llvm.br ^outer(%c0 : i32)
^outer(%r: i32):
  llvm.br ^spin(%c0 : i32)
^spin(%k: i32):
  %k1 = llvm.add %k, %c1 : i32
  %d = llvm.icmp "ugt" %k1, %lim : i32
  llvm.cond_br %d, ^after(%k1 : i32), ^spin(%k1 : i32)
^after(%j: i32):
  %w = llvm.mul %j, %c3 : i32
  %v = llvm.add %w, %r : i32
  %p = llvm.getelementptr %out[%tid] : (!llvm.ptr, i32) -> !llvm.ptr, i32
  llvm.store %v, %p : i32, !llvm.ptr
  %j1 = llvm.add %j, %c1 : i32
  %r1 = llvm.add %r, %c1 : i32
  %u = llvm.icmp "slt" %j1, %a : i32
  llvm.cond_br %u, ^after(%j1 : i32), {latch}
{done}
}}"#
    );
    Kernel {
        name: if ending {
            "spin_nest_ending"
        } else {
            "spin_nest"
        },
        text,
        pipeline: "builtin.module(spmd-structurize)",
        buffers: vec![vec![0; THREADS as usize]],
        pointers: true,
        args: |buffers, _| vec![buffers[0], Value::i32(5)],
    }
}

/// The backtracking matcher: `^retry` backtracks at once or tries
/// `^body`; `^body` scans forward in one of two inner loops, which both
/// give up into `^backtrack`; `^backtrack` stores where it is, then either
/// unwinds in a third inner loop and tries `^body` again, or retries.
/// `^body` and `^backtrack` are both entered from `^retry` (irreducible).
/// Every cycle but the three inner loops (which end) passes `^backtrack`;
/// with `ending`, it counts its visits in `%steps[tid]` and returns at
/// the 25th.
fn matcher(ending: bool) -> Kernel {
    let (count, choose) = if ending {
        (
            r#"  %old = memref.load %steps[%tid] : memref<64xi32>
  %c1_i32 = arith.constant 1 : i32
  %new = arith.addi %old, %c1_i32 : i32
  memref.store %new, %steps[%tid] : memref<64xi32>
  %c25_i32 = arith.constant 25 : i32
  %stop = arith.cmpi sge, %new, %c25_i32 : i32
  cf.cond_br %stop, ^done, ^choose
^choose:
"#,
            "^done:\n  return\n",
        )
    } else {
        ("", "")
    };
    let text = format!(
        r#"func.func @kernel(%text: memref<16xi32>, %out: memref<64xi32>, %steps: memref<64xi32>, %want: i32) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %tid = gpu.thread_id x
  %lane = arith.remui %tid, %c16 : index
  cf.br ^retry(%lane : index)
^retry(%pos: index):
  %third = arith.remui %pos, %c3 : index
  %skip = arith.cmpi eq, %third, %c0 : index
  cf.cond_br %skip, ^backtrack(%pos : index), ^body(%pos : index)
^body(%at: index):
  %slot = arith.remui %at, %c16 : index
  %ch = memref.load %text[%slot] : memref<16xi32>
  %hit = arith.cmpi eq, %ch, %want : i32
  cf.cond_br %hit, ^scan_same(%at : index), ^scan_other(%at : index)
^scan_same(%a: index):
  %a1 = arith.addi %a, %c1 : index
  %sa = arith.remui %a1, %c16 : index
  %cha = memref.load %text[%sa] : memref<16xi32>
  %same = arith.cmpi eq, %cha, %want : i32
  cf.cond_br %same, ^scan_same(%a1 : index), ^backtrack(%a1 : index)
^scan_other(%b: index):
  %b1 = arith.addi %b, %c1 : index
  %m = arith.remui %b1, %c4 : index
  %aligned = arith.cmpi eq, %m, %c0 : index
  cf.cond_br %aligned, ^backtrack(%b1 : index), ^scan_other(%b1 : index)
^backtrack(%bt: index):
  %v = arith.index_cast %bt : index to i32
  memref.store %v, %out[%tid] : memref<64xi32>
{count}  %bs = arith.remui %bt, %c16 : index
  %deep = arith.cmpi ugt, %bs, %lane : index
  %next = arith.addi %bt, %c1 : index
  cf.cond_br %deep, ^unwind(%bt : index), ^retry(%next : index)
^unwind(%u: index):
  %u1 = arith.subi %u, %c1 : index
  %us = arith.remui %u1, %c16 : index
  %back = arith.cmpi ule, %us, %lane : index
  cf.cond_br %back, ^body(%u1 : index), ^unwind(%u1 : index)
{choose}}}"#
    );
    Kernel {
        name: if ending { "matcher_ending" } else { "matcher" },
        text,
        pipeline: "builtin.module(spmd-structurize{irreducible=fix})",
        buffers: vec![
            vec![3, 3, 1, 3, 0, 3, 3, 3, 2, 3, 1, 1, 3, 3, 0, 3],
            vec![0; THREADS as usize],
            vec![0; THREADS as usize],
        ],
        pointers: false,
        args: |buffers, _| vec![buffers[0], buffers[1], buffers[2], Value::i32(3)],
    }
}

/// Runs `@kernel` of `module` on fresh buffers for every thread.
fn run_kernel(module: &Module, kernel: &Kernel, fuel: u64) -> RunRecord {
    let mut memory = Memory::new();
    let handles: Vec<Value> = kernel
        .buffers
        .iter()
        .map(|init| {
            let memref =
                memory.alloc_init(ElementType::Int(32), &[init.len() as u64], init.as_slice());
            if kernel.pointers {
                Value::Ptr(memory.pointer_to(memref).expect("a harness buffer"))
            } else {
                Value::MemRef(memref)
            }
        })
        .collect();
    let args = |thread: ThreadId| (kernel.args)(&handles, thread);
    let run: GridRun = Executor::new(module).run_grid("kernel", &args, THREADS, &mut memory, fuel);
    RunRecord { run, memory }
}

/// Structurizes `kernel`, checks the output's structure and idempotence,
/// and returns the original and the transformed module.
fn structurize<'c>(context: &'c melior::Context, kernel: &Kernel) -> (Module<'c>, Module<'c>) {
    let original = parse(context, &kernel.text);
    let mut transformed = parse(context, &kernel.text);
    if let Err(messages) = run(context, &mut transformed, kernel.pipeline) {
        panic!("{}: {messages:?}\n{}", kernel.name, kernel.text);
    }
    assert!(
        transformed.as_operation().verify(),
        "{}: invalid output",
        kernel.name
    );
    let once = transformed.as_operation().to_string();
    let mut checked = parse(context, &once);
    if let Err(messages) = run(
        context,
        &mut checked,
        "builtin.module(spmd-verify-structured)",
    ) {
        panic!("{}: not structured: {messages:?}\n{once}", kernel.name);
    }
    run(context, &mut checked, kernel.pipeline).expect("second run");
    assert_eq!(
        once,
        checked.as_operation().to_string(),
        "{}: not idempotent",
        kernel.name
    );
    (original, transformed)
}

/// Counts the returns in `module`'s text.
fn returns(module: &Module) -> usize {
    let text = module.as_operation().to_string();
    text.lines()
        .filter(|line| {
            let line = line.trim_start();
            line.starts_with("return") || line.starts_with("llvm.return")
        })
        .count()
}

fn assert_never_ending_runs_agree(kernel: &Kernel) {
    let context = context();
    let (original, transformed) = structurize(&context, kernel);
    assert_eq!(returns(&original), 0, "{}: the input returns", kernel.name);
    assert_eq!(
        returns(&transformed),
        1,
        "{}: expected one created return\n{}",
        kernel.name,
        transformed.as_operation()
    );
    let before = run_kernel(&original, kernel, FUEL_FOREVER);
    let after = run_kernel(&transformed, kernel, FUEL_FOREVER);
    for thread in 0..THREADS {
        for (which, record) in [("original", &before), ("transformed", &after)] {
            let outcome = &record.run.outcomes[thread as usize];
            assert!(
                matches!(outcome, Err(ExecError::OutOfFuel { .. })),
                "{}: thread {thread} of the {which} kernel should run out of fuel, got {outcome:?}\n{}",
                kernel.name,
                transformed.as_operation()
            );
        }
        let stores_before: Vec<_> = before.memory.effects_of_thread(thread).collect();
        let stores_after: Vec<_> = after.memory.effects_of_thread(thread).collect();
        let common = stores_before.len().min(stores_after.len());
        assert!(
            common >= MIN_STORES,
            "{}: thread {thread} made only {common} stores",
            kernel.name
        );
        for (position, (a, b)) in stores_before.iter().zip(&stores_after).enumerate() {
            assert!(
                a.same_as(b),
                "{}: thread {thread}, store {position}: original {a}, transformed {b}\n{}",
                kernel.name,
                transformed.as_operation()
            );
        }
    }
}

fn assert_ending_runs_agree(kernel: &Kernel) {
    let context = context();
    let (original, transformed) = structurize(&context, kernel);
    let before = run_kernel(&original, kernel, FUEL_ENDING);
    let after = run_kernel(&transformed, kernel, FUEL_ENDING);
    if let Some((thread, error)) = before.run.first_error() {
        panic!(
            "{}: thread {thread} of the original failed: {error}",
            kernel.name
        );
    }
    if let Err(mismatch) = compare_records(&before, &after) {
        panic!(
            "{}: {mismatch}\ntransformed:\n{}",
            kernel.name,
            transformed.as_operation()
        );
    }
}

#[test]
fn structurize_no_return_spin_nest_runs_like_the_original() {
    assert_never_ending_runs_agree(&spin_nest(false));
}

#[test]
fn structurize_no_return_matcher_runs_like_the_original() {
    assert_never_ending_runs_agree(&matcher(false));
}

#[test]
fn structurize_no_return_ending_variants_compute_the_same() {
    assert_ending_runs_agree(&spin_nest(true));
    assert_ending_runs_agree(&matcher(true));
}
