//! Random structured thread-level kernels with warp collectives inside
//! divergent code (issue #28).
//!
//! [`RandomCollectiveKernel::build`] draws a CUDA-style kernel from a seeded
//! xorshift generator following a [`CollectiveShape`]: nested `if`/`else` on
//! divergent conditions (the lane, the thread id, data), loops whose trip
//! counts differ per lane, divergent `break`s and early returns, and warp
//! collectives with explicit member masks inside them, written the way CUDA
//! programmers write them. It renders the kernel twice, with the interface
//! of [`RandomKernel`](crate::RandomKernel):
//!
//! * [`RandomCollectiveKernel::gpu_text`]:
//!   `gpu.module @kernels { gpu.func @kernel(%out: memref<?xi32>, %n: i32, %ret: memref<?xi32>) kernel }`
//!   with `gpu.thread_id x`, `gpu.block_dim x`, `arith`, `cf`, `memref` and
//!   the NVVM ops `nvvm.vote.sync`, `nvvm.shfl.sync`, `nvvm.redux.sync`,
//!   `nvvm.bar.warp.sync`, `nvvm.match.sync` (MLIR 22 has no activemask op:
//!   `llvm.call_intrinsic "llvm.nvvm.activemask"`);
//! * [`RandomCollectiveKernel::llvm_text`]: `llvm.func ptx_kernelcc
//!   @kernel(%out: !llvm.ptr, %n: i32, %ret: !llvm.ptr)` in the form
//!   `mlir-translate --import-llvm` gives clang's CUDA output (compiled with
//!   `scripts/cuda/spmd_cuda.h`): the thread id and block size from
//!   `nvvm.read.ptx.sreg.{tid,ntid}.x` (for odd seeds the thread id from
//!   `llvm.call_intrinsic`), every collective as
//!   `llvm.call_intrinsic "llvm.nvvm.vote.ballot.sync"` (`vote.any.sync`,
//!   `vote.all.sync`, `shfl.sync.{up,down,bfly,idx}.i32`, `redux.sync.add`,
//!   `bar.warp.sync`, `match.any.sync.i32`, `activemask`) with the
//!   declarations the importer adds.
//!
//! Threads store only to `%out[tid * K + slot]` (K = [`CollectiveShape::slots`])
//! and, at each return, to `%ret[tid]`.
//!
//! ## Thread-level semantics of the collectives (CUDA's)
//!
//! The lanes that execute a collective *together* are the lanes of the warp
//! whose threads reach it at the same time; with structured code and
//! reconvergence at immediate post-dominators (the reference semantics,
//! `Reconvergence::ImmediatePostDominator` of the lockstep executor) that
//! set is well defined. Every collective with a member mask requires (PTX
//! `*.sync`): each executing lane is in its own mask, and each lane of a
//! mask executes the collective with that same mask; masks may partition
//! the executing lanes (as `cooperative_groups::tiled_partition` does), each
//! part then computing on its own.
//!
//! * `__ballot_sync(mask, p)` (`vote.sync ballot`): the bits of the members
//!   whose `p` holds; `__any_sync`/`__all_sync` (`vote.sync any/all`): the
//!   or/and of the members' predicates.
//! * `__shfl_{up,down,xor,}_sync(mask, x, b, width)` (`shfl.sync
//!   up/down/bfly/idx`, `c = ((32 - width) << 8) | clamp`, clamp 0 for up,
//!   31 otherwise): lane `l` reads `x` of the source lane of PTX's
//!   pseudocode (within its segment of `width` lanes; out of range, its
//!   own `x`). A source lane that is not a member gives an undefined value
//!   (poison in the oracle): the generated kernels compute the source lane
//!   themselves and keep their own `x` when the source is not in the mask,
//!   so no undefined value is ever used.
//! * `__reduce_add_sync(mask, x)` (`redux.sync add`): the sum over the
//!   members; `__match_any_sync(mask, x)` (`match.sync any`): the members
//!   holding the same `x`; `__syncwarp(mask)` (`bar.warp.sync`): waits for
//!   the members.
//! * `__activemask()`: the lanes executing it together. It is used (as a
//!   mask or a stored value) only where that set is the one structured
//!   reconvergence gives (no split of a region with a `break` or `return`
//!   that has not yet rejoined).
//!
//! ## Grammar
//!
//! ```text
//! kernel   := prologue  m := live | activemask()  stmts(D)  return v
//! prologue := lane = tid & 31 ; lanes = min(ntid - (tid & ~31), 32)
//!             live = 0xffffffff >> (32 - lanes)     (reduce7's partial warp mask)
//! stmts(d) := stmt(d)^(1..=S)                        (ends at a return or break)
//! stmt(d)  := v = v op x | w = w op x               (x: w, v, lane, tid, %n, constant, counter)
//!           | out[tid*K + slot] = v | w | m
//!           | collective(m)                          (below)
//!           | if (c) { stmts(d-1) } else { stmts(d-1) }          (d > 0)
//!           | if (c) { stmts(d-1); return v }                    (early return)
//!           | if (c) { stmts(d-1); break }                       (in a loop that allows it)
//!           | for (i = 0; ; i++) {                               (d > 0)
//!                 k = i < trip; m = __ballot_sync(m, k); if (!k) break;
//!                 stmts(d-1) }
//!           | if (lanes == 32) { m = 0xffffffff; stmts(d-1) }    (where m is the live mask)
//! c        := divergent: lane < L | (lane & 2^j) == 0 | (v & 2^j) == 0 | tid < n
//!           | warp-uniform: n > L | (n & 2^j) == 0
//! trip     := (lane & 3) + (v & 1) | v & 7 | (n & 3) + 1 | lane & 7
//! collective(m) := __ballot_sync(m', p) | __any_sync(m', p) | __all_sync(m', p)
//!           | __shfl_{up,down,xor,}_sync(m', x, b, width)   width 32|16|8|4,
//!                 b constant or i & (width-1), idx source per lane
//!           | __reduce_add_sync(m', x) | __syncwarp(m') | __match_any_sync(m', x)
//!           | out[..] = __activemask()                   (where exact)
//! m'       := m | m & segment(lane, width)              (a partition of m)
//! ```
//!
//! ## Member masks, right by construction
//!
//! `m` always holds the set of lanes executing the current point together:
//!
//! * a divergent `if (c)` computes `mt = __ballot_sync(m, c)` before the
//!   branch, the then-arm runs with `m = mt` and the else-arm with
//!   `m = m ^ mt` (or `__ballot_sync(m, !c)`); where `__activemask()` is
//!   exact it may instead start each arm with `m = __activemask()`; inside
//!   `if (lanes == 32)` masks are constants (`lane < 8` in a full warp:
//!   `0xff`, the issue's `__shfl_up_sync(0xff, ...)`);
//! * a warp-uniform condition keeps `m`;
//! * at the join of an `if` whose arms hold no `break` or `return`, the
//!   join is the branch's immediate post-dominator, the lanes reconverge
//!   and `m` is restored to its value before the `if`; otherwise the
//!   lanes do not reconverge there (the post-dominator is the loop exit or
//!   the function exit), and `m` is each lane's own arm's mask (a block
//!   argument);
//! * a loop takes `k = __ballot_sync(m, keep_going)` at its header and
//!   continues with `m = k`, the leaving lanes carry `m ^ k`; its exit
//!   restores `m` from before the loop when the loop holds no return (every
//!   lane that entered leaves through it), and otherwise takes the mask
//!   carried by each leaving edge (the lanes that left together).
//!
//! The loops terminate: trip counts are at most 8 and loops nest at most
//! [`CollectiveShape::max_depth`] deep.

