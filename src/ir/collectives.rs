//! The one table of operations whose meaning depends on *which threads
//! execute them together*: warp collectives (shuffles, votes, reductions,
//! matches, warp syncs), block and cluster barriers, subgroup operations,
//! warp-wide matrix instructions, and the reads of the active set.
//!
//! Every transform that must know about them asks here: branch folding
//! never merges or hoists them ([`is_convergent_name`]), the NVVM
//! lowering decides from [`Members`] who executes them in wave-level code
//! ([`Members::lowering`]), and the uniformity analysis reads from
//! [`LaneResult`] whether their results are divergence sources, uniform by
//! construction, or data dependence (`analysis::divergence_sources` asks
//! here after its own table of thread ids, grid values and intrinsics).
//!
//! ## Who takes part
//!
//! A collective's *members* are the threads that meet at it. CUDA and PTX
//! give them in one of five ways, which is the [`Members`] of a row:
//!
//! * **an explicit member mask** (`shfl.sync`, `vote.sync`, `match.sync`,
//!   `redux.sync`, `bar.warp.sync`, `elect.sync` with a mask): PTX requires
//!   every executing thread to be in the mask and every thread of the mask
//!   to execute the same instruction; the constant mask `0xffffffff` names
//!   the whole warp;
//! * **the first lanes** (`gpu.shuffle`, `gpu.rotate`): the first `width`
//!   lanes of the subgroup must be active;
//! * **the executing lanes** (`activemask`): the result *is* the set of
//!   threads that execute it together;
//! * **the whole warp** (subgroup reductions and broadcasts, `.aligned`
//!   matrix instructions, `elect.sync` without a mask): every lane of the
//!   warp;
//! * **the whole block or cluster** (`bar.sync`, `gpu.barrier`, cluster
//!   barriers).
//!
//! Some rows are no collectives but still order-sensitive across threads
//! (`nvvm.fence.*`): [`Members::EveryThread`], executed by each thread on its
//! own, never merged by branch folding.
//!
//! ## The lowering rule (issue #28)
//!
//! In wave-level code every live lane of the warp runs every instruction,
//! whatever its exec bit. A collective whose members the thread-level
//! program names (a member mask, or the first lanes) must be executed by
//! exactly the lanes whose thread-level program reaches it, so it runs
//! under the lane's exec bit ([`Lowering::UnderExecBit`]) and the
//! hardware's own convergence at the `.sync` instruction does the rest:
//! in a shuffle scan that runs in warp 0's first eight lanes with member
//! mask `0xff`, lanes 8..31 must not execute the `shfl.sync`; in a
//! reduction whose last step runs under `if (tid < 8)` with the mask of
//! `__ballot_sync(.., tid < 8)`, the other lanes must not contribute to
//! the `redux.sync`. `activemask` becomes the exec mask itself
//! ([`Lowering::ExecMask`]): those are, by definition, the lanes that
//! execute it together. Whole-warp and whole-block collectives run in every
//! live lane ([`Lowering::EveryLiveLane`]): a correct thread-level program
//! reaches them with all lanes, where exec is the live mask anyway, and
//! the full-warp collectives that `--spmd-predicate` introduces itself
//! (ballots, the votes of scalar branches) keep their unguarded form.
//!
//! Operations are matched by name, by the intrinsic name of
//! `llvm.call_intrinsic` (what `mlir-translate --import-llvm` makes of an
//! intrinsic without an NVVM op, e.g. `llvm.nvvm.activemask`), and, for
//! `llvm.inline_asm`, by the PTX text of clang's CUDA header's
//! `__activemask()` (`activemask.b32 $0;`).

use super::{edit, facts, names};
use melior::ir::{
    attribute::StringAttribute, operation::OperationLike, OperationRef, RegionLike, Value,
};

/// Who takes part in a collective, barrier or other operation of the
/// table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Members {
    /// The lanes of a member mask; an op without that operand (`elect.sync`)
    /// takes the whole warp.
    Mask {
        /// The index of the mask among the operation's operands.
        operand: usize,
    },
    /// The first `width` lanes of the subgroup (`gpu.shuffle`, `gpu.rotate`).
    FirstLanes,
    /// The lanes executing it together; the result is that set
    /// (`activemask`).
    Executing,
    /// Every lane of the warp.
    WholeWarp,
    /// Every thread of the block (or cluster).
    WholeBlock,
    /// Each thread on its own, but ordered against other threads' memory
    /// operations (fences): no collective, never merged or hoisted.
    EveryThread,
}

