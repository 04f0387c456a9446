//! Tests of the reference SIMT executor (`spmd_oracle`): op semantics per
//! family, typed errors, control flow, memory, tracing, grid runs,
//! `compare_runs`, and a property test over random kernels.

use crate::common::{context, parse};
use melior::ir::Module;
use spmd::{cfg_regions, graph::CfgAnalysis, RegionGraph};
use spmd_oracle::{
    compare_executors, compare_runs, run_fresh, BufferSpec, ElementType, ExecError, Executor,
    GridDims, KernelShape, Memory, MemoryError, Mismatch, NoTrace, PoisonUse, RandomKernel,
    RecordingTracer, RunInputs, ThreadId, Value,
};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

const FUEL: u64 = 10_000;

/// Runs `func` of `module` for thread `tid` of a 64-thread block.
fn run_on(module: &Module, func: &str, args: &[Value], tid: u32) -> Result<Vec<Value>, ExecError> {
    let mut memory = Memory::new();
    run_with_memory(module, func, args, tid, &mut memory)
}

fn run_with_memory(
    module: &Module,
    func: &str,
    args: &[Value],
    tid: u32,
    memory: &mut Memory,
) -> Result<Vec<Value>, ExecError> {
    let dims = GridDims::linear(64);
    let thread = ThreadId::from_linear(tid, &dims);
    Executor::new(module).run_thread(func, args, thread, &dims, memory, &mut NoTrace, FUEL)
}

/// Parses `source` and runs `@f` with `args` on thread 0.
fn run(source: &str, args: &[Value]) -> Result<Vec<Value>, ExecError> {
    let context = context();
    let module = parse(&context, source);
    run_on(&module, "f", args, 0)
}

fn single(source: &str, args: &[Value]) -> Value {
    let values = run(source, args).unwrap_or_else(|error| panic!("{error}\n{source}"));
    assert_eq!(values.len(), 1);
    values[0]
}

fn binary_i32(op: &str, a: i32, b: i32) -> Result<Vec<Value>, ExecError> {
    let source = format!(
        "func.func @f(%a: i32, %b: i32) -> i32 {{\n  %r = arith.{op} %a, %b : i32\n  return %r : i32\n}}"
    );
    run(&source, &[Value::i32(a), Value::i32(b)])
}

fn binary_i32_ok(op: &str, a: i32, b: i32) -> Value {
    binary_i32(op, a, b).unwrap_or_else(|error| panic!("{op}: {error}"))[0]
}

// ---------------------------------------------------------------------------
// arith
// ---------------------------------------------------------------------------

#[test]
fn exec_integer_binary_ops_wrap_and_respect_signedness() {
    let cases: &[(&str, i32, i32, i32)] = &[
        ("addi", i32::MAX, 1, i32::MIN),
        ("subi", i32::MIN, 1, i32::MAX),
        ("muli", 65536, 65536, 0),
        ("divsi", -7, 2, -3),
        ("divui", -8, 2, 0x7FFF_FFFC),
        ("remsi", -7, 2, -1),
        ("remui", -1, 10, 5),
        ("ceildivsi", 7, 2, 4),
        ("ceildivsi", -7, 2, -3),
        ("floordivsi", -7, 2, -4),
        ("ceildivui", 7, 2, 4),
        ("andi", 0b1100, 0b1010, 0b1000),
        ("ori", 0b1100, 0b1010, 0b1110),
        ("xori", 0b1100, 0b1010, 0b0110),
        ("shli", 1, 31, i32::MIN),
        ("shrsi", -16, 2, -4),
        ("shrui", -16, 28, 15),
        ("minsi", -1, 1, -1),
        ("maxsi", -1, 1, 1),
        ("minui", -1, 1, 1),
        ("maxui", -1, 1, -1),
    ];
    for &(op, a, b, expected) in cases {
        assert_eq!(
            binary_i32_ok(op, a, b),
            Value::i32(expected),
            "{op} {a} {b}"
        );
    }
}

#[test]
fn exec_narrow_integers_wrap_to_their_width() {
    let source = "func.func @f(%a: i8, %b: i8) -> (i8, i1, i16) {
      %s = arith.addi %a, %b : i8
      %c = arith.cmpi slt, %s, %a : i8
      %w = arith.extsi %s : i8 to i16
      return %s, %c, %w : i8, i1, i16
    }";
    let values = run(
        source,
        &[Value::int(8, 100).unwrap(), Value::int(8, 100).unwrap()],
    )
    .unwrap();
    assert_eq!(
        values,
        vec![
            Value::int(8, -56).unwrap(),
            Value::bool(true),
            Value::int(16, -56).unwrap()
        ]
    );
}

