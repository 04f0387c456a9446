//! Tests of the executor on the LLVM and NVVM dialects: thread-level op
//! semantics (arithmetic, aggregates, pointers and memory, calls,
//! intrinsics, special registers), typed errors, lockstep warps
//! (collectives, lane guards, barriers, divergence and member-mask errors),
//! and the three renderings of the random kernels.

use crate::common::{context, parse};
use melior::ir::Module;
use spmd_oracle::{
    address_space, AtomicKind, EffectKind, ElementType, ExecError, Executor, GridDims, KernelShape,
    MaskViolation, Memory, MemoryError, NoTrace, Pointer, PoisonUse, RandomKernel, ThreadId, Value,
    VotePoison, WarpError,
};

const FUEL: u64 = 10_000;

/// Runs `@f` of `source` for thread `tid` of a 64-thread block.
fn run_with(
    source: &str,
    args: &[Value],
    memory: &mut Memory,
    tid: u32,
) -> Result<Vec<Value>, ExecError> {
    let context = context();
    let module = parse(&context, source);
    let dims = GridDims::linear(64);
    Executor::new(&module).run_thread(
        "f",
        args,
        ThreadId::from_linear(tid, &dims),
        &dims,
        memory,
        &mut NoTrace,
        FUEL,
    )
}

fn run(source: &str, args: &[Value]) -> Result<Vec<Value>, ExecError> {
    run_with(source, args, &mut Memory::new(), 0)
}

fn values(source: &str, args: &[Value]) -> Vec<Value> {
    run(source, args).unwrap_or_else(|error| panic!("{error}\n{source}"))
}

/// The fields of the struct `@f` of `source` returns.
fn struct_fields(source: &str, args: &[Value]) -> Vec<Value> {
    let mut memory = Memory::new();
    let returned =
        run_with(source, args, &mut memory, 0).unwrap_or_else(|error| panic!("{error}\n{source}"));
    let Value::Aggregate(id) = returned[0] else {
        panic!("a struct: {source}");
    };
    memory.aggregate(id).unwrap().to_vec()
}

fn i32s(values: &[i32]) -> Vec<Value> {
    values.iter().map(|&value| Value::i32(value)).collect()
}

// ---------------------------------------------------------------------------
// Arithmetic
// ---------------------------------------------------------------------------

#[test]
fn exec_llvm_integer_ops_and_flags() {
    let source = r#"llvm.func @f(%a: i32, %b: i32) -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)> {
      %0 = llvm.mlir.poison : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %add = llvm.add %a, %b : i32
      %sub = llvm.sub %a, %b : i32
      %mul = llvm.mul %a, %b : i32
      %udiv = llvm.udiv %a, %b : i32
      %sdiv = llvm.sdiv %a, %b : i32
      %urem = llvm.urem %a, %b : i32
      %srem = llvm.srem %a, %b : i32
      %and = llvm.and %a, %b : i32
      %or = llvm.or %a, %b : i32
      %xor = llvm.xor %a, %b : i32
      %shl = llvm.shl %a, %b : i32
      %lshr = llvm.lshr %a, %b : i32
      %ashr = llvm.ashr %a, %b : i32
      %1 = llvm.insertvalue %add, %0[0] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %2 = llvm.insertvalue %sub, %1[1] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %3 = llvm.insertvalue %mul, %2[2] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %4 = llvm.insertvalue %udiv, %3[3] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %5 = llvm.insertvalue %sdiv, %4[4] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %6 = llvm.insertvalue %urem, %5[5] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %7 = llvm.insertvalue %srem, %6[6] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %8 = llvm.insertvalue %and, %7[7] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %9 = llvm.insertvalue %or, %8[8] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %10 = llvm.insertvalue %xor, %9[9] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %11 = llvm.insertvalue %shl, %10[10] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %12 = llvm.insertvalue %lshr, %11[11] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      %13 = llvm.insertvalue %ashr, %12[12] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
      llvm.return %13 : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
    }"#;
    let context = context();
    let module = parse(&context, source);
    let dims = GridDims::linear(1);
    let mut memory = Memory::new();
    let result = Executor::new(&module)
        .run_thread(
            "f",
            &i32s(&[-20, 3]),
            ThreadId::from_linear(0, &dims),
            &dims,
            &mut memory,
            &mut NoTrace,
            FUEL,
        )
        .unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("expected an aggregate, got {:?}", result)
    };
    let expected = [
        -17,
        -23,
        -60,
        ((-20i32 as u32) / 3) as i32,
        -6,
        ((-20i32 as u32) % 3) as i32,
        -2,
        -20 & 3,
        -20 | 3,
        -20 ^ 3,
        -160,
        ((-20i32 as u32) >> 3) as i32,
        -3,
    ];
    assert_eq!(memory.aggregate(id).unwrap(), &i32s(&expected)[..]);
}

#[test]
fn exec_llvm_poison_generating_flags() {
    let cases = [
        ("llvm.add %a, %b overflow<nsw> : i32", i32::MAX, 1),
        ("llvm.sub %a, %b overflow<nuw> : i32", 0, 1),
        ("llvm.mul %a, %b overflow<nsw> : i32", 1 << 20, 1 << 12),
        ("llvm.shl %a, %b overflow<nuw> : i32", -1, 1),
        ("llvm.udiv exact %a, %b : i32", 7, 2),
        ("llvm.sdiv exact %a, %b : i32", -7, 2),
        ("llvm.lshr exact %a, %b : i32", 3, 1),
        ("llvm.ashr exact %a, %b : i32", -3, 1),
        ("llvm.or disjoint %a, %b : i32", 3, 1),
        ("llvm.shl %a, %b : i32", 1, 32),
    ];
    for (op, a, b) in cases {
        let source = format!(
            "llvm.func @f(%a: i32, %b: i32) -> i32 {{\n  %r = {op}\n  llvm.return %r : i32\n}}"
        );
        assert_eq!(
            values(&source, &i32s(&[a, b])),
            vec![Value::Poison],
            "{op} {a} {b}"
        );
    }
    // The same operations without a violated flag.
    for (op, a, b, expected) in [
        ("llvm.udiv exact %a, %b : i32", 8, 2, 4),
        ("llvm.or disjoint %a, %b : i32", 2, 1, 3),
        ("llvm.ashr exact %a, %b : i32", -4, 1, -2),
    ] {
        let source = format!(
            "llvm.func @f(%a: i32, %b: i32) -> i32 {{\n  %r = {op}\n  llvm.return %r : i32\n}}"
        );
        assert_eq!(values(&source, &i32s(&[a, b])), i32s(&[expected]), "{op}");
    }
}

#[test]
fn exec_llvm_icmp_predicates_casts_and_select() {
    for (predicate, expected) in [
        ("eq", false),
        ("ne", true),
        ("slt", true),
        ("sle", true),
        ("sgt", false),
        ("sge", false),
        ("ult", false),
        ("ule", false),
        ("ugt", true),
        ("uge", true),
    ] {
        let source = format!(
            "llvm.func @f(%a: i32, %b: i32) -> i1 {{\n  %r = llvm.icmp \"{predicate}\" %a, %b : i32\n  llvm.return %r : i1\n}}"
        );
        assert_eq!(
            values(&source, &i32s(&[-1, 1])),
            vec![Value::bool(expected)],
            "{predicate}"
        );
    }
    let source = "llvm.func @f(%a: i32, %c: i1) -> !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)> {
      %s = llvm.sext %a : i32 to i64
      %z = llvm.zext %a : i32 to i64
      %t = llvm.trunc %a : i32 to i8
      %k = llvm.mlir.constant(7 : i32) : i32
      %sel = llvm.select %c, %a, %k : i1, i32
      %f = llvm.sitofp %a : i32 to f32
      %d = llvm.fpext %f : f32 to f64
      %back = llvm.fptosi %d : f64 to i32
      %bits = llvm.bitcast %f : f32 to i32
      %nneg = llvm.zext nneg %a : i32 to i64
      %0 = llvm.mlir.undef : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %1 = llvm.insertvalue %s, %0[0] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %2 = llvm.insertvalue %z, %1[1] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %3 = llvm.insertvalue %t, %2[2] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %4 = llvm.insertvalue %sel, %3[3] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %5 = llvm.insertvalue %f, %4[4] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %6 = llvm.insertvalue %d, %5[5] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %7 = llvm.insertvalue %back, %6[6] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %8 = llvm.insertvalue %bits, %7[7] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      %9 = llvm.insertvalue %nneg, %8[8] : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
      llvm.return %9 : !llvm.struct<(i64, i64, i8, i32, f32, f64, i32, i32, i64)>
    }";
    let mut memory = Memory::new();
    let result = run_with(
        source,
        &[Value::i32(-2), Value::bool(false)],
        &mut memory,
        0,
    )
    .unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("{result:?}")
    };
    assert_eq!(
        memory.aggregate(id).unwrap(),
        &[
            Value::i64(-2),
            Value::i64(0xFFFF_FFFE),
            Value::int(8, -2).unwrap(),
            Value::i32(7),
            Value::F32(-2.0),
            Value::F64(-2.0),
            Value::i32(-2),
            Value::i32((-2.0f32).to_bits() as i32),
            Value::Poison,
        ][..]
    );
}