/// How wave-level code executes an operation of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    /// Only in lanes whose exec bit is set, wherever exec may be partial.
    UnderExecBit,
    /// Replaced by the exec mask.
    ExecMask,
    /// In every live lane, whatever its exec bit.
    EveryLiveLane,
}

impl Members {
    /// How wave-level (exec-mask) code executes a collective with these
    /// members.
    pub fn lowering(self) -> Lowering {
        match self {
            Self::Mask { .. } | Self::FirstLanes => Lowering::UnderExecBit,
            Self::Executing => Lowering::ExecMask,
            Self::WholeWarp | Self::WholeBlock | Self::EveryThread => Lowering::EveryLiveLane,
        }
    }
}

/// What the result of an operation of the table holds across the lanes
/// that execute it together: the uniformity analysis reads it
/// (`analysis::divergence_sources`), so that a collective's spellings are
/// listed once for both questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneResult {
    /// Each lane may get another value, whatever the operands: data read
    /// from other lanes (shuffles, permutes, swizzles) or a lane's share of
    /// a warp-wide matrix. A divergence source.
    PerLane,
    /// One value for every lane that executes it together: votes, ballots,
    /// reductions, broadcasts, reads of one lane, the active mask.
    Shared,
    /// No data from other lanes: divergent iff an operand is (barriers and
    /// fences, which have no results; `match.sync`, whose masks are the
    /// same in every member when the value is).
    FromOperands,
}

