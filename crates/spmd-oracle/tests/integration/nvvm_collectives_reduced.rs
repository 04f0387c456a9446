//! Issue #28, reduced: warp collectives with an explicit member mask inside
//! divergent code. On an H100, a warp-level scan (its second step runs
//! `shfl.sync up` in 8 lanes of warp 0 with member mask `0xff`) raised an
//! illegal instruction, and a block reduction's tail (`redux.sync` and a
//! shuffle-down fold over the ballot of `lane < 8`, inside `if (lane < 8)`)
//! summed wrong: `spmd-gpu-to-nvvm` made every lane of the warp execute
//! the collective.
//!
//! Each kernel (`fixtures/collectives_*.mlir`, thread-level `gpu.func`s) is
//! checked three ways:
//! * (a) the reference: the thread-level kernel in lockstep warps with
//!   [`Reconvergence::ImmediatePostDominator`] computes the expected
//!   buffers (concrete values below);
//! * (b) the lowering before the fix (`fixtures/*.before-fix.nvvm.mlir`,
//!   made by the pre-fix `spmd-opt`, see their first line) is rejected
//!   with [`WarpError::MemberMask`]: lanes outside the member mask execute
//!   the collective;
//! * (c) the current pipeline's lowering runs in
//!   [`Reconvergence::LaneGuards`] mode without error and leaves exactly
//!   the reference's buffers.
//!
//! The reduction also runs with 48 threads, so its last warp is partial.

use crate::common::{context, lower_to_nvvm, parse};
use spmd_oracle::{
    Executor, GridDims, MaskViolation, MemRefId, Memory, Reconvergence, Value, VotePoison,
    WarpError,
};

const FUEL: u64 = 100_000;
const SCAN: &str = include_str!("fixtures/collectives_scan.mlir");
const SCAN_BEFORE_FIX: &str = include_str!("fixtures/collectives_scan.before-fix.nvvm.mlir");
const REDUCE: &str = include_str!("fixtures/collectives_reduce.mlir");
const REDUCE_BEFORE_FIX: &str = include_str!("fixtures/collectives_reduce.before-fix.nvvm.mlir");

/// Makes a kernel's arguments from its buffers' memrefs (thread-level
/// form).
type Arguments = Box<dyn Fn(&[MemRefId]) -> Vec<Value>>;

/// A launch: the kernel's buffers (initial contents) and how its
/// arguments are made from them.
struct Launch {
    kernel: &'static str,
    threads: u32,
    buffers: Vec<Vec<i32>>,
    /// The arguments, from the buffers' memrefs (thread-level form).
    args: Arguments,
}

impl Launch {
    /// Runs `executor`'s `kernel` on fresh buffers in one CTA; the final
    /// buffers. `lowered`: memref arguments become descriptors.
    fn run(&self, executor: &Executor, lowered: bool) -> Result<Vec<Vec<i64>>, WarpError> {
        let mut memory = Memory::new();
        let ids: Vec<MemRefId> = self
            .buffers
            .iter()
            .map(|buffer| memory.alloc_i32(buffer))
            .collect();
        let mut args = (self.args)(&ids);
        if lowered {
            args = memory.expand_memrefs(&args);
        }
        let dims = GridDims::linear(self.threads);
        executor.run_cta(
            self.kernel,
            &|_| args.clone(),
            &dims,
            [0, 0, 0],
            &mut memory,
            FUEL,
        )?;
        Ok(ids.iter().map(|&id| memory.read_i64s(id)).collect())
    }

    /// (a) The reference run of the thread-level kernel `source`.
    fn reference(&self, source: &str) -> Vec<Vec<i64>> {
        let context = context();
        let executor = Executor::new(&parse(&context, source))
            .with_reconvergence(Reconvergence::ImmediatePostDominator);
        self.run(&executor, false)
            .unwrap_or_else(|error| panic!("reference, {} threads: {error}", self.threads))
    }