#[test]
fn exec_llvm_float_ops_and_intrinsics() {
    let source = "llvm.func @f(%a: f32, %b: f32, %x: i32, %y: i32) -> !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)> {
      %add = llvm.fadd %a, %b : f32
      %sub = llvm.fsub %a, %b : f32
      %mul = llvm.fmul %a, %b : f32
      %div = llvm.fdiv %a, %b : f32
      %neg = llvm.fneg %a : f32
      %lt = llvm.fcmp \"olt\" %a, %b : f32
      %uno = llvm.fcmp \"uno\" %a, %b : f32
      %abs = llvm.intr.fabs(%b) : (f32) -> f32
      %max = llvm.intr.maxnum(%a, %b) : (f32, f32) -> f32
      %smin = llvm.intr.smin(%x, %y) : (i32, i32) -> i32
      %umin = llvm.intr.umin(%x, %y) : (i32, i32) -> i32
      %sabs = \"llvm.intr.abs\"(%x) <{is_int_min_poison = false}> : (i32) -> i32
      %pop = llvm.intr.ctpop(%x) : (i32) -> i32
      %lz = \"llvm.intr.ctlz\"(%y) <{is_zero_poison = false}> : (i32) -> i32
      %tz = \"llvm.intr.cttz\"(%y) <{is_zero_poison = false}> : (i32) -> i32
      %smax = llvm.call_intrinsic \"llvm.smax.i32\"(%x, %y) : (i32, i32) -> i32
      %0 = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %1 = llvm.insertvalue %add, %0[0] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %2 = llvm.insertvalue %sub, %1[1] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %3 = llvm.insertvalue %mul, %2[2] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %4 = llvm.insertvalue %div, %3[3] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %5 = llvm.insertvalue %neg, %4[4] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %6 = llvm.insertvalue %lt, %5[5] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %7 = llvm.insertvalue %uno, %6[6] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %8 = llvm.insertvalue %abs, %7[7] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %9 = llvm.insertvalue %max, %8[8] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %10 = llvm.insertvalue %smin, %9[9] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %11 = llvm.insertvalue %umin, %10[10] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %12 = llvm.insertvalue %sabs, %11[11] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %13 = llvm.insertvalue %pop, %12[12] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %14 = llvm.insertvalue %lz, %13[13] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %15 = llvm.insertvalue %tz, %14[14] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      %16 = llvm.insertvalue %smax, %15[15] : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
      llvm.return %16 : !llvm.struct<(f32, f32, f32, f32, f32, i1, i1, f32, f32, i32, i32, i32, i32, i32, i32, i32)>
    }";
    let mut memory = Memory::new();
    let args = [
        Value::F32(1.5),
        Value::F32(-2.0),
        Value::i32(-7),
        Value::i32(8),
    ];
    let result = run_with(source, &args, &mut memory, 0).unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("{result:?}")
    };
    assert_eq!(
        memory.aggregate(id).unwrap(),
        &[
            Value::F32(-0.5),
            Value::F32(3.5),
            Value::F32(-3.0),
            Value::F32(-0.75),
            Value::F32(-1.5),
            Value::bool(false),
            Value::bool(false),
            Value::F32(2.0),
            Value::F32(1.5),
            Value::i32(-7),
            Value::i32(8),
            Value::i32(7),
            Value::i32(30),
            Value::i32(28),
            Value::i32(3),
            Value::i32(8),
        ][..]
    );
    // `is_int_min_poison`, `is_zero_poison` given as operands of the
    // intrinsic calls.
    let source = "llvm.func @f(%x: i32) -> !llvm.struct<(i32, i32)> {
      %true = llvm.mlir.constant(true) : i1
      %abs = llvm.call_intrinsic \"llvm.abs.i32\"(%x, %true) : (i32, i1) -> i32
      %zero = llvm.mlir.constant(0 : i32) : i32
      %ctlz = llvm.call_intrinsic \"llvm.ctlz.i32\"(%zero, %true) : (i32, i1) -> i32
      %0 = llvm.mlir.poison : !llvm.struct<(i32, i32)>
      %1 = llvm.insertvalue %abs, %0[0] : !llvm.struct<(i32, i32)>
      %2 = llvm.insertvalue %ctlz, %1[1] : !llvm.struct<(i32, i32)>
      llvm.return %2 : !llvm.struct<(i32, i32)>
    }";
    let mut memory = Memory::new();
    let result = run_with(source, &[Value::i32(i32::MIN)], &mut memory, 0).unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("{result:?}")
    };
    assert_eq!(
        memory.aggregate(id).unwrap(),
        &[Value::Poison, Value::Poison][..]
    );
}

#[test]
fn exec_llvm_aggregates_nested_extract_and_freeze() {
    let source = "llvm.func @f(%p: !llvm.ptr, %n: i64) -> !llvm.struct<(i64, i64, ptr, i32)> {
      %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
      %1 = llvm.insertvalue %p, %0[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
      %2 = llvm.insertvalue %n, %1[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
      %sizes = llvm.extractvalue %2[3] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
      %size1 = llvm.extractvalue %sizes[1] : !llvm.array<2 x i64>
      %size0 = llvm.extractvalue %sizes[0] : !llvm.array<2 x i64>
      %frozen = llvm.freeze %size0 : i64
      %aligned = llvm.extractvalue %2[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
      %poison = llvm.mlir.poison : i32
      %r0 = llvm.mlir.poison : !llvm.struct<(i64, i64, ptr, i32)>
      %r1 = llvm.insertvalue %size1, %r0[0] : !llvm.struct<(i64, i64, ptr, i32)>
      %r2 = llvm.insertvalue %frozen, %r1[1] : !llvm.struct<(i64, i64, ptr, i32)>
      %r3 = llvm.insertvalue %aligned, %r2[2] : !llvm.struct<(i64, i64, ptr, i32)>
      %r4 = llvm.insertvalue %poison, %r3[3] : !llvm.struct<(i64, i64, ptr, i32)>
      %r5 = llvm.freeze %r4 : !llvm.struct<(i64, i64, ptr, i32)>
      llvm.return %r5 : !llvm.struct<(i64, i64, ptr, i32)>
    }";
    let mut memory = Memory::new();
    let buffer = memory.alloc_i32(&[1, 2]);
    let pointer = memory.pointer_to(buffer).unwrap();
    let result = run_with(
        source,
        &[Value::Ptr(pointer), Value::i64(9)],
        &mut memory,
        0,
    )
    .unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("{result:?}")
    };
    assert_eq!(
        memory.aggregate(id).unwrap(),
        &[
            Value::i64(9),
            Value::i64(0),
            Value::Ptr(pointer),
            Value::i32(0)
        ][..]
    );
}

// ---------------------------------------------------------------------------
// Pointers and memory
// ---------------------------------------------------------------------------

#[test]
fn exec_llvm_gep_load_store_through_descriptors() {
    // A memref<?x?xi32> descriptor as the memref-to-LLVM conversion passes
    // it: element [i, j] is at aligned + offset + i * stride0 + j * stride1.
    let source = "llvm.func @f(%alloc: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64, %s0: i64, %s1: i64, %t0: i64, %t1: i64, %i: i64, %j: i64) -> i32 {
      %row = llvm.mul %i, %t0 : i64
      %base = llvm.add %offset, %row : i64
      %index = llvm.add %base, %j : i64
      %p = llvm.getelementptr inbounds %aligned[%index] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> i32
      %ten = llvm.mlir.constant(10 : i32) : i32
      %w = llvm.mul %v, %ten : i32
      llvm.store %w, %p : i32, !llvm.ptr
      llvm.return %v : i32
    }";
    let mut memory = Memory::new();
    let m = memory.alloc_init(ElementType::Int(32), &[2, 3], &[1, 2, 3, 4, 5, 6]);
    let mut args = memory.descriptor(m).unwrap();
    assert_eq!(args.len(), 7);
    args.extend([Value::i64(1), Value::i64(2)]);
    assert_eq!(
        run_with(source, &args, &mut memory, 5).unwrap(),
        vec![Value::i32(6)]
    );
    assert_eq!(memory.read_i64s(m), vec![1, 2, 3, 4, 5, 60]);
    let effect = memory.side_effects()[0];
    assert_eq!(
        (effect.thread, effect.kind, effect.index, effect.value),
        (5, EffectKind::Store, 5, Value::i32(60))
    );
    // One past the end is a valid `inbounds` address, not a valid access;
    // further is poison under `inbounds`.
    let mut end = memory.descriptor(m).unwrap();
    end.extend([Value::i64(2), Value::i64(0)]);
    assert!(matches!(
        run_with(source, &end, &mut memory, 0),
        Err(ExecError::Memory {
            error: MemoryError::PointerOutOfBounds { .. },
            ..
        })
    ));
    let mut past = memory.descriptor(m).unwrap();
    past.extend([Value::i64(2), Value::i64(1)]);
    assert!(matches!(
        run_with(source, &past, &mut memory, 0),
        Err(ExecError::PoisonUsed {
            usage: PoisonUse::Address,
            ..
        })
    ));
}