use crate::memory::{MemRefId, Pointer};
use crate::random_kernel::XorShift;
use crate::value::Value;
use std::fmt::Write as _;

/// Loop counters carried by every block (loop nesting limit).
const COUNTERS: usize = 3;

/// Parameters of the random collective kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveShape {
    /// Nesting depth of `if`s and loops.
    pub max_depth: usize,
    /// Maximum statements per statement list.
    pub max_statements: usize,
    /// Whether the kernel may return early (inside `if`s and loops).
    pub early_returns: bool,
    /// Whether loops may hold divergent `break`s inside `if`s.
    pub breaks: bool,
    /// Whether member masks may partition the executing lanes into
    /// segments of the shuffle width.
    pub partition_masks: bool,
    /// Whether `match.sync any` is generated.
    pub match_sync: bool,
    /// Output slots per thread (K).
    pub slots: u32,
}

impl Default for CollectiveShape {
    fn default() -> Self {
        Self {
            max_depth: 3,
            max_statements: 5,
            early_returns: true,
            breaks: true,
            partition_masks: true,
            match_sync: true,
            slots: 8,
        }
    }
}

impl CollectiveShape {
    /// The shape of corpus kernel `seed`: nesting depth 2, 3 or 4 in turn,
    /// the rest as [`CollectiveShape::default`]. The NVVM differential and
    /// the GPU corpus (`examples/dump_collective_kernels.rs`) both use it.
    pub fn of_corpus_seed(seed: u64) -> Self {
        Self {
            max_depth: 2 + (seed % 3) as usize,
            ..Self::default()
        }
    }
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct RandomCollectiveKernel {
    /// The seed it was generated from.
    pub seed: u64,
    /// The `gpu.module @kernels { gpu.func @kernel }` module.
    pub gpu_text: String,
    /// The LLVM-dialect module (`llvm.func ptx_kernelcc @kernel`).
    pub llvm_text: String,
    /// Output slots per thread.
    pub slots: u32,
    /// Collectives in the kernel text (static count).
    pub num_collectives: usize,
    /// Collectives placed inside a divergent `if` or loop.
    pub num_divergent_collectives: usize,
}

impl RandomCollectiveKernel {
    /// Generates the kernel for `seed`.
    pub fn build(seed: u64, shape: &CollectiveShape) -> Self {
        let mut generator = Generator::new(seed, shape);
        generator.kernel();
        let gpu_text = render(&generator.blocks, Form::Gpu, shape.slots);
        let llvm_text = render(
            &generator.blocks,
            Form::Llvm {
                intrinsic_tid: seed % 2 == 1,
            },
            shape.slots,
        );
        Self {
            seed,
            gpu_text,
            llvm_text,
            slots: shape.slots,
            num_collectives: generator.collectives,
            num_divergent_collectives: generator.divergent_collectives,
        }
    }

    /// Elements `%out` needs for `num_threads` threads.
    pub fn out_len(&self, num_threads: u32) -> u64 {
        u64::from(num_threads) * u64::from(self.slots)
    }

    /// The arguments of `@kernel` in [`RandomCollectiveKernel::gpu_text`].
    pub fn gpu_arguments(out: MemRefId, n: i32, ret: MemRefId) -> Vec<Value> {
        vec![Value::MemRef(out), Value::i32(n), Value::MemRef(ret)]
    }

    /// The arguments of `@kernel` in [`RandomCollectiveKernel::llvm_text`].
    pub fn llvm_arguments(out: Pointer, n: i32, ret: Pointer) -> Vec<Value> {
        vec![Value::Ptr(out), Value::i32(n), Value::Ptr(ret)]
    }
}

// --- The kernel as blocks of neutral instructions ---------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    I1,
    I32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    LShr,
}

impl BinOp {
    fn arith(self) -> &'static str {
        match self {
            Self::Add => "arith.addi",
            Self::Sub => "arith.subi",
            Self::Mul => "arith.muli",
            Self::And => "arith.andi",
            Self::Or => "arith.ori",
            Self::Xor => "arith.xori",
            Self::Shl => "arith.shli",
            Self::LShr => "arith.shrui",
        }
    }

    fn llvm(self) -> &'static str {
        match self {
            Self::Add => "llvm.add",
            Self::Sub => "llvm.sub",
            Self::Mul => "llvm.mul",
            Self::And => "llvm.and",
            Self::Or => "llvm.or",
            Self::Xor => "llvm.xor",
            Self::Shl => "llvm.shl",
            Self::LShr => "llvm.lshr",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shfl {
    Up,
    Down,
    Bfly,
    Idx,
}

impl Shfl {
    fn name(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
            Self::Bfly => "bfly",
            Self::Idx => "idx",
        }
    }
}

#[derive(Clone, Debug)]
enum Inst {
    Const {
        r: String,
        value: i64,
        ty: Ty,
    },
    Bin {
        r: String,
        op: BinOp,
        a: String,
        b: String,
        ty: Ty,
    },
    Cmp {
        r: String,
        pred: &'static str,
        a: String,
        b: String,
    },
    Select {
        r: String,
        c: String,
        a: String,
        b: String,
    },
    Zext {
        r: String,
        a: String,
    },
    Store {
        id: usize,
        value: String,
        index: String,
    },
    Ballot {
        r: String,
        mask: String,
        pred: String,
    },
    Vote {
        r: String,
        any: bool,
        mask: String,
        pred: String,
    },
    Shuffle {
        r: String,
        kind: Shfl,
        mask: String,
        value: String,
        offset: String,
        c: String,
    },
    WarpSync {
        mask: String,
    },
    Redux {
        r: String,
        value: String,
        mask: String,
    },
    Match {
        r: String,
        mask: String,
        value: String,
    },
    ActiveMask {
        r: String,
    },
}

