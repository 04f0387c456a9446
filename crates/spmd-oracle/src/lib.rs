//! # spmd-oracle: a reference SIMT executor, the semantic oracle for transforms
//!
//! This crate is test infrastructure, apart from the shipped `spmd` library:
//! it depends on `spmd` (with its `testing` feature) and `spmd` never on it
//! (docs/architecture.md). It was `spmd::exec`.
//!
//! A transform of the control flow (structurization, reconvergence,
//! predication, branch folding) is correct only if every thread still
//! computes the same thing. There is no GPU here, so `spmd_oracle`
//! *interprets* MLIR: [`Executor::new`] reads a parsed module through
//! melior once, decoding every operation by name into a compact table
//! (`program.rs`), and [`Executor::run_thread`] runs one thread of a
//! function on it. Nothing is JIT-compiled, and MLIR is not called while
//! running.
//!
//! ```text
//!  Module ──Executor::new──> program tables ──run_thread(func, args, thread)──> returned values
//!                                 │                 │            ▲                + Memory (buffers,
//!                                 │                 ▼            │                  side-effect log)
//!                                 │             Tracer (blocks, branch decisions)
//!                                 ├──run_wave(func, lanes)──> per-lane results (wave-level spmd IR)
//!                                 └──run_cta(func, args, dims, cta)──> per-thread results, WarpStats
//!                                        (LLVM+NVVM code in lockstep warps,
//!                                         LLVM+ROCDL code in lockstep waves)
//! ```
//!
//! ## Semantics
//!
//! * **Thread-level.** A thread runs alone from the function's entry to a
//!   return. `gpu.thread_id`, `gpu.block_id`, `gpu.lane_id`, ... read the
//!   [`ThreadId`] and [`GridDims`] given by the harness; for a one-block
//!   launch ([`GridDims::linear`]) the lane is the linear thread id modulo
//!   32. Wave-level operations (`spmd.ballot`, exec masks) are outside the
//!   subset.
//! * **Values** ([`value`]): signless integers of 1 to 64 bits (wrapping
//!   arithmetic, the operation decides signedness), `index` (64 bits),
//!   `f32`/`f64`, memrefs (views of buffers), convergence tokens, and
//!   poison. Arithmetic on poison gives poison, so poison may flow through
//!   block arguments harmlessly; branching on it, addressing memory with
//!   it or storing it is an error ([`ExecError::PoisonUsed`]).
//! * **Undefined behaviour** (division by zero, signed division overflow,
//!   out-of-bounds accesses, `llvm.unreachable`) stops the thread with a
//!   typed error. Overflow under `nsw`/`nuw` and over-wide shifts give
//!   poison, as in MLIR's `arith` documentation (`arith.rs`).
//! * **Memory** ([`memory`]): buffers created by the harness, identity
//!   layout, every access bounds-checked, every store and atomic logged
//!   with its thread. Texture and surface objects ([`texture`]) are
//!   handles the harness creates over buffers.
//! * **Pointers** (the LLVM dialect): an `!llvm.ptr` is a [`Pointer`], a
//!   buffer and a byte offset (address arithmetic never fails, accesses are
//!   checked: inside the buffer, exactly one element, through a generic
//!   pointer or one of the buffer's address space). Harness buffers are
//!   global memory (address space 1), `llvm.alloca` local (5),
//!   `llvm.mlir.global`s in address space 3 shared memory with one copy per
//!   CTA. A memref argument of a function lowered by MLIR's memref-to-LLVM
//!   conversion is passed as [`Memory::descriptor`] (allocated and aligned
//!   pointer, offset, sizes, strides); [`Memory::expand_memrefs`] does it
//!   for a whole argument list. Struct and array values
//!   ([`Value::Aggregate`]) are kept in the memory's aggregate table.
//! * **Lockstep warps** ([`interpreter::warp`]): [`Executor::run_cta`] runs
//!   a CTA's threads as warps of 32 lanes executing each block together;
//!   divergence is allowed only at lane guards (reconverging at their
//!   post-dominator), or, with [`Reconvergence::ImmediatePostDominator`],
//!   for thread-level code, at any branch (reconverging at its immediate
//!   post-dominator, as pre-Volta hardware does); `.sync` collectives
//!   check their member masks, barriers synchronise the warps; a function
//!   that uses warp operations is called by the executing lanes together.
//!   [`Executor::run_thread`] raises [`ExecError::WarpCollective`] on the
//!   collectives and barriers. AMDGPU code (ROCDL, `llvm.amdgcn.*`) runs
//!   the same way in waves of [`GridDims::subgroup_size`] = 64 or 32
//!   lanes (the last one possibly partial), its wave operations over the
//!   lanes executing them together (the hardware's exec mask), operands
//!   held in scalar registers checked to be uniform
//!   ([`WarpError::NonUniform`]).
//! * **Fuel**: each entered block costs one unit; a thread without fuel
//!   stops with [`ExecError::OutOfFuel`], so non-terminating programs are
//!   reported rather than hanging the test.
//! * **Tracing** ([`trace`]): a [`Tracer`] sees every block entry and every
//!   decision of a terminator with two or more successors, keyed by a
//!   thread-independent *dynamic instance* (call stack, static site, visit
//!   number of the block in its frame); see [`trace`] for the definition.
//!
//! ## Supported operations
//!
//! | dialect | operations |
//! |---|---|
//! | `arith` | `constant`, `addi subi muli divsi divui remsi remui ceildivsi ceildivui floordivsi andi ori xori shli shrsi shrui minsi maxsi minui maxui`, `cmpi` (all predicates), `select`, `extsi extui trunci index_cast index_castui`, `addf subf mulf divf remf negf maximumf minimumf maxnumf minnumf cmpf sitofp uitofp fptosi fptoui extf truncf bitcast` |
//! | `cf` | `br`, `cond_br`, `switch` (default and cases), `assert` |
//! | `llvm` control | `br`, `cond_br`, `switch`, `return`, `unreachable`, `call` (same module; a declared `llvm.*` callee is an intrinsic), `call_intrinsic` |
//! | `llvm` values | `mlir.constant`, `mlir.poison`, `mlir.undef` (as poison), `mlir.zero`, `freeze`, `add sub mul udiv sdiv urem srem and or xor shl lshr ashr` (with `nsw nuw exact disjoint`), `icmp` (all predicates, integers and pointers), `select`, `sext zext trunc` (with `nneg nsw nuw`), `fadd fsub fmul fdiv frem fneg fcmp`, `sitofp uitofp fptosi fptoui fpext fptrunc bitcast`, `insertvalue extractvalue` |
//! | `llvm` memory | `getelementptr` (constant and dynamic indices through structs and arrays, `inbounds`), `load`, `store`, `atomicrmw` (`xchg add sub and nand or xor max min umax umin fadd fsub fmax fmin uinc_wrap udec_wrap`), `cmpxchg`, `alloca`, `mlir.addressof` of `mlir.global` (scalars, arrays of them, structs of one scalar type without padding such as CUDA's `float4`; no initializer, `undef`/`zero` region, integer, float or rank-1 dense value), `ptrtoint inttoptr addrspacecast`, `fence` (a no-op: memory is sequentially consistent) |
//! | `llvm.intr` | `smin smax umin umax abs ctpop ctlz cttz bitreverse fshl fshr fabs floor ceil trunc round rint nearbyint roundeven sqrt fma fmuladd copysign minnum maxnum minimum maximum is.fpclass`, `lifetime.start/end` and `assume` (no-ops) (also as `llvm.call_intrinsic "llvm.smax.i32"` ...) |
//! | `llvm.nvvm` math (called as intrinsics) | `ex2.approx.{f32,f,d}`, `lg2.approx.{f,d}`, `sin.approx.f`, `cos.approx.f`, `rsqrt.approx.{f,d}`, `rcp.approx.{f,d}` (computed in `f64` and rounded once: the exact value that the hardware approximates), `sqrt.{rn.f,rn.d,f,approx.f}`, `rcp.rn.{f,d}`, `saturate.{f,d}`, `fabs.{f,d,f32,f64}`, `floor ceil trunc round` (`.f`, `.d`; `round` is `cvt.rni`, ties to even), `add.rn`, `mul.rn`, `div.{rn,approx}`, `div.full`, `fmin`, `fmax` (`.f`, `.d`); the `.ftz` forms of all these (subnormal operands and results flushed to zeros of their sign); `{add,mul,div,fma,sqrt,rcp}.{rn,rz,rm,rp}[.ftz].{f,d}` correctly rounded in the mode (`rounding.rs`); the conversions `{f,d}2{i,ui,ll,ull}.{rn,rz,rm,rp}[.ftz]` (saturating, NaN to 0, as PTX's `cvt`), `{i,ui,ll,ull}2{f,d}.{rn,rz,rm,rp}`, `d2f.{rn,rz,rm,rp}[.ftz]`; `d2i.{hi,lo}`, `lohi.i2d`, `mulhi.{i,ui,ll,ull}`, `sad.{i,ui,ll,ull,s,us}`, `prmt` (`intrinsics.rs`); the fences `membar.{cta,gl,sys}` and `nanosleep` (no-ops: memory is sequentially consistent) |
//! | inline PTX | `llvm.inline_asm` of `activemask.b32 $0;` (a warp op), and blocks of `mov` (packing and unpacking halves, special registers such as `%laneid` and `%lanemask_lt`), integer `add`/`sub`/`mul`/`mad` with carries (`.cc`, `addc`, `madc`, ...), `bfind`, float arithmetic with a rounding mode and `.approx` in `f32`, `f64`, `f16`, `bf16` and the pairs `f16x2`/`bf16x2` (each result correctly rounded, `fma` once), `neg`, `abs`, `setp`, `selp`, `cvt` between integers and the four float formats, `cvta`, and texture fetches (`tex.1d.v4`) and surface loads and stores (`suld.b.2d`, `sust.b.2d`) on the objects of [`texture`] (`inline_ptx.rs`: what CUDA's headers, `cuda_fp16.h`, `cuda_bf16.h`, cooperative groups and libdevice write by hand); an `!llvm.void` result is no result |
//! | `nvvm` registers | `read.ptx.sreg.{tid,ntid,ctaid,nctaid}.{x,y,z}`, `laneid`, `warpsize`, `warpid`, `lanemask.{eq,lt,le,gt,ge}`, also as `llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.*"` |
//! | `nvvm` warp ops (lockstep warps only) | `vote.sync` (`ballot any all uni`), `shfl.sync` (`idx up down bfly`, with or without the validity flag), `bar.warp.sync`, `barrier0`, `barrier` (id; thread count of the whole CTA), `redux.sync` (`i32`: `add min max umin umax and or xor`), `match.sync` (`any`, `all`), `llvm.nvvm.activemask`, `llvm.inline_asm "activemask.b32 $0;"` and the intrinsic spellings (`llvm.nvvm.vote.*.sync`, `llvm.nvvm.shfl.sync.*`, `llvm.nvvm.redux.sync.*`, `llvm.nvvm.match.{any,all}.sync.*`, `llvm.nvvm.bar.warp.sync`, `llvm.nvvm.barrier*`) |
//! | `rocdl` registers | `workitem.id.{x,y,z}`, `workgroup.id.{x,y,z}`, `workgroup.dim.{x,y,z}`, `grid.dim.{x,y,z}`, `wavefrontsize`, `mbcnt.{lo,hi}` (per lane: `mbcnt.hi(-1, mbcnt.lo(-1, 0))` is the lane id); also as `llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"`, `"llvm.amdgcn.workgroup.id.*"`, `"llvm.amdgcn.wavefrontsize"`, `"llvm.amdgcn.mbcnt.{lo,hi}"` |
//! | `rocdl` wave ops (lockstep waves only) | `ballot` (bit `l`: lane `l` executes it with a true `i1`), `readlane` (the value in a lane, poison if that lane does not execute it; the lane uniform), `readfirstlane`, `llvm.amdgcn.inverse.ballot.{i64,i32}` (lane `l` gets bit `l` of a uniform mask as wide as the wave), `s.barrier` and `barrier` (CTA barriers); the intrinsic spellings `llvm.amdgcn.ballot.{i64,i32}`, `llvm.amdgcn.readlane.*`, `llvm.amdgcn.readfirstlane.*`, `llvm.amdgcn.s.barrier`; `s.waitcnt`, `s.nop`, `s.sleep`, `sched.barrier` (no-ops) |
//! | `func`, `gpu` | bodies of `func.func`/`gpu.func` (any `FunctionOpInterface` op), `func.return`, `gpu.return`, `func.call` (same module, depth limit [`Executor::DEFAULT_CALL_DEPTH_LIMIT`]) |
//! | `memref` | `load`, `store`, `atomic_rmw` (`addi muli andi ori xori maxs maxu mins minu assign addf mulf`), `dim`, `alloca` (private scratch) |
//! | `gpu` | `thread_id block_id block_dim grid_dim global_id lane_id subgroup_size subgroup_id num_subgroups` |
//! | `ub`, `spmd` | `ub.poison`; `spmd.convergence.entry/anchor/loop` (a dummy token), `spmd.reconvergence.head/tail` (no-ops), `spmd.flow_br` |
//!
//! Anything else, including any operation with regions (`scf.if`, ...),
//! vectors, tensors, integers wider than 64 bits, `f16` and `bf16` values
//! outside inline PTX (MLIR's `f16`, LLVM's `half`), non-identity
//! memref layouts, loads and stores of pointers or aggregates, raises
//! [`ExecError::Unsupported`], [`ExecError::UnsupportedType`] or
//! [`ExecError::UnsupportedIntrinsic`] when executed (never a panic), with
//! the operation's name and location.
//!
//! ## Comparing programs
//!
//! [`compare_runs`] runs two modules on identical fresh memories and
//! returns the first [`Mismatch`] (returned values, per-thread side-effect
//! sequences, final memory), see [`grid`]. [`random_kernel`] generates
//! terminating random kernels with divergent control flow to feed it.
//!
//! ## A second oracle
//!
//! [`jit`] checks the same property without this interpreter: it lowers
//! thread-level kernels to LLVM with upstream MLIR and runs them with MLIR's
//! `ExecutionEngine` ([`jit::compare_batch`]).