#[test]
fn exec_llvm_gep_struct_and_array_offsets() {
    // struct<(i8, i32, array<3 x i16>, i64)>: fields at 0, 4, 8, 16; size 24.
    let source = "llvm.func @f(%p: !llvm.ptr, %k: i64) -> !llvm.struct<(i64, i64, i64)> {
      %a = llvm.getelementptr %p[1, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i8, i32, array<3 x i16>, i64)>
      %b = llvm.getelementptr %p[%k, 2, %k] : (!llvm.ptr, i64, i64) -> !llvm.ptr, !llvm.struct<(i8, i32, array<3 x i16>, i64)>
      %c = llvm.getelementptr %p[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i8, i32, array<3 x i16>, i64)>
      %ai = llvm.ptrtoint %a : !llvm.ptr to i64
      %bi = llvm.ptrtoint %b : !llvm.ptr to i64
      %ci = llvm.ptrtoint %c : !llvm.ptr to i64
      %pi = llvm.ptrtoint %p : !llvm.ptr to i64
      %ar = llvm.sub %ai, %pi : i64
      %br = llvm.sub %bi, %pi : i64
      %cr = llvm.sub %ci, %pi : i64
      %0 = llvm.mlir.poison : !llvm.struct<(i64, i64, i64)>
      %1 = llvm.insertvalue %ar, %0[0] : !llvm.struct<(i64, i64, i64)>
      %2 = llvm.insertvalue %br, %1[1] : !llvm.struct<(i64, i64, i64)>
      %3 = llvm.insertvalue %cr, %2[2] : !llvm.struct<(i64, i64, i64)>
      llvm.return %3 : !llvm.struct<(i64, i64, i64)>
    }";
    let mut memory = Memory::new();
    let buffer = memory.alloc_i32(&[0; 32]);
    let pointer = Value::Ptr(memory.pointer_to(buffer).unwrap());
    let result = run_with(source, &[pointer, Value::i64(2)], &mut memory, 0).unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("{result:?}")
    };
    assert_eq!(
        memory.aggregate(id).unwrap(),
        &[
            Value::i64(24 + 4),
            Value::i64(2 * 24 + 8 + 2 * 2),
            Value::i64(16)
        ][..]
    );
}

#[test]
fn exec_llvm_pointer_errors_are_typed() {
    let load = "llvm.func @f(%p: !llvm.ptr, %i: i64) -> i32 {
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %v = llvm.load %q : !llvm.ptr -> i32
      llvm.return %v : i32
    }";
    let mut memory = Memory::new();
    let buffer = memory.alloc_i32(&[7, 8]);
    let pointer = Value::Ptr(memory.pointer_to(buffer).unwrap());
    assert_eq!(
        run_with(load, &[pointer, Value::i64(4)], &mut memory, 0),
        Ok(vec![Value::i32(8)])
    );
    let error = |offset: i64, memory: &mut Memory| match run_with(
        load,
        &[pointer, Value::i64(offset)],
        memory,
        0,
    ) {
        Err(ExecError::Memory { site, error }) => {
            assert_eq!(site.op_name, "llvm.load");
            error
        }
        other => panic!("offset {offset}: {other:?}"),
    };
    assert!(matches!(
        error(8, &mut memory),
        MemoryError::PointerOutOfBounds {
            size: 4,
            buffer_bytes: 8,
            ..
        }
    ));
    assert!(matches!(
        error(-4, &mut memory),
        MemoryError::PointerOutOfBounds { .. }
    ));
    assert!(matches!(
        error(2, &mut memory),
        MemoryError::ElementMisaligned { .. }
    ));
    let null = "llvm.func @f() -> i32 {
      %p = llvm.mlir.zero : !llvm.ptr
      %v = llvm.load %p : !llvm.ptr -> i32
      llvm.return %v : i32
    }";
    assert!(matches!(
        run(null, &[]),
        Err(ExecError::Memory {
            error: MemoryError::NullPointer { .. },
            ..
        })
    ));
    // A harness buffer is global memory: not shared, reachable as generic.
    let shared = "llvm.func @f(%p: !llvm.ptr) -> i32 {
      %s = llvm.addrspacecast %p : !llvm.ptr to !llvm.ptr<3>
      %v = llvm.load %s : !llvm.ptr<3> -> i32
      llvm.return %v : i32
    }";
    assert!(matches!(
        run_with(shared, &[pointer], &mut memory, 0),
        Err(ExecError::Memory {
            error: MemoryError::AddressSpaceMismatch {
                buffer_space: address_space::GLOBAL,
                pointer_space: address_space::SHARED,
                ..
            },
            ..
        })
    ));
    let global = shared.replace("ptr<3>", "ptr<1>");
    assert_eq!(
        run_with(&global, &[pointer], &mut memory, 0),
        Ok(vec![Value::i32(7)])
    );
}

#[test]
fn exec_llvm_atomics_cmpxchg_alloca_and_pointer_round_trip() {
    let source =
        "llvm.func @f(%p: !llvm.ptr, %v: i32) -> !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)> {
      %old_add = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, i32
      %old_sub = llvm.atomicrmw sub %p, %v seq_cst : !llvm.ptr, i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %q = llvm.getelementptr %p[%one] : (!llvm.ptr, i32) -> !llvm.ptr, i32
      %old_max = llvm.atomicrmw umax %q, %v monotonic : !llvm.ptr, i32
      %pair = llvm.cmpxchg %q, %v, %one acq_rel monotonic : !llvm.ptr, i32
      %seen = llvm.extractvalue %pair[0] : !llvm.struct<(i32, i1)>
      %ok = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
      %slot = llvm.alloca %one x !llvm.array<4 x i32> : (i32) -> !llvm.ptr
      %s2 = llvm.getelementptr %slot[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
      llvm.store %v, %s2 : i32, !llvm.ptr
      %back = llvm.load %s2 : !llvm.ptr -> i32
      %int = llvm.ptrtoint %q : !llvm.ptr to i64
      %again = llvm.inttoptr %int : i64 to !llvm.ptr
      %r = llvm.load %again : !llvm.ptr -> i32
      %same = llvm.icmp \"eq\" %again, %q : !llvm.ptr
      %0 = llvm.mlir.poison : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      %1 = llvm.insertvalue %old_add, %0[0] : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      %2 = llvm.insertvalue %old_sub, %1[1] : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      %3 = llvm.insertvalue %seen, %2[2] : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      %4 = llvm.insertvalue %ok, %3[3] : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      %5 = llvm.insertvalue %back, %4[4] : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      %6 = llvm.insertvalue %r, %5[5] : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      %7 = llvm.insertvalue %same, %6[6] : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
      llvm.return %7 : !llvm.struct<(i32, i32, i32, i1, i32, i32, i1)>
    }";
    let mut memory = Memory::new();
    let buffer = memory.alloc_i32(&[10, 3]);
    let pointer = Value::Ptr(memory.pointer_to(buffer).unwrap());
    let result = run_with(source, &[pointer, Value::i32(5)], &mut memory, 2).unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("{result:?}")
    };
    assert_eq!(
        memory.aggregate(id).unwrap(),
        &[
            Value::i32(10),
            Value::i32(15),
            Value::i32(5),
            Value::bool(true),
            Value::i32(5),
            Value::i32(1),
            Value::bool(true)
        ][..]
    );
    assert_eq!(memory.read_i64s(buffer), vec![10, 1]);
    let kinds: Vec<EffectKind> = memory
        .side_effects()
        .iter()
        .map(|effect| effect.kind)
        .collect();
    assert_eq!(
        kinds,
        vec![
            EffectKind::AtomicRmw(AtomicKind::AddI),
            EffectKind::AtomicRmw(AtomicKind::SubI),
            EffectKind::AtomicRmw(AtomicKind::MaxU),
            EffectKind::CompareExchange { swapped: true },
        ],
        "the alloca's store is private"
    );
    let fadd = "llvm.func @f(%p: !llvm.ptr) -> f32 {
      %h = llvm.mlir.constant(0.5 : f32) : f32
      %old = llvm.atomicrmw fadd %p, %h monotonic : !llvm.ptr, f32
      llvm.return %old : f32
    }";
    let mut memory = Memory::new();
    let floats = memory.alloc_init(ElementType::F32, &[1], &[2]);
    let pointer = Value::Ptr(memory.pointer_to(floats).unwrap());
    assert_eq!(
        run_with(fadd, &[pointer], &mut memory, 0),
        Ok(vec![Value::F32(2.0)])
    );
    assert_eq!(
        memory.contents(memory.buffer_of(floats).unwrap()),
        vec![Value::F32(2.5)]
    );
}