#[derive(Clone, Debug)]
enum Term {
    Br(usize, Vec<String>),
    CondBr(String, usize, Vec<String>, usize, Vec<String>),
    Return(String),
}

#[derive(Clone, Debug, Default)]
struct Block {
    insts: Vec<Inst>,
    term: Option<Term>,
}

/// The current member mask: the lanes executing this point together.
#[derive(Clone, Debug)]
struct Mask {
    name: String,
    /// Its value where it is a known constant (in full warps).
    constant: Option<u32>,
    /// Whether it is the warp's live mask.
    live: bool,
}

/// The names of the kernel's variables at the current point.
#[derive(Clone, Debug)]
struct State {
    v: String,
    w: String,
    m: Mask,
    counters: [String; COUNTERS],
    /// Whether `__activemask()` gives `m` here in every reasonable
    /// execution (no pending split of a region holding a break or return).
    exact: bool,
    /// Whether the current point is inside a divergent region.
    divergent: bool,
}

impl State {
    fn args(&self) -> Vec<String> {
        let mut args = vec![self.v.clone(), self.w.clone(), self.m.name.clone()];
        args.extend(self.counters.iter().cloned());
        args
    }
}

/// What a statement list does with control.
#[derive(Clone, Copy, Debug, Default)]
struct Flow {
    /// Control reaches its end.
    falls: bool,
    /// It holds a return.
    returns: bool,
    /// It holds a break of the innermost enclosing loop.
    breaks: bool,
}

#[derive(Clone, Copy, Debug)]
struct LoopContext {
    exit: usize,
    /// Whether its body may break out from inside an `if`.
    breaks: bool,
}

#[derive(Clone, Copy, Debug)]
struct Context {
    depth: usize,
    innermost: Option<LoopContext>,
    loops: usize,
    returns: bool,
}

struct Generator<'s> {
    rng: XorShift,
    shape: &'s CollectiveShape,
    blocks: Vec<Block>,
    current: usize,
    state: State,
    fresh: usize,
    stores: usize,
    collectives: usize,
    divergent_collectives: usize,
}

impl<'s> Generator<'s> {
    fn new(seed: u64, shape: &'s CollectiveShape) -> Self {
        let zero = "%zero".to_string();
        Self {
            rng: XorShift::new(seed ^ 0xC011_EC71_u64),
            shape,
            blocks: vec![Block::default()],
            current: 0,
            state: State {
                v: zero.clone(),
                w: zero.clone(),
                m: Mask {
                    name: "%live".into(),
                    constant: None,
                    live: true,
                },
                counters: [zero.clone(), zero.clone(), zero],
                exact: true,
                divergent: false,
            },
            fresh: 0,
            stores: 0,
            collectives: 0,
            divergent_collectives: 0,
        }
    }

    fn name(&mut self) -> String {
        self.fresh += 1;
        format!("%t{}", self.fresh)
    }

    fn push(&mut self, inst: Inst) {
        self.blocks[self.current].insts.push(inst);
    }

    fn constant(&mut self, value: i64) -> String {
        let r = self.name();
        self.push(Inst::Const {
            r: r.clone(),
            value,
            ty: Ty::I32,
        });
        r
    }

    fn bin(&mut self, op: BinOp, a: &str, b: &str) -> String {
        let r = self.name();
        self.push(Inst::Bin {
            r: r.clone(),
            op,
            a: a.into(),
            b: b.into(),
            ty: Ty::I32,
        });
        r
    }

    fn bin_const(&mut self, op: BinOp, a: &str, value: i64) -> String {
        let b = self.constant(value);
        self.bin(op, a, &b)
    }

    fn cmp(&mut self, pred: &'static str, a: &str, b: &str) -> String {
        let r = self.name();
        self.push(Inst::Cmp {
            r: r.clone(),
            pred,
            a: a.into(),
            b: b.into(),
        });
        r
    }

    fn cmp_const(&mut self, pred: &'static str, a: &str, value: i64) -> String {
        let b = self.constant(value);
        self.cmp(pred, a, &b)
    }

    fn select(&mut self, c: &str, a: &str, b: &str) -> String {
        let r = self.name();
        self.push(Inst::Select {
            r: r.clone(),
            c: c.into(),
            a: a.into(),
            b: b.into(),
        });
        r
    }

    fn not(&mut self, a: &str) -> String {
        let r = self.name();
        self.push(Inst::Bin {
            r: r.clone(),
            op: BinOp::Xor,
            a: a.into(),
            b: "%true".into(),
            ty: Ty::I1,
        });
        r
    }

    fn zext(&mut self, a: &str) -> String {
        let r = self.name();
        self.push(Inst::Zext {
            r: r.clone(),
            a: a.into(),
        });
        r
    }

    fn store(&mut self, value: &str) {
        let slot = self.rng.below(self.shape.slots as usize) as i64;
        let index = self.bin_const(BinOp::Add, "%base", slot);
        self.stores += 1;
        let id = self.stores;
        self.push(Inst::Store {
            id,
            value: value.into(),
            index,
        });
    }

    fn count_collective(&mut self) {
        self.collectives += 1;
        if self.state.divergent {
            self.divergent_collectives += 1;
        }
    }

    fn new_block(&mut self) -> usize {
        self.blocks.push(Block::default());
        self.blocks.len() - 1
    }

    fn terminate(&mut self, term: Term) {
        debug_assert!(self.blocks[self.current].term.is_none());
        self.blocks[self.current].term = Some(term);
    }

    /// Continues in `block`, whose arguments are the state: the names
    /// become the block's arguments, `m`'s facts are `mask`'s.
    fn enter(&mut self, block: usize, mask: &Mask, exact: bool, divergent: bool) {
        self.current = block;
        self.state = State {
            v: format!("%v{block}"),
            w: format!("%w{block}"),
            m: Mask {
                name: format!("%m{block}"),
                constant: mask.constant,
                live: mask.live,
            },
            counters: std::array::from_fn(|i| format!("%c{block}_{i}")),
            exact,
            divergent,
        };
    }

    // --- The kernel --------------------------------------------------------

    fn kernel(&mut self) {
        // The prologue (entry block, after the thread id and block size).
        let v = self.bin_const(BinOp::Mul, "%tid", 3);
        let v = self.bin(BinOp::Add, &v, "%n");
        let w = self.bin(BinOp::Xor, "%n", "%lane");
        self.state.v = v;
        self.state.w = w;
        if self.rng.chance(0.3) {
            let r = self.name();
            self.push(Inst::ActiveMask { r: r.clone() });
            self.count_collective();
            self.state.m.name = r;
        }
        let context = Context {
            depth: self.shape.max_depth,
            innermost: None,
            loops: 0,
            returns: self.shape.early_returns,
        };
        self.collective(context);
        let flow = self.statements(context);
        if flow.falls {
            let value = self.state.v.clone();
            self.terminate(Term::Return(value));
        }
    }