pub mod address;
mod arith;
pub mod error;
pub mod grid;
mod inline_ptx;
pub mod interpreter;
mod intrinsics;
pub mod jit;
pub mod memory;
mod program;
pub mod random_collective;
pub mod random_kernel;
mod rounding;
pub mod texture;
pub mod trace;
pub use interpreter::warp::{
    CtaRun, MaskViolation, Reconvergence, VotePoison, WarpError, WarpStats,
};
pub use interpreter::wave::{BlockLog, WaveError, WaveRun};
pub use program::WAVE_SIZE_ATTR;
pub mod value;

pub use error::{ExecError, OpSite, PoisonUse};
pub use grid::{
    compare_executors, compare_memories_after, compare_records, compare_runs, run_fresh,
    BufferSpec, GridRun, Mismatch, RunInputs, RunRecord,
};
pub use interpreter::{Executor, GridDims, ThreadId};
pub use jit::{compare_batch, JitError, JitInputs, JitMismatch, JitStats, KernelPair};
pub use memory::{
    address_space, AtomicKind, BufferId, EffectKind, ElementType, MemRefId, Memory, MemoryError,
    Pointer, SideEffect,
};
pub use random_collective::{CollectiveShape, RandomCollectiveKernel};
pub use random_kernel::{long_range_kernel, KernelShape, RandomKernel};
pub use texture::TextureAddressMode;
pub use trace::{
    BlockEvent, BlockSite, BranchEvent, BranchSite, CallSite, DynamicInstance, NoTrace,
    RecordingTracer, Tracer,
};
pub use value::{AggregateId, IntValue, Value, ValueType};