#[test]
fn exec_llvm_calls_sregs_and_globals() {
    let source = r#"module {
      llvm.mlir.global internal @counter(41 : i32) {addr_space = 1 : i32} : i32
      llvm.mlir.global internal @table(dense<[5, 6, 7]> : tensor<3xi32>) {addr_space = 1 : i32} : !llvm.array<3 x i32>
      llvm.mlir.global internal @computed() {addr_space = 1 : i32} : i32 {
        %0 = llvm.mlir.constant(5 : i32) : i32
        llvm.return %0 : i32
      }
      llvm.mlir.global internal @scratch() {addr_space = 1 : i32} : !llvm.array<4 x i32>
      llvm.func @twice(%x: i32) -> i32 {
        %r = llvm.add %x, %x : i32
        llvm.return %r : i32
      }
      llvm.func @llvm.nvvm.read.ptx.sreg.ntid.x() -> i32
      llvm.func @f() -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)> {
        %tid = nvvm.read.ptx.sreg.tid.x : i32
        %tid2 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
        %ntid = llvm.call @llvm.nvvm.read.ptx.sreg.ntid.x() : () -> i32
        %lane = nvvm.read.ptx.sreg.laneid : i32
        %size = nvvm.read.ptx.sreg.warpsize : i32
        %d = llvm.call @twice(%tid) : (i32) -> i32
        %g = llvm.mlir.addressof @scratch : !llvm.ptr<1>
        %e = llvm.getelementptr %g[0, 3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.array<4 x i32>
        %before = llvm.load %e : !llvm.ptr<1> -> i32
        llvm.store %tid, %e : i32, !llvm.ptr<1>
        %0 = llvm.mlir.poison : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        %1 = llvm.insertvalue %tid, %0[0] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        %2 = llvm.insertvalue %tid2, %1[1] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        %3 = llvm.insertvalue %ntid, %2[2] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        %4 = llvm.insertvalue %lane, %3[3] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        %5 = llvm.insertvalue %size, %4[4] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        %6 = llvm.insertvalue %d, %5[5] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        %7 = llvm.insertvalue %before, %6[6] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
        llvm.return %7 : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32)>
      }
      llvm.func @initialized() -> i32 {
        %g = llvm.mlir.addressof @counter : !llvm.ptr<1>
        %v = llvm.load %g : !llvm.ptr<1> -> i32
        %t = llvm.mlir.addressof @table : !llvm.ptr<1>
        %e = llvm.getelementptr %t[0, 2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.array<3 x i32>
        %w = llvm.load %e : !llvm.ptr<1> -> i32
        %r = llvm.add %v, %w : i32
        llvm.return %r : i32
      }
      llvm.func @read_computed() -> i32 {
        %g = llvm.mlir.addressof @computed : !llvm.ptr<1>
        %v = llvm.load %g : !llvm.ptr<1> -> i32
        llvm.return %v : i32
      }
    }"#;
    let context = context();
    let module = parse(&context, source);
    let executor = Executor::new(&module);
    let dims = GridDims::linear(64);
    let mut memory = Memory::new();
    let run = |tid: u32, memory: &mut Memory| {
        let result = executor
            .run_thread(
                "f",
                &[],
                ThreadId::from_linear(tid, &dims),
                &dims,
                memory,
                &mut NoTrace,
                FUEL,
            )
            .unwrap();
        let Value::Aggregate(id) = result[0] else {
            panic!("{result:?}")
        };
        memory.aggregate(id).unwrap().to_vec()
    };
    assert_eq!(run(37, &mut memory), i32s(&[37, 37, 64, 5, 32, 74, 0]));
    // The global keeps the first thread's store.
    assert_eq!(run(3, &mut memory), i32s(&[3, 3, 64, 3, 32, 6, 37]));
    // Constant initializers: 41 + table[2].
    let initialized = executor
        .run_thread(
            "initialized",
            &[],
            ThreadId::from_linear(0, &dims),
            &dims,
            &mut memory,
            &mut NoTrace,
            FUEL,
        )
        .unwrap();
    assert_eq!(initialized, vec![Value::i32(48)]);
    // An initializer region that computes is outside the subset.
    let error = executor
        .run_thread(
            "read_computed",
            &[],
            ThreadId::from_linear(0, &dims),
            &dims,
            &mut memory,
            &mut NoTrace,
            FUEL,
        )
        .unwrap_err();
    assert!(
        matches!(error, ExecError::Unsupported { site } if site.op_name == "llvm.mlir.addressof")
    );
}

#[test]
fn exec_llvm_unsupported_and_warp_ops_fail_at_thread_level() {
    let vote = "llvm.func @f(%p: i1) -> i32 {
      %m = llvm.mlir.constant(-1 : i32) : i32
      %b = nvvm.vote.sync ballot %m, %p -> i32
      llvm.return %b : i32
    }";
    assert!(
        matches!(run(vote, &[Value::bool(true)]), Err(ExecError::WarpCollective { site }) if site.op_name == "nvvm.vote.sync")
    );
    let barrier = "llvm.func @f() {\n nvvm.barrier0\n llvm.return\n}";
    assert!(matches!(
        run(barrier, &[]),
        Err(ExecError::WarpCollective { .. })
    ));
    let intrinsic = "llvm.func @f(%x: f32) -> f32 {
      %r = llvm.call_intrinsic \"llvm.nvvm.tanh.approx.f\"(%x) : (f32) -> f32
      llvm.return %r : f32
    }";
    assert!(matches!(
        run(intrinsic, &[Value::F32(2.0)]),
        Err(ExecError::UnsupportedIntrinsic { name, .. }) if name == "llvm.nvvm.tanh.approx.f"
    ));
    let unsupported = "llvm.func @f(%x: i32) -> i32 {
      %r = llvm.intr.sadd.sat(%x, %x) : (i32, i32) -> i32
      llvm.return %r : i32
    }";
    assert!(
        matches!(run(unsupported, &[Value::i32(1)]), Err(ExecError::Unsupported { site }) if site.op_name == "llvm.intr.sadd.sat")
    );
    let assembly = "llvm.func @f(%x: i32) -> i32 {
      %r = llvm.inline_asm \"brev.b32 $0, $1;\", \"=r,r\" %x : (i32) -> i32
      llvm.return %r : i32
    }";
    assert!(matches!(
        run(assembly, &[Value::i32(1)]),
        Err(ExecError::UnsupportedIntrinsic { name, .. }) if name.contains("brev.b32")
    ));
    let half =
        "llvm.func @f(%x: f16) -> f16 {\n %r = llvm.fadd %x, %x : f16\n llvm.return %r : f16\n}";
    assert!(matches!(
        run(half, &[Value::Poison]),
        Err(ExecError::UnsupportedType { .. }) | Err(ExecError::ArgumentMismatch { .. })
    ));
}