    fn statements(&mut self, context: Context) -> Flow {
        let count = self.rng.range(1, self.shape.max_statements + 1);
        let mut flow = Flow {
            falls: true,
            ..Flow::default()
        };
        for _ in 0..count {
            let step = self.statement(context);
            flow.returns |= step.returns;
            flow.breaks |= step.breaks;
            if !step.falls {
                flow.falls = false;
                break;
            }
        }
        flow
    }

    fn statement(&mut self, context: Context) -> Flow {
        let falls = Flow {
            falls: true,
            ..Flow::default()
        };
        let nested = context.depth > 0;
        let choice = self.rng.below(100);
        match choice {
            0..=14 => {
                self.arith(context);
                falls
            }
            15..=21 => {
                let value = match self.rng.below(3) {
                    0 => self.state.v.clone(),
                    1 => self.state.w.clone(),
                    _ => self.state.m.name.clone(),
                };
                self.store(&value);
                falls
            }
            22..=49 => {
                self.collective(context);
                falls
            }
            50..=69 if nested => self.if_else(context, Arm::Plain),
            70..=79 if nested && context.loops < COUNTERS => self.for_loop(context),
            80..=86 if nested && context.returns => self.if_else(context, Arm::Return),
            87..=93 if nested && context.innermost.is_some_and(|l| l.breaks) => {
                self.if_else(context, Arm::Break)
            }
            94..=99 if nested && self.state.m.live => self.full_warp(context),
            _ => {
                self.collective(context);
                falls
            }
        }
    }

    /// An operand for arithmetic.
    fn operand(&mut self, context: Context) -> String {
        match self.rng.below(7) {
            0 => self.state.w.clone(),
            1 => self.state.v.clone(),
            2 => "%lane".into(),
            3 => "%tid".into(),
            4 => "%n".into(),
            5 if context.loops > 0 => self.state.counters[context.loops - 1].clone(),
            _ => {
                let value = self.rng.range(1, 40) as i64;
                self.constant(value)
            }
        }
    }

    fn arith(&mut self, context: Context) {
        let x = self.operand(context);
        let op = *self
            .rng
            .pick(&[BinOp::Add, BinOp::Sub, BinOp::Xor, BinOp::Mul, BinOp::Or]);
        if self.rng.chance(0.6) {
            let v = self.state.v.clone();
            self.state.v = self.bin(op, &v, &x);
        } else {
            let w = self.state.w.clone();
            self.state.w = self.bin(op, &w, &x);
        }
    }

    /// A predicate for a vote.
    fn predicate(&mut self) -> String {
        let source = match self.rng.below(3) {
            0 => self.state.v.clone(),
            1 => self.state.w.clone(),
            _ => "%lane".into(),
        };
        let bit = 1i64 << self.rng.below(5);
        let masked = self.bin_const(BinOp::And, &source, bit);
        self.cmp("eq", &masked, "%zero")
    }

    /// The member mask of a collective: `m`, or (a partition) `m` and the
    /// lane's segment of `width` lanes.
    fn member_mask(&mut self, width: u32) -> String {
        let m = self.state.m.name.clone();
        if width == 32 || !self.shape.partition_masks || !self.rng.chance(0.35) {
            return m;
        }
        let ones = (1i64 << width) - 1;
        let start = self.bin_const(BinOp::And, "%lane", i64::from(32 - width));
        let ones = self.constant(ones);
        let segment = self.bin(BinOp::Shl, &ones, &start);
        self.bin(BinOp::And, &m, &segment)
    }

    fn mix(&mut self, value: &str) {
        if self.rng.chance(0.5) {
            self.store(value);
        }
        let v = self.state.v.clone();
        self.state.v = self.bin(BinOp::Add, &v, value);
    }

    fn collective(&mut self, context: Context) {
        let width = *self.rng.pick(&[32u32, 32, 16, 8, 4]);
        match self.rng.below(12) {
            0 | 1 => {
                let mask = self.member_mask(width);
                let pred = self.predicate();
                let r = self.name();
                self.push(Inst::Ballot {
                    r: r.clone(),
                    mask,
                    pred,
                });
                self.count_collective();
                self.mix(&r);
            }
            2 => {
                let mask = self.member_mask(width);
                let pred = self.predicate();
                let r = self.name();
                let any = self.rng.chance(0.5);
                self.push(Inst::Vote {
                    r: r.clone(),
                    any,
                    mask,
                    pred,
                });
                self.count_collective();
                let bit = self.zext(&r);
                self.mix(&bit);
            }
            3..=7 => self.shuffle(context, width),
            8 => {
                let mask = self.member_mask(width);
                self.push(Inst::WarpSync { mask });
                self.count_collective();
            }
            9 | 10 => {
                let mask = self.member_mask(width);
                let value = self.state.w.clone();
                let r = self.name();
                self.push(Inst::Redux {
                    r: r.clone(),
                    value,
                    mask,
                });
                self.count_collective();
                self.mix(&r);
            }
            _ if self.shape.match_sync && self.rng.chance(0.5) => {
                let mask = self.member_mask(width);
                let value = self.bin_const(BinOp::And, &self.state.v.clone(), 3);
                let r = self.name();
                self.push(Inst::Match {
                    r: r.clone(),
                    mask,
                    value,
                });
                self.count_collective();
                self.mix(&r);
            }
            _ if self.state.exact => {
                let r = self.name();
                self.push(Inst::ActiveMask { r: r.clone() });
                self.count_collective();
                self.store(&r);
            }
            _ => self.shuffle(context, width),
        }
    }