#[test]
fn exec_cmpi_all_predicates() {
    let expectations: &[(&str, bool, bool)] = &[
        // (predicate, (-1 vs 1), (1 vs 1))
        ("eq", false, true),
        ("ne", true, false),
        ("slt", true, false),
        ("sle", true, true),
        ("sgt", false, false),
        ("sge", false, true),
        ("ult", false, false),
        ("ule", false, true),
        ("ugt", true, false),
        ("uge", true, true),
    ];
    for &(predicate, minus_one_vs_one, one_vs_one) in expectations {
        let source = format!(
            "func.func @f(%a: i32, %b: i32) -> i1 {{\n  %r = arith.cmpi {predicate}, %a, %b : i32\n  return %r : i1\n}}"
        );
        assert_eq!(
            single(&source, &[Value::i32(-1), Value::i32(1)]),
            Value::bool(minus_one_vs_one),
            "{predicate}"
        );
        assert_eq!(
            single(&source, &[Value::i32(1), Value::i32(1)]),
            Value::bool(one_vs_one),
            "{predicate}"
        );
    }
}

#[test]
fn exec_casts_select_and_index() {
    let source = "func.func @f(%a: i32, %c: i1) -> (i64, i64, i8, index, index, i32, i32) {
      %s = arith.extsi %a : i32 to i64
      %u = arith.extui %a : i32 to i64
      %t = arith.trunci %a : i32 to i8
      %i = arith.index_cast %a : i32 to index
      %iu = arith.index_castui %a : i32 to index
      %back = arith.index_cast %i : index to i32
      %k = arith.constant 7 : i32
      %sel = arith.select %c, %a, %k : i32
      return %s, %u, %t, %i, %iu, %back, %sel : i64, i64, i8, index, index, i32, i32
    }";
    let values = run(source, &[Value::i32(-2), Value::bool(false)]).unwrap();
    assert_eq!(
        values,
        vec![
            Value::i64(-2),
            Value::i64(0xFFFF_FFFE),
            Value::int(8, -2).unwrap(),
            Value::index(-2),
            Value::index(0xFFFF_FFFE),
            Value::i32(-2),
            Value::i32(7),
        ]
    );
}

#[test]
fn exec_float_ops() {
    let source = "func.func @f(%a: f32, %b: f32) -> (f32, f32, i1, i1, i32, f64) {
      %s = arith.addf %a, %b : f32
      %p = arith.mulf %a, %b : f32
      %lt = arith.cmpf olt, %a, %b : f32
      %nan = arith.divf %s, %s : f32
      %uno = arith.cmpf uno, %nan, %a : f32
      %i = arith.fptosi %p : f32 to i32
      %d = arith.extf %a : f32 to f64
      return %s, %p, %lt, %uno, %i, %d : f32, f32, i1, i1, i32, f64
    }";
    let values = run(source, &[Value::F32(1.5), Value::F32(-1.5)]).unwrap();
    assert_eq!(
        values,
        vec![
            Value::F32(0.0),
            Value::F32(-2.25),
            Value::bool(false),
            Value::bool(true),
            Value::i32(-2),
            Value::F64(1.5)
        ]
    );
}

#[test]
fn exec_overflow_flags_and_wide_shifts_give_poison() {
    assert_eq!(
        single(
            "func.func @f(%a: i32) -> i32 {\n %one = arith.constant 1 : i32\n %r = arith.addi %a, %one overflow<nsw> : i32\n return %r : i32\n}",
            &[Value::i32(i32::MAX)]
        ),
        Value::Poison
    );
    assert_eq!(binary_i32_ok("shli", 1, 32), Value::Poison);
    assert_eq!(binary_i32_ok("shrui", 1, -1), Value::Poison);
    // Arithmetic on poison is poison.
    let source = "func.func @f(%a: i32) -> i32 {
      %p = ub.poison : i32
      %r = arith.addi %p, %a : i32
      return %r : i32
    }";
    assert_eq!(single(source, &[Value::i32(1)]), Value::Poison);
}

// ---------------------------------------------------------------------------
// Typed errors
// ---------------------------------------------------------------------------

#[test]
fn exec_division_errors_are_undefined_behavior() {
    for (op, a, b) in [
        ("divsi", 1, 0),
        ("divui", 1, 0),
        ("remsi", 1, 0),
        ("remui", 1, 0),
        ("divsi", i32::MIN, -1),
        ("remsi", i32::MIN, -1),
    ] {
        match binary_i32(op, a, b) {
            Err(ExecError::UndefinedBehavior { site, .. }) => {
                assert_eq!(site.op_name, format!("arith.{op}"));
                assert!(site.location.starts_with("loc("), "{}", site.location);
            }
            other => panic!("{op} {a} {b}: expected undefined behaviour, got {other:?}"),
        }
    }
}