/// What libdevice's inlined code calls: arithmetic and conversions with a
/// rounding mode, `.ftz` approximations, bit-level helpers, LLVM's
/// `bitreverse`, funnel shifts and `is.fpclass`, and inline PTX.
#[test]
fn exec_llvm_libdevice_intrinsics() {
    let call = |name: &str, operands: &str, types: &str, result: &str| {
        format!(
            "llvm.func @f(%a: f32, %b: f32, %d: f64, %e: f64, %i: i32, %j: i32, %l: i64) -> {result} {{
      %r = llvm.call_intrinsic \"{name}\"({operands}) : ({types}) -> {result}
      llvm.return %r : {result}
    }}"
        )
    };
    let tiny = 2f32.powi(-30);
    let args = [
        Value::F32(1.0),
        Value::F32(tiny),
        Value::F64(-2.5),
        Value::F64(1e-310),
        Value::i32(-7),
        Value::i32(0x0001_0000),
        Value::i64(-3),
    ];
    let cases = [
        // 1 + 2^-30 rounded toward +inf, toward zero, down.
        (
            call("llvm.nvvm.add.rp.f", "%a, %b", "f32, f32", "f32"),
            Value::F32(1.0f32.next_up()),
        ),
        (
            call("llvm.nvvm.add.rz.f", "%a, %b", "f32, f32", "f32"),
            Value::F32(1.0),
        ),
        (
            call("llvm.nvvm.fma.rm.f", "%b, %b, %a", "f32, f32, f32", "f32"),
            Value::F32(1.0),
        ),
        (
            call("llvm.nvvm.fma.rp.f", "%b, %b, %a", "f32, f32, f32", "f32"),
            Value::F32(1.0f32.next_up()),
        ),
        (
            call("llvm.nvvm.div.rm.d", "%d, %e", "f64, f64", "f64"),
            Value::F64(f64::NEG_INFINITY),
        ),
        (
            call("llvm.nvvm.div.rz.d", "%d, %e", "f64, f64", "f64"),
            Value::F64(-f64::MAX),
        ),
        (
            call("llvm.nvvm.sqrt.rm.f", "%a", "f32", "f32"),
            Value::F32(1.0),
        ),
        // Conversions: -2.5 to integers in each mode, integers to floats.
        (call("llvm.nvvm.d2i.rn", "%d", "f64", "i32"), Value::i32(-2)),
        (call("llvm.nvvm.d2i.rm", "%d", "f64", "i32"), Value::i32(-3)),
        (call("llvm.nvvm.d2ui.rz", "%d", "f64", "i32"), Value::i32(0)),
        (
            call("llvm.nvvm.d2ll.rp", "%d", "f64", "i64"),
            Value::i64(-2),
        ),
        (
            call("llvm.nvvm.ui2f.rz", "%i", "i32", "f32"),
            Value::F32(4294967040.0),
        ),
        (
            call("llvm.nvvm.ull2d.rp", "%l", "i64", "f64"),
            Value::F64(2f64.powi(64)),
        ),
        (
            call("llvm.nvvm.d2f.rp", "%e", "f64", "f32"),
            Value::F32(f32::from_bits(1)),
        ),
        (
            call("llvm.nvvm.d2f.rz", "%e", "f64", "f32"),
            Value::F32(0.0),
        ),
        // Bits.
        (
            call("llvm.nvvm.d2i.hi", "%d", "f64", "i32"),
            Value::i32(((-2.5f64).to_bits() >> 32) as i32),
        ),
        (
            call("llvm.nvvm.lohi.i2d", "%j, %i", "i32, i32", "f64"),
            Value::F64(f64::from_bits(0xffff_fff9_0001_0000)),
        ),
        (
            call("llvm.nvvm.mulhi.i", "%i, %j", "i32, i32", "i32"),
            Value::i32(-1),
        ),
        (
            call("llvm.nvvm.mulhi.ull", "%l, %l", "i64, i64", "i64"),
            Value::i64(-6),
        ),
        (
            call("llvm.nvvm.sad.i", "%i, %j, %j", "i32, i32, i32", "i32"),
            Value::i32(0x0002_0007),
        ),
        // Selector 0x10000: byte 0 of %i (0xf9) in every byte.
        (
            call("llvm.nvvm.prmt", "%i, %j, %j", "i32, i32, i32", "i32"),
            Value::i32(0xf9f9_f9f9u32 as i32),
        ),
        (
            call("llvm.bitreverse.i32", "%j", "i32", "i32"),
            Value::i32(0x8000),
        ),
        (
            call("llvm.fshr.i32", "%i, %j, %j", "i32, i32, i32", "i32"),
            Value::i32(0x0001_0000),
        ),
        // .ftz: the subnormal operand is a zero.
        (
            call("llvm.nvvm.rcp.approx.ftz.d", "%e", "f64", "f64"),
            Value::F64(f64::INFINITY),
        ),
        (
            call("llvm.nvvm.ex2.approx.ftz.f", "%a", "f32", "f32"),
            Value::F32(2.0),
        ),
        (
            call("llvm.nvvm.round.d", "%d", "f64", "f64"),
            Value::F64(-2.0),
        ),
        (
            call("llvm.nvvm.fabs.f64", "%d", "f64", "f64"),
            Value::F64(2.5),
        ),
    ];
    for (source, expected) in cases {
        let result = values(&source, &args);
        assert!(
            result[0].same_as(expected),
            "{source}: {} != {expected}",
            result[0]
        );
    }
    // `is.fpclass` (negative zero or positive subnormal), and `fshl`.
    let classes = "llvm.func @f(%x: f64, %y: f64, %i: i32) -> !llvm.struct<(i1, i1, i32)> {
      %0 = llvm.mlir.poison : !llvm.struct<(i1, i1, i32)>
      %p = \"llvm.intr.is.fpclass\"(%x) <{bit = 160 : i32}> : (f64) -> i1
      %q = \"llvm.intr.is.fpclass\"(%y) <{bit = 160 : i32}> : (f64) -> i1
      %c = llvm.mlir.constant(36 : i32) : i32
      %s = llvm.intr.fshl(%i, %i, %c) : (i32, i32, i32) -> i32
      %1 = llvm.insertvalue %p, %0[0] : !llvm.struct<(i1, i1, i32)>
      %2 = llvm.insertvalue %q, %1[1] : !llvm.struct<(i1, i1, i32)>
      %3 = llvm.insertvalue %s, %2[2] : !llvm.struct<(i1, i1, i32)>
      llvm.return %3 : !llvm.struct<(i1, i1, i32)>
    }";
    let args = [
        Value::F64(1e-310),
        Value::F64(-1.0),
        Value::i32(0x1234_5678),
    ];
    assert_eq!(
        struct_fields(classes, &args),
        [
            Value::bool(true),
            Value::bool(false),
            Value::i32(0x2345_6781)
        ]
    );
    // Inline PTX with two outputs: libdevice's 32 x 32 + 32 multiply-add.
    let wide = "llvm.func @f(%a: i32, %b: i32, %c: i32) -> !llvm.struct<(i32, i32)> {
      %r = llvm.inline_asm tail_call_kind = <tail> asm_dialect = att \"{\\0A\\09mad.lo.cc.u32   $0, $2, $3, $4;\\0A\\09madc.hi.u32     $1, $2, $3,  0;\\0A\\09}\", \"=r,=r,r,r,r\" %a, %b, %c : (i32, i32, i32) -> !llvm.struct<(i32, i32)>
      llvm.return %r : !llvm.struct<(i32, i32)>
    }";
    // (2^32 - 1)^2 + 2^32 - 1 = 2^64 - 2^32.
    assert_eq!(
        struct_fields(wide, &[Value::i32(-1), Value::i32(-1), Value::i32(-1)]),
        [Value::i32(0), Value::i32(-1)]
    );
}

// ---------------------------------------------------------------------------
// Lockstep warps
// ---------------------------------------------------------------------------

/// Runs `@k` of `source` on one CTA of `threads` threads in lockstep warps;
/// every thread gets `args`.
fn run_cta(
    source: &str,
    threads: u32,
    args: &[Value],
    memory: &mut Memory,
) -> Result<spmd_oracle::CtaRun, WarpError> {
    let context = context();
    let module = parse(&context, source);
    Executor::new(&module).run_cta(
        "k",
        &|_| args.to_vec(),
        &GridDims::linear(threads),
        [0, 0, 0],
        memory,
        FUEL,
    )
}

/// `%out[tid] = value`.
const STORE_AT_TID: &str = "
      %tid64 = llvm.zext %tid : i32 to i64
      %slot = llvm.getelementptr %out[%tid64] : (!llvm.ptr, i64) -> !llvm.ptr, i32";

#[test]
fn exec_warp_votes_and_activemask() {
    let source = format!(
        "llvm.func @k(%out: !llvm.ptr) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %c32 = llvm.mlir.constant(32 : i32) : i32
      %full = llvm.mlir.constant(-1 : i32) : i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %warp = llvm.udiv %tid, %c32 : i32
      %first = llvm.mul %warp, %c32 : i32
      %left = llvm.sub %ntid, %first : i32
      %whole = llvm.icmp \"uge\" %left, %c32 : i32
      %shifted = llvm.shl %one, %left : i32
      %partial = llvm.sub %shifted, %one : i32
      %live = llvm.select %whole, %full, %partial : i1, i32
      %three = llvm.mlir.constant(3 : i32) : i32
      %r = llvm.urem %tid, %three : i32
      %zero = llvm.mlir.constant(0 : i32) : i32
      %p = llvm.icmp \"eq\" %r, %zero : i32
      %ballot = nvvm.vote.sync ballot %live, %p -> i32
      %any = nvvm.vote.sync any %live, %p -> i1
      %all = nvvm.vote.sync all %live, %p -> i1
      %uni = llvm.call_intrinsic \"llvm.nvvm.vote.uni.sync\"(%live, %whole) : (i32, i1) -> i1
      %mask = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32
      %a = llvm.zext %any : i1 to i32
      %b = llvm.zext %all : i1 to i32
      %u = llvm.zext %uni : i1 to i32
      %t = llvm.shl %u, %one : i32
      %flags = llvm.or %a, %t : i32
      %s = llvm.shl %b, %three : i32
      %f2 = llvm.or %flags, %s : i32
      {STORE_AT_TID}
      llvm.store %ballot, %slot : i32, !llvm.ptr
      %c64 = llvm.mlir.constant(64 : i32) : i32
      %i2 = llvm.add %tid, %c64 : i32
      %i2w = llvm.zext %i2 : i32 to i64
      %slot2 = llvm.getelementptr %out[%i2w] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      llvm.store %f2, %slot2 : i32, !llvm.ptr
      %c128 = llvm.mlir.constant(128 : i32) : i32
      %i3 = llvm.add %tid, %c128 : i32
      %i3w = llvm.zext %i3 : i32 to i64
      %slot3 = llvm.getelementptr %out[%i3w] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      llvm.store %mask, %slot3 : i32, !llvm.ptr
      llvm.return
    }}"
    );
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[0; 192]);
    let args = vec![Value::Ptr(memory.pointer_to(out).unwrap())];
    let run = run_cta(&source, 48, &args, &mut memory).unwrap();
    assert_eq!(run.results.len(), 48);
    assert_eq!(run.stats.collectives, 2 * 5);
    let out = memory.read_i64s(out);
    let multiples_of_three = |first: u32, lanes: u32| -> i64 {
        (0..lanes)
            .filter(|l| (first + l).is_multiple_of(3))
            .fold(0u32, |m, l| m | (1 << l)) as i32 as i64
    };
    for tid in 0..48usize {
        let (first, lanes) = if tid < 32 { (0, 32) } else { (32, 16) };
        assert_eq!(
            out[tid],
            multiples_of_three(first, lanes),
            "ballot of thread {tid}"
        );
        // any = 1, all = 0, uni(whole) = 1 in both warps.
        assert_eq!(out[64 + tid], 0b011, "flags of thread {tid}");
        let live = if lanes == 32 { -1 } else { 0xFFFF };
        assert_eq!(out[128 + tid], live, "activemask of thread {tid}");
    }
}

