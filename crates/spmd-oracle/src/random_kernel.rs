//! Random thread-level kernels with divergent, possibly irreducible,
//! control flow that always terminate.
//!
//! [`RandomKernel::build`] draws a kernel from a seeded xorshift generator
//! (std only) following a [`KernelShape`], and renders it four times:
//!
//! * [`RandomKernel::text`]: a module with
//!   `func.func @kernel(%out: memref<?xi32> {spmd.uniform}, %n: i32 {spmd.uniform}, %tid: i32 {spmd.divergent}) -> i32`,
//!   where the thread id is an explicit argument, so the kernel runs on the
//!   executor without a GPU context;
//! * [`RandomKernel::gpu_text`]: the same body in
//!   `gpu.module @kernels { gpu.func @kernel(%out, %n, %ret) kernel }`,
//!   where `%tid` comes from `gpu.thread_id x` and each return stores the
//!   value to `%ret[tid]` and ends with `gpu.return`;
//! * [`RandomKernel::llvm_text`]: the same body in the LLVM dialect, in the
//!   form `mlir-translate --import-llvm` gives clang's CUDA output:
//!   `llvm.func ptx_kernelcc @kernel(%out: !llvm.ptr, %n: i32, %ret: !llvm.ptr)`,
//!   `%tid` from `nvvm.read.ptx.sreg.tid.x` (for odd seeds from
//!   `llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"`), `llvm.*`
//!   arithmetic (`llvm.intr.smax` and friends for `arith.maxsi` ...),
//!   stores through `llvm.getelementptr inbounds`, `llvm.br`,
//!   `llvm.cond_br` and `llvm.switch`, each return storing to `%ret[tid]`.
//!   For one seed in three the kernel first casts its pointers to the
//!   global address space (`llvm.addrspacecast` to `!llvm.ptr<1>`) and
//!   accesses memory through those, as NVPTX's argument lowering does.
//!
//! * [`RandomKernel::amdgpu_llvm_text`]: the same LLVM-dialect body in the
//!   form the import gives HIP's output for AMDGPU:
//!   `llvm.func amdgpu_kernelcc @kernel(%out: !llvm.ptr<1>, %n: i32, %ret: !llvm.ptr<1>) attributes {rocdl.kernel}`,
//!   `%tid` from `llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"` (for
//!   odd seeds with the result attributes `noundef` and `range` that
//!   clang's call carries, and the intrinsic's declaration), stores
//!   through `!llvm.ptr<1>` pointers.
//!
//! All four have the same blocks, values and branches, so the thread-level
//! executor gives the same results for each.
//!
//! Threads write only `%out[tid * K + slot]` (K = [`KernelShape::slots`]),
//! so `%out` needs `num_threads * K` elements and threads never race.
//!
//! ## Grammar
//!
//! ```text
//! kernel    := entry block^(N-1)                  N = num_blocks in 2..=40
//! entry     := consts  base  step  op*  store*  terminator     (unlabelled; %tid is an argument)
//! block_i   := ^bb_i(%f_i: i32, %a_i: i32, %m_i: i32): step  op*  store*  terminator
//! consts    := %zero, %one, %c31 = arith.constant ; %f0 = fuel ; %a0 = 17
//! base      := %base = arith.muli %tid, K
//! step      := %fl_i = arith.subi %f_i, %one            (fuel left)
//!              %alive_i = arith.cmpi sgt, %fl_i, %zero
//!              %acc_i = arith.addi (arith.muli %a_i, %c31), i+1   (path hash)
//! op        := binary(x, y) | binary(x, const) | divui/remui(x, y | 1)
//!            | select(cmpi(x, y), x, y) | extsi(trunci(x to i8))
//! store     := memref.store (%acc_i | x), %out[index_cast(%base + slot)]   (path hash half the time)
//! terminator:= return xor(%acc_i, x)                              (exit blocks)
//!            | cf.br ^s(args)                                       (1 successor)
//!            | cf.cond_br select(%alive_i, cond, toward_exit), ^s(args), ^t(args)
//!            | cf.switch select(%alive_i, remui(x, k+1), exit_case) : i32,
//!                  [default: ^s(args), 0: ^t(args), ..., k-1: ^u(args)]
//! args      := (%fl_i, %acc_i, x)   -- x differs per edge: joins merge values
//! cond      := cmpi pred, x, const | cmpi eq, andi(x, 2^r), 0 | cmpi slt, %fl_i, andi(x, 7)
//! x         := a value available at that point: a function argument, a
//!              value of a dominating block, a block argument, an earlier op
//! ```
//!
//! Values carry a *uniformity*: derived only from `%n` and constants
//! (uniform), from the path (fuel, path hash, merged block arguments), or
//! from `%tid` (divergent). A condition is divergent with probability
//! [`KernelShape::divergent_probability`]; a uniform condition uses only
//! uniform values (or path values when the whole kernel is uniform, since
//! then every thread follows the same path).
//!
//! ## CFG
//!
//! Each block `i > 0` gets a tree edge from an earlier block (70% of the
//! time one of the three closest, for long paths), so every block is
//! reachable. Blocks without successors become exits (with
//! [`KernelShape::multiple_exits`], half of them; the last block always is)
//! or get a forward edge. Then each non-exit block gets up to three extra
//! edges, each with probability [`KernelShape::edge_density`]; an extra edge
//! is a back edge (to a block `1..=i`) with probability
//! [`KernelShape::back_edge_probability`], otherwise a forward edge (to a
//! later block, again 70% of the time one of the next three). Without
//! [`KernelShape::allow_irreducible`], back edges only go to dominators of
//! their source, so every cycle is a natural loop; with it, targets that
//! reach the source without dominating it are preferred, which closes
//! irreducible cycles ([`RandomKernel::has_irreducible_cycle`]).
//! Duplicate successors (`cf.cond_br %c, ^a(..), ^a(..)`) are allowed.
//! Terminators with two successors are `cf.cond_br` (or, with
//! [`KernelShape::switch_probability`], `cf.switch`); three or more are
//! always `cf.switch`.
//!
//! ## Termination
//!
//! The fuel `%f` is threaded through every block and decremented in each.
//! The generator computes every block's distance to an exit (every block has
//! a forward path to one). Once the fuel is `<= 0`, each branch condition
//! (or switch flag) is replaced by a constant selecting a successor one step
//! closer to an exit, so every thread returns after at most
//! `fuel + distance` blocks, for every input.

use super::memory::{MemRefId, Pointer};
use super::value::Value;
use spmd::graph::Graph;
use spmd::testing::long_range::{long_range_function, LongRangeShape, Signature};
use std::fmt::Write as _;