#[test]
fn exec_out_of_bounds_is_a_typed_error() {
    let source = "func.func @f(%m: memref<4xi32>, %i: index) -> i32 {
      %v = memref.load %m[%i] : memref<4xi32>
      return %v : i32
    }";
    let context = context();
    let module = parse(&context, source);
    for index in [4, -1] {
        let mut memory = Memory::new();
        let buffer = memory.alloc_i32(&[1, 2, 3, 4]);
        let error = run_with_memory(
            &module,
            "f",
            &[Value::MemRef(buffer), Value::index(index)],
            0,
            &mut memory,
        )
        .unwrap_err();
        match error {
            ExecError::Memory {
                site,
                error: MemoryError::OutOfBounds { indices, shape, .. },
            } => {
                assert_eq!(site.op_name, "memref.load");
                assert_eq!((indices, shape), (vec![index], vec![4]));
            }
            other => panic!("expected out of bounds, got {other:?}"),
        }
    }
}

#[test]
fn exec_unsupported_op_fails_only_when_executed() {
    let source = "func.func @f(%c: i1, %a: i32) -> i32 {
      cf.cond_br %c, ^bb1, ^bb2
    ^bb1:
      %r = math.absi %a : i32
      return %r : i32
    ^bb2:
      return %a : i32
    }";
    assert_eq!(
        run(source, &[Value::bool(false), Value::i32(-3)]).unwrap(),
        vec![Value::i32(-3)]
    );
    match run(source, &[Value::bool(true), Value::i32(-3)]) {
        Err(ExecError::Unsupported { site }) => {
            assert_eq!(site.op_name, "math.absi");
            assert!(site.location.contains(":4:"), "location {}", site.location);
        }
        other => panic!("expected unsupported, got {other:?}"),
    }
    let with_region = "func.func @f(%c: i1) -> i32 {
      %r = scf.if %c -> i32 {
        %one = arith.constant 1 : i32
        scf.yield %one : i32
      } else {
        %two = arith.constant 2 : i32
        scf.yield %two : i32
      }
      return %r : i32
    }";
    assert!(
        matches!(run(with_region, &[Value::bool(true)]), Err(ExecError::Unsupported { site }) if site.op_name == "scf.if")
    );
}

#[test]
fn exec_infinite_loop_runs_out_of_fuel() {
    let source = "func.func @f() {
      cf.br ^bb1
    ^bb1:
      cf.br ^bb1
    }";
    assert_eq!(run(source, &[]), Err(ExecError::OutOfFuel { fuel: FUEL }));
}

#[test]
fn exec_unreachable_and_failed_assert_are_typed_errors() {
    let unreachable = "func.func @f() {\n llvm.unreachable\n}";
    assert!(
        matches!(run(unreachable, &[]), Err(ExecError::UndefinedBehavior { site, .. }) if site.op_name == "llvm.unreachable")
    );
    let assert = "func.func @f(%c: i1) {\n cf.assert %c, \"c must hold\"\n return\n}";
    assert_eq!(run(assert, &[Value::bool(true)]), Ok(vec![]));
    assert!(
        matches!(run(assert, &[Value::bool(false)]), Err(ExecError::AssertionFailed { message, .. }) if message == "c must hold")
    );
    let wave_level = "func.func @f() {\n spmd.exec.br_zero ^bb1, ^bb1\n^bb1:\n return\n}";
    assert!(
        matches!(run(wave_level, &[]), Err(ExecError::Unsupported { site }) if site.op_name == "spmd.exec.br_zero")
    );
}

#[test]
fn exec_poison_flows_through_block_arguments_but_not_into_branches_or_stores() {
    let harmless = "func.func @f(%c: i1, %a: i32) -> i32 {
      %p = ub.poison : i32
      cf.cond_br %c, ^bb1(%p : i32), ^bb1(%a : i32)
    ^bb1(%x: i32):
      return %a : i32
    }";
    assert_eq!(
        run(harmless, &[Value::bool(true), Value::i32(5)]).unwrap(),
        vec![Value::i32(5)]
    );
    let branch = "func.func @f() -> i32 {
      %p = ub.poison : i1
      %k = arith.constant 0 : i32
      cf.cond_br %p, ^bb1, ^bb1
    ^bb1:
      return %k : i32
    }";
    assert!(matches!(
        run(branch, &[]),
        Err(ExecError::PoisonUsed { usage: PoisonUse::BranchCondition, site }) if site.op_name == "cf.cond_br"
    ));
    let store = "func.func @f(%m: memref<?xi32>) {
      %p = ub.poison : i32
      %i = arith.constant 0 : index
      memref.store %p, %m[%i] : memref<?xi32>
      return
    }";
    let context = context();
    let module = parse(&context, store);
    let mut memory = Memory::new();
    let buffer = memory.alloc_i32(&[0]);
    assert!(matches!(
        run_with_memory(&module, "f", &[Value::MemRef(buffer)], 0, &mut memory),
        Err(ExecError::PoisonUsed {
            usage: PoisonUse::StoredValue,
            ..
        })
    ));
}