#[test]
fn exec_warp_shuffles_follow_ptx() {
    let shuffle = |kind: &str, offset: i32, clamp: i32| {
        format!(
            "llvm.func @k(%out: !llvm.ptr) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %full = llvm.mlir.constant(-1 : i32) : i32
      %hundred = llvm.mlir.constant(100 : i32) : i32
      %v = llvm.add %tid, %hundred : i32
      %b = llvm.mlir.constant({offset} : i32) : i32
      %c = llvm.mlir.constant({clamp} : i32) : i32
      %pair = nvvm.shfl.sync {kind} %full, %v, %b, %c {{return_value_and_is_valid}} : i32 -> !llvm.struct<(i32, i1)>
      %r = llvm.extractvalue %pair[0] : !llvm.struct<(i32, i1)>
      %ok = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
      %plain = nvvm.shfl.sync {kind} %full, %v, %b, %c : i32 -> i32
      %same = llvm.icmp \"eq\" %plain, %r : i32
      %okw = llvm.zext %ok : i1 to i32
      %k = llvm.mlir.constant(1000 : i32) : i32
      %flag = llvm.mul %okw, %k : i32
      %res0 = llvm.add %r, %flag : i32
      %minus = llvm.mlir.constant(-1 : i32) : i32
      %res = llvm.select %same, %res0, %minus : i1, i32
      {STORE_AT_TID}
      llvm.store %res, %slot : i32, !llvm.ptr
      llvm.return
    }}"
        )
    };
    let check = |kind: &str, offset: i32, clamp: i32, expected: &dyn Fn(i64) -> (i64, bool)| {
        let mut memory = Memory::new();
        let out = memory.alloc_i32(&[0; 32]);
        let args = vec![Value::Ptr(memory.pointer_to(out).unwrap())];
        run_cta(&shuffle(kind, offset, clamp), 32, &args, &mut memory).unwrap();
        for (lane, value) in memory.read_i64s(out).into_iter().enumerate() {
            let (source, valid) = expected(lane as i64);
            assert_eq!(
                value,
                100 + source + if valid { 1000 } else { 0 },
                "{kind} {offset} {clamp:#x} lane {lane}"
            );
        }
    };
    check("idx", 5, 0x1f, &|_| (5, true));
    check("bfly", 3, 0x1f, &|lane| (lane ^ 3, true));
    check("down", 4, 0x1f, &|lane| {
        if lane + 4 <= 31 {
            (lane + 4, true)
        } else {
            (lane, false)
        }
    });
    check("up", 4, 0, &|lane| {
        if lane >= 4 {
            (lane - 4, true)
        } else {
            (lane, false)
        }
    });
    // Segments of 8 lanes (segment mask 0b11000 in bits 8..13, clamp 7).
    check("down", 2, 0x1807, &|lane| {
        if lane % 8 + 2 <= 7 {
            (lane + 2, true)
        } else {
            (lane, false)
        }
    });
    check("idx", 1, 0x1807, &|lane| (lane / 8 * 8 + 1, true));
}

#[test]
fn exec_warp_member_masks_must_be_the_executing_lanes() {
    let source = "llvm.func @k(%mask: i32) {
      %p = llvm.mlir.constant(true) : i1
      %b = nvvm.vote.sync ballot %mask, %p -> i32
      llvm.return
    }";
    let mut memory = Memory::new();
    // A full mask in the partial warp of 48 threads names 16 missing lanes.
    match run_cta(source, 48, &[Value::i32(-1)], &mut memory) {
        Err(WarpError::MemberMask {
            warp: 1,
            executing: 0xFFFF,
            lane: 0,
            member: 0xFFFF_FFFF,
            violation: MaskViolation::MemberNotExecuting { member: 16 },
            site,
        }) => {
            assert_eq!(site.op_name, "nvvm.vote.sync")
        }
        other => panic!("expected a member-mask error, got {other:?}"),
    }
    // Lanes outside the mask execute it.
    assert!(matches!(
        run_cta(source, 32, &[Value::i32(0xFFFF)], &mut memory),
        Err(WarpError::MemberMask {
            warp: 0,
            executing: 0xFFFF_FFFF,
            lane: 16,
            member: 0xFFFF,
            violation: MaskViolation::LaneOutsideMask,
            ..
        })
    ));
    assert!(run_cta(source, 16, &[Value::i32(0xFFFF)], &mut memory).is_ok());
}

#[test]
fn exec_warp_lane_guards_reconverge_and_other_divergence_is_an_error() {
    // A guard (an if around a store, as convert-scf-to-cf lowers a
    // lower-to-nvvm guard) may diverge; the vote after the join sees the
    // whole warp again.
    let guarded = format!(
        "llvm.func @k(%out: !llvm.ptr) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %bit = llvm.and %tid, %one : i32
      %odd = llvm.icmp \"ne\" %bit, %one : i32
      {STORE_AT_TID}
      llvm.cond_br %odd, ^then, ^join
    ^then:
      %inside = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32
      llvm.store %inside, %slot : i32, !llvm.ptr
      llvm.br ^join
    ^join:
      %full = llvm.mlir.constant(-1 : i32) : i32
      %t = llvm.mlir.constant(true) : i1
      %all = nvvm.vote.sync ballot %full, %t -> i32
      llvm.return
    }}"
    );
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[7; 32]);
    let args = vec![Value::Ptr(memory.pointer_to(out).unwrap())];
    let run = run_cta(&guarded, 32, &args, &mut memory).unwrap();
    assert_eq!(run.stats.divergent_guards, 1);
    let even_lanes = 0x5555_5555u32 as i32 as i64;
    let expected: Vec<i64> = (0..32)
        .map(|lane| if lane % 2 == 0 { even_lanes } else { 7 })
        .collect();
    assert_eq!(memory.read_i64s(out), expected);
    // A collective in a guard runs over the group's lanes: the even lanes
    // execute a ballot whose mask names lane 0 only.
    let around_vote = guarded.replace(
        "%inside = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32",
        "%inside = nvvm.vote.sync ballot %one, %odd -> i32",
    );
    assert!(matches!(
        run_cta(&around_vote, 32, &args, &mut memory),
        Err(WarpError::MemberMask {
            lane: 2,
            member: 1,
            violation: MaskViolation::LaneOutsideMask,
            ..
        })
    ));
    // A divergent branch around a barrier is not a guard.
    let around_barrier = guarded.replace(
        "%inside = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32",
        "nvvm.barrier0\n      %inside = llvm.mlir.constant(0 : i32) : i32",
    );
    match run_cta(&around_barrier, 32, &args, &mut memory) {
        Err(WarpError::WarpDiverged {
            warp: 0,
            block: 0,
            site,
            choices,
        }) => {
            assert_eq!(site.op_name, "llvm.cond_br");
            assert_eq!(choices.len(), 32);
            assert_eq!(choices[0], (0, Some(1)));
            assert_eq!(choices[1], (1, Some(2)));
        }
        other => panic!("expected WarpDiverged, got {other:?}"),
    }
    // A divergent loop is a lane guard too (a lane branch of
    // `--spmd-predicate=lane-branches=true`): the lanes leave one by one
    // and the warp is whole again at the exit.
    let loop_source = "llvm.func @k(%n: i32) {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %zero = llvm.mlir.constant(0 : i32) : i32
      %one = llvm.mlir.constant(1 : i32) : i32
      llvm.br ^head(%zero : i32)
    ^head(%i: i32):
      %more = llvm.icmp \"ult\" %i, %tid : i32
      llvm.cond_br %more, ^body, ^exit
    ^body:
      %next = llvm.add %i, %one : i32
      llvm.br ^head(%next : i32)
    ^exit:
      llvm.return
    }";
    let looped = run_cta(loop_source, 32, &[Value::i32(0)], &mut memory);
    assert!(looped.is_ok(), "{looped:?}");
    // Lanes returning apart are not.
    let early_exit = "llvm.func @k(%n: i32) {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %low = llvm.icmp \"ult\" %tid, %n : i32
      llvm.cond_br %low, ^a, ^b
    ^a:
      llvm.return
    ^b:
      llvm.return
    }";
    assert!(matches!(
        run_cta(early_exit, 32, &[Value::i32(4)], &mut memory),
        Err(WarpError::WarpDiverged { .. })
    ));
    assert!(run_cta(early_exit, 32, &[Value::i32(40)], &mut memory).is_ok());
}