/// How a row matches an operation or intrinsic name.
#[derive(Clone, Copy, Debug)]
enum Pattern {
    Exact(&'static str),
    Prefix(&'static str),
}

/// One row: the names it matches, who takes part, and what the result
/// holds across lanes.
#[derive(Clone, Copy, Debug)]
struct Row {
    pattern: Pattern,
    members: Members,
    result: LaneResult,
}

const fn row(pattern: Pattern, members: Members, result: LaneResult) -> Row {
    Row {
        pattern,
        members,
        result,
    }
}

use LaneResult::{FromOperands, PerLane, Shared};
use Members::*;
use Pattern::*;

/// The table: operation names, and intrinsic names without their `llvm.`
/// prefix (`llvm.nvvm.shfl.sync.up.i32` is looked up as
/// `nvvm.shfl.sync.up.i32`, `llvm.amdgcn.readlane.i32` as
/// `amdgcn.readlane.i32`). The first matching row wins.
const TABLE: &[Row] = &[
    // NVVM warp collectives with a member mask. Operand orders: shfl.sync
    // (mask, value, offset, clamp), vote.sync (mask, predicate), match.sync
    // (mask, value), bar.warp.sync (mask), redux.sync (value, mask), as both
    // the NVVM ops and the intrinsics take them.
    row(Prefix("nvvm.shfl.sync"), Mask { operand: 0 }, PerLane),
    row(Prefix("nvvm.vote.sync"), Mask { operand: 0 }, Shared),
    row(Prefix("nvvm.vote.any.sync"), Mask { operand: 0 }, Shared),
    row(Prefix("nvvm.vote.all.sync"), Mask { operand: 0 }, Shared),
    row(Prefix("nvvm.vote.uni.sync"), Mask { operand: 0 }, Shared),
    row(Prefix("nvvm.vote.ballot.sync"), Mask { operand: 0 }, Shared),
    row(Prefix("nvvm.match."), Mask { operand: 0 }, FromOperands),
    row(
        Exact("nvvm.bar.warp.sync"),
        Mask { operand: 0 },
        FromOperands,
    ),
    row(Prefix("nvvm.redux.sync"), Mask { operand: 1 }, Shared),
    row(Exact("nvvm.elect.sync"), Mask { operand: 0 }, PerLane),
    row(Exact("nvvm.activemask"), Executing, Shared),
    // Block and cluster barriers.
    row(Prefix("nvvm.barrier"), WholeBlock, FromOperands),
    row(Prefix("nvvm.bar."), WholeBlock, FromOperands),
    row(Prefix("nvvm.cluster."), WholeBlock, FromOperands),
    row(Prefix("nvvm.fence."), EveryThread, FromOperands),
    // `membar.gl/cta/sys` (clang's `__threadfence()` and friends).
    row(Prefix("nvvm.membar."), EveryThread, FromOperands),
    row(Exact("nvvm.memory.barrier"), EveryThread, FromOperands),
    // Warp-wide (`.aligned`) matrix instructions: each lane holds its own
    // share of the matrices.
    row(Prefix("nvvm.mma."), WholeWarp, PerLane),
    row(Prefix("nvvm.wmma."), WholeWarp, PerLane),
    row(Prefix("nvvm.wgmma."), WholeWarp, PerLane),
    row(Prefix("nvvm.ldmatrix"), WholeWarp, PerLane),
    row(Prefix("nvvm.stmatrix"), WholeWarp, FromOperands),
    // The gpu dialect.
    row(Exact("gpu.shuffle"), FirstLanes, PerLane),
    row(Exact("gpu.rotate"), FirstLanes, PerLane),
    row(Exact("gpu.barrier"), WholeBlock, FromOperands),
    row(Exact("gpu.all_reduce"), WholeBlock, Shared),
    row(Exact("gpu.subgroup_reduce"), WholeWarp, Shared),
    row(Exact("gpu.subgroup_broadcast"), WholeWarp, Shared),
    row(Prefix("gpu.subgroup_mma_"), WholeWarp, PerLane),
    row(Exact("gpu.ballot"), WholeWarp, Shared),
    // AMDGPU: cross-lane operations read other lanes of the wave; the ROCDL
    // ops and the intrinsics MLIR has no op for.
    row(Prefix("rocdl.s.barrier"), WholeBlock, FromOperands),
    row(Prefix("rocdl.barrier"), WholeBlock, FromOperands),
    row(Prefix("rocdl.ds_bpermute"), WholeWarp, PerLane),
    row(Prefix("rocdl.ds_swizzle"), WholeWarp, PerLane),
    row(Prefix("rocdl.permlane"), WholeWarp, PerLane),
    row(Prefix("rocdl.readlane"), WholeWarp, Shared),
    row(Prefix("rocdl.readfirstlane"), WholeWarp, Shared),
    row(Prefix("rocdl.ballot"), WholeWarp, Shared),
    row(Prefix("rocdl.update.dpp"), WholeWarp, PerLane),
    row(Prefix("amdgcn.s.barrier"), WholeBlock, FromOperands),
    row(Prefix("amdgcn.ds.bpermute"), WholeWarp, PerLane),
    row(Prefix("amdgcn.ds.permute"), WholeWarp, PerLane),
    row(Prefix("amdgcn.ds.swizzle"), WholeWarp, PerLane),
    row(Prefix("amdgcn.mov.dpp"), WholeWarp, PerLane),
    row(Prefix("amdgcn.update.dpp"), WholeWarp, PerLane),
    row(Prefix("amdgcn.permlane"), WholeWarp, PerLane),
    row(Prefix("amdgcn.readlane"), WholeWarp, Shared),
    row(Prefix("amdgcn.readfirstlane"), WholeWarp, Shared),
    row(Prefix("amdgcn.ballot"), WholeWarp, Shared),
    row(Prefix("amdgcn.icmp"), WholeWarp, Shared),
    row(Prefix("amdgcn.fcmp"), WholeWarp, Shared),
    row(Prefix("amdgcn.wave.reduce."), WholeWarp, Shared),
];

/// The PTX of `__activemask()` in clang's CUDA header.
const ACTIVEMASK_ASM: &str = "activemask.b32 $0;";

/// The row of the operation or intrinsic named `name` (an intrinsic with
/// its `llvm.` prefix is looked up without it).
fn row_of_name(name: &str) -> Option<&'static Row> {
    let name = name.strip_prefix(names::LLVM_PREFIX).unwrap_or(name);
    TABLE.iter().find(|row| match row.pattern {
        Exact(exact) => name == exact,
        Prefix(prefix) => name.starts_with(prefix),
    })
}

/// The members of the operation or intrinsic named `name` (an intrinsic
/// with its `llvm.` prefix is looked up without it), or `None` if the
/// table has no row for it.
pub fn members_of_name(name: &str) -> Option<Members> {
    row_of_name(name).map(|row| row.members)
}

/// What the result of the operation or intrinsic named `name` holds across
/// the lanes executing it together, or `None` if the table has no row for
/// it. Operation names are matched as they are; intrinsic names (those of
/// `llvm.call_intrinsic`) must keep their `llvm.` prefix, so that no
/// operation of the `llvm` dialect is mistaken for one.
pub(crate) fn lane_result_of_name(name: &str, is_intrinsic: bool) -> Option<LaneResult> {
    let spelled_right = name.starts_with(names::LLVM_PREFIX) == is_intrinsic;
    spelled_right
        .then(|| row_of_name(name))
        .flatten()
        .map(|row| row.result)
}

/// Every row as (spelling, members, result), for the generated
/// documentation of divergence sources.
#[cfg(test)]
pub(crate) fn rows() -> impl Iterator<Item = (String, Members, LaneResult)> {
    TABLE.iter().map(|row| {
        let spelling = match row.pattern {
            Exact(name) => name.to_string(),
            Prefix(prefix) => format!("{prefix}*"),
        };
        (spelling, row.members, row.result)
    })
}

/// The members of `op`: by its name, the intrinsic of an
/// `llvm.call_intrinsic`, or the PTX text of an `llvm.inline_asm` that
/// reads the active mask; a member mask that is the constant `0xffffffff`
/// names the whole warp. `None` for every other operation.
pub(crate) fn members(op: OperationRef<'_, '_>) -> Option<Members> {
    match named_members(op)? {
        Mask { operand } if is_full_warp_mask(op, operand) => Some(WholeWarp),
        members => Some(members),
    }
}

/// True if operand `operand` of `op` is the constant `0xffffffff`: the
/// member mask of the whole warp. A correct thread-level program reaches
/// such a collective with all 32 lanes, so exec is then every live lane and
/// the collective needs no guard (a full mask in a partial warp is already
/// undefined at thread level).
fn is_full_warp_mask(op: OperationRef<'_, '_>, operand: usize) -> bool {
    op.operand(operand)
        .ok()
        .and_then(edit::defining_op)
        .and_then(facts::constant_value)
        .is_some_and(|constant| constant.width == 32 && constant.value == -1)
}

/// The row of `op` by its name, intrinsic or inline assembly.
fn named_members(op: OperationRef<'_, '_>) -> Option<Members> {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or_default();
    match name {
        names::LLVM_CALL_INTRINSIC => string_attribute(op, names::INTRINSIC_ATTR)
            .filter(|intrinsic| intrinsic.starts_with(names::LLVM_PREFIX))
            .and_then(|intrinsic| members_of_name(&intrinsic)),
        names::LLVM_INLINE_ASM => string_attribute(op, names::ASM_STRING_ATTR)
            .filter(|text| text.trim() == ACTIVEMASK_ASM)
            .map(|_| Executing),
        _ if name.starts_with(names::LLVM_PREFIX) => None,
        _ => members_of_name(name),
    }
}

/// True if the operation named `name` is in the table: the set of threads
/// that executes it together is part of its meaning (or, for fences, its
/// order against other threads). Calls, `llvm.call_intrinsic` and inline
/// assembly are not in the table; callers that cannot see through them must
/// treat them as convergent themselves.
pub(crate) fn is_convergent_name(name: &str) -> bool {
    !name.starts_with(names::LLVM_PREFIX) && members_of_name(name).is_some()
}

/// True if running `op` in a diverged group of lanes could mean something
/// else than running it with the lanes its thread-level program brings
/// together, so it needs wave-level (exec-mask) code around it: a row of
/// the table (collectives, barriers, `activemask`; not fences, which order
/// each thread's own accesses), any other `spmd.*` operation except Flow
/// branches, convergence tokens and reconvergence markers (those say how to
/// converge, not that anything must), a call that may reach one of these
/// (`call_reaches_converged_lanes`), inline assembly unless its PTX is
/// lane-local ([`ptx_is_lane_local`]), and any operation with such one in
/// its regions. `llvm.call_intrinsic` counts only when its intrinsic is in
/// the table.
pub(crate) fn needs_converged_lanes(op: OperationRef<'_, '_>) -> bool {
    needs_converged_lanes_within(op, &mut Vec::new())
}

/// [`needs_converged_lanes`], with the callees whose bodies are being
/// searched (`visiting`), so that recursion ends.
fn needs_converged_lanes_within(op: OperationRef<'_, '_>, visiting: &mut Vec<String>) -> bool {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or_default();
    let opaque = match name {
        "llvm.call" | "func.call" => call_reaches_converged_lanes(op, visiting),
        names::LLVM_INLINE_ASM => !string_attribute(op, names::ASM_STRING_ATTR)
            .is_some_and(|text| ptx_is_lane_local(&text)),
        _ => false,
    };
    let spmd = name.starts_with(names::SPMD_PREFIX)
        && name != names::FLOW_BR
        && !name.starts_with(names::CONVERGENCE_PREFIX)
        && !name.starts_with("spmd.reconvergence.");
    // A fence orders the executing thread's own accesses: in a diverged
    // group it means what it means at thread level.
    let collective = members(op).is_some_and(|members| members != EveryThread);
    if opaque || spmd || collective {
        return true;
    }
    (0..op.region_count()).any(|index| {
        let region = op.region(index).expect("counted region");
        edit::blocks(region)
            .into_iter()
            .flat_map(edit::operations)
            .any(|inner| needs_converged_lanes_within(inner, visiting))
    })
}

/// Declared functions of per-thread math libraries: AMD's OCML
/// (`__ocml_*`, what HIP's math functions call) and NVIDIA's libdevice
/// (`__nv_*`). They compute on their arguments only; front ends mark them
/// `convergent` because every device function is, until the callee's body
/// shows otherwise.
const LANE_LOCAL_LIBRARY_PREFIXES: [&str; 2] = ["__ocml_", "__nv_"];

/// True if the call `op` (`llvm.call`, `func.call`) may reach an operation
/// that needs converged lanes ([`needs_converged_lanes`]):
///
/// * an indirect call: as every function it may call, when it can only
///   call known ones (a function's address, a select of them, a load from
///   a constant table of them); otherwise always;
/// * a callee that is not in an enclosing symbol table: always (nothing is
///   known of it);
/// * a callee with a body: if the body holds such an operation, calls
///   included (a call back into a function being searched adds nothing);
/// * a declaration: unless it is a per-thread math function
///   (OCML's `__ocml_*`, libdevice's `__nv_*`) or an `llvm.func` that is not
///   `convergent` called by a call that is not either (LLVM's rule: a
///   function without the attribute has no convergent behaviour). A
///   declared `func.func` says nothing, so it may.
///
/// `visiting` holds the callees being searched (a recursive call adds
/// nothing).
fn call_reaches_converged_lanes(op: OperationRef<'_, '_>, visiting: &mut Vec<String>) -> bool {
    match callee_name(op) {
        Some(callee) => callee_reaches_converged_lanes(op, callee, visiting),
        None => match indirect_callees(op) {
            Some(callees) => callees
                .into_iter()
                .any(|callee| callee_reaches_converged_lanes(op, callee, visiting)),
            None => true,
        },
    }
}

/// [`call_reaches_converged_lanes`] for one function the call `op` may
/// call.
fn callee_reaches_converged_lanes(
    op: OperationRef<'_, '_>,
    callee: String,
    visiting: &mut Vec<String>,
) -> bool {
    if visiting.contains(&callee) {
        return false;
    }
    let Some(function) = lookup_symbol(op, &callee) else {
        return true;
    };
    let body = function
        .region(0)
        .ok()
        .and_then(|region| region.first_block().map(|_| region));
    let Some(body) = body else {
        let declared_plain = op_name(function) == "llvm.func"
            && function.attribute("convergent").is_err()
            && op.attribute("convergent").is_err();
        let library = LANE_LOCAL_LIBRARY_PREFIXES
            .iter()
            .any(|prefix| callee.starts_with(prefix));
        return !(declared_plain || library);
    };
    visiting.push(callee);
    let reaches = edit::blocks(body)
        .into_iter()
        .flat_map(edit::operations)
        .any(|inner| needs_converged_lanes_within(inner, visiting));
    visiting.pop();
    reaches
}

/// The functions an indirect `llvm.call` may call, when its callee pointer
/// can only be one of them: the address of a function
/// (`llvm.mlir.addressof`), a `llvm.select` between such pointers, or a
/// `llvm.load` from a constant global (`llvm.mlir.global constant`,
/// through `llvm.getelementptr`s and `llvm.addrspacecast`s) whose
/// initializer is built from function addresses only (what a front end
/// makes of `fn_t table[] = {f, g, h}; table[i](x)`): every function it
/// names. `None` when anything else could be called.
fn indirect_callees(op: OperationRef<'_, '_>) -> Option<Vec<String>> {
    if op_name(op) != "llvm.call" {
        return None;
    }
    let mut callees = Vec::new();
    function_pointer_targets(op, op.operand(0).ok()?, &mut callees, 0)?;
    callees.sort();
    callees.dedup();
    Some(callees)
}

/// How deep [`function_pointer_targets`] follows selects.
const MAX_POINTER_DEPTH: usize = 8;

/// Adds to `callees` the functions `pointer` may be the address of; `None`
/// if it may be anything else. `call` finds the symbols.
fn function_pointer_targets(
    call: OperationRef<'_, '_>,
    pointer: Value<'_, '_>,
    callees: &mut Vec<String>,
    depth: usize,
) -> Option<()> {
    if depth > MAX_POINTER_DEPTH {
        return None;
    }
    let defining = edit::defining_op(pointer)?;
    match op_name(defining).as_str() {
        "llvm.mlir.addressof" => {
            let name = symbol_attribute(defining, "global_name")?;
            let function = lookup_symbol(call, &name)?;
            (op_name(function) == "llvm.func").then(|| callees.push(name))
        }
        "llvm.select" => {
            for operand in [1, 2] {
                let side = defining.operand(operand).ok()?;
                function_pointer_targets(call, side, callees, depth + 1)?;
            }
            Some(())
        }
        "llvm.load" => {
            let table = constant_global_of(call, defining.operand(0).ok()?)?;
            callees.extend(functions_in_initializer(call, table)?);
            Some(())
        }
        _ => None,
    }
}

/// The `llvm.mlir.global constant` that `address` points into: an
/// `llvm.mlir.addressof` of it, through `llvm.getelementptr` bases and
/// `llvm.addrspacecast`s.
fn constant_global_of<'c, 'a>(
    call: OperationRef<'c, 'a>,
    address: Value<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    let mut address = address;
    loop {
        let defining = edit::defining_op(address)?;
        match op_name(defining).as_str() {
            "llvm.getelementptr" | "llvm.addrspacecast" => address = defining.operand(0).ok()?,
            "llvm.mlir.addressof" => {
                let name = symbol_attribute(defining, "global_name")?;
                let global = lookup_symbol(call, &name)?;
                let constant =
                    op_name(global) == "llvm.mlir.global" && global.attribute("constant").is_ok();
                return constant.then_some(global);
            }
            _ => return None,
        }
    }
}

/// Operations a constant initializer of function addresses is built from.
const TABLE_INITIALIZER_OPS: [&str; 7] = [
    "llvm.mlir.addressof",
    "llvm.mlir.undef",
    "llvm.mlir.poison",
    "llvm.mlir.zero",
    "llvm.insertvalue",
    "llvm.return",
    "llvm.mlir.constant",
];

/// The functions whose addresses the initializer region of `global` holds;
/// `None` if it has no initializer region, holds anything but
/// [`TABLE_INITIALIZER_OPS`], or takes the address of a non-function.
fn functions_in_initializer(
    call: OperationRef<'_, '_>,
    global: OperationRef<'_, '_>,
) -> Option<Vec<String>> {
    let initializer = global.region(0).ok()?;
    initializer.first_block()?;
    let mut functions = Vec::new();
    for op in edit::blocks(initializer)
        .into_iter()
        .flat_map(edit::operations)
    {
        let name = op_name(op);
        if !TABLE_INITIALIZER_OPS.contains(&name.as_str()) {
            return None;
        }
        if name == "llvm.mlir.addressof" {
            let symbol = symbol_attribute(op, "global_name")?;
            if op_name(lookup_symbol(call, &symbol)?) != "llvm.func" {
                return None;
            }
            functions.push(symbol);
        }
    }
    Some(functions)
}

/// The flat symbol reference attribute `name` of `op`.
fn symbol_attribute(op: OperationRef<'_, '_>, name: &str) -> Option<String> {
    let attribute = op.attribute(name).ok()?;
    let symbol = melior::ir::attribute::FlatSymbolRefAttribute::try_from(attribute).ok()?;
    Some(symbol.value().to_string())
}

/// The symbol a direct call names (`callee`), if it is one.
fn callee_name(op: OperationRef<'_, '_>) -> Option<String> {
    symbol_attribute(op, "callee")
}

/// The symbol `name` (a function or a global) as the nearest enclosing
/// symbol table (module, `gpu.module`) defines it: the first ancestor whose
/// single block holds an operation with that `sym_name`.
fn lookup_symbol<'c, 'a>(op: OperationRef<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let mut ancestor = op.parent_operation();
    while let Some(table) = ancestor {
        if table.region_count() == 1 {
            let region = table.region(0).ok()?;
            if let Some(block) = region.first_block() {
                let found = edit::operations(block).into_iter().find(|candidate| {
                    string_attribute(*candidate, "sym_name").as_deref() == Some(name)
                });
                if found.is_some() {
                    return found;
                }
            }
        }
        ancestor = table.parent_operation();
    }
    None
}

fn op_name(op: OperationRef<'_, '_>) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// PTX opcodes (their first dot-separated part) whose meaning depends on
/// which threads execute them together: warp and block collectives,
/// barriers, the warp-wide matrix operations, and `call` (a callee we cannot
/// see). Everything else in PTX runs per thread.
const CONVERGENT_PTX_OPCODES: &[&str] = &[
    "activemask",
    "bar",
    "barrier",
    "call",
    "elect",
    "ldmatrix",
    "match",
    "mma",
    "movmatrix",
    "redux",
    "setmaxnreg",
    "shfl",
    "stmatrix",
    "tcgen05",
    "vote",
    "wgmma",
    "wmma",
];

/// True if the PTX text of an inline assembly block (as NVIDIA's CUDA
/// headers write it: `mad.lo.cc.u32 $0, $2, $3, $4;`, `nanosleep.u32 $0;`,
/// braces, `.reg` declarations, `@p` guards, labels) holds only
/// instructions that run per thread, so that a diverged group of lanes runs
/// it as the thread-level program does. False for the collectives,
/// barriers, warp matrix operations and `call` (the opcodes of
/// `CONVERGENT_PTX_OPCODES`) and for text it cannot read (an instruction
/// that does not start with an opcode).
pub(crate) fn ptx_is_lane_local(text: &str) -> bool {
    text.split([';', '\n'])
        .map(|statement| {
            statement
                .trim()
                .trim_start_matches('{')
                .trim_end_matches('}')
                .trim()
        })
        .filter(|statement| !statement.is_empty() && !statement.starts_with("//"))
        .all(|statement| {
            // `.reg .pred p` and other directives.
            if statement.starts_with('.') {
                return true;
            }
            // An `L1:` label, a `@p` / `@!p` guard, then the opcode.
            let mut words = statement.split_whitespace().peekable();
            words.next_if(|word| word.ends_with(':'));
            words.next_if(|word| word.starts_with('@'));
            let Some(opcode) = words.next() else {
                return true;
            };
            let root = opcode.split('.').next().unwrap_or_default();
            !root.is_empty()
                && root.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && root.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
                && !CONVERGENT_PTX_OPCODES.contains(&root)
        })
}

/// Per block of `graph`: it holds an operation that needs converged lanes
/// ([`needs_converged_lanes`]).
pub(crate) fn blocks_needing_converged_lanes(
    graph: &super::region_graph::RegionGraph<'_, '_>,
) -> Vec<bool> {
    (0..graph.num_blocks())
        .map(crate::analysis::cfg::BlockId::new)
        .map(|b| {
            edit::operations(graph.block(b))
                .into_iter()
                .any(needs_converged_lanes)
        })
        .collect()
}

/// True if `op` is an `llvm.inline_asm` that computes its results from its
/// operands only: without `has_side_effects`, without a `~{memory}`
/// clobber, and with PTX that runs per thread ([`ptx_is_lane_local`]). LLVM
/// deletes such a block when nothing reads its results, and so may a
/// cleanup: no other thread can be waiting for it (that needs a
/// collective opcode, which `ptx_is_lane_local` rejects).
pub(crate) fn is_pure_lane_local_asm(op: OperationRef<'_, '_>) -> bool {
    op_name(op) == names::LLVM_INLINE_ASM
        && op.attribute("has_side_effects").is_err()
        && string_attribute(op, "constraints").is_some_and(|c| !c.contains("~{memory}"))
        && string_attribute(op, names::ASM_STRING_ATTR).is_some_and(|text| ptx_is_lane_local(&text))
}

fn string_attribute(op: OperationRef<'_, '_>, name: &str) -> Option<String> {
    let attribute = op.attribute(name).ok()?;
    StringAttribute::try_from(attribute)
        .ok()
        .map(|attribute| attribute.value().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_masks_run_under_the_exec_bit() {
        for name in [
            "nvvm.shfl.sync",
            "nvvm.vote.sync",
            "nvvm.match.sync",
            "nvvm.bar.warp.sync",
            "nvvm.redux.sync",
            "nvvm.elect.sync",
            "llvm.nvvm.shfl.sync.up.i32",
            "llvm.nvvm.shfl.sync.bfly.f32p",
            "llvm.nvvm.vote.ballot.sync",
            "llvm.nvvm.vote.any.sync",
            "llvm.nvvm.match.any.sync.i32",
            "llvm.nvvm.match.all.sync.i32p",
            "llvm.nvvm.bar.warp.sync",
            "llvm.nvvm.redux.sync.add",
            "llvm.nvvm.redux.sync.umax",
            "gpu.shuffle",
            "gpu.rotate",
        ] {
            let members = members_of_name(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(members.lowering(), Lowering::UnderExecBit, "{name}");
        }
        assert_eq!(
            members_of_name("llvm.nvvm.redux.sync.add"),
            Some(Mask { operand: 1 })
        );
    }

    #[test]
    fn inline_ptx_is_lane_local_unless_it_holds_a_collective() {
        for text in [
            "{\n\tmad.lo.cc.u32   $0, $2, $3, $4;\n\tmadc.hi.u32     $1, $2, $3,  0;\n\t}",
            "rcp.approx.ftz.f32 $0,$1;",
            "nanosleep.u32 $0;",
            "{ .reg .pred p; setp.ne.b32 p, $1, 0; @p add.s32 $0, $0, 1; }",
            "mov.u32 $0, %laneid;",
            "L1: bra L1;",
        ] {
            assert!(ptx_is_lane_local(text), "{text}");
        }
        for text in [
            "activemask.b32 $0;",
            "shfl.sync.idx.b32 $0, $1, $2, $3, $4;",
            "{ .reg .pred p; vote.sync.any.pred p, $1, $2; }",
            "@p bar.sync 0;",
            "barrier.sync.aligned 0;",
            "wmma.load.a.sync.aligned.row.m16n16k16.f16 {$0}, [$1];",
            "call (retval), f, (param);",
            "$0 = 1;",
        ] {
            assert!(!ptx_is_lane_local(text), "{text}");
        }
    }

    #[test]
    fn activemask_is_the_exec_mask_and_barriers_the_whole_block() {
        assert_eq!(members_of_name("llvm.nvvm.activemask"), Some(Executing));
        assert_eq!(Executing.lowering(), Lowering::ExecMask);
        for name in [
            "nvvm.barrier0",
            "nvvm.barrier",
            "llvm.nvvm.barrier.cta.sync.aligned.all",
            "llvm.nvvm.barrier0",
            "gpu.barrier",
        ] {
            assert_eq!(members_of_name(name), Some(WholeBlock), "{name}");
        }
        for name in [
            "gpu.subgroup_reduce",
            "nvvm.mma.sync",
            "nvvm.wgmma.mma_async",
        ] {
            assert_eq!(members_of_name(name), Some(WholeWarp), "{name}");
        }
    }

    #[test]
    fn fences_are_ordered_but_no_collective() {
        for name in [
            "llvm.nvvm.membar.gl",
            "llvm.nvvm.membar.cta",
            "nvvm.memory.barrier",
        ] {
            assert_eq!(members_of_name(name), Some(EveryThread), "{name}");
        }
        assert_eq!(EveryThread.lowering(), Lowering::EveryLiveLane);
    }

    #[test]
    fn plain_operations_are_not_in_the_table() {
        for name in [
            "arith.addi",
            "nvvm.read.ptx.sreg.laneid",
            "llvm.nvvm.read.ptx.sreg.tid.x",
            "memref.store",
            "llvm.call_intrinsic",
            "llvm.inline_asm",
            "gpu.subgroup_size",
            "gpu.subgroup_id",
            "rocdl.sched.barrier",
        ] {
            assert_eq!(members_of_name(name), None, "{name}");
            assert!(!is_convergent_name(name), "{name}");
        }
    }

    #[test]
    fn amdgpu_intrinsics_are_collectives_like_their_ops() {
        for (op, intrinsic) in [
            ("rocdl.readfirstlane", "llvm.amdgcn.readfirstlane.i32"),
            ("rocdl.ds_bpermute", "llvm.amdgcn.ds.bpermute"),
            ("rocdl.update.dpp", "llvm.amdgcn.update.dpp.i32"),
            ("rocdl.ballot", "llvm.amdgcn.ballot.i64"),
            ("rocdl.s.barrier", "llvm.amdgcn.s.barrier"),
        ] {
            assert_eq!(members_of_name(op), members_of_name(intrinsic), "{op}");
            assert_eq!(
                lane_result_of_name(op, false),
                lane_result_of_name(intrinsic, true),
                "{op}"
            );
        }
    }

    #[test]
    fn lane_results_need_the_right_spelling() {
        assert_eq!(
            lane_result_of_name("gpu.shuffle", false),
            Some(LaneResult::PerLane)
        );
        assert_eq!(
            lane_result_of_name("llvm.nvvm.redux.sync.add", true),
            Some(LaneResult::Shared)
        );
        // An operation is never looked up as an intrinsic, nor the reverse.
        assert_eq!(lane_result_of_name("llvm.nvvm.redux.sync.add", false), None);
        assert_eq!(lane_result_of_name("nvvm.redux.sync", true), None);
    }
}