#[test]
fn exec_bad_arguments_and_unknown_function() {
    let source = "func.func @f(%a: i32) -> i32 {\n return %a : i32\n}";
    assert!(matches!(
        run(source, &[]),
        Err(ExecError::ArgumentMismatch { .. })
    ));
    assert!(matches!(
        run(source, &[Value::i64(1)]),
        Err(ExecError::ArgumentMismatch { .. })
    ));
    let context = context();
    let module = parse(&context, source);
    assert_eq!(
        run_on(&module, "g", &[], 0),
        Err(ExecError::UnknownFunction { name: "g".into() })
    );
}

// ---------------------------------------------------------------------------
// Control flow
// ---------------------------------------------------------------------------

#[test]
fn exec_switch_takes_cases_and_default() {
    let source = "func.func @f(%x: i32) -> i32 {
      cf.switch %x : i32, [
        default: ^bb1(%x : i32),
        -5: ^bb2,
        7: ^bb3
      ]
    ^bb1(%d: i32):
      return %d : i32
    ^bb2:
      %a = arith.constant 100 : i32
      return %a : i32
    ^bb3:
      %b = arith.constant 200 : i32
      return %b : i32
    }";
    assert_eq!(single(source, &[Value::i32(-5)]), Value::i32(100));
    assert_eq!(single(source, &[Value::i32(7)]), Value::i32(200));
    assert_eq!(single(source, &[Value::i32(3)]), Value::i32(3));
    let narrow = "func.func @f(%x: i8) -> i8 {
      cf.switch %x : i8, [default: ^bb1(%x : i8), -1: ^bb2]
    ^bb1(%d: i8):
      return %d : i8
    ^bb2:
      %a = arith.constant 42 : i8
      return %a : i8
    }";
    assert_eq!(
        single(narrow, &[Value::int(8, 255).unwrap()]),
        Value::int(8, 42).unwrap()
    );
    assert_eq!(
        single(narrow, &[Value::int(8, 127).unwrap()]),
        Value::int(8, 127).unwrap()
    );
}

#[test]
fn exec_duplicate_successors_bind_their_own_operands() {
    let source = "func.func @f(%c: i1, %x: i32, %y: i32) -> i32 {
      cf.cond_br %c, ^bb1(%x : i32), ^bb1(%y : i32)
    ^bb1(%v: i32):
      return %v : i32
    }";
    assert_eq!(
        single(source, &[Value::bool(true), Value::i32(1), Value::i32(2)]),
        Value::i32(1)
    );
    assert_eq!(
        single(source, &[Value::bool(false), Value::i32(1), Value::i32(2)]),
        Value::i32(2)
    );
}

#[test]
fn exec_block_arguments_are_a_parallel_copy() {
    // Swapping loop: (a, b) -> (b, a) three times, then return a - b.
    let source = "func.func @f(%a0: i32, %b0: i32) -> i32 {
      %zero = arith.constant 0 : i32
      cf.br ^loop(%a0, %b0, %zero : i32, i32, i32)
    ^loop(%a: i32, %b: i32, %i: i32):
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      %next = arith.addi %i, %one : i32
      %more = arith.cmpi slt, %next, %three : i32
      cf.cond_br %more, ^loop(%b, %a, %next : i32, i32, i32), ^exit(%b, %a : i32, i32)
    ^exit(%x: i32, %y: i32):
      %r = arith.subi %x, %y : i32
      return %r : i32
    }";
    // Three swaps of (10, 1): (1, 10) (10, 1) (1, 10) -> return 1 - 10.
    assert_eq!(
        single(source, &[Value::i32(10), Value::i32(1)]),
        Value::i32(-9)
    );
}

#[test]
fn exec_spmd_ops_flow_br_tokens_and_markers() {
    let source = "func.func @f(%p: i1, %v: i32) -> i32 {
      %tok = spmd.convergence.entry : !spmd.token
      spmd.reconvergence.head 0
      cf.cond_br %p, ^flow(%p : i1), ^join(%v : i32)
    ^flow(%q: i1):
      spmd.flow_br %q, ^then(%v : i32), ^join(%v : i32)
    ^then(%t: i32):
      %one = arith.constant 1 : i32
      %r = arith.addi %t, %one : i32
      cf.br ^join(%r : i32)
    ^join(%j: i32):
      spmd.reconvergence.tail 0
      return %j : i32
    }";
    assert_eq!(
        single(source, &[Value::bool(true), Value::i32(4)]),
        Value::i32(5)
    );
    assert_eq!(
        single(source, &[Value::bool(false), Value::i32(4)]),
        Value::i32(4)
    );
}

#[test]
fn exec_llvm_branches() {
    let source = "func.func @f(%c: i1, %x: i32) -> i32 {
      llvm.cond_br %c, ^bb1(%x : i32), ^bb2
    ^bb1(%v: i32):
      llvm.br ^bb2
    ^bb2:
      return %x : i32
    }";
    assert_eq!(
        single(source, &[Value::bool(true), Value::i32(3)]),
        Value::i32(3)
    );
}