    /// (b) The pre-fix lowering `nvvm`'s error.
    fn before_fix(&self, nvvm: &str) -> WarpError {
        let context = context();
        let executor = Executor::new(&parse(&context, nvvm)).with_vote_poison(VotePoison::Poison);
        match self.run(&executor, true) {
            Err(error) => error,
            Ok(buffers) => panic!("the pre-fix lowering ran: {buffers:?}"),
        }
    }

    /// (b) The pre-fix lowering `nvvm` fails because lane 8 of warp 0 runs
    /// `op_name` outside its member mask `0xff` (the whole warp ran it).
    fn assert_lane_8_outside_before_fix(&self, nvvm: &str, op_name: &str) {
        match self.before_fix(nvvm) {
            WarpError::MemberMask {
                warp: 0,
                lane: 8,
                member: 0xFF,
                violation: MaskViolation::LaneOutsideMask,
                site,
                ..
            } => assert_eq!(site.op_name, op_name),
            other => panic!("expected lane 8 outside the member mask, got {other}"),
        }
    }

    /// (c) The current lowering of `source`, run in lane-guard mode.
    fn current(&self, source: &str) -> Result<Vec<Vec<i64>>, WarpError> {
        let context = context();
        let executor =
            Executor::new(&lower_to_nvvm(&context, source)).with_vote_poison(VotePoison::Poison);
        self.run(&executor, true)
    }
}

/// The scan of `sums` (one per warp) by the first lanes of warp 0, for
/// `threads` threads; `%out` starts as -1.
fn scan_launch(threads: u32, sums: &[i32]) -> Launch {
    let mut padded = sums.to_vec();
    padded.resize(threads as usize, 0);
    Launch {
        kernel: "scan",
        threads,
        buffers: vec![padded, vec![-1; threads as usize]],
        args: Box::new(|ids| vec![Value::MemRef(ids[0]), Value::MemRef(ids[1])]),
    }
}

#[test]
fn scan_in_eight_lanes_of_warp_zero() {
    let launch = scan_launch(256, &[3, 1, 4, 1, 5, 9, 2, 6]);
    let reference = launch.reference(SCAN);
    let mut expected = vec![3, 4, 8, 9, 14, 23, 25, 31];
    expected.resize(256, -1);
    assert_eq!(reference[1], expected);

    // Before the fix the whole of warp 0 ran the shuffle over 0xff.
    launch.assert_lane_8_outside_before_fix(SCAN_BEFORE_FIX, "nvvm.shfl.sync");

    let current = launch
        .current(SCAN)
        .unwrap_or_else(|error| panic!("current lowering: {error}"));
    assert_eq!(current, reference);
}

#[test]
fn scan_of_two_warps_uses_a_two_lane_mask() {
    let launch = scan_launch(64, &[7, 5]);
    let reference = launch.reference(SCAN);
    let mut expected = vec![7, 12];
    expected.resize(64, -1);
    assert_eq!(reference[1], expected);
    let current = launch
        .current(SCAN)
        .unwrap_or_else(|error| panic!("current lowering: {error}"));
    assert_eq!(current, reference);
}

/// The reduction tail for `threads` threads over `n` inputs `in[i] = (7 i)
/// mod 23 + 1`; `%out` (3 rows of `threads`) starts as -1.
fn reduce_launch(threads: u32, n: usize) -> Launch {
    let input: Vec<i32> = (0..n as i32).map(|i| (7 * i) % 23 + 1).collect();
    Launch {
        kernel: "reduce",
        threads,
        buffers: vec![input, vec![-1; 3 * threads as usize]],
        args: Box::new(move |ids| {
            vec![
                Value::MemRef(ids[0]),
                Value::i32(n as i32),
                Value::MemRef(ids[1]),
            ]
        }),
    }
}

