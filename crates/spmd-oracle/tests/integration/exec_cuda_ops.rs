//! The executor on what clang's `-O2` makes of the CUDA benchmark corpus
//! (`examples/cuda/bench/`, run by `spmd-bench`'s `cuda_bench_dynamic`):
//! shared arrays of `float4`, `atomicInc`/`atomicDec`, NVVM math and
//! fences, in lockstep warps.

use crate::common::{context, parse};
use spmd_oracle::{ElementType, Executor, GridDims, Memory, Value};

const FUEL: u64 = 10_000;

/// Thread `t` of 4 writes `2^(2t)` (`ex2.approx`) into field `z` of
/// `tile[t]`, a shared `float4[4]`, fences, waits at the barrier, then
/// reads `tile[3 - t].z` and takes its `rsqrt.approx` (exact here); each
/// thread also draws a ticket from an `atomicInc` counter that wraps after
/// 2 and decrements another with `atomicDec` (wrapping to 5 from 0).
const KERNEL: &str = r#"module {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x struct<"struct.float4", (f32, f32, f32, f32)>> {
    %0 = llvm.mlir.undef : !llvm.array<4 x struct<"struct.float4", (f32, f32, f32, f32)>>
    llvm.return %0 : !llvm.array<4 x struct<"struct.float4", (f32, f32, f32, f32)>>
  }
  llvm.func ptx_kernelcc @k(%out: !llvm.ptr, %tickets: !llvm.ptr, %counters: !llvm.ptr) {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %c5 = llvm.mlir.constant(5 : i32) : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %tid64 = llvm.zext %tid : i32 to i64
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %twice = llvm.mul %tid, %c2 : i32
    %x = llvm.uitofp %twice : i32 to f32
    %power = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%x) : (f32) -> f32
    %mine = llvm.getelementptr %tile[0, %tid64, 2] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<4 x struct<"struct.float4", (f32, f32, f32, f32)>>
    llvm.store %power, %mine : f32, !llvm.ptr<3>
    llvm.call_intrinsic "llvm.nvvm.membar.gl"() : () -> ()
    llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%c0) : (i32) -> ()
    %mirror = llvm.sub %c3, %tid : i32
    %mirror64 = llvm.zext %mirror : i32 to i64
    %theirs = llvm.getelementptr %tile[0, %mirror64, 2] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<4 x struct<"struct.float4", (f32, f32, f32, f32)>>
    %read = llvm.load %theirs : !llvm.ptr<3> -> f32
    %root = llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"(%read) : (f32) -> f32
    %slot = llvm.getelementptr %out[%tid64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %root, %slot : f32, !llvm.ptr
    %ticket = llvm.atomicrmw uinc_wrap %counters, %c2 seq_cst : !llvm.ptr, i32
    %down = llvm.getelementptr %counters[1] : (!llvm.ptr) -> !llvm.ptr, i32
    %old = llvm.atomicrmw udec_wrap %down, %c5 monotonic : !llvm.ptr, i32
    %sum = llvm.mul %old, %c3 : i32
    %both = llvm.add %ticket, %sum : i32
    %mark = llvm.getelementptr %tickets[%tid64] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    llvm.store %both, %mark : i32, !llvm.ptr
    llvm.return
  }
}"#;

#[test]
fn exec_cuda_float4_tiles_atomic_inc_dec_and_nvvm_math() {
    let context = context();
    let module = parse(&context, KERNEL);
    let mut memory = Memory::new();
    let out = memory
        .alloc_values(ElementType::F32, &[Value::F32(0.0); 4])
        .unwrap();
    let tickets = memory.alloc_i32(&[0; 4]);
    let counters = memory.alloc_i32(&[0, 1]);
    let pointer = |memref| Value::Ptr(memory.pointer_to(memref).unwrap());
    let args = vec![pointer(out), pointer(tickets), pointer(counters)];
    let run = Executor::new(&module)
        .run_cta(
            "k",
            &|_| args.clone(),
            &GridDims::linear(4),
            [0, 0, 0],
            &mut memory,
            FUEL,
        )
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(run.stats.barriers, 1);
    // rsqrt(2^(2 (3 - t))) = 2^(t - 3).
    let roots: Vec<Value> = [0.125f32, 0.25, 0.5, 1.0].map(Value::F32).to_vec();
    let buffer = memory.buffer_of(out).unwrap();
    assert_eq!(memory.contents(buffer), roots);
    // Tickets 0, 1, 2, 0 (atomicInc up to 2); atomicDec from 1: 1, 0, 5, 4.
    assert_eq!(memory.read_i64s(tickets), vec![3, 1, 2 + 15, 12]);
    assert_eq!(memory.read_i64s(counters), vec![1, 3]);
}