#[test]
fn exec_calls_and_call_depth_limit() {
    let source = "func.func @square(%x: i32) -> i32 {
      %r = arith.muli %x, %x : i32
      return %r : i32
    }
    func.func @f(%x: i32) -> i32 {
      %s = func.call @square(%x) : (i32) -> i32
      %t = call @square(%s) : (i32) -> i32
      return %t : i32
    }
    func.func @forever(%x: i32) -> i32 {
      %r = func.call @forever(%x) : (i32) -> i32
      return %r : i32
    }";
    assert_eq!(single(source, &[Value::i32(3)]), Value::i32(81));
    let context = context();
    let module = parse(&context, source);
    assert!(matches!(
        run_on(&module, "forever", &[Value::i32(1)], 0),
        Err(ExecError::CallDepthExceeded {
            limit: Executor::DEFAULT_CALL_DEPTH_LIMIT,
            ..
        })
    ));
}

// ---------------------------------------------------------------------------
// Memory and gpu
// ---------------------------------------------------------------------------

#[test]
fn exec_memref_load_store_atomic_dim_alloca_and_log() {
    let source =
        "func.func @f(%m: memref<2x?xi32>, %counter: memref<1xi32>, %tid: i32) -> (i32, index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %i = arith.index_cast %tid : i32 to index
      %v = memref.load %m[%c1, %i] : memref<2x?xi32>
      %w = arith.addi %v, %tid : i32
      memref.store %w, %m[%c0, %i] : memref<2x?xi32>
      %one = arith.constant 1 : i32
      %old = memref.atomic_rmw addi %one, %counter[%c0] : (i32, memref<1xi32>) -> i32
      %d = memref.dim %m, %c1 : memref<2x?xi32>
      %scratch = memref.alloca() : memref<2xi32>
      memref.store %old, %scratch[%c1] : memref<2xi32>
      %back = memref.load %scratch[%c1] : memref<2xi32>
      return %back, %d : i32, index
    }";
    let context = context();
    let module = parse(&context, source);
    let executor = Executor::new(&module);
    let mut memory = Memory::new();
    let m = memory.alloc_init(ElementType::Int(32), &[2, 3], &[0, 0, 0, 10, 20, 30]);
    let counter = memory.alloc_i32(&[0]);
    let run = executor.run_grid(
        "f",
        &|thread: ThreadId| {
            vec![
                Value::MemRef(m),
                Value::MemRef(counter),
                Value::i32(thread.x as i32),
            ]
        },
        3,
        &mut memory,
        FUEL,
    );
    for (tid, outcome) in run.outcomes.iter().enumerate() {
        assert_eq!(
            outcome.as_ref().unwrap(),
            &vec![Value::i32(tid as i32), Value::index(3)]
        );
    }
    assert_eq!(memory.read_i64s(m), vec![10, 21, 32, 10, 20, 30]);
    assert_eq!(memory.read_i64s(counter), vec![3]);
    // Two effects per thread (store, atomic); the alloca scratch is private.
    assert_eq!(memory.side_effects().len(), 6);
    let thread1: Vec<_> = memory.effects_of_thread(1).collect();
    assert_eq!((thread1[0].index, thread1[0].value), (1, Value::i32(21)));
    assert_eq!(memory.public_buffers().count(), 2);
}

#[test]
fn exec_memref_argument_shape_is_checked() {
    let source = "func.func @f(%m: memref<4xi32>) {\n return\n}";
    let context = context();
    let module = parse(&context, source);
    let mut memory = Memory::new();
    let wrong = memory.alloc_i32(&[1, 2]);
    assert!(matches!(
        run_with_memory(&module, "f", &[Value::MemRef(wrong)], 0, &mut memory),
        Err(ExecError::ArgumentMismatch { .. })
    ));
}

#[test]
fn exec_gpu_ids_in_a_gpu_func() {
    let source = "module attributes {gpu.container_module} {
      gpu.module @kernels {
        gpu.func @ids(%out: memref<?xindex>) kernel {
          %tid = gpu.thread_id x
          %lane = gpu.lane_id
          %bdim = gpu.block_dim x
          %sg = gpu.subgroup_size : index
          %a = arith.muli %tid, %bdim : index
          %b = arith.addi %a, %lane : index
          %c = arith.addi %b, %sg : index
          memref.store %c, %out[%tid] : memref<?xindex>
          gpu.return
        }
      }
    }";
    let context = context();
    let module = parse(&context, source);
    let executor = Executor::new(&module);
    let mut memory = Memory::new();
    let out = memory.alloc(ElementType::Index, &[40]);
    let run = executor.run_grid(
        "kernels::ids",
        &|_| vec![Value::MemRef(out)],
        40,
        &mut memory,
        FUEL,
    );
    assert!(run.first_error().is_none(), "{:?}", run.first_error());
    let expected: Vec<i64> = (0..40).map(|tid| tid * 40 + tid % 32 + 32).collect();
    assert_eq!(memory.read_i64s(out), expected);
}