/// What the reduction kernel computes, thread by thread, for `input` and
/// `threads`: the model the reference run is checked against.
fn reduce_model(input: &[i32], threads: usize) -> Vec<i64> {
    let acc: Vec<i64> = (0..threads)
        .map(|t| {
            input
                .iter()
                .skip(t)
                .step_by(threads)
                .map(|&x| i64::from(x))
                .sum()
        })
        .collect();
    let mut out = vec![-1; 3 * threads];
    for start in (0..threads).step_by(32) {
        let lanes = &acc[start..threads.min(start + 32)];
        let total: i64 = lanes.iter().sum();
        let low = &lanes[..8];
        let mut fold = low.to_vec();
        for offset in [4, 2, 1] {
            fold = (0..8)
                .map(|l| {
                    fold[l]
                        + if l + offset <= 7 {
                            fold[l + offset]
                        } else {
                            fold[l]
                        }
                })
                .collect();
        }
        for lane in 0..lanes.len() {
            out[start + lane] = total;
            if lane < 8 {
                out[threads + start + lane] = low.iter().sum();
                out[2 * threads + start + lane] = fold[lane];
            }
        }
    }
    out
}

/// The reduction of `n` inputs by `threads` threads: (a), (b) and (c);
/// `first_sums`: thread 0's warp total, sum of lanes 0..8 and fold.
fn check_reduce(threads: u32, n: usize, first_sums: [i64; 3]) {
    let launch = reduce_launch(threads, n);
    let reference = launch.reference(REDUCE);
    let input = &launch.buffers[0];
    assert_eq!(reference[1], reduce_model(input, threads as usize));
    let t = threads as usize;
    assert_eq!(
        [reference[1][0], reference[1][t], reference[1][2 * t]],
        first_sums
    );

    // Before the fix every lane of the warp ran the redux over the ballot.
    launch.assert_lane_8_outside_before_fix(REDUCE_BEFORE_FIX, "nvvm.redux.sync");

    let current = launch
        .current(REDUCE)
        .unwrap_or_else(|error| panic!("current lowering: {error}"));
    assert_eq!(current, reference);
}

#[test]
fn reduce_tail_of_eight_full_warps() {
    // 700 inputs: threads below 188 add three, the others two.
    check_reduce(256, 700, [1143, 288, 288]);
}

#[test]
fn reduce_tail_with_a_partial_last_warp() {
    // 48 threads: warp 1 has 16 lanes; 130 inputs, threads below 34 add
    // three.
    check_reduce(48, 130, [1138, 281, 281]);
}