    /// `x' = shfl(mask, x, b, width)`, kept only where the source lane is a
    /// member: `select((mask >> src) & 1, x', x)`.
    fn shuffle(&mut self, context: Context, width: u32) {
        let kind = *self
            .rng
            .pick(&[Shfl::Up, Shfl::Down, Shfl::Bfly, Shfl::Idx]);
        let mask = self.member_mask(width);
        let value = if self.rng.chance(0.6) {
            self.state.v.clone()
        } else {
            self.state.w.clone()
        };
        let w = i64::from(width);
        // The offset: a constant in 1..width, the loop counter, or (idx) a
        // per-lane value.
        let offset = if kind == Shfl::Idx && self.rng.chance(0.6) {
            let source = if self.rng.chance(0.5) {
                self.state.w.clone()
            } else {
                let one = self.constant(1);
                self.bin(BinOp::Add, "%lane", &one)
            };
            self.bin_const(BinOp::And, &source, w - 1)
        } else if context.loops > 0 && self.rng.chance(0.4) {
            let counter = self.state.counters[context.loops - 1].clone();
            self.bin_const(BinOp::And, &counter, w - 1)
        } else {
            let b = self.rng.range(1, width as usize) as i64;
            self.constant(b)
        };
        let clamp = if kind == Shfl::Up { 0 } else { 31 };
        let c = self.constant(((32 - w) << 8) | clamp);
        let r = self.name();
        self.push(Inst::Shuffle {
            r: r.clone(),
            kind,
            mask: mask.clone(),
            value: value.clone(),
            offset: offset.clone(),
            c,
        });
        self.count_collective();
        // The source lane, as PTX computes it (its own lane out of range).
        let source = match kind {
            Shfl::Up => {
                let low = self.bin_const(BinOp::And, "%lane", w - 1);
                let in_range = self.cmp("uge", &low, &offset);
                let candidate = self.bin(BinOp::Sub, "%lane", &offset);
                self.select(&in_range, &candidate, "%lane")
            }
            Shfl::Down => {
                let low = self.bin_const(BinOp::And, "%lane", w - 1);
                let reach = self.bin(BinOp::Add, &low, &offset);
                let in_range = self.cmp_const("ule", &reach, w - 1);
                let candidate = self.bin(BinOp::Add, "%lane", &offset);
                self.select(&in_range, &candidate, "%lane")
            }
            Shfl::Bfly => self.bin(BinOp::Xor, "%lane", &offset),
            Shfl::Idx => {
                let high = self.bin_const(BinOp::And, "%lane", 32 - w);
                self.bin(BinOp::Or, &high, &offset)
            }
        };
        let shifted = self.bin(BinOp::LShr, &mask, &source);
        let bit = self.bin_const(BinOp::And, &shifted, 1);
        let member = self.cmp("ne", &bit, "%zero");
        let kept = self.select(&member, &r, &value);
        self.mix(&kept);
    }

    // --- Control flow ------------------------------------------------------

    /// A divergent or warp-uniform condition; `Some(lanes)`: the condition
    /// holds exactly in the lanes of the bit set `lanes` (conditions on the
    /// lane alone).
    fn condition(&mut self, divergent: bool) -> (String, Option<u32>) {
        if !divergent {
            return if self.rng.chance(0.5) {
                let bound = self.rng.range(0, 40) as i64;
                (self.cmp_const("sgt", "%n", bound), None)
            } else {
                let bit = 1i64 << self.rng.below(4);
                let masked = self.bin_const(BinOp::And, "%n", bit);
                (self.cmp("eq", &masked, "%zero"), None)
            };
        }
        match self.rng.below(5) {
            0 | 1 => {
                let bound = *self.rng.pick(&[1u32, 2, 4, 8, 12, 16, 24, 31]);
                let lanes = (1u32 << bound) - 1;
                (
                    self.cmp_const("ult", "%lane", i64::from(bound)),
                    Some(lanes),
                )
            }
            2 => {
                let bit = self.rng.below(5) as u32;
                let masked = self.bin_const(BinOp::And, "%lane", 1 << bit);
                let lanes = (0..32u32)
                    .filter(|lane| lane & (1 << bit) == 0)
                    .fold(0, |set, lane| set | (1 << lane));
                (self.cmp("eq", &masked, "%zero"), Some(lanes))
            }
            3 => {
                let bit = 1i64 << self.rng.below(4);
                let source = if self.rng.chance(0.5) {
                    self.state.v.clone()
                } else {
                    self.state.w.clone()
                };
                let masked = self.bin_const(BinOp::And, &source, bit);
                (self.cmp("eq", &masked, "%zero"), None)
            }
            _ => (self.cmp("slt", "%tid", "%n"), None),
        }
    }

    /// `if (c) { .. } else { .. }`; `arm`: what the then-arm ends with.
    fn if_else(&mut self, context: Context, arm: Arm) -> Flow {
        let divergent = self.rng.chance(0.8);
        let (condition, lanes) = self.condition(divergent);
        let before = self.state.clone();
        // The masks of the two arms.
        let (then_mask, else_mask, activemask) = if !divergent {
            (before.m.clone(), before.m.clone(), false)
        } else if let (Some(constant), Some(lanes)) = (before.m.constant, lanes) {
            let mask = |value: u32| Mask {
                name: String::new(),
                constant: Some(value),
                live: false,
            };
            (mask(constant & lanes), mask(constant & !lanes), false)
        } else if before.exact && self.rng.chance(0.25) {
            let unknown = Mask {
                name: String::new(),
                constant: None,
                live: false,
            };
            (unknown.clone(), unknown, true)
        } else {
            let m = before.m.name.clone();
            let taken = self.name();
            self.push(Inst::Ballot {
                r: taken.clone(),
                mask: m.clone(),
                pred: condition.clone(),
            });
            self.count_collective();
            let other = if self.rng.chance(0.5) {
                self.bin(BinOp::Xor, &m, &taken)
            } else {
                let negated = self.not(&condition);
                let r = self.name();
                self.push(Inst::Ballot {
                    r: r.clone(),
                    mask: m,
                    pred: negated,
                });
                self.count_collective();
                r
            };
            let mask = |name: String| Mask {
                name,
                constant: None,
                live: false,
            };
            (mask(taken), mask(other), false)
        };
        let (then_block, else_block) = (self.new_block(), self.new_block());
        let mut then_args = before.args();
        let mut else_args = before.args();
        if !then_mask.name.is_empty() {
            then_args[2] = then_mask.name.clone();
        }
        if !else_mask.name.is_empty() {
            else_args[2] = else_mask.name.clone();
        }
        self.terminate(Term::CondBr(
            condition, then_block, then_args, else_block, else_args,
        ));
        let inner = Context {
            depth: context.depth - 1,
            ..context
        };
        let arm_divergent = before.divergent || divergent;
        // The then-arm.
        self.enter_arm(then_block, &then_mask, activemask, &before, arm_divergent);
        let mut then_flow = self.statements(inner);
        if then_flow.falls {
            match arm {
                Arm::Plain => {}
                Arm::Return => {
                    let value = self.state.v.clone();
                    self.terminate(Term::Return(value));
                    then_flow = Flow {
                        falls: false,
                        returns: true,
                        ..then_flow
                    };
                }
                Arm::Break => {
                    let exit = context.innermost.expect("break in a loop").exit;
                    let args = self.state.args();
                    self.terminate(Term::Br(exit, args));
                    then_flow = Flow {
                        falls: false,
                        breaks: true,
                        ..then_flow
                    };
                }
            }
        }
        let then_end = then_flow.falls.then(|| (self.current, self.state.clone()));
        // The else-arm (empty for returns and breaks, half the time).
        self.enter_arm(else_block, &else_mask, activemask, &before, arm_divergent);
        let else_flow = if arm == Arm::Plain || self.rng.chance(0.5) {
            self.statements(inner)
        } else {
            Flow {
                falls: true,
                ..Flow::default()
            }
        };
        let else_end = else_flow.falls.then(|| (self.current, self.state.clone()));
        let flow = Flow {
            falls: then_end.is_some() || else_end.is_some(),
            returns: then_flow.returns || else_flow.returns,
            breaks: then_flow.breaks || else_flow.breaks,
        };
        if !flow.falls {
            return flow;
        }
        let join = self.new_block();
        let reaching: Vec<(usize, State)> = then_end.into_iter().chain(else_end).collect();
        for (block, state) in &reaching {
            self.blocks[*block].term = Some(Term::Br(join, state.args()));
        }
        let merging = !flow.returns && !flow.breaks;
        if merging {
            // The join post-dominates the branch: the lanes reconverge.
            self.enter(join, &before.m, before.exact, before.divergent);
            self.state.m = before.m.clone();
        } else {
            // Each lane keeps its own arm's mask (a block argument).
            let exact = reaching.len() == 1 && reaching[0].1.exact;
            let facts = if reaching.len() == 1 {
                reaching[0].1.m.clone()
            } else {
                Mask {
                    name: String::new(),
                    constant: None,
                    live: false,
                }
            };
            self.enter(join, &facts, exact, arm_divergent);
        }
        flow
    }