// ---------------------------------------------------------------------------
// Tracing
// ---------------------------------------------------------------------------

#[test]
fn exec_tracer_records_dynamic_instances() {
    // A loop running %n times, whose exit test is the only branch.
    let source = "func.func @f(%n: i32) -> i32 {
      %zero = arith.constant 0 : i32
      cf.br ^header(%zero : i32)
    ^header(%i: i32):
      %one = arith.constant 1 : i32
      %next = arith.addi %i, %one : i32
      %more = arith.cmpi slt, %next, %n : i32
      cf.cond_br %more, ^header(%next : i32), ^exit
    ^exit:
      return %next : i32
    }";
    let context = context();
    let module = parse(&context, source);
    let executor = Executor::new(&module);
    let dims = GridDims::linear(2);
    let mut tracer = RecordingTracer::new();
    let mut memory = Memory::new();
    for tid in 0..2 {
        let n = 2 + tid as i32;
        executor
            .run_thread(
                "f",
                &[Value::i32(n)],
                ThreadId::from_linear(tid, &dims),
                &dims,
                &mut memory,
                &mut tracer,
                FUEL,
            )
            .unwrap();
    }
    let thread0 = tracer.decisions_of(0);
    let thread1 = tracer.decisions_of(1);
    assert_eq!(
        thread0
            .iter()
            .map(|(_, chosen)| *chosen)
            .collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert_eq!(
        thread1
            .iter()
            .map(|(_, chosen)| *chosen)
            .collect::<Vec<_>>(),
        vec![0, 0, 1]
    );
    // Same static site, one instance per iteration; iteration k of both
    // threads is the same dynamic instance.
    assert_eq!(thread0[0].0, thread1[0].0);
    assert_eq!(thread0[1].0, thread1[1].0);
    assert_eq!(thread0[1].0.visit, 1);
    assert_eq!(thread1[2].0.visit, 2);
    assert!(thread1
        .iter()
        .all(|(instance, _)| instance.op == thread1[0].0.op));
    assert_eq!(tracer.covered_blocks(), vec![(0, 0), (0, 1), (0, 2)]);
}

// ---------------------------------------------------------------------------
// compare_runs
// ---------------------------------------------------------------------------

const STORE_KERNEL: &str = "func.func @k(%out: memref<?xi32>, %tid: i32) -> i32 {
  %i = arith.index_cast %tid : i32 to index
  %two = arith.constant 2 : i32
  %c = arith.cmpi slt, %tid, %two : i32
  cf.cond_br %c, ^small, ^big
^small:
  memref.store %tid, %out[%i] : memref<?xi32>
  return %two : i32
^big:
  %x = arith.muli %tid, %tid : i32
  memref.store %x, %out[%i] : memref<?xi32>
  return %x : i32
}";

fn store_kernel_inputs(
    args: &dyn Fn(ThreadId, &[spmd_oracle::MemRefId]) -> Vec<Value>,
) -> RunInputs<'_> {
    RunInputs {
        num_threads: 8,
        buffers: vec![BufferSpec::zeroed_i32(8)],
        args,
        fuel: FUEL,
    }
}

#[test]
fn exec_compare_runs_accepts_identical_and_reports_differences() {
    let context = context();
    let original = parse(&context, STORE_KERNEL);
    let args = |thread: ThreadId, buffers: &[spmd_oracle::MemRefId]| {
        vec![Value::MemRef(buffers[0]), Value::i32(thread.x as i32)]
    };
    let inputs = store_kernel_inputs(&args);
    compare_runs(&original, &original, "k", &inputs).unwrap();

    let returns_differ = parse(
        &context,
        &STORE_KERNEL.replace("return %two", "return %tid"),
    );
    let mismatch = compare_runs(&original, &returns_differ, "k", &inputs).unwrap_err();
    assert!(
        matches!(mismatch, Mismatch::ReturnValues { thread: 0, .. }),
        "{mismatch}"
    );
    assert!(mismatch.to_string().contains("- original:"), "{mismatch}");

    let stores_differ = parse(
        &context,
        &STORE_KERNEL.replace("memref.store %x", "memref.store %tid"),
    );
    let mismatch = compare_runs(&original, &stores_differ, "k", &inputs).unwrap_err();
    assert!(
        matches!(
            mismatch,
            Mismatch::SideEffects {
                thread: 2,
                position: 0,
                ..
            }
        ),
        "{mismatch}"
    );

    let swapped = parse(
        &context,
        &STORE_KERNEL.replace("^small, ^big", "^big, ^small"),
    );
    assert!(compare_runs(&original, &swapped, "k", &inputs).is_err());
}