/// Thread-level LLVM-dialect code in [`Reconvergence::ImmediatePostDominator`]
/// mode: two tiles of 16 lanes shuffle and match in one converged warp
/// (`tiled_partition<16>`; `match.all` of a tile-uniform value gives the
/// tile), the odd lanes reduce over their
/// `activemask.b32` (clang's `__activemask()`) and return while the warp
/// is diverged, and the even lanes, all that is left, pass a barrier.
const TILES_AND_EARLY_RETURN: &str = r#"module {
  llvm.func ptx_kernelcc @k(%out: !llvm.ptr) {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %lane = nvvm.read.ptx.sreg.laneid : i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %two = llvm.mlir.constant(2 : i32) : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %c48 = llvm.mlir.constant(48 : i32) : i32
    %c96 = llvm.mlir.constant(96 : i32) : i32
    %low_tile = llvm.mlir.constant(65535 : i32) : i32
    %high_tile = llvm.mlir.constant(-65536 : i32) : i32
    %width16 = llvm.mlir.constant(4127 : i32) : i32
    %is_low = llvm.icmp "ult" %lane, %c16 : i32
    %tile = llvm.select %is_low, %low_tile, %high_tile : i1, i32
    %mirror = nvvm.shfl.sync bfly %tile, %tid, %c8, %width16 : i32 -> i32
    %key = llvm.lshr %lane, %two : i32
    %quad = llvm.call_intrinsic "llvm.nvvm.match.any.sync.i32"(%tile, %key) : (i32, i32) -> i32
    %pair = nvvm.match.sync all %tile, %c8 : i32 -> !llvm.struct<(i32, i1)>
    %members = llvm.extractvalue %pair[0] : !llvm.struct<(i32, i1)>
    %agreed = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
    %whole_tile = llvm.icmp "eq" %members, %tile : i32
    %all_ok = llvm.and %agreed, %whole_tile : i1
    %checked = llvm.select %all_ok, %mirror, %c96 : i1, i32
    %t64 = llvm.zext %tid : i32 to i64
    %p0 = llvm.getelementptr %out[%t64] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    llvm.store %checked, %p0 : i32, !llvm.ptr
    %i2 = llvm.add %tid, %c96 : i32
    %i2w = llvm.zext %i2 : i32 to i64
    %p2 = llvm.getelementptr %out[%i2w] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    llvm.store %quad, %p2 : i32, !llvm.ptr
    %i1 = llvm.add %tid, %c48 : i32
    %i1w = llvm.zext %i1 : i32 to i64
    %p1 = llvm.getelementptr %out[%i1w] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %bit = llvm.and %lane, %one : i32
    %odd = llvm.icmp "eq" %bit, %one : i32
    llvm.cond_br %odd, ^odd, ^even
  ^odd:
    %odd_lanes = llvm.inline_asm has_side_effects asm_dialect = att "activemask.b32 $0;", "=r" : () -> i32
    %top = nvvm.redux.sync umax %tid, %odd_lanes : i32 -> i32
    llvm.store %top, %p1 : i32, !llvm.ptr
    llvm.return
  ^even:
    %even_lanes = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
    nvvm.barrier0
    llvm.store %even_lanes, %p1 : i32, !llvm.ptr
    llvm.return
  }
}"#;

#[test]
fn tiles_match_and_lanes_returning_while_diverged() {
    let context = context();
    let executor = Executor::new(&parse(&context, TILES_AND_EARLY_RETURN))
        .with_reconvergence(Reconvergence::ImmediatePostDominator);
    let mut memory = Memory::new();
    let out = memory.alloc_i32(&[-1; 144]);
    let args = vec![Value::Ptr(memory.pointer_to(out).expect("allocated"))];
    let dims = GridDims::linear(48);
    let run = executor
        .run_cta("k", &|_| args.clone(), &dims, [0, 0, 0], &mut memory, FUEL)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!((run.stats.barriers, run.stats.divergent_guards), (1, 2));
    let out = memory.read_i64s(out);
    for tid in 0..48usize {
        let lane = tid % 32;
        assert_eq!(out[tid], (tid ^ 8) as i64, "shuffle of {tid}");
        let quad = (0xFu32 << (lane / 4 * 4)) as i32;
        assert_eq!(out[96 + tid], i64::from(quad), "match.any of {tid}");
        let odd_or_even = match (tid < 32, lane % 2 == 1) {
            (true, true) => 31,
            (false, true) => 47,
            (true, false) => 0x5555_5555,
            (false, false) => 0x5555,
        };
        assert_eq!(out[48 + tid], odd_or_even, "thread {tid}");
    }
    // The same tiles in lane-guard mode: a converged warp, the same rule.
    let mixed = TILES_AND_EARLY_RETURN.replace("%tile, %tid, %c8", "%low_tile, %tid, %c8");
    let executor = Executor::new(&parse(&context, &mixed));
    match executor.run_cta("k", &|_| args.clone(), &dims, [0, 0, 0], &mut memory, FUEL) {
        Err(WarpError::MemberMask {
            warp: 0,
            lane: 16,
            violation: MaskViolation::LaneOutsideMask,
            ..
        }) => {}
        other => panic!("expected lane 16 outside 0xffff, got {other:?}"),
    }
}