#[test]
fn exec_warp_barriers_synchronise_the_cta_through_shared_memory() {
    // Each thread writes its id to shared memory, the CTA synchronises,
    // and each thread reads the element of the thread at the mirror
    // position (another warp for most threads).
    let source = format!(
        "module {{
      llvm.mlir.global internal @tile() {{addr_space = 3 : i32}} : !llvm.array<64 x i32>
      llvm.func @k(%out: !llvm.ptr) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %t64 = llvm.zext %tid : i32 to i64
      %mine = llvm.getelementptr %tile[0, %t64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<64 x i32>
      llvm.store %tid, %mine : i32, !llvm.ptr<3>
      nvvm.barrier0
      %one = llvm.mlir.constant(1 : i32) : i32
      %last = llvm.sub %ntid, %one : i32
      %mirror = llvm.sub %last, %tid : i32
      %m64 = llvm.zext %mirror : i32 to i64
      %theirs = llvm.getelementptr %tile[0, %m64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<64 x i32>
      %v = llvm.load %theirs : !llvm.ptr<3> -> i32
      nvvm.barrier id = %one
      nvvm.barrier id = %one number_of_threads = %ntid
      {STORE_AT_TID}
      llvm.store %v, %slot : i32, !llvm.ptr
      llvm.return
    }}
    }}"
    );
    for threads in [64u32, 48] {
        let mut memory = Memory::new();
        let out = memory.alloc_i32(&vec![0; threads as usize]);
        let args = vec![Value::Ptr(memory.pointer_to(out).unwrap())];
        let run = run_cta(&source, threads, &args, &mut memory).unwrap();
        assert_eq!(run.stats.barriers, 3);
        let expected: Vec<i64> = (0..threads as i64).rev().collect();
        assert_eq!(memory.read_i64s(out), expected, "{threads} threads");
        // Shared memory is scratch: only the stores to %out are logged.
        assert_eq!(memory.side_effects().len(), threads as usize);
    }
    // The same program run thread by thread cannot honour the barrier.
    let context = context();
    let module = parse(&context, &source);
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[0; 64]);
    let dims = GridDims::linear(64);
    let error = Executor::new(&module)
        .run_thread(
            "k",
            &[Value::Ptr(memory.pointer_to(out).unwrap())],
            ThreadId::from_linear(0, &dims),
            &dims,
            &mut memory,
            &mut NoTrace,
            FUEL,
        )
        .unwrap_err();
    assert!(matches!(error, ExecError::WarpCollective { site } if site.op_name == "nvvm.barrier0"));
}

#[test]
fn exec_warp_barrier_errors() {
    // Warp 0 waits at one barrier, warp 1 at another.
    let mismatched = "llvm.func @k() {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %c32 = llvm.mlir.constant(32 : i32) : i32
      %first = llvm.icmp \"ult\" %tid, %c32 : i32
      llvm.cond_br %first, ^a, ^b
    ^a:
      nvvm.barrier0
      llvm.br ^c
    ^b:
      nvvm.barrier0
      llvm.br ^c
    ^c:
      llvm.return
    }";
    let mut memory = Memory::new();
    match run_cta(mismatched, 64, &[], &mut memory) {
        Err(WarpError::BarrierMismatch { waiting }) => {
            assert_eq!(waiting.len(), 2);
            assert_ne!(waiting[0].1, waiting[1].1);
        }
        other => panic!("expected a barrier mismatch, got {other:?}"),
    }
    // Warps that returned do not block the others.
    let exited = mismatched.replace(
        "^b:\n      nvvm.barrier0\n      llvm.br ^c",
        "^b:\n      llvm.return",
    );
    let run = run_cta(&exited, 64, &[], &mut memory).unwrap();
    assert_eq!(run.stats.barriers, 1);
}

#[test]
fn exec_warp_poison_votes_follow_the_executor_setting() {
    let source = format!(
        "llvm.func @k(%out: !llvm.ptr) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %full = llvm.mlir.constant(-1 : i32) : i32
      %poison = llvm.mlir.poison : i1
      %zero = llvm.mlir.constant(0 : i32) : i32
      %first = llvm.icmp \"eq\" %tid, %zero : i32
      %p = llvm.select %first, %poison, %first : i1, i1
      %b = nvvm.vote.sync ballot %full, %p -> i32
      {STORE_AT_TID}
      llvm.store %b, %slot : i32, !llvm.ptr
      llvm.return
    }}"
    );
    let context = context();
    let module = parse(&context, &source);
    for (setting, expected) in [
        (VotePoison::False, Some(0)),
        (VotePoison::True, Some(1)),
        (VotePoison::Poison, None),
    ] {
        let mut memory = Memory::new();
        let out = memory.alloc_i32(&[0; 32]);
        let args = vec![Value::Ptr(memory.pointer_to(out).unwrap())];
        let run = Executor::new(&module).with_vote_poison(setting).run_cta(
            "k",
            &|_| args.clone(),
            &GridDims::linear(32),
            [0, 0, 0],
            &mut memory,
            FUEL,
        );
        match expected {
            Some(ballot) => {
                run.unwrap();
                assert_eq!(memory.read_i64s(out), vec![ballot; 32], "{setting:?}");
            }
            None => assert!(matches!(
                run,
                Err(WarpError::Lane {
                    thread: 0,
                    error: ExecError::PoisonUsed {
                        usage: PoisonUse::StoredValue,
                        ..
                    },
                    ..
                })
            )),
        }
    }
}

/// A kernel whose lanes below 5 (of each warp) call `@g`, which reads
/// the active mask and votes: wave-level code (`spmd-lower-to-nvvm` gives
/// every function an exec mask read on entry) must run in lockstep with
/// the lanes that called it. `@g` calls `@h`, which votes too, and
/// returns a struct.
const LOCKSTEP_CALLS: &str = "
    llvm.func @h(%m: i32, %x: i32) -> i32 {
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %bit = llvm.and %x, %c1 : i32
      %odd = llvm.icmp \"ne\" %bit, %c1 : i32
      %b = nvvm.vote.sync ballot %m, %odd -> i32
      llvm.return %b : i32
    }
    llvm.func @g(%x: i32) -> !llvm.struct<(i32, i32)> {
      %m = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32
      %b = llvm.call @h(%m, %x) : (i32, i32) -> i32
      %0 = llvm.mlir.poison : !llvm.struct<(i32, i32)>
      %1 = llvm.insertvalue %m, %0[0] : !llvm.struct<(i32, i32)>
      %2 = llvm.insertvalue %b, %1[1] : !llvm.struct<(i32, i32)>
      llvm.return %2 : !llvm.struct<(i32, i32)>
    }
    llvm.func @k(%out: !llvm.ptr) {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %c32 = llvm.mlir.constant(32 : i32) : i32
      %c5 = llvm.mlir.constant(5 : i32) : i32
      %zero = llvm.mlir.constant(0 : i32) : i32
      %lane = llvm.urem %tid, %c32 : i32
      %low = llvm.icmp \"ult\" %lane, %c5 : i32
      llvm.cond_br %low, ^call, ^join(%zero, %zero : i32, i32)
    ^call:
      %r = llvm.call @g(%tid) : (i32) -> !llvm.struct<(i32, i32)>
      %m = llvm.extractvalue %r[0] : !llvm.struct<(i32, i32)>
      %b = llvm.extractvalue %r[1] : !llvm.struct<(i32, i32)>
      llvm.br ^join(%m, %b : i32, i32)
    ^join(%mask: i32, %ballot: i32):
      %t2 = llvm.mul %tid, %c32 : i32
      %i = llvm.zext %t2 : i32 to i64
      %slot = llvm.getelementptr %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      llvm.store %mask, %slot : i32, !llvm.ptr
      %slot1 = llvm.getelementptr %slot[1] : (!llvm.ptr) -> !llvm.ptr, i32
      llvm.store %ballot, %slot1 : i32, !llvm.ptr
      llvm.return
    }";

#[test]
fn exec_warp_calls_of_warp_code_run_in_lockstep() {
    use spmd_oracle::Reconvergence;
    let context = context();
    let module = parse(&context, LOCKSTEP_CALLS);
    for reconvergence in [
        Reconvergence::LaneGuards,
        Reconvergence::ImmediatePostDominator,
    ] {
        let mut memory = Memory::new();
        let out = memory.alloc_i32(&[0; 48 * 32]);
        let args = vec![Value::Ptr(memory.pointer_to(out).unwrap())];
        let run = Executor::new(&module)
            .with_reconvergence(reconvergence)
            .run_cta(
                "k",
                &|_| args.clone(),
                &GridDims::linear(48),
                [0, 0, 0],
                &mut memory,
                FUEL,
            )
            .unwrap_or_else(|error| panic!("{reconvergence:?}: {error}"));
        assert_eq!(run.stats.partial_collectives, 2 * 2, "{reconvergence:?}");
        let out = memory.read_i64s(out);
        for tid in 0..48usize {
            let (mask, ballot) = if tid % 32 < 5 {
                // Lanes 0..5 call; the even ones vote true.
                (0b11111, 0b10101)
            } else {
                (0, 0)
            };
            assert_eq!(
                (out[tid * 32], out[tid * 32 + 1]),
                (mask, ballot),
                "{reconvergence:?}: thread {tid}"
            );
        }
    }
    // At thread level the callee's collective is an error, as before.
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[0; 32]);
    let dims = GridDims::linear(1);
    assert!(matches!(
        Executor::new(&module).run_thread(
            "k",
            &[Value::Ptr(memory.pointer_to(out).unwrap())],
            ThreadId::from_linear(0, &dims),
            &dims,
            &mut memory,
            &mut NoTrace,
            FUEL,
        ),
        Err(ExecError::WarpCollective { .. })
    ));
}