/// Parameters of the random kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelShape {
    /// Number of blocks, clamped to 2..=40.
    pub num_blocks: usize,
    /// Probability of each of up to three extra successors per block.
    pub edge_density: f64,
    /// Probability that an extra successor is a back edge.
    pub back_edge_probability: f64,
    /// Whether back edges may target non-dominators (irreducible cycles).
    pub allow_irreducible: bool,
    /// Whether blocks other than the last may return.
    pub multiple_exits: bool,
    /// Probability that a two-way branch is a `cf.switch`.
    pub switch_probability: f64,
    /// Probability that a branch condition depends on `%tid`.
    pub divergent_probability: f64,
    /// Maximum number of random arithmetic operations per block.
    pub max_ops_per_block: usize,
    /// Probability of each of up to two stores per block.
    pub store_probability: f64,
    /// Output slots per thread (K).
    pub slots: u32,
    /// Initial fuel (blocks before branches are forced toward exits).
    pub initial_fuel: i32,
}

impl Default for KernelShape {
    fn default() -> Self {
        Self {
            num_blocks: 12,
            edge_density: 0.5,
            back_edge_probability: 0.3,
            allow_irreducible: false,
            multiple_exits: false,
            switch_probability: 0.15,
            divergent_probability: 0.6,
            max_ops_per_block: 3,
            store_probability: 0.5,
            slots: 4,
            initial_fuel: 24,
        }
    }
}

impl KernelShape {
    /// Reducible loops, divergent and uniform conditions, one exit.
    pub fn reducible(num_blocks: usize) -> Self {
        Self {
            num_blocks,
            ..Self::default()
        }
    }

    /// Only uniform conditions: every thread follows the same path.
    pub fn uniform(num_blocks: usize) -> Self {
        Self {
            num_blocks,
            divergent_probability: 0.0,
            ..Self::default()
        }
    }

    /// Back edges to arbitrary earlier blocks: irreducible cycles.
    pub fn irreducible(num_blocks: usize) -> Self {
        Self {
            num_blocks,
            allow_irreducible: true,
            back_edge_probability: 0.4,
            ..Self::default()
        }
    }

    /// Several returns and many switches.
    pub fn multi_exit_switch(num_blocks: usize) -> Self {
        Self {
            num_blocks,
            multiple_exits: true,
            switch_probability: 0.6,
            edge_density: 0.6,
            allow_irreducible: true,
            ..Self::default()
        }
    }

    /// The named shape classes, each with `num_blocks` blocks.
    pub fn classes(num_blocks: usize) -> [(&'static str, Self); 4] {
        [
            ("reducible", Self::reducible(num_blocks)),
            ("uniform", Self::uniform(num_blocks)),
            ("irreducible", Self::irreducible(num_blocks)),
            ("multi_exit_switch", Self::multi_exit_switch(num_blocks)),
        ]
    }
}

/// A generated kernel and what the harness needs to know about it.
#[derive(Clone, Debug)]
pub struct RandomKernel {
    /// The seed it was generated from.
    pub seed: u64,
    /// The `func.func @kernel` module.
    pub text: String,
    /// The `gpu.module @kernels { gpu.func @kernel }` module.
    pub gpu_text: String,
    /// The LLVM-dialect module: `llvm.func ptx_kernelcc @kernel(%out, %n,
    /// %ret)` with `!llvm.ptr` arguments, as `mlir-translate --import-llvm`
    /// gives clang's CUDA output.
    pub llvm_text: String,
    /// The AMDGPU LLVM-dialect module: `llvm.func amdgpu_kernelcc
    /// @kernel(%out, %n, %ret) attributes {rocdl.kernel}` with
    /// `!llvm.ptr<1>` arguments, as `mlir-translate --import-llvm` gives
    /// HIP's output (same arguments as [`RandomKernel::llvm_arguments`]).
    pub amdgpu_llvm_text: String,
    /// Lines (0-based) of [`RandomKernel::text`] holding a `cf.cond_br` on a
    /// divergent condition.
    pub divergent_branch_lines: Vec<usize>,
    /// Number of blocks.
    pub num_blocks: usize,
    /// Number of returning blocks.
    pub num_exits: usize,
    /// Whether some back edge closes a cycle with two entries (an
    /// irreducible cycle).
    pub has_irreducible_cycle: bool,
    /// Output slots per thread.
    pub slots: u32,
}

impl RandomKernel {
    /// The `func.func` module text of the kernel for `seed`.
    pub fn generate(seed: u64, shape: &KernelShape) -> String {
        Self::build(seed, shape).text
    }

    /// Generates the kernel for `seed` with both renderings.
    pub fn build(seed: u64, shape: &KernelShape) -> Self {
        let mut rng = XorShift::new(seed);
        let cfg = Cfg::random(&mut rng, shape);
        let blocks = BodyGenerator::new(&mut rng, shape, &cfg).generate();
        let (text, divergent_branch_lines) = render_func(&blocks);
        let gpu_text = render_gpu(&blocks);
        let llvm_text = render_llvm(&blocks, LlvmForm::of_seed(seed));
        let amdgpu_llvm_text = render_amdgpu(&blocks, seed % 2 == 1);
        Self {
            seed,
            text,
            gpu_text,
            llvm_text,
            amdgpu_llvm_text,
            divergent_branch_lines,
            num_blocks: cfg.succs.len(),
            num_exits: cfg.exit.iter().filter(|&&exit| exit).count(),
            has_irreducible_cycle: cfg.has_irreducible_cycle,
            slots: shape.slots,
        }
    }

    /// Elements `%out` needs for `num_threads` threads.
    pub fn out_len(&self, num_threads: u32) -> u64 {
        u64::from(num_threads) * u64::from(self.slots)
    }

    /// The arguments of `@kernel` in [`RandomKernel::text`] for one thread.
    pub fn arguments(out: MemRefId, n: i32, tid: u32) -> Vec<Value> {
        vec![Value::MemRef(out), Value::i32(n), Value::i32(tid as i32)]
    }

    /// The arguments of `@kernel` in [`RandomKernel::llvm_text`]: pointers
    /// to the first elements of `%out` and `%ret`.
    pub fn llvm_arguments(out: Pointer, n: i32, ret: Pointer) -> Vec<Value> {
        vec![Value::Ptr(out), Value::i32(n), Value::Ptr(ret)]
    }