// ---------------------------------------------------------------------------
// Random kernels
// ---------------------------------------------------------------------------

const THREADS: u32 = 64;
const N_VALUES: [i32; 3] = [0, 5, 37];

fn kernel_inputs<'a>(
    kernel: &RandomKernel,
    args: &'a dyn Fn(ThreadId, &[spmd_oracle::MemRefId]) -> Vec<Value>,
) -> RunInputs<'a> {
    RunInputs {
        num_threads: THREADS,
        buffers: vec![BufferSpec::zeroed_i32(kernel.out_len(THREADS))],
        args,
        fuel: FUEL,
    }
}

fn kernel_args(n: i32) -> impl Fn(ThreadId, &[spmd_oracle::MemRefId]) -> Vec<Value> {
    move |thread, buffers| RandomKernel::arguments(buffers[0], n, thread.x)
}

#[test]
fn exec_random_kernels_are_deterministic() {
    let shape = KernelShape::irreducible(20);
    assert_eq!(
        RandomKernel::generate(7, &shape),
        RandomKernel::generate(7, &shape)
    );
    assert_ne!(
        RandomKernel::generate(7, &shape),
        RandomKernel::generate(8, &shape)
    );
}

#[test]
fn exec_random_kernels_verify_run_and_compare_equal_to_themselves() {
    const SEEDS: u64 = 300;
    let start = Instant::now();
    let context = context();
    for (class_index, (class, _)) in KernelShape::classes(2).iter().enumerate() {
        let mut with_back_edges = 0;
        let mut total_exits = 0;
        for seed in 0..SEEDS {
            let num_blocks = 2 + (seed as usize * 7 + class_index) % 39;
            let shape = KernelShape::classes(num_blocks)[class_index].1.clone();
            let kernel = RandomKernel::build(seed, &shape);
            let module = parse(&context, &kernel.text);
            let executor = Executor::new(&module);
            for (index, n) in N_VALUES.into_iter().enumerate() {
                let args = kernel_args(n);
                let inputs = kernel_inputs(&kernel, &args);
                // compare_runs(k, k) on one value of %n (it runs the kernel
                // twice); plain error-free runs on the others.
                let outcome = if index == seed as usize % N_VALUES.len() {
                    compare_executors(&executor, &executor, "kernel", &inputs)
                        .map_err(|m| m.to_string())
                } else {
                    match run_fresh(&executor, "kernel", &inputs).run.first_error() {
                        Some((thread, error)) => Err(format!("thread {thread}: {error}")),
                        None => Ok(()),
                    }
                };
                if let Err(problem) = outcome {
                    panic!("{class} seed {seed} n {n}: {problem}\n{}", kernel.text);
                }
            }
            with_back_edges += usize::from(kernel.has_irreducible_cycle);
            total_exits += kernel.num_exits;
        }
        if *class == "irreducible" {
            assert!(
                with_back_edges > SEEDS as usize / 4,
                "{class}: only {with_back_edges} irreducible kernels"
            );
        }
        if *class == "multi_exit_switch" {
            assert!(
                total_exits > SEEDS as usize * 3 / 2,
                "{class}: only {total_exits} exits"
            );
        }
    }
    eprintln!("random kernels: {:?}", start.elapsed());
}

#[test]
fn exec_random_gpu_variant_matches_the_func_variant() {
    let context = context();
    for seed in 0..40u64 {
        let shape = KernelShape::multi_exit_switch(2 + (seed as usize % 30));
        let kernel = RandomKernel::build(seed, &shape);
        let func_module = parse(&context, &kernel.text);
        let gpu_module = parse(&context, &kernel.gpu_text);
        let (func_exec, gpu_exec) = (Executor::new(&func_module), Executor::new(&gpu_module));
        let n = 5;
        let mut func_memory = Memory::new();
        let out = func_memory.alloc(ElementType::Int(32), &[kernel.out_len(THREADS)]);
        let run = func_exec.run_grid(
            "kernel",
            &|t| RandomKernel::arguments(out, n, t.x),
            THREADS,
            &mut func_memory,
            FUEL,
        );
        let returned: Vec<i64> = run
            .outcomes
            .iter()
            .map(|outcome| outcome.as_ref().unwrap()[0].as_i64().unwrap())
            .collect();

        let mut gpu_memory = Memory::new();
        let gpu_out = gpu_memory.alloc(ElementType::Int(32), &[kernel.out_len(THREADS)]);
        let ret = gpu_memory.alloc(ElementType::Int(32), &[u64::from(THREADS)]);
        let run = gpu_exec.run_grid(
            "kernel",
            &|_| RandomKernel::gpu_arguments(gpu_out, n, ret),
            THREADS,
            &mut gpu_memory,
            FUEL,
        );
        assert!(
            run.first_error().is_none(),
            "seed {seed}: {:?}",
            run.first_error()
        );
        assert_eq!(
            gpu_memory.read_i64s(gpu_out),
            func_memory.read_i64s(out),
            "seed {seed}"
        );
        assert_eq!(gpu_memory.read_i64s(ret), returned, "seed {seed}");
    }
}