/// A barrier in a function that part of the warp called is an error, and
/// so is a call past the depth limit.
#[test]
fn exec_warp_lockstep_calls_check_barriers_and_depth() {
    let source = "
    llvm.func @g() {
      nvvm.barrier0
      llvm.return
    }
    llvm.func @k() {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %c5 = llvm.mlir.constant(5 : i32) : i32
      %low = llvm.icmp \"ult\" %tid, %c5 : i32
      llvm.cond_br %low, ^call, ^join
    ^call:
      llvm.call @g() : () -> ()
      llvm.br ^join
    ^join:
      llvm.return
    }";
    let mut memory = Memory::new();
    assert!(matches!(
        run_cta(source, 32, &[], &mut memory),
        Err(WarpError::PartialWarp {
            executing: 0b11111,
            ..
        })
    ));
    let whole = source.replace("%c5 = llvm.mlir.constant(5", "%c5 = llvm.mlir.constant(64");
    let run = run_cta(&whole, 64, &[], &mut memory).unwrap();
    assert_eq!(run.stats.barriers, 1);
    let recursive = "
    llvm.func @g(%n: i32) {
      %m = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32
      llvm.call @g(%n) : (i32) -> ()
      llvm.return
    }
    llvm.func @k() {
      %c = llvm.mlir.constant(0 : i32) : i32
      llvm.call @g(%c) : (i32) -> ()
      llvm.return
    }";
    assert!(matches!(
        run_cta(recursive, 32, &[], &mut memory),
        Err(WarpError::Lane {
            error: ExecError::CallDepthExceeded { .. },
            ..
        })
    ));
}

// ---------------------------------------------------------------------------
// The three renderings of the random kernels
// ---------------------------------------------------------------------------

const THREADS: u32 = 64;

/// Per thread: the returned value, and its stores to `%out` (index, value).
type Outcome = (Vec<i64>, Vec<Vec<(u64, i64)>>, Vec<i64>);

fn outcome(memory: &Memory, out: spmd_oracle::MemRefId, returned: Vec<i64>) -> Outcome {
    let buffer = memory.buffer_of(out).unwrap();
    let stores = (0..THREADS)
        .map(|t| {
            memory
                .effects_of_thread(t)
                .filter(|effect| effect.buffer == buffer)
                .map(|effect| (effect.index, effect.value.as_i64().unwrap()))
                .collect()
        })
        .collect();
    (returned, stores, memory.read_i64s(out))
}

fn run_rendering(module: &Module, kernel: &RandomKernel, n: i32, form: &str) -> Outcome {
    let executor = Executor::new(module);
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&vec![0; kernel.out_len(THREADS) as usize]);
    let ret = memory.alloc_i32(&[0; THREADS as usize]);
    let dims = GridDims::linear(THREADS);
    let mut returned = Vec::new();
    for t in 0..THREADS {
        let args = match form {
            "func" => RandomKernel::arguments(out, n, t),
            "gpu" => RandomKernel::gpu_arguments(out, n, ret),
            _ => RandomKernel::llvm_arguments(
                memory.pointer_to(out).unwrap(),
                n,
                memory.pointer_to(ret).unwrap(),
            ),
        };
        let values = executor
            .run_thread(
                "kernel",
                &args,
                ThreadId::from_linear(t, &dims),
                &dims,
                &mut memory,
                &mut NoTrace,
                200_000,
            )
            .unwrap_or_else(|error| {
                panic!(
                    "{form} rendering of seed {}, thread {t}: {error}",
                    kernel.seed
                )
            });
        if form == "func" {
            returned.push(values[0].as_i64().unwrap());
        }
    }
    if form != "func" {
        returned = memory.read_i64s(ret);
    }
    outcome(&memory, out, returned)
}

#[test]
fn exec_random_kernel_renderings_agree_at_thread_level() {
    let context = context();
    let mut compared = 0;
    for seed in 0..12u64 {
        for (class, shape) in KernelShape::classes(3 + (seed as usize * 5) % 30) {
            let kernel = RandomKernel::build(seed * 41 + 3, &shape);
            let modules = [
                ("func", parse(&context, &kernel.text)),
                ("gpu", parse(&context, &kernel.gpu_text)),
                ("llvm", parse(&context, &kernel.llvm_text)),
            ];
            for n in [0, 9, 40] {
                let reference = run_rendering(&modules[0].1, &kernel, n, "func");
                for (form, module) in &modules[1..] {
                    let other = run_rendering(module, &kernel, n, form);
                    assert!(
                        other == reference,
                        "{class} seed {seed} n={n}: the {form} rendering differs from func.func\n{}",
                        if *form == "gpu" { &kernel.gpu_text } else { &kernel.llvm_text }
                    );
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 12 * 4 * 3 * 2);
}

#[test]
fn exec_llvm_rendering_has_the_clang_import_shape() {
    let forms: Vec<String> = (0..6)
        .map(|seed| RandomKernel::build(seed, &KernelShape::reducible(8)).llvm_text)
        .collect();
    for text in &forms {
        assert!(text.contains("llvm.func ptx_kernelcc @kernel(%out: !llvm.ptr {llvm.noundef}, %n: i32 {llvm.noundef}, %ret: !llvm.ptr {llvm.noundef})"));
        assert!(!text.contains("arith.") && !text.contains("cf.") && !text.contains("memref."));
        assert!(text.contains("llvm.getelementptr inbounds"));
    }
    assert!(forms
        .iter()
        .any(|text| text.contains("llvm.call_intrinsic \"llvm.nvvm.read.ptx.sreg.tid.x\"")));
    assert!(forms
        .iter()
        .any(|text| text.contains("%tid = nvvm.read.ptx.sreg.tid.x : i32")));
    assert!(forms
        .iter()
        .any(|text| text.contains("llvm.addrspacecast %out : !llvm.ptr to !llvm.ptr<1>")));
    let with_switch = (0..40)
        .map(|seed| RandomKernel::build(seed, &KernelShape::multi_exit_switch(12)).llvm_text)
        .find(|text| text.contains("llvm.switch"));
    assert!(
        with_switch.is_some(),
        "no llvm.switch in 40 multi-exit kernels"
    );
}

#[test]
fn exec_pointer_addresses_round_trip() {
    let mut memory = Memory::new();
    let a = memory.alloc_i32(&[0; 4]);
    let b = memory.alloc_i32(&[0; 4]);
    let (pa, pb) = (memory.pointer_to(a).unwrap(), memory.pointer_to(b).unwrap());
    for pointer in [
        pa,
        pa.offset_by(12),
        pb.offset_by(3),
        Pointer::NULL.offset_by(40),
    ] {
        assert_eq!(Pointer::from_address(pointer.address()), pointer);
    }
    assert!(
        pa.offset_by(16).address() < pb.address(),
        "buffers do not overlap"
    );
}

#[test]
fn exec_llvm_float_rounding_and_fused_intrinsics() {
    for (op, input, expected) in [
        ("floor", -1.5f32, -2.0f32),
        ("ceil", -1.5, -1.0),
        ("trunc", -1.5, -1.0),
        ("round", 2.5, 3.0),
        ("rint", 2.5, 2.0),
        ("nearbyint", -3.5, -4.0),
        ("sqrt", 2.25, 1.5),
    ] {
        let source = format!("llvm.func @f(%x: f32) -> f32 {{\n %r = llvm.intr.{op}(%x) : (f32) -> f32\n llvm.return %r : f32\n}}");
        assert_eq!(
            values(&source, &[Value::F32(input)]),
            vec![Value::F32(expected)],
            "{op}"
        );
    }
    let source = "llvm.func @f(%a: f64, %b: f64, %c: f64) -> !llvm.struct<(f64, f64)> {
      %fma = llvm.intr.fma(%a, %b, %c) : (f64, f64, f64) -> f64
      %sign = llvm.intr.copysign(%a, %c) : (f64, f64) -> f64
      %0 = llvm.mlir.poison : !llvm.struct<(f64, f64)>
      %1 = llvm.insertvalue %fma, %0[0] : !llvm.struct<(f64, f64)>
      %2 = llvm.insertvalue %sign, %1[1] : !llvm.struct<(f64, f64)>
      llvm.return %2 : !llvm.struct<(f64, f64)>
    }";
    // 0.1 * 10 - 1 is 0 when rounded after the product, 2^-54 when fused.
    let mut memory = Memory::new();
    let result = run_with(
        source,
        &[Value::F64(0.1), Value::F64(10.0), Value::F64(-1.0)],
        &mut memory,
        0,
    )
    .unwrap();
    let Value::Aggregate(id) = result[0] else {
        panic!("{result:?}")
    };
    assert_eq!(
        memory.aggregate(id).unwrap(),
        &[Value::F64(0.1f64.mul_add(10.0, -1.0)), Value::F64(-0.1)][..]
    );
    assert_ne!(0.1f64.mul_add(10.0, -1.0), 0.0);
}

#[test]
fn exec_warp_redux_reduces_over_the_members() {
    let source = format!(
        "llvm.func @k(%out: !llvm.ptr) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %mask = llvm.mlir.constant(65535 : i32) : i32
      %sum = nvvm.redux.sync add %tid, %mask : i32 -> i32
      %max = llvm.call_intrinsic \"llvm.nvvm.redux.sync.umax\"(%tid, %mask) : (i32, i32) -> i32
      %k = llvm.mlir.constant(1000 : i32) : i32
      %scaled = llvm.mul %sum, %k : i32
      %r = llvm.add %scaled, %max : i32
      {STORE_AT_TID}
      llvm.store %r, %slot : i32, !llvm.ptr
      llvm.return
    }}"
    );
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[0; 16]);
    let args = vec![Value::Ptr(memory.pointer_to(out).unwrap())];
    run_cta(&source, 16, &args, &mut memory).unwrap();
    assert_eq!(memory.read_i64s(out), vec![120 * 1000 + 15; 16]);
}