    /// Enters an arm: its mask is the block argument, a constant, or
    /// `__activemask()`.
    fn enter_arm(
        &mut self,
        block: usize,
        mask: &Mask,
        activemask: bool,
        before: &State,
        divergent: bool,
    ) {
        self.enter(block, mask, before.exact, divergent);
        if activemask {
            let r = self.name();
            self.push(Inst::ActiveMask { r: r.clone() });
            self.count_collective();
            self.state.m.name = r;
        } else if let Some(constant) = mask.constant {
            self.state.m.name = self.constant(i64::from(constant as i32));
        }
    }

    /// `for (i = 0; ; i++) { k = i < trip; m = ballot(m, k); if (!k) break; body }`.
    fn for_loop(&mut self, context: Context) -> Flow {
        let level = context.loops;
        let trip = match self.rng.below(4) {
            0 => {
                let low = self.bin_const(BinOp::And, "%lane", 3);
                let bit = self.bin_const(BinOp::And, &self.state.v.clone(), 1);
                self.bin(BinOp::Add, &low, &bit)
            }
            1 => self.bin_const(BinOp::And, &self.state.v.clone(), 7),
            2 => {
                let low = self.bin_const(BinOp::And, "%n", 3);
                self.bin_const(BinOp::Add, &low, 1)
            }
            _ => self.bin_const(BinOp::And, "%lane", 7),
        };
        let before = self.state.clone();
        let escapes = (self.shape.breaks || context.returns) && self.rng.chance(0.5);
        let (header, body, exit) = (self.new_block(), self.new_block(), self.new_block());
        let mut args = before.args();
        args[3 + level] = "%zero".into();
        self.terminate(Term::Br(header, args));
        // The header: the loop's member mask.
        let loop_mask = Mask {
            name: String::new(),
            constant: None,
            live: false,
        };
        let exact = before.exact && !escapes;
        self.enter(header, &loop_mask, exact, true);
        let counter = self.state.counters[level].clone();
        let keep = self.cmp("slt", &counter, &trip);
        let m = self.state.m.name.clone();
        let staying = self.name();
        self.push(Inst::Ballot {
            r: staying.clone(),
            mask: m.clone(),
            pred: keep.clone(),
        });
        self.count_collective();
        let leaving = self.bin(BinOp::Xor, &m, &staying);
        let mut body_args = self.state.args();
        body_args[2] = staying;
        let mut exit_args = self.state.args();
        exit_args[2] = leaving;
        self.terminate(Term::CondBr(keep, body, body_args, exit, exit_args));
        // The body.
        self.enter(body, &loop_mask, exact, true);
        let inner = Context {
            depth: context.depth - 1,
            innermost: Some(LoopContext {
                exit,
                breaks: escapes && self.shape.breaks,
            }),
            loops: level + 1,
            returns: context.returns && escapes,
        };
        let flow = self.statements(inner);
        if flow.falls {
            let counter = self.state.counters[level].clone();
            let next = self.bin_const(BinOp::Add, &counter, 1);
            let mut args = self.state.args();
            args[3 + level] = next;
            self.terminate(Term::Br(header, args));
        }
        // The exit.
        if flow.returns {
            self.enter(exit, &loop_mask, false, true);
        } else {
            self.enter(exit, &before.m, before.exact, before.divergent);
            self.state.m = before.m.clone();
        }
        Flow {
            falls: true,
            returns: flow.returns,
            breaks: false,
        }
    }