    /// The arguments of `@kernel` in [`RandomKernel::gpu_text`].
    pub fn gpu_arguments(out: MemRefId, n: i32, ret: MemRefId) -> Vec<Value> {
        vec![Value::MemRef(out), Value::i32(n), Value::MemRef(ret)]
    }
}

/// xorshift64* seeded through splitmix64 (so every seed, 0 included, works).
pub(crate) struct XorShift(u64);

impl XorShift {
    pub(crate) fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Self((z ^ (z >> 31)) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..bound` (`bound > 0`).
    pub(crate) fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    /// Uniform in `low..high` (`low < high`).
    pub(crate) fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low)
    }

    pub(crate) fn chance(&mut self, probability: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < probability
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The generated control-flow graph.
struct Cfg {
    succs: Vec<Vec<usize>>,
    exit: Vec<bool>,
    /// Shortest number of edges to an exit.
    distance: Vec<u32>,
    /// Dominator sets as bit masks (bit j of `dominators[i]`: j dom i).
    dominators: Vec<u64>,
    has_irreducible_cycle: bool,
}

impl Cfg {
    fn random(rng: &mut XorShift, shape: &KernelShape) -> Self {
        let n = shape.num_blocks.clamp(2, 40);
        let mut succs = vec![Vec::new(); n];
        for block in 1..n {
            let parent = near_earlier(rng, block);
            succs[parent].push(block);
        }
        let mut exit = vec![false; n];
        exit[n - 1] = true;
        for block in 0..n - 1 {
            if succs[block].is_empty() {
                if shape.multiple_exits && rng.chance(0.5) {
                    exit[block] = true;
                } else {
                    let target = near_later(rng, block, n);
                    succs[block].push(target);
                }
            }
        }
        let back_edges = add_forward_extras(rng, shape, &mut succs, &exit);
        let forward_dominators = dominators(&succs);
        let has_irreducible_cycle =
            add_back_edges(rng, shape, &mut succs, &back_edges, &forward_dominators);
        for list in &mut succs {
            shuffle(rng, list);
        }
        let distance = exit_distances(&succs, &exit);
        let dominators = dominators(&succs);
        Self {
            succs,
            exit,
            distance,
            dominators,
            has_irreducible_cycle,
        }
    }

    fn dominates(&self, dominator: usize, block: usize) -> bool {
        self.dominators[block] & (1u64 << dominator) != 0
    }
}

/// Adds the forward extra edges; returns the sources of the planned back
/// edges (added once dominators are known).
fn add_forward_extras(
    rng: &mut XorShift,
    shape: &KernelShape,
    succs: &mut [Vec<usize>],
    exit: &[bool],
) -> Vec<usize> {
    let n = succs.len();
    let mut back_edges = Vec::new();
    for block in 0..n {
        if exit[block] {
            continue;
        }
        for _ in 0..3 {
            if !rng.chance(shape.edge_density) {
                break;
            }
            if rng.chance(shape.back_edge_probability) {
                back_edges.push(block);
            } else if block + 1 < n {
                let target = near_later(rng, block, n);
                succs[block].push(target);
            }
        }
    }
    back_edges
}

/// Adds back edges from each source in `sources`; returns whether one of
/// them closes an irreducible cycle.
///
/// A back edge `i -> j` to a dominator `j` of `i` closes a natural loop and
/// does not change dominance, so `dominators` (of the forward graph) stays
/// valid for the next ones. An irreducible cycle needs a target `j` that
/// reaches `i` but does not dominate it: the cycle through the new edge is
/// then entered both at `j` and, along a path to `i` avoiding `j`, at
/// another block.
fn add_back_edges(
    rng: &mut XorShift,
    shape: &KernelShape,
    succs: &mut [Vec<usize>],
    sources: &[usize],
    dominators: &[u64],
) -> bool {
    let reaches = forward_reachability(succs);
    let mut irreducible = false;
    for &source in sources {
        let dominating: Vec<usize> = (1..=source)
            .filter(|&target| dominators[source] & (1u64 << target) != 0)
            .collect();
        let entering_elsewhere: Vec<usize> = (1..=source)
            .filter(|&target| dominators[source] & (1u64 << target) == 0)
            .filter(|&target| reaches[target] & (1u64 << source) != 0)
            .collect();
        let target = if shape.allow_irreducible && !entering_elsewhere.is_empty() && rng.chance(0.7)
        {
            irreducible = true;
            *rng.pick(&entering_elsewhere)
        } else if !dominating.is_empty() {
            *rng.pick(&dominating)
        } else {
            continue;
        };
        succs[source].push(target);
    }
    irreducible
}

/// Blocks reachable from each block (itself included) when every edge goes
/// forward in block order, as before back edges are added.
fn forward_reachability(succs: &[Vec<usize>]) -> Vec<u64> {
    let mut reaches = vec![0u64; succs.len()];
    for block in (0..succs.len()).rev() {
        reaches[block] = succs[block]
            .iter()
            .fold(1u64 << block, |acc, &succ| acc | reaches[succ]);
    }
    reaches
}

/// A block before `block`, usually one of the three closest (long chains
/// make long paths).
fn near_earlier(rng: &mut XorShift, block: usize) -> usize {
    if rng.chance(0.7) {
        block - 1 - rng.below(block.min(3))
    } else {
        rng.below(block)
    }
}

/// A block after `block` (`block + 1 < n`), usually one of the three
/// closest.
fn near_later(rng: &mut XorShift, block: usize, n: usize) -> usize {
    if rng.chance(0.7) {
        block + 1 + rng.below((n - block - 1).min(3))
    } else {
        rng.range(block + 1, n)
    }
}

fn shuffle<T>(rng: &mut XorShift, items: &mut [T]) {
    for index in (1..items.len()).rev() {
        items.swap(index, rng.below(index + 1));
    }
}

/// Iterative dominator sets over bit masks (at most 64 blocks).
fn dominators(succs: &[Vec<usize>]) -> Vec<u64> {
    let n = succs.len();
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut preds = vec![Vec::new(); n];
    for (block, list) in succs.iter().enumerate() {
        for &succ in list {
            preds[succ].push(block);
        }
    }
    let mut doms = vec![all; n];
    doms[0] = 1;
    let mut changed = true;
    while changed {
        changed = false;
        for block in 1..n {
            let meet = preds[block].iter().fold(all, |acc, &pred| acc & doms[pred]);
            let new = meet | (1u64 << block);
            if new != doms[block] {
                doms[block] = new;
                changed = true;
            }
        }
    }
    doms
}

/// Breadth-first distances to the nearest exit along successor edges.
fn exit_distances(succs: &[Vec<usize>], exit: &[bool]) -> Vec<u32> {
    let n = succs.len();
    let mut preds = vec![Vec::new(); n];
    for (block, list) in succs.iter().enumerate() {
        for &succ in list {
            preds[succ].push(block);
        }
    }
    let mut distance = vec![u32::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    for block in (0..n).filter(|&block| exit[block]) {
        distance[block] = 0;
        queue.push_back(block);
    }
    while let Some(block) = queue.pop_front() {
        for &pred in &preds[block] {
            if distance[pred] == u32::MAX {
                distance[pred] = distance[block] + 1;
                queue.push_back(pred);
            }
        }
    }
    distance
}

/// The two-operand integer operations of `op`.
const BINARY_OPS: [&str; 10] = [
    "addi", "subi", "muli", "xori", "andi", "ori", "maxsi", "minsi", "maxui", "minui",
];

/// Where a value comes from, for choosing branch conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Uniformity {
    /// From `%n` and constants only.
    Uniform,
    /// From the path: fuel, path hash, merged block arguments.
    Path,
    /// From `%tid`.
    Divergent,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    uniformity: Uniformity,
}

/// One generated block, before rendering: its number, body and end.
struct BlockCode {
    index: usize,
    lines: Vec<Line>,
    end: BlockEnd,
}

/// An operation of a block body, on `i32` values unless stated otherwise.
/// Each rendering spells it in its dialects ([`Line::standard`] for
/// `arith`/`memref`, [`Line::llvm`] for the LLVM dialect).
enum Line {
    /// `%result = constant`.
    Constant { result: String, value: i64 },
    /// An `i1` constant.
    Flag { result: String, value: bool },
    /// `%result = op %lhs, %rhs`, `op` an `arith` mnemonic of
    /// [`BINARY_OPS`] or a shift, division or remainder.
    Binary {
        result: String,
        op: &'static str,
        lhs: String,
        rhs: String,
    },
    /// `%result = cmpi predicate, %lhs, %rhs`.
    Compare {
        result: String,
        predicate: &'static str,
        lhs: String,
        rhs: String,
    },
    /// `%result = select %condition, %on_true, %on_false` of `i32` or, with
    /// `flag`, `i1` values.
    Select {
        result: String,
        condition: String,
        on_true: String,
        on_false: String,
        flag: bool,
    },
    /// `%result = trunc %value to i8`.
    TruncToI8 { result: String, value: String },
    /// `%result = sext %value from i8`.
    ExtendFromI8 { result: String, value: String },
    /// `%out[%offset] = %value`, through the index (or 64-bit offset)
    /// `%index`.
    Store {
        value: String,
        offset: String,
        index: String,
    },
}

impl Line {
    /// The `arith`/`memref` spelling.
    fn standard(&self) -> Vec<String> {
        match self {
            Self::Constant { result, value } => {
                vec![format!("{result} = arith.constant {value} : i32")]
            }
            Self::Flag { result, value } => vec![format!("{result} = arith.constant {value}")],
            Self::Binary {
                result,
                op,
                lhs,
                rhs,
            } => vec![format!("{result} = arith.{op} {lhs}, {rhs} : i32")],
            Self::Compare {
                result,
                predicate,
                lhs,
                rhs,
            } => {
                vec![format!(
                    "{result} = arith.cmpi {predicate}, {lhs}, {rhs} : i32"
                )]
            }
            Self::Select {
                result,
                condition,
                on_true,
                on_false,
                flag,
            } => vec![format!(
                "{result} = arith.select {condition}, {on_true}, {on_false} : {}",
                if *flag { "i1" } else { "i32" }
            )],
            Self::TruncToI8 { result, value } => {
                vec![format!("{result} = arith.trunci {value} : i32 to i8")]
            }
            Self::ExtendFromI8 { result, value } => {
                vec![format!("{result} = arith.extsi {value} : i8 to i32")]
            }
            Self::Store {
                value,
                offset,
                index,
            } => vec![
                format!("{index} = arith.index_cast {offset} : i32 to index"),
                format!("memref.store {value}, %out[{index}] : memref<?xi32>"),
            ],
        }
    }

    /// The LLVM-dialect spelling, as `mlir-translate --import-llvm` prints
    /// clang's output; `%out` is a pointer of address space `space`.
    fn llvm(&self, space: &str, out: &str) -> Vec<String> {
        match self {
            Self::Constant { result, value } => vec![format!("{result} = llvm.mlir.constant({value} : i32) : i32")],
            Self::Flag { result, value } => vec![format!("{result} = llvm.mlir.constant({value}) : i1")],
            Self::Binary { result, op, lhs, rhs } => vec![match llvm_binary(op) {
                LlvmBinary::Op(name) => format!("{result} = llvm.{name} {lhs}, {rhs} : i32"),
                LlvmBinary::Intrinsic(name) => {
                    format!("{result} = llvm.intr.{name}({lhs}, {rhs}) : (i32, i32) -> i32")
                }
            }],
            Self::Compare { result, predicate, lhs, rhs } => {
                vec![format!("{result} = llvm.icmp \"{predicate}\" {lhs}, {rhs} : i32")]
            }
            Self::Select { result, condition, on_true, on_false, flag } => vec![format!(
                "{result} = llvm.select {condition}, {on_true}, {on_false} : i1, {}",
                if *flag { "i1" } else { "i32" }
            )],
            Self::TruncToI8 { result, value } => vec![format!("{result} = llvm.trunc {value} : i32 to i8")],
            Self::ExtendFromI8 { result, value } => vec![format!("{result} = llvm.sext {value} : i8 to i32")],
            Self::Store { value, offset, index } => vec![
                format!("{index} = llvm.sext {offset} : i32 to i64"),
                format!(
                    "{index}_p = llvm.getelementptr inbounds {out}[{index}] : ({space}, i64) -> {space}, i32"
                ),
                format!("llvm.store {value}, {index}_p {{alignment = 4 : i64}} : i32, {space}"),
            ],
        }
    }
}

/// How the LLVM dialect spells an `arith` binary operation.
enum LlvmBinary {
    Op(&'static str),
    Intrinsic(&'static str),
}

fn llvm_binary(op: &str) -> LlvmBinary {
    use LlvmBinary::*;
    match op {
        "addi" => Op("add"),
        "subi" => Op("sub"),
        "muli" => Op("mul"),
        "xori" => Op("xor"),
        "andi" => Op("and"),
        "ori" => Op("or"),
        "divui" => Op("udiv"),
        "remui" => Op("urem"),
        "shli" => Op("shl"),
        "shrui" => Op("lshr"),
        "shrsi" => Op("ashr"),
        "maxsi" => Intrinsic("smax"),
        "minsi" => Intrinsic("smin"),
        "maxui" => Intrinsic("umax"),
        "minui" => Intrinsic("umin"),
        other => unreachable!("the generator does not emit arith.{other}"),
    }
}

/// A successor with its operands `(%fl, %acc, x)`.
struct Edge {
    target: usize,
    fuel: String,
    hash: String,
    merged: String,
}

impl Edge {
    fn render(&self) -> String {
        format!(
            "^bb{}({}, {}, {} : i32, i32, i32)",
            self.target, self.fuel, self.hash, self.merged
        )
    }
}

enum BlockEnd {
    Return {
        value: String,
    },
    Branch(Edge),
    CondBranch {
        condition: String,
        on_true: Edge,
        on_false: Edge,
        divergent: bool,
    },
    /// Successor 0 is the default, successor `1 + i` has case value `i`.
    Switch {
        flag: String,
        default: Edge,
        cases: Vec<Edge>,
    },
}

impl BlockEnd {
    /// The `cf` (or, with `llvm`, LLVM-dialect) spelling of a branch.
    fn branch(&self, dialect: &str) -> String {
        match self {
            Self::Return { .. } => unreachable!("returns are rendered per kernel form"),
            Self::Branch(edge) => format!("{dialect}.br {}", edge.render()),
            Self::CondBranch {
                condition,
                on_true,
                on_false,
                ..
            } => format!(
                "{dialect}.cond_br {condition}, {}, {}",
                on_true.render(),
                on_false.render()
            ),
            Self::Switch {
                flag,
                default,
                cases,
            } if dialect == "cf" => {
                let mut line = format!("cf.switch {flag} : i32, [default: {}", default.render());
                for (case, edge) in cases.iter().enumerate() {
                    write!(line, ", {case}: {}", edge.render()).expect("writing to a String");
                }
                line.push(']');
                line
            }
            Self::Switch {
                flag,
                default,
                cases,
            } => {
                let cases: Vec<String> = cases
                    .iter()
                    .enumerate()
                    .map(|(case, edge)| format!("{case}: {}", edge.render()))
                    .collect();
                format!(
                    "llvm.switch {flag} : i32, {} [{}]",
                    default.render(),
                    cases.join(", ")
                )
            }
        }
    }
}

struct BodyGenerator<'a> {
    rng: &'a mut XorShift,
    shape: &'a KernelShape,
    cfg: &'a Cfg,
    /// Values defined (or bound as arguments) in each block.
    defined: Vec<Vec<Var>>,
    next_name: usize,
}

impl<'a> BodyGenerator<'a> {
    fn new(rng: &'a mut XorShift, shape: &'a KernelShape, cfg: &'a Cfg) -> Self {
        Self {
            rng,
            shape,
            cfg,
            defined: vec![Vec::new(); cfg.succs.len()],
            next_name: 0,
        }
    }

    fn generate(mut self) -> Vec<BlockCode> {
        (0..self.cfg.succs.len())
            .map(|block| self.block(block))
            .collect()
    }

    fn fresh(&mut self) -> String {
        self.next_name += 1;
        format!("%v{}", self.next_name)
    }

    fn define(&mut self, block: usize, name: &str, uniformity: Uniformity) -> Var {
        let var = Var {
            name: name.to_string(),
            uniformity,
        };
        self.defined[block].push(var.clone());
        var
    }

    /// Values usable in `block` so far: arguments, dominators' values and
    /// the block's own.
    fn available(&self, block: usize) -> Vec<Var> {
        let mut vars = vec![
            Var {
                name: "%n".into(),
                uniformity: Uniformity::Uniform,
            },
            Var {
                name: "%tid".into(),
                uniformity: Uniformity::Divergent,
            },
        ];
        for dominator in 0..=block {
            if self.cfg.dominates(dominator, block) {
                vars.extend(self.defined[dominator].iter().cloned());
            }
        }
        vars
    }

    fn block(&mut self, block: usize) -> BlockCode {
        let mut lines = Vec::new();
        self.prologue(block, &mut lines);
        let ops = self.rng.range(0, self.shape.max_ops_per_block + 1);
        for _ in 0..ops {
            self.random_op(block, &mut lines);
        }
        for _ in 0..2 {
            if self.rng.chance(self.shape.store_probability) {
                self.store(block, &mut lines);
            }
        }
        let end = if self.cfg.exit[block] {
            self.exit_value(block, &mut lines)
        } else {
            self.terminator(block, &mut lines)
        };
        BlockCode {
            index: block,
            lines,
            end,
        }
    }

    /// Constants (entry), fuel and path-hash steps.
    fn prologue(&mut self, block: usize, lines: &mut Vec<Line>) {
        use Uniformity::*;
        let constant = |result: &str, value: i64| Line::Constant {
            result: result.to_string(),
            value,
        };
        let binary = |result: String, op: &'static str, lhs: String, rhs: &str| Line::Binary {
            result,
            op,
            lhs,
            rhs: rhs.to_string(),
        };
        if block == 0 {
            for (name, value) in [("%zero", 0), ("%one", 1), ("%c31", 31)] {
                lines.push(constant(name, value));
                self.define(0, name, Uniform);
            }
            lines.push(constant("%f0", i64::from(self.shape.initial_fuel)));
            lines.push(constant("%a0", 17));
            lines.push(constant("%k_slots", i64::from(self.shape.slots)));
            lines.push(binary("%base".into(), "muli", "%tid".into(), "%k_slots"));
            self.define(0, "%base", Divergent);
        } else {
            self.define(block, &format!("%m{block}"), self.path_kind());
        }
        let fuel_kind = self.path_kind();
        lines.push(binary(
            format!("%fl{block}"),
            "subi",
            format!("%f{block}"),
            "%one",
        ));
        lines.push(Line::Compare {
            result: format!("%alive{block}"),
            predicate: "sgt",
            lhs: format!("%fl{block}"),
            rhs: "%zero".into(),
        });
        lines.push(binary(
            format!("%h{block}"),
            "muli",
            format!("%a{block}"),
            "%c31",
        ));
        lines.push(constant(&format!("%s{block}"), block as i64 + 1));
        lines.push(binary(
            format!("%acc{block}"),
            "addi",
            format!("%h{block}"),
            &format!("%s{block}"),
        ));
        self.define(block, &format!("%fl{block}"), fuel_kind);
        self.define(block, &format!("%acc{block}"), fuel_kind);
    }

    /// Path values are uniform when no condition is divergent.
    fn path_kind(&self) -> Uniformity {
        if self.shape.divergent_probability > 0.0 {
            Uniformity::Path
        } else {
            Uniformity::Uniform
        }
    }

    fn constant(&mut self, value: i64, lines: &mut Vec<Line>) -> String {
        let name = self.fresh();
        lines.push(Line::Constant {
            result: name.clone(),
            value,
        });
        name
    }

    fn random_op(&mut self, block: usize, lines: &mut Vec<Line>) {
        let vars = self.available(block);
        let x = self.rng.pick(&vars).clone();
        let y = self.rng.pick(&vars).clone();
        let result = self.fresh();
        let uniformity = match self.rng.below(6) {
            0 => {
                let op = *self.rng.pick(&BINARY_OPS);
                lines.push(Line::Binary {
                    result: result.clone(),
                    op,
                    lhs: x.name.clone(),
                    rhs: y.name.clone(),
                });
                x.uniformity.max(y.uniformity)
            }
            1 => {
                let (op, amount) = (
                    *self.rng.pick(&["shli", "shrui", "shrsi"]),
                    self.rng.below(32) as i64,
                );
                let amount = self.constant(amount, lines);
                lines.push(Line::Binary {
                    result: result.clone(),
                    op,
                    lhs: x.name.clone(),
                    rhs: amount,
                });
                x.uniformity
            }
            2 => {
                let op = *self.rng.pick(&["divui", "remui"]);
                let divisor = self.fresh();
                lines.push(Line::Binary {
                    result: divisor.clone(),
                    op: "ori",
                    lhs: y.name.clone(),
                    rhs: "%one".into(),
                });
                lines.push(Line::Binary {
                    result: result.clone(),
                    op,
                    lhs: x.name.clone(),
                    rhs: divisor,
                });
                x.uniformity.max(y.uniformity)
            }
            3 => {
                let flag = self.fresh();
                let predicate = *self.rng.pick(&["slt", "ule", "ne", "sge"]);
                lines.push(Line::Compare {
                    result: flag.clone(),
                    predicate,
                    lhs: x.name.clone(),
                    rhs: y.name.clone(),
                });
                lines.push(Line::Select {
                    result: result.clone(),
                    condition: flag,
                    on_true: x.name.clone(),
                    on_false: y.name.clone(),
                    flag: false,
                });
                x.uniformity.max(y.uniformity)
            }
            4 => {
                let narrow = self.fresh();
                lines.push(Line::TruncToI8 {
                    result: narrow.clone(),
                    value: x.name.clone(),
                });
                lines.push(Line::ExtendFromI8 {
                    result: result.clone(),
                    value: narrow,
                });
                x.uniformity
            }
            _ => {
                let op = *self.rng.pick(&["addi", "muli", "xori"]);
                let operand = self.rng.range(1, 100) as i64;
                let constant = self.constant(operand, lines);
                lines.push(Line::Binary {
                    result: result.clone(),
                    op,
                    lhs: x.name.clone(),
                    rhs: constant,
                });
                x.uniformity
            }
        };
        self.define(block, &result, uniformity);
    }

    fn store(&mut self, block: usize, lines: &mut Vec<Line>) {
        let vars = self.available(block);
        let value = if self.rng.chance(0.5) {
            format!("%acc{block}")
        } else {
            self.rng.pick(&vars).name.clone()
        };
        let slot = self.rng.below(self.shape.slots.max(1) as usize) as i64;
        let slot = self.constant(slot, lines);
        let (offset, index) = (self.fresh(), self.fresh());
        lines.push(Line::Binary {
            result: offset.clone(),
            op: "addi",
            lhs: "%base".into(),
            rhs: slot,
        });
        lines.push(Line::Store {
            value,
            offset,
            index,
        });
    }

    fn exit_value(&mut self, block: usize, lines: &mut Vec<Line>) -> BlockEnd {
        let vars = self.available(block);
        let other = self.rng.pick(&vars).name.clone();
        let value = self.fresh();
        lines.push(Line::Binary {
            result: value.clone(),
            op: "xori",
            lhs: format!("%acc{block}"),
            rhs: other,
        });
        BlockEnd::Return { value }
    }

    /// Chooses a value for a branch decision: divergent (from `%tid`) or
    /// uniform.
    fn decision_source(&mut self, block: usize) -> (Var, bool) {
        let divergent = self.rng.chance(self.shape.divergent_probability);
        let vars = self.available(block);
        let wanted: Vec<Var> = vars
            .iter()
            .filter(|var| {
                if divergent {
                    var.uniformity == Uniformity::Divergent
                } else {
                    var.uniformity == Uniformity::Uniform
                }
            })
            .cloned()
            .collect();
        (self.rng.pick(&wanted).clone(), divergent)
    }

    /// An `i1` condition from `source`.
    fn condition(&mut self, block: usize, source: &Var, lines: &mut Vec<Line>) -> String {
        let condition = self.fresh();
        match self.rng.below(3) {
            0 => {
                let predicate = *self.rng.pick(&[
                    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
                ]);
                let bound = self.rng.range(0, 70) as i64 - 4;
                let bound = self.constant(bound, lines);
                lines.push(Line::Compare {
                    result: condition.clone(),
                    predicate,
                    lhs: source.name.clone(),
                    rhs: bound,
                });
            }
            1 => {
                let bit = 1i64 << self.rng.below(6);
                let mask = self.constant(bit, lines);
                let masked = self.fresh();
                lines.push(Line::Binary {
                    result: masked.clone(),
                    op: "andi",
                    lhs: source.name.clone(),
                    rhs: mask,
                });
                lines.push(Line::Compare {
                    result: condition.clone(),
                    predicate: "eq",
                    lhs: masked,
                    rhs: "%zero".into(),
                });
            }
            _ => {
                // Loop-style exit test: the trip count depends on `source`.
                let mask = self.constant(7, lines);
                let limit = self.fresh();
                lines.push(Line::Binary {
                    result: limit.clone(),
                    op: "andi",
                    lhs: source.name.clone(),
                    rhs: mask,
                });
                lines.push(Line::Compare {
                    result: condition.clone(),
                    predicate: "slt",
                    lhs: format!("%fl{block}"),
                    rhs: limit,
                });
            }
        }
        condition
    }

    /// Successor operands `(%fl, %acc, x)` for one edge. In a uniform
    /// kernel `x` is never derived from `%tid`, so block arguments stay
    /// uniform.
    fn edge(&mut self, block: usize, target: usize, vars: &[Var]) -> Edge {
        let uniform_kernel = self.shape.divergent_probability <= 0.0;
        let candidates: Vec<&Var> = vars
            .iter()
            .filter(|var| !uniform_kernel || var.uniformity != Uniformity::Divergent)
            .collect();
        let merged = self.rng.pick(&candidates).name.clone();
        Edge {
            target,
            fuel: format!("%fl{block}"),
            hash: format!("%acc{block}"),
            merged,
        }
    }

    /// A successor index one step closer to an exit.
    fn exit_ward(&self, block: usize) -> usize {
        let succs = &self.cfg.succs[block];
        (0..succs.len())
            .min_by_key(|&index| self.cfg.distance[succs[index]])
            .expect("non-exit blocks have successors")
    }

    fn terminator(&mut self, block: usize, lines: &mut Vec<Line>) -> BlockEnd {
        let succs = self.cfg.succs[block].clone();
        let vars = self.available(block);
        if succs.len() == 1 {
            return BlockEnd::Branch(self.edge(block, succs[0], &vars));
        }
        if succs.len() == 2 && !self.rng.chance(self.shape.switch_probability) {
            return self.cond_br(block, &succs, &vars, lines);
        }
        self.switch(block, &succs, &vars, lines)
    }

    fn cond_br(
        &mut self,
        block: usize,
        succs: &[usize],
        vars: &[Var],
        lines: &mut Vec<Line>,
    ) -> BlockEnd {
        let (source, divergent) = self.decision_source(block);
        let condition = self.condition(block, &source, lines);
        let toward_exit = self.exit_ward(block) == 0;
        let (direction, forced) = (self.fresh(), self.fresh());
        lines.push(Line::Flag {
            result: direction.clone(),
            value: toward_exit,
        });
        lines.push(Line::Select {
            result: forced.clone(),
            condition: format!("%alive{block}"),
            on_true: condition,
            on_false: direction,
            flag: true,
        });
        let on_true = self.edge(block, succs[0], vars);
        let on_false = self.edge(block, succs[1], vars);
        BlockEnd::CondBranch {
            condition: forced,
            on_true,
            on_false,
            divergent,
        }
    }

    /// `cf.switch`: successor 0 is the default, successor `1 + i` has case
    /// value `i`; the flag is `x mod (cases + 1)`, so every successor is
    /// reachable.
    fn switch(
        &mut self,
        block: usize,
        succs: &[usize],
        vars: &[Var],
        lines: &mut Vec<Line>,
    ) -> BlockEnd {
        let cases = succs.len() - 1;
        let (source, _) = self.decision_source(block);
        let modulus = self.constant(cases as i64 + 1, lines);
        let flag = self.fresh();
        lines.push(Line::Binary {
            result: flag.clone(),
            op: "remui",
            lhs: source.name.clone(),
            rhs: modulus,
        });
        let exit_ward = self.exit_ward(block);
        let exit_case = if exit_ward == 0 {
            cases as i64
        } else {
            exit_ward as i64 - 1
        };
        let exit_case = self.constant(exit_case, lines);
        let forced = self.fresh();
        lines.push(Line::Select {
            result: forced.clone(),
            condition: format!("%alive{block}"),
            on_true: flag,
            on_false: exit_case,
            flag: false,
        });
        let default = self.edge(block, succs[0], vars);
        let cases = succs[1..]
            .iter()
            .map(|&target| self.edge(block, target, vars))
            .collect();
        BlockEnd::Switch {
            flag: forced,
            default,
            cases,
        }
    }
}

/// The `func.func` rendering; also returns the divergent `cf.cond_br` lines.
fn render_func(blocks: &[BlockCode]) -> (String, Vec<usize>) {
    let mut lines = vec![
        "module {".to_string(),
        "  func.func @kernel(%out: memref<?xi32> {spmd.uniform}, %n: i32 {spmd.uniform}, %tid: i32 {spmd.divergent}) -> i32 {"
            .to_string(),
    ];
    let mut divergent = Vec::new();
    for block in blocks {
        render_block_start(&mut lines, block);
        match &block.end {
            BlockEnd::Return { value } => lines.push(format!("    func.return {value} : i32")),
            end => {
                if matches!(
                    end,
                    BlockEnd::CondBranch {
                        divergent: true,
                        ..
                    }
                ) {
                    divergent.push(lines.len());
                }
                lines.push(format!("    {}", end.branch("cf")));
            }
        }
    }
    lines.push("  }".into());
    lines.push("}".into());
    (lines.join("\n") + "\n", divergent)
}

/// The `gpu.module` rendering: `%tid` from `gpu.thread_id x`; returns
/// store to `%ret[tid]`.
fn render_gpu(blocks: &[BlockCode]) -> String {
    let mut lines = vec![
        "module attributes {gpu.container_module} {".to_string(),
        "  gpu.module @kernels {".to_string(),
        "  gpu.func @kernel(%out: memref<?xi32>, %n: i32, %ret: memref<?xi32>) kernel {"
            .to_string(),
    ];
    for block in blocks {
        if block.index == 0 {
            lines.push("    %tid_index = gpu.thread_id x".into());
            lines.push("    %tid = arith.index_cast %tid_index : index to i32".into());
        }
        render_block_start(&mut lines, block);
        match &block.end {
            BlockEnd::Return { value } => {
                lines.push(format!(
                    "    memref.store {value}, %ret[%tid_index] : memref<?xi32>"
                ));
                lines.push("    gpu.return".into());
            }
            end => lines.push(format!("    {}", end.branch("cf"))),
        }
    }
    lines.push("  }".into());
    lines.push("  }".into());
    lines.push("}".into());
    lines.join("\n") + "\n"
}

/// The block label (not for the entry block) and body in `arith`/`memref`.
fn render_block_start(lines: &mut Vec<String>, block: &BlockCode) {
    if block.index > 0 {
        lines.push(format!("  {}", block_header(block.index)));
    }
    for line in &block.lines {
        lines.extend(
            line.standard()
                .into_iter()
                .map(|text| format!("    {text}")),
        );
    }
}

fn block_header(index: usize) -> String {
    format!("^bb{index}(%f{index}: i32, %a{index}: i32, %m{index}: i32):")
}

/// How [`RandomKernel::llvm_text`] spells the kernel's interface (chosen
/// from the seed, so that the body is the same for every choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LlvmForm {
    /// `%tid` from `llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"`
    /// (with its declaration) instead of `nvvm.read.ptx.sreg.tid.x`.
    intrinsic_call: bool,
    /// The `nvvm.read.ptx.sreg.tid.x` op carries a `range` (clang's
    /// `range(i32 0, 1024)` return attribute).
    tid_range: bool,
    /// The kernel casts its generic pointer arguments to the global address
    /// space and accesses memory through those (as NVPTX's argument
    /// lowering does); otherwise it uses the generic pointers.
    global_casts: bool,
}

impl LlvmForm {
    fn of_seed(seed: u64) -> Self {
        Self {
            intrinsic_call: seed % 2 == 1,
            tid_range: seed % 4 == 2,
            global_casts: seed % 3 == 1,
        }
    }
}

/// The LLVM-dialect rendering, in the form `mlir-translate --import-llvm`
/// gives clang's CUDA output: an `llvm.func` kernel with the `ptx_kernel`
/// calling convention and generic `!llvm.ptr` arguments, `%tid` from the
/// NVVM `tid.x` register, stores through `llvm.getelementptr`, returns
/// store to `%ret[tid]`.
fn render_llvm(blocks: &[BlockCode], form: LlvmForm) -> String {
    let space = if form.global_casts {
        "!llvm.ptr<1>"
    } else {
        "!llvm.ptr"
    };
    let mut lines = vec![
        "module attributes {llvm.target_triple = \"nvptx64-nvidia-cuda\"} {".to_string(),
        "  llvm.func ptx_kernelcc @kernel(%out: !llvm.ptr {llvm.noundef}, %n: i32 {llvm.noundef}, %ret: !llvm.ptr {llvm.noundef}) {".to_string(),
    ];
    let mut prologue = vec![if form.intrinsic_call {
        "%tid = llvm.call_intrinsic \"llvm.nvvm.read.ptx.sreg.tid.x\"() : () -> i32".to_string()
    } else if form.tid_range {
        "%tid = nvvm.read.ptx.sreg.tid.x range <i32, 0, 1024> : i32".to_string()
    } else {
        "%tid = nvvm.read.ptx.sreg.tid.x : i32".to_string()
    }];
    prologue.push("%tid_wide = llvm.zext %tid : i32 to i64".into());
    if form.global_casts {
        prologue.push("%out_g = llvm.addrspacecast %out : !llvm.ptr to !llvm.ptr<1>".into());
        prologue.push("%ret_g = llvm.addrspacecast %ret : !llvm.ptr to !llvm.ptr<1>".into());
    }
    let (out, ret) = if form.global_casts {
        ("%out_g", "%ret_g")
    } else {
        ("%out", "%ret")
    };
    push_llvm_blocks(&mut lines, blocks, &prologue, [space, out, ret]);
    lines.push("  }".into());
    if form.intrinsic_call {
        lines.push(
            "  llvm.func @llvm.nvvm.read.ptx.sreg.tid.x() -> i32 attributes {no_unwind}".into(),
        );
    }
    lines.push("}".into());
    lines.join("\n") + "\n"
}

/// The AMDGPU LLVM-dialect rendering, in the form `mlir-translate
/// --import-llvm` gives HIP's output: an `llvm.func amdgpu_kernelcc`
/// kernel marked `rocdl.kernel`, global (`!llvm.ptr<1>`) pointer
/// arguments, `%tid` from `llvm.call_intrinsic "llvm.amdgcn.workitem.id.x"`
/// (with `imported`, as the import writes clang's call: with its result
/// attributes `noundef` and `range(i32 0, 1024)`, and the intrinsic's
/// declaration), stores through `llvm.getelementptr`, returns store to
/// `%ret[tid]`.
fn render_amdgpu(blocks: &[BlockCode], imported: bool) -> String {
    let space = "!llvm.ptr<1>";
    let mut lines = vec![
        "module attributes {llvm.target_triple = \"amdgcn-amd-amdhsa\"} {".to_string(),
        format!("  llvm.func amdgpu_kernelcc @kernel(%out: {space} {{llvm.noundef}}, %n: i32 {{llvm.noundef}}, %ret: {space} {{llvm.noundef}}) attributes {{rocdl.kernel}} {{"),
    ];
    let tid = if imported {
        format!("%tid = llvm.call_intrinsic \"llvm.amdgcn.workitem.id.x\"() : () -> ({AMDGPU_TID_RESULT})")
    } else {
        "%tid = llvm.call_intrinsic \"llvm.amdgcn.workitem.id.x\"() : () -> i32".to_string()
    };
    let prologue = [tid, "%tid_wide = llvm.zext %tid : i32 to i64".to_string()];
    push_llvm_blocks(&mut lines, blocks, &prologue, [space, "%out", "%ret"]);
    lines.push("  }".into());
    if imported {
        lines.push(format!(
            "  llvm.func @llvm.amdgcn.workitem.id.x() -> ({AMDGPU_TID_RESULT}) attributes {{no_unwind}}"
        ));
    }
    lines.push("}".into());
    lines.join("\n") + "\n"
}

/// The result of `llvm.amdgcn.workitem.id.x` as the LLVM IR import
/// writes clang's `noundef range(i32 0, 1024)` call.
const AMDGPU_TID_RESULT: &str =
    "i32 {llvm.noundef, llvm.range = #llvm.constant_range<i32, 0, 1024>}";

/// The blocks of an LLVM-dialect rendering: `prologue` at the top of the
/// entry block (it defines `%tid` and its `i64` `%tid_wide`), memory
/// accessed through the pointers `[type, %out, %ret]`; each return stores
/// its value to `%ret[tid]`.
fn push_llvm_blocks(
    lines: &mut Vec<String>,
    blocks: &[BlockCode],
    prologue: &[String],
    [space, out, ret]: [&str; 3],
) {
    for block in blocks {
        if block.index == 0 {
            lines.extend(prologue.iter().map(|line| format!("    {line}")));
        } else {
            lines.push(format!("  {}", block_header(block.index)));
        }
        for line in &block.lines {
            lines.extend(
                line.llvm(space, out)
                    .into_iter()
                    .map(|text| format!("    {text}")),
            );
        }
        match &block.end {
            BlockEnd::Return { value } => {
                let pointer = format!("%ret_p{}", block.index);
                lines.push(format!(
                    "    {pointer} = llvm.getelementptr inbounds {ret}[%tid_wide] : ({space}, i64) -> {space}, i32"
                ));
                lines.push(format!(
                    "    llvm.store {value}, {pointer} {{alignment = 4 : i64}} : i32, {space}"
                ));
                lines.push("    llvm.return".into());
            }
            end => lines.push(format!("    {}", end.branch("llvm"))),
        }
    }
}

/// A long-range function ([`spmd::testing::long_range`]) with the
/// [`Signature::Kernel`] signature as a
/// [`RandomKernel`], for the executor and JIT differentials. Only
/// [`RandomKernel::text`] is rendered (`gpu_text` and `llvm_text` are
/// empty); the kernel stores nothing, so one output slot suffices.
pub fn long_range_kernel(seed: u64, shape: &LongRangeShape) -> RandomKernel {
    let (text, graph) = long_range_function(seed, shape, Signature::Kernel);
    let analysis = spmd::graph::CfgAnalysis::build(&graph);
    let cycles = analysis.cycles();
    RandomKernel {
        seed,
        // A branch tests `%tid` when its block's `%dI` does.
        divergent_branch_lines: {
            let mut on_tid = false;
            let mut lines = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.starts_with("  %d") {
                    on_tid = line.contains("slt, %tid,");
                } else if line.starts_with("  cf.cond_br") && on_tid {
                    lines.push(i);
                }
            }
            lines
        },
        num_exits: text.matches("  return").count(),
        text,
        gpu_text: String::new(),
        llvm_text: String::new(),
        amdgpu_llvm_text: String::new(),
        num_blocks: graph.num_blocks() + 1,
        has_irreducible_cycle: cycles.cycles().any(|c| !cycles.is_reducible(c)),
        slots: 1,
    }
}