/// Swaps the two successors of the `cf.cond_br` on `line`.
fn swap_successors(text: &str, line: usize) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let parts: Vec<&str> = lines[line].split(", ^").collect();
    assert_eq!(parts.len(), 3, "unexpected cond_br: {}", lines[line]);
    lines[line] = format!("{}, ^{}, ^{}", parts[0], parts[2], parts[1]);
    lines.join("\n")
}

#[test]
fn exec_compare_runs_detects_swapped_divergent_branches() {
    let context = context();
    let (mut mutated, mut detected) = (0, 0);
    for seed in 0..60u64 {
        let kernel = RandomKernel::build(seed, &KernelShape::reducible(4 + seed as usize % 20));
        let Some(&line) = kernel.divergent_branch_lines.first() else {
            continue;
        };
        let original = parse(&context, &kernel.text);
        let swapped = parse(&context, &swap_successors(&kernel.text, line));
        mutated += 1;
        let args = kernel_args(5);
        let inputs = kernel_inputs(&kernel, &args);
        detected += usize::from(compare_runs(&original, &swapped, "kernel", &inputs).is_err());
    }
    eprintln!("swapped divergent branches: {detected} of {mutated} detected");
    assert!(
        mutated >= 20,
        "only {mutated} kernels had a divergent cond_br"
    );
    assert!(
        detected * 2 >= mutated,
        "only {detected} of {mutated} mutations detected"
    );
}

/// Per run: the number of (subgroup, dynamic instance) pairs whose threads
/// took different successors.
fn divergent_instances(executor: &Executor, kernel: &RandomKernel, n: i32) -> usize {
    let mut memory = Memory::new();
    let out = memory.alloc(ElementType::Int(32), &[kernel.out_len(THREADS)]);
    let mut tracer = RecordingTracer::new();
    let dims = GridDims::linear(THREADS);
    let run = executor.run_grid_traced(
        "kernel",
        &dims,
        &|thread| RandomKernel::arguments(out, n, thread.x),
        &mut memory,
        &mut tracer,
        FUEL,
    );
    assert!(
        run.first_error().is_none(),
        "seed {}: {:?}",
        kernel.seed,
        run.first_error()
    );
    let mut choices: HashMap<(u32, spmd_oracle::DynamicInstance), usize> = HashMap::new();
    let mut divergent = HashSet::new();
    for event in tracer.branches {
        let key = (event.thread / dims.subgroup_size, event.instance);
        let first = *choices.entry(key.clone()).or_insert(event.chosen);
        if first != event.chosen {
            divergent.insert(key);
        }
    }
    divergent.len()
}

#[test]
fn exec_uniform_kernels_never_diverge_and_the_others_do() {
    let context = context();
    let mut diverging = [0usize; 4];
    for (class_index, counter) in diverging.iter_mut().enumerate() {
        for seed in 0..40u64 {
            let shape = KernelShape::classes(4 + seed as usize % 30)[class_index]
                .1
                .clone();
            let kernel = RandomKernel::build(1000 + seed, &shape);
            let module = parse(&context, &kernel.text);
            let executor = Executor::new(&module);
            *counter += usize::from(divergent_instances(&executor, &kernel, 5) > 0);
        }
    }
    let [reducible, uniform, irreducible, multi_exit] = diverging;
    assert_eq!(uniform, 0, "a uniform kernel diverged");
    assert!(
        reducible >= 20 && irreducible >= 20 && multi_exit >= 20,
        "{diverging:?}"
    );
}

#[test]
fn exec_random_kernel_irreducibility_matches_the_cfg_analysis() {
    let context = context();
    let mut irreducible = [0usize; 4];
    for (class_index, count) in irreducible.iter_mut().enumerate() {
        for seed in 0..60u64 {
            let shape = KernelShape::classes(3 + seed as usize % 38)[class_index]
                .1
                .clone();
            let kernel = RandomKernel::build(2000 + seed, &shape);
            let module = parse(&context, &kernel.text);
            let region = cfg_regions(module.as_operation())[0].region;
            let graph = RegionGraph::snapshot(region).expect("snapshot");
            let reducible = CfgAnalysis::build(graph.graph()).is_reducible();
            assert_eq!(
                !reducible, kernel.has_irreducible_cycle,
                "seed {}\n{}",
                kernel.seed, kernel.text
            );
            *count += usize::from(!reducible);
        }
    }
    let [reducible_class, uniform_class, irreducible_class, _] = irreducible;
    assert_eq!((reducible_class, uniform_class), (0, 0));
    assert!(irreducible_class >= 15, "{irreducible:?}");
}