    /// `if (lanes == 32) { m = 0xffffffff; .. }`: a warp-uniform branch into
    /// code with constant masks.
    fn full_warp(&mut self, context: Context) -> Flow {
        let before = self.state.clone();
        let condition = self.cmp("eq", "%lanes", "%c32");
        let (then_block, join) = (self.new_block(), self.new_block());
        self.terminate(Term::CondBr(
            condition,
            then_block,
            before.args(),
            join,
            before.args(),
        ));
        let full = Mask {
            name: String::new(),
            constant: Some(u32::MAX),
            live: false,
        };
        self.enter(then_block, &full, before.exact, before.divergent);
        self.state.m.name = self.constant(-1);
        let inner = Context {
            depth: context.depth - 1,
            ..context
        };
        let flow = self.statements(inner);
        if flow.falls {
            let args = self.state.args();
            self.terminate(Term::Br(join, args));
        }
        let merging = !flow.returns && !flow.breaks;
        if merging {
            self.enter(join, &before.m, before.exact, before.divergent);
            self.state.m = before.m.clone();
        } else {
            // The partial warp arrives from the branch, full warps from the
            // body (each warp takes one way): the argument is right.
            let exact = !flow.falls && before.exact;
            let facts = Mask {
                name: String::new(),
                constant: None,
                live: false,
            };
            self.enter(join, &facts, exact, before.divergent);
        }
        Flow {
            falls: true,
            returns: flow.returns,
            breaks: flow.breaks,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arm {
    Plain,
    Return,
    Break,
}

// --- Rendering ---------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Gpu,
    Llvm { intrinsic_tid: bool },
}

/// The intrinsics the LLVM rendering calls, with their declarations.
const DECLARATIONS: [(&str, &str); 11] = [
    ("llvm.nvvm.vote.ballot.sync", "(i32, i1) -> i32"),
    ("llvm.nvvm.vote.any.sync", "(i32, i1) -> i1"),
    ("llvm.nvvm.vote.all.sync", "(i32, i1) -> i1"),
    ("llvm.nvvm.shfl.sync.up.i32", "(i32, i32, i32, i32) -> i32"),
    (
        "llvm.nvvm.shfl.sync.down.i32",
        "(i32, i32, i32, i32) -> i32",
    ),
    (
        "llvm.nvvm.shfl.sync.bfly.i32",
        "(i32, i32, i32, i32) -> i32",
    ),
    ("llvm.nvvm.shfl.sync.idx.i32", "(i32, i32, i32, i32) -> i32"),
    ("llvm.nvvm.bar.warp.sync", "(i32)"),
    ("llvm.nvvm.redux.sync.add", "(i32, i32) -> i32"),
    ("llvm.nvvm.match.any.sync.i32", "(i32, i32) -> i32"),
    ("llvm.nvvm.activemask", "() -> i32"),
];

fn ty(ty: Ty) -> &'static str {
    match ty {
        Ty::I1 => "i1",
        Ty::I32 => "i32",
    }
}

fn render_inst(inst: &Inst, form: Form, lines: &mut Vec<String>) {
    let gpu = form == Form::Gpu;
    let call = |name: &str, args: &str, signature: &str| {
        format!("llvm.call_intrinsic \"{name}\"({args}) : {signature}")
    };
    let line = match inst {
        Inst::Const { r, value, ty: t } => {
            let value = if *t == Ty::I1 {
                (if *value != 0 { "true" } else { "false" }).to_string()
            } else {
                value.to_string()
            };
            match (gpu, t) {
                (true, Ty::I1) => format!("{r} = arith.constant {value}"),
                (true, Ty::I32) => format!("{r} = arith.constant {value} : i32"),
                (false, Ty::I1) => format!("{r} = llvm.mlir.constant({value}) : i1"),
                (false, Ty::I32) => format!("{r} = llvm.mlir.constant({value} : i32) : i32"),
            }
        }
        Inst::Bin { r, op, a, b, ty: t } => {
            let name = if gpu { op.arith() } else { op.llvm() };
            format!("{r} = {name} {a}, {b} : {}", ty(*t))
        }
        Inst::Cmp { r, pred, a, b } => {
            if gpu {
                format!("{r} = arith.cmpi {pred}, {a}, {b} : i32")
            } else {
                format!("{r} = llvm.icmp \"{pred}\" {a}, {b} : i32")
            }
        }
        Inst::Select { r, c, a, b } => {
            if gpu {
                format!("{r} = arith.select {c}, {a}, {b} : i32")
            } else {
                format!("{r} = llvm.select {c}, {a}, {b} : i1, i32")
            }
        }
        Inst::Zext { r, a } => {
            if gpu {
                format!("{r} = arith.extui {a} : i1 to i32")
            } else {
                format!("{r} = llvm.zext {a} : i1 to i32")
            }
        }
        Inst::Store { id, value, index } => {
            if gpu {
                lines.push(format!("%ix{id} = arith.index_cast {index} : i32 to index"));
                format!("memref.store {value}, %out[%ix{id}] : memref<?xi32>")
            } else {
                lines.push(format!("%ix{id} = llvm.sext {index} : i32 to i64"));
                lines.push(format!(
                    "%p{id} = llvm.getelementptr inbounds %out[%ix{id}] : (!llvm.ptr, i64) -> !llvm.ptr, i32"
                ));
                format!("llvm.store {value}, %p{id} {{alignment = 4 : i64}} : i32, !llvm.ptr")
            }
        }
        Inst::Ballot { r, mask, pred } => {
            if gpu {
                format!("{r} = nvvm.vote.sync ballot {mask}, {pred} -> i32")
            } else {
                format!(
                    "{r} = {}",
                    call(
                        "llvm.nvvm.vote.ballot.sync",
                        &format!("{mask}, {pred}"),
                        "(i32, i1) -> i32"
                    )
                )
            }
        }
        Inst::Vote { r, any, mask, pred } => {
            let kind = if *any { "any" } else { "all" };
            if gpu {
                format!("{r} = nvvm.vote.sync {kind} {mask}, {pred} -> i1")
            } else {
                format!(
                    "{r} = {}",
                    call(
                        &format!("llvm.nvvm.vote.{kind}.sync"),
                        &format!("{mask}, {pred}"),
                        "(i32, i1) -> i1"
                    )
                )
            }
        }
        Inst::Shuffle {
            r,
            kind,
            mask,
            value,
            offset,
            c,
        } => {
            let kind = kind.name();
            if gpu {
                format!("{r} = nvvm.shfl.sync {kind} {mask}, {value}, {offset}, {c} : i32 -> i32")
            } else {
                format!(
                    "{r} = {}",
                    call(
                        &format!("llvm.nvvm.shfl.sync.{kind}.i32"),
                        &format!("{mask}, {value}, {offset}, {c}"),
                        "(i32, i32, i32, i32) -> i32"
                    )
                )
            }
        }
        Inst::WarpSync { mask } => {
            if gpu {
                format!("nvvm.bar.warp.sync {mask} : i32")
            } else {
                call("llvm.nvvm.bar.warp.sync", mask, "(i32) -> ()")
            }
        }
        Inst::Redux { r, value, mask } => {
            if gpu {
                format!("{r} = nvvm.redux.sync add {value}, {mask} : i32 -> i32")
            } else {
                format!(
                    "{r} = {}",
                    call(
                        "llvm.nvvm.redux.sync.add",
                        &format!("{value}, {mask}"),
                        "(i32, i32) -> i32"
                    )
                )
            }
        }
        Inst::Match { r, mask, value } => {
            if gpu {
                format!("{r} = nvvm.match.sync any {mask}, {value} : i32 -> i32")
            } else {
                format!(
                    "{r} = {}",
                    call(
                        "llvm.nvvm.match.any.sync.i32",
                        &format!("{mask}, {value}"),
                        "(i32, i32) -> i32"
                    )
                )
            }
        }
        Inst::ActiveMask { r } => {
            format!("{r} = {}", call("llvm.nvvm.activemask", "", "() -> i32"))
        }
    };
    lines.push(line);
}

fn render_edge(target: usize, args: &[String]) -> String {
    let types = vec!["i32"; args.len()].join(", ");
    format!("^bb{target}({} : {types})", args.join(", "))
}

fn render(blocks: &[Block], form: Form, slots: u32) -> String {
    let gpu = form == Form::Gpu;
    let mut lines: Vec<String> = Vec::new();
    if gpu {
        lines.push("module attributes {gpu.container_module} {".into());
        lines.push("  gpu.module @kernels {".into());
        lines.push(
            "  gpu.func @kernel(%out: memref<?xi32>, %n: i32, %ret: memref<?xi32>) kernel {".into(),
        );
    } else {
        lines.push("module attributes {llvm.target_triple = \"nvptx64-nvidia-cuda\"} {".into());
        lines.push("  llvm.func ptx_kernelcc @kernel(%out: !llvm.ptr {llvm.noundef}, %n: i32 {llvm.noundef}, %ret: !llvm.ptr {llvm.noundef}) attributes {convergent} {".into());
    }
    for (index, block) in blocks.iter().enumerate() {
        let mut body = Vec::new();
        if index == 0 {
            prologue(form, slots, &mut body);
        } else {
            let mut header = format!("  ^bb{index}(%v{index}: i32, %w{index}: i32, %m{index}: i32");
            for counter in 0..COUNTERS {
                write!(header, ", %c{index}_{counter}: i32").expect("writing to a String");
            }
            header.push_str("):");
            lines.push(header);
        }
        for inst in &block.insts {
            render_inst(inst, form, &mut body);
        }
        match block.term.as_ref().expect("every block is terminated") {
            Term::Br(target, args) => {
                let dialect = if gpu { "cf" } else { "llvm" };
                body.push(format!("{dialect}.br {}", render_edge(*target, args)));
            }
            Term::CondBr(condition, t, t_args, f, f_args) => {
                let dialect = if gpu { "cf" } else { "llvm" };
                body.push(format!(
                    "{dialect}.cond_br {condition}, {}, {}",
                    render_edge(*t, t_args),
                    render_edge(*f, f_args)
                ));
            }
            Term::Return(value) => {
                if gpu {
                    body.push(format!(
                        "memref.store {value}, %ret[%tid_index] : memref<?xi32>"
                    ));
                    body.push("gpu.return".into());
                } else {
                    body.push(format!(
                        "%ret_p{index} = llvm.getelementptr inbounds %ret[%tid_wide] : (!llvm.ptr, i64) -> !llvm.ptr, i32"
                    ));
                    body.push(format!(
                        "llvm.store {value}, %ret_p{index} {{alignment = 4 : i64}} : i32, !llvm.ptr"
                    ));
                    body.push("llvm.return".into());
                }
            }
        }
        lines.extend(body.into_iter().map(|line| format!("    {line}")));
    }
    lines.push("  }".into());
    if gpu {
        lines.push("  }".into());
    } else {
        if let Form::Llvm {
            intrinsic_tid: true,
        } = form
        {
            lines.push(
                "  llvm.func @llvm.nvvm.read.ptx.sreg.tid.x() -> i32 attributes {no_unwind}".into(),
            );
        }
        for (name, signature) in DECLARATIONS {
            let (params, result) = signature
                .split_once(" -> ")
                .map_or((signature, None), |(p, r)| (p, Some(r)));
            let result = result.map(|r| format!(" -> {r}")).unwrap_or_default();
            lines.push(format!(
                "  llvm.func @{name}{params}{result} attributes {{convergent, no_unwind}}"
            ));
        }
    }
    lines.push("}".into());
    lines.join("\n") + "\n"
}

/// The entry block's common values: `%tid`, `%ntid`, `%lane`, `%lanes`
/// (lanes in this warp), `%live` (their mask), `%base = tid * K`.
fn prologue(form: Form, slots: u32, lines: &mut Vec<String>) {
    match form {
        Form::Gpu => {
            lines.push("%tid_index = gpu.thread_id x".into());
            lines.push("%tid = arith.index_cast %tid_index : index to i32".into());
            lines.push("%ntid_index = gpu.block_dim x".into());
            lines.push("%ntid = arith.index_cast %ntid_index : index to i32".into());
        }
        Form::Llvm { intrinsic_tid } => {
            lines.push(if intrinsic_tid {
                "%tid = llvm.call_intrinsic \"llvm.nvvm.read.ptx.sreg.tid.x\"() : () -> i32".into()
            } else {
                "%tid = nvvm.read.ptx.sreg.tid.x : i32".into()
            });
            lines.push("%ntid = nvvm.read.ptx.sreg.ntid.x : i32".into());
            lines.push("%tid_wide = llvm.zext %tid : i32 to i64".into());
        }
    }
    let constant = |r: &str, value: i64, t: Ty| Inst::Const {
        r: r.into(),
        value,
        ty: t,
    };
    let bin = |r: &str, op: BinOp, a: &str, b: &str| Inst::Bin {
        r: r.into(),
        op,
        a: a.into(),
        b: b.into(),
        ty: Ty::I32,
    };
    let insts = [
        constant("%zero", 0, Ty::I32),
        constant("%true", 1, Ty::I1),
        constant("%c31", 31, Ty::I32),
        constant("%c32", 32, Ty::I32),
        constant("%cm32", -32, Ty::I32),
        constant("%all", -1, Ty::I32),
        bin("%lane", BinOp::And, "%tid", "%c31"),
        bin("%warp_base", BinOp::And, "%tid", "%cm32"),
        bin("%rest", BinOp::Sub, "%ntid", "%warp_base"),
        Inst::Cmp {
            r: "%partial".into(),
            pred: "ult",
            a: "%rest".into(),
            b: "%c32".into(),
        },
        Inst::Select {
            r: "%lanes".into(),
            c: "%partial".into(),
            a: "%rest".into(),
            b: "%c32".into(),
        },
        bin("%shift", BinOp::Sub, "%c32", "%lanes"),
        bin("%live", BinOp::LShr, "%all", "%shift"),
    ];
    for inst in &insts {
        render_inst(inst, form, lines);
    }
    render_inst(
        &constant("%k_slots", i64::from(slots), Ty::I32),
        form,
        lines,
    );
    render_inst(&bin("%base", BinOp::Mul, "%tid", "%k_slots"), form, lines);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_has_collectives_in_divergent_code() {
        let shape = CollectiveShape::default();
        let mut divergent = 0;
        for seed in 0..50 {
            let kernel = RandomCollectiveKernel::build(seed, &shape);
            let again = RandomCollectiveKernel::build(seed, &shape);
            assert_eq!(kernel.gpu_text, again.gpu_text);
            assert_eq!(kernel.llvm_text, again.llvm_text);
            assert!(kernel.num_collectives > 0);
            divergent += kernel.num_divergent_collectives;
        }
        assert!(divergent > 50);
    }
}
