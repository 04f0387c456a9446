//! Where divergence comes from: one table that turns every spelling of an
//! operation into an [`OpKind`] for the uniformity analysis.
//!
//! Front ends spell the same source in several ways. The thread id is
//! `gpu.thread_id x` in the `gpu` dialect, `nvvm.read.ptx.sreg.tid.x` or
//! `rocdl.workitem.id.x` as a dialect op, `llvm.call_intrinsic
//! "llvm.amdgcn.workitem.id.x"` after `mlir-translate --import-llvm` of an
//! intrinsic MLIR has no op for, and `llvm.inline_asm "mov.u32 $0,
//! %tid.x;"` in CUDA code that reads it by hand. [`SOURCE_TABLE`] lists
//! each source once per spelling, as data, and `docs/divergence-sources.md`
//! is generated from it ([`markdown_table`]).
//!
//! # How an operation is classified, first match wins
//!
//! 1. **The user's word.** An op carrying `spmd.divergent` is a source, one
//!    carrying `spmd.uniform` is uniform. Then the names of
//!    [`ExtraSources`] (the `divergent-ops` / `uniform-ops` pass options),
//!    matched against the op name and, for `llvm.call_intrinsic`, the
//!    intrinsic name (`name*` matches a prefix).
//! 2. **The tables**, by op name or intrinsic name: [`SOURCE_TABLE`] here
//!    (thread and grid identity, atomics, spmd's own values, constants,
//!    math), then the one table of collectives and barriers in
//!    [`crate::ir::collectives`], whose [`LaneResult`] says whether a
//!    collective's result differs per lane (shuffles, matrix fragments,
//!    `elect.sync`), is shared by the lanes executing it (votes, ballots,
//!    reductions, reads of one lane) or follows its operands.
//! 3. **Sound defaults for what the table does not know:** unknown
//!    intrinsics (`llvm.call_intrinsic` of a name the table lacks), inline
//!    assembly and calls are divergent. Loads and atomics through private
//!    or generic memory (`memref.alloca`, `#gpu.address_space<private>`,
//!    `!llvm.ptr` and `!llvm.ptr<5>`) are divergent: each thread has its
//!    own copy of private memory, so the same address reads different
//!    values, and a generic pointer may point there (LLVM's NVPTX and
//!    AMDGPU backends say the same).
//! 4. **Everything else** is data dependence ([`OpKind::Pure`]): divergent
//!    iff an operand is.
//!
//! Operations with regions (`scf.if`, `scf.for`, ...) are summarised by the
//! adapter: their results depend on their operands and on every value their
//! regions use from above, and they are a source if a nested op is.

use super::uniformity::OpKind;
use crate::ir::collectives::{self, LaneResult};
use crate::ir::names;

/// How an entry of the table names operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// An operation name, exactly.
    Op(&'static str),
    /// Operation names starting with this prefix.
    OpPrefix(&'static str),
    /// The `intrin` name of `llvm.call_intrinsic`, exactly.
    Intrinsic(&'static str),
    /// Intrinsic names starting with this prefix (`llvm.smax.i32`, ...).
    IntrinsicPrefix(&'static str),
}

/// What an entry makes of the operation's results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Behaviour {
    /// A divergence source.
    Divergent,
    /// Uniform whatever the operands.
    Uniform,
    /// A constant: uniform and compared by value.
    Constant,
    /// Data dependence: divergent iff an operand is.
    Data,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// Which operations (or intrinsics) the row matches.
    pub(crate) spelling: Spelling,
    /// What the matched operations' results are.
    pub(crate) behaviour: Behaviour,
    /// The family the row belongs to, for the documentation
    /// (`markdown_table`, which only the unit test that writes the docs
    /// calls).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) family: &'static str,
}

const fn row(spelling: Spelling, behaviour: Behaviour, family: &'static str) -> Entry {
    Entry {
        spelling,
        behaviour,
        family,
    }
}

use Behaviour::{Constant, Data, Divergent, Uniform};
use Spelling::{Intrinsic as I, IntrinsicPrefix as IP, Op, OpPrefix as OP};

const THREAD: &str = "thread identity";
const MEMORY: &str = "atomics (each thread sees another old value)";
const GRID: &str = "uniform by construction: block and grid";
const SPMD: &str = "spmd wave-level values";
const CONSTANTS: &str = "constants";
const MATH: &str = "target math intrinsics (data dependence)";
const GENERIC: &str = "generic LLVM intrinsics (data dependence)";

/// Every known divergence source and uniform value, in every spelling.
pub(crate) const SOURCE_TABLE: &[Entry] = &[
    // Thread identity.
    row(Op("gpu.thread_id"), Divergent, THREAD),
    row(Op("gpu.lane_id"), Divergent, THREAD),
    row(Op("gpu.global_id"), Divergent, THREAD),
    row(OP("nvvm.read.ptx.sreg.tid."), Divergent, THREAD),
    row(Op("nvvm.read.ptx.sreg.laneid"), Divergent, THREAD),
    row(OP("nvvm.read.ptx.sreg.lanemask"), Divergent, THREAD),
    row(IP("llvm.nvvm.read.ptx.sreg.tid."), Divergent, THREAD),
    row(I("llvm.nvvm.read.ptx.sreg.laneid"), Divergent, THREAD),
    row(IP("llvm.nvvm.read.ptx.sreg.lanemask"), Divergent, THREAD),
    row(OP("rocdl.workitem.id."), Divergent, THREAD),
    row(OP("rocdl.mbcnt."), Divergent, THREAD),
    row(IP("llvm.amdgcn.workitem.id."), Divergent, THREAD),
    row(IP("llvm.amdgcn.mbcnt."), Divergent, THREAD),
    // Atomics.
    row(Op("memref.atomic_rmw"), Divergent, MEMORY),
    row(Op("memref.generic_atomic_rmw"), Divergent, MEMORY),
    row(Op("llvm.atomicrmw"), Divergent, MEMORY),
    row(Op("llvm.cmpxchg"), Divergent, MEMORY),
    row(IP("llvm.nvvm.atomic."), Divergent, MEMORY),
    row(IP("llvm.amdgcn.atomic."), Divergent, MEMORY),
    row(IP("llvm.amdgcn.global.atomic."), Divergent, MEMORY),
    row(IP("llvm.amdgcn.ds."), Divergent, MEMORY),
    // Block and grid.
    row(Op("gpu.block_id"), Uniform, GRID),
    row(Op("gpu.block_dim"), Uniform, GRID),
    row(Op("gpu.grid_dim"), Uniform, GRID),
    row(Op("gpu.cluster_id"), Uniform, GRID),
    row(Op("gpu.cluster_dim"), Uniform, GRID),
    row(Op("gpu.cluster_block_id"), Uniform, GRID),
    row(Op("gpu.cluster_dim_blocks"), Uniform, GRID),
    row(Op("gpu.subgroup_size"), Uniform, GRID),
    row(Op("gpu.subgroup_id"), Uniform, GRID),
    row(Op("gpu.num_subgroups"), Uniform, GRID),
    row(OP("nvvm.read.ptx.sreg.ctaid."), Uniform, GRID),
    row(OP("nvvm.read.ptx.sreg.ntid."), Uniform, GRID),
    row(OP("nvvm.read.ptx.sreg.nctaid."), Uniform, GRID),
    row(OP("nvvm.read.ptx.sreg.clusterid."), Uniform, GRID),
    row(OP("nvvm.read.ptx.sreg.nclusterid."), Uniform, GRID),
    row(Op("nvvm.read.ptx.sreg.warpsize"), Uniform, GRID),
    row(IP("llvm.nvvm.read.ptx.sreg.ctaid."), Uniform, GRID),
    row(IP("llvm.nvvm.read.ptx.sreg.ntid."), Uniform, GRID),
    row(IP("llvm.nvvm.read.ptx.sreg.nctaid."), Uniform, GRID),
    row(IP("llvm.nvvm.read.ptx.sreg.clusterid."), Uniform, GRID),
    row(IP("llvm.nvvm.read.ptx.sreg.nclusterid."), Uniform, GRID),
    row(I("llvm.nvvm.read.ptx.sreg.warpsize"), Uniform, GRID),
    row(OP("rocdl.workgroup."), Uniform, GRID),
    row(OP("rocdl.grid."), Uniform, GRID),
    row(IP("llvm.amdgcn.workgroup.id."), Uniform, GRID),
    row(I("llvm.amdgcn.dispatch.ptr"), Uniform, GRID),
    row(I("llvm.amdgcn.implicitarg.ptr"), Uniform, GRID),
    row(I("llvm.amdgcn.kernarg.segment.ptr"), Uniform, GRID),
    row(I("llvm.amdgcn.dispatch.id"), Uniform, GRID),
    row(I("llvm.amdgcn.queue.ptr"), Uniform, GRID),
    row(I("llvm.amdgcn.wavefrontsize"), Uniform, GRID),
    // spmd's own wave-level values.
    row(Op(names::BALLOT), Uniform, SPMD),
    row(Op(names::EXEC_READ), Uniform, SPMD),
    row(OP("spmd.mask."), Uniform, SPMD),
    row(OP(names::CONVERGENCE_PREFIX), Uniform, SPMD),
    // Constants.
    row(Op(names::ARITH_CONSTANT), Constant, CONSTANTS),
    row(Op(names::LLVM_CONSTANT), Constant, CONSTANTS),
    row(Op(names::UB_POISON), Constant, CONSTANTS),
    row(Op("llvm.mlir.poison"), Constant, CONSTANTS),
    row(Op("llvm.mlir.undef"), Constant, CONSTANTS),
    row(Op("llvm.mlir.zero"), Constant, CONSTANTS),
    row(Op("llvm.mlir.addressof"), Constant, CONSTANTS),
    // Target math: pure functions of their operands.
    row(IP("llvm.nvvm.fabs"), Data, MATH),
    row(IP("llvm.nvvm.fmin"), Data, MATH),
    row(IP("llvm.nvvm.fmax"), Data, MATH),
    row(IP("llvm.nvvm.ex2."), Data, MATH),
    row(IP("llvm.nvvm.lg2."), Data, MATH),
    row(IP("llvm.nvvm.sin."), Data, MATH),
    row(IP("llvm.nvvm.cos."), Data, MATH),
    row(IP("llvm.nvvm.sqrt."), Data, MATH),
    row(IP("llvm.nvvm.rsqrt."), Data, MATH),
    row(IP("llvm.nvvm.rcp."), Data, MATH),
    row(IP("llvm.nvvm.div."), Data, MATH),
    row(IP("llvm.nvvm.fma."), Data, MATH),
    row(IP("llvm.nvvm.mul24."), Data, MATH),
    row(IP("llvm.nvvm.mulhi."), Data, MATH),
    row(IP("llvm.nvvm.saturate."), Data, MATH),
    row(IP("llvm.nvvm.f2i."), Data, MATH),
    row(IP("llvm.nvvm.i2f."), Data, MATH),
    row(IP("llvm.nvvm.ldg.global."), Data, MATH),
    row(IP("llvm.amdgcn.rcp"), Data, MATH),
    row(IP("llvm.amdgcn.rsq"), Data, MATH),
    row(IP("llvm.amdgcn.sin"), Data, MATH),
    row(IP("llvm.amdgcn.cos"), Data, MATH),
    row(IP("llvm.amdgcn.fract"), Data, MATH),
    row(IP("llvm.amdgcn.ldexp"), Data, MATH),
    row(IP("llvm.amdgcn.frexp"), Data, MATH),
    row(IP("llvm.amdgcn.fmed3"), Data, MATH),
    row(IP("llvm.amdgcn.ubfe"), Data, MATH),
    row(IP("llvm.amdgcn.sbfe"), Data, MATH),
    // Generic intrinsics: pure functions of their operands.
    row(IP("llvm.smax."), Data, GENERIC),
    row(IP("llvm.smin."), Data, GENERIC),
    row(IP("llvm.umax."), Data, GENERIC),
    row(IP("llvm.umin."), Data, GENERIC),
    row(IP("llvm.abs."), Data, GENERIC),
    row(IP("llvm.ctpop."), Data, GENERIC),
    row(IP("llvm.ctlz."), Data, GENERIC),
    row(IP("llvm.cttz."), Data, GENERIC),
    row(IP("llvm.bswap."), Data, GENERIC),
    row(IP("llvm.bitreverse."), Data, GENERIC),
    row(IP("llvm.fshl."), Data, GENERIC),
    row(IP("llvm.fshr."), Data, GENERIC),
    row(IP("llvm.fabs."), Data, GENERIC),
    row(IP("llvm.floor."), Data, GENERIC),
    row(IP("llvm.ceil."), Data, GENERIC),
    row(IP("llvm.trunc."), Data, GENERIC),
    row(IP("llvm.round."), Data, GENERIC),
    row(IP("llvm.roundeven."), Data, GENERIC),
    row(IP("llvm.rint."), Data, GENERIC),
    row(IP("llvm.nearbyint."), Data, GENERIC),
    row(IP("llvm.sqrt."), Data, GENERIC),
    row(IP("llvm.fma."), Data, GENERIC),
    row(IP("llvm.fmuladd."), Data, GENERIC),
    row(IP("llvm.copysign."), Data, GENERIC),
    row(IP("llvm.minnum."), Data, GENERIC),
    row(IP("llvm.maxnum."), Data, GENERIC),
    row(IP("llvm.minimum."), Data, GENERIC),
    row(IP("llvm.maximum."), Data, GENERIC),
    row(IP("llvm.exp."), Data, GENERIC),
    row(IP("llvm.exp2."), Data, GENERIC),
    row(IP("llvm.log."), Data, GENERIC),
    row(IP("llvm.log2."), Data, GENERIC),
    row(IP("llvm.log10."), Data, GENERIC),
    row(IP("llvm.sin."), Data, GENERIC),
    row(IP("llvm.cos."), Data, GENERIC),
    row(IP("llvm.pow."), Data, GENERIC),
    row(IP("llvm.powi."), Data, GENERIC),
    row(IP("llvm.sadd."), Data, GENERIC),
    row(IP("llvm.uadd."), Data, GENERIC),
    row(IP("llvm.ssub."), Data, GENERIC),
    row(IP("llvm.usub."), Data, GENERIC),
    row(IP("llvm.smul."), Data, GENERIC),
    row(IP("llvm.umul."), Data, GENERIC),
    row(IP("llvm.expect."), Data, GENERIC),
    row(IP("llvm.lifetime."), Data, GENERIC),
    row(I("llvm.assume"), Data, GENERIC),
];

/// Operations whose results are read from memory at the address in operand
/// 0 (a memref or a pointer): divergent when that memory may be private.
/// (Atomics are sources anyway.)
const MEMORY_READS: &[&str] = &[
    "memref.load",
    "vector.load",
    "vector.transfer_read",
    "affine.load",
    "llvm.load",
];

/// Calls: divergent unless marked (no interprocedural analysis).
const CALLS: &[&str] = &["func.call", "func.call_indirect", "llvm.call"];

/// The op every imported intrinsic without a dialect op becomes.
pub(crate) const CALL_INTRINSIC: &str = "llvm.call_intrinsic";
/// Inline assembly: divergent unless marked.
pub(crate) const INLINE_ASM: &str = "llvm.inline_asm";
/// Attribute making an operation (or argument) a divergence source (one
/// name for both, defined in [`crate::ir::names`]).
pub(crate) const DIVERGENT_ATTR: &str = crate::ir::names::DIVERGENT_ARGUMENT_ATTR;
/// Attribute making an operation's results (or an argument) uniform.
pub(crate) const UNIFORM_ATTR: &str = crate::ir::names::UNIFORM_ARGUMENT_ATTR;

/// The user's additions to the table: op or intrinsic names (`name*`
/// matches a prefix) that are divergence sources or uniform.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtraSources {
    /// Names whose results are divergence sources (the `divergent-ops`
    /// option); checked first, so they win over `uniform`.
    pub divergent: Vec<String>,
    /// Names whose results are uniform whatever the operands (the
    /// `uniform-ops` option).
    pub uniform: Vec<String>,
}

impl ExtraSources {
    /// The user's verdict on `name`, if any; divergent wins over uniform.
    fn lookup(&self, name: &str) -> Option<Behaviour> {
        let matches = |patterns: &[String]| {
            patterns
                .iter()
                .any(|pattern| match pattern.strip_suffix('*') {
                    Some(prefix) => name.starts_with(prefix),
                    None => pattern == name,
                })
        };
        if matches(&self.divergent) {
            Some(Divergent)
        } else if matches(&self.uniform) {
            Some(Uniform)
        } else {
            None
        }
    }
}

/// What the classifier needs to know about one operation, read off the IR
/// by the adapter (so that this module stays IR-independent and testable).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpFacts<'n> {
    /// The operation name.
    pub(crate) name: &'n str,
    /// For `llvm.call_intrinsic`: the intrinsic name.
    pub(crate) intrinsic: Option<&'n str>,
    /// The op carries `spmd.divergent`.
    pub(crate) marked_divergent: bool,
    /// The op carries `spmd.uniform`.
    pub(crate) marked_uniform: bool,
    /// The op reads memory that may be private to each thread.
    pub(crate) reads_private_memory: bool,
}

/// The classification of one operation ([module docs](self)).
/// `constant_key` identifies the value of a constant.
pub(crate) fn classify(
    facts: &OpFacts<'_>,
    extra: &ExtraSources,
    constant_key: impl FnOnce() -> u64,
) -> OpKind {
    match behaviour(facts, extra) {
        Divergent => OpKind::Source,
        Uniform => OpKind::Uniform,
        Data => OpKind::Pure,
        Constant => OpKind::Constant(constant_key()),
    }
}

fn behaviour(facts: &OpFacts<'_>, extra: &ExtraSources) -> Behaviour {
    if facts.marked_divergent {
        return Divergent;
    }
    if facts.marked_uniform {
        return Uniform;
    }
    let user = extra
        .lookup(facts.name)
        .or_else(|| facts.intrinsic.and_then(|name| extra.lookup(name)));
    let known = || match facts.intrinsic {
        Some(intrinsic) if facts.name == CALL_INTRINSIC => {
            lookup_intrinsic(intrinsic).or_else(|| lookup_collective(intrinsic, true))
        }
        _ => lookup_op(facts.name).or_else(|| lookup_collective(facts.name, false)),
    };
    if let Some(behaviour) = user.or_else(known) {
        return behaviour;
    }
    let unknown_code =
        facts.name == CALL_INTRINSIC || facts.name == INLINE_ASM || CALLS.contains(&facts.name);
    if unknown_code || facts.reads_private_memory {
        Divergent
    } else {
        Data
    }
}

/// True for ops whose result is read from memory at their address operand.
pub(crate) fn is_memory_read(name: &str) -> bool {
    MEMORY_READS.contains(&name)
}

fn lookup_op(name: &str) -> Option<Behaviour> {
    SOURCE_TABLE.iter().find_map(|entry| match entry.spelling {
        Op(op) if op == name => Some(entry.behaviour),
        OP(prefix) if name.starts_with(prefix) => Some(entry.behaviour),
        _ => None,
    })
}

fn lookup_intrinsic(name: &str) -> Option<Behaviour> {
    SOURCE_TABLE.iter().find_map(|entry| match entry.spelling {
        I(intrinsic) if intrinsic == name => Some(entry.behaviour),
        IP(prefix) if name.starts_with(prefix) => Some(entry.behaviour),
        _ => None,
    })
}

/// What the one table of collectives ([`crate::ir::collectives`]) says of
/// the results of `name` (an intrinsic name with `is_intrinsic`).
fn lookup_collective(name: &str, is_intrinsic: bool) -> Option<Behaviour> {
    collectives::lane_result_of_name(name, is_intrinsic).map(|result| match result {
        LaneResult::PerLane => Divergent,
        LaneResult::Shared => Uniform,
        LaneResult::FromOperands => Data,
    })
}

/// The table as Markdown, for `docs/divergence-sources.md` (written by a
/// unit test).
#[cfg(test)]
pub fn markdown_table() -> String {
    let mut text = String::from(
        "<!-- Generated from SOURCE_TABLE in src/analysis/divergence_sources.rs by\n     \
         `SPMD_UPDATE_DOCS=1 cargo test --lib divergence_sources`; do not edit. -->\n\
         # Divergence sources\n\n\
         How the uniformity analysis classifies an operation, first match wins:\n\n\
         1. `spmd.divergent` / `spmd.uniform` on the operation; then the pass options\n   \
         `divergent-ops=a,b,c*` / `uniform-ops=...` (op or intrinsic names, `*` = prefix).\n\
         2. The tables below, by operation name or by the `llvm.call_intrinsic` name:\n   \
         first the sources, then the collectives (from `src/ir/collectives.rs`).\n\
         3. Unknown intrinsics (`llvm.call_intrinsic`), inline assembly (`llvm.inline_asm`)\n   \
         and calls (`func.call`, `func.call_indirect`, `llvm.call`) are **divergent**.\n   \
         Loads and atomics through private or generic memory (`memref.alloca`,\n   \
         `#gpu.address_space<private>`, `!llvm.ptr`, `!llvm.ptr<5>`) are **divergent**.\n\
         4. Anything else: data dependence (divergent iff an operand is).\n\n\
         Function arguments: kernel arguments are uniform (`gpu.func ... kernel`, `gpu.kernel`,\n\
         `nvvm.kernel`, `rocdl.kernel`, `ptx_kernelcc`, `amdgpu_kernelcc`); other functions'\n\
         arguments are divergent; `spmd.uniform` / `spmd.divergent` on an argument override both.\n\n\
         | spelling | kind | result | family |\n|---|---|---|---|\n",
    );
    for entry in SOURCE_TABLE {
        let (kind, name) = match entry.spelling {
            Op(name) => ("op", format!("`{name}`")),
            OP(prefix) => ("op", format!("`{prefix}*`")),
            I(name) => ("intrinsic", format!("`{name}`")),
            IP(prefix) => ("intrinsic", format!("`{prefix}*`")),
        };
        let result = match entry.behaviour {
            Divergent => "divergent",
            Uniform => "uniform",
            Constant => "uniform (constant)",
            Data => "data dependence",
        };
        text.push_str(&format!(
            "| {name} | {kind} | {result} | {} |\n",
            entry.family
        ));
    }
    text.push_str(
        "\n## Collectives and barriers\n\n\
         Generated from the table of `src/ir/collectives.rs`, which branch folding and\n\
         the NVVM lowering read too. Names match operations and, with `llvm.` in front,\n\
         intrinsics (`nvvm.shfl.sync*` also matches `llvm.nvvm.shfl.sync.idx.i32`).\n\n\
         | spelling | members | result |\n|---|---|---|\n",
    );
    for (spelling, members, result) in collectives::rows() {
        let result = match result {
            LaneResult::PerLane => "divergent (per lane)",
            LaneResult::Shared => "uniform (shared by the lanes executing it)",
            LaneResult::FromOperands => "data dependence",
        };
        let members = match members {
            collectives::Members::Mask { operand } => format!("member mask (operand {operand})"),
            collectives::Members::FirstLanes => "the first `width` lanes".into(),
            collectives::Members::Executing => "the lanes executing it".into(),
            collectives::Members::WholeWarp => "the whole warp".into(),
            collectives::Members::WholeBlock => "the whole block".into(),
            collectives::Members::EveryThread => "each thread (ordering only)".into(),
        };
        text.push_str(&format!("| `{spelling}` | {members} | {result} |\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{classify, markdown_table, ExtraSources, OpFacts, OpKind};
    use crate::ir::names;

    fn kind_of(name: &str) -> OpKind {
        classify(
            &OpFacts {
                name,
                ..OpFacts::default()
            },
            &ExtraSources::default(),
            || 7,
        )
    }

    fn kind_of_intrinsic(intrinsic: &str) -> OpKind {
        let facts = OpFacts {
            name: names::LLVM_CALL_INTRINSIC,
            intrinsic: Some(intrinsic),
            ..OpFacts::default()
        };
        classify(&facts, &ExtraSources::default(), || 7)
    }

    #[test]
    fn classifies_each_family_in_every_spelling() {
        assert_eq!(kind_of("gpu.thread_id"), OpKind::Source);
        assert_eq!(kind_of("nvvm.read.ptx.sreg.tid.x"), OpKind::Source);
        assert_eq!(kind_of("rocdl.workitem.id.y"), OpKind::Source);
        assert_eq!(
            kind_of_intrinsic("llvm.nvvm.read.ptx.sreg.laneid"),
            OpKind::Source
        );
        assert_eq!(
            kind_of_intrinsic("llvm.amdgcn.workitem.id.x"),
            OpKind::Source
        );
        assert_eq!(kind_of_intrinsic("llvm.amdgcn.mbcnt.hi"), OpKind::Source);
        assert_eq!(kind_of("memref.atomic_rmw"), OpKind::Source);
        assert_eq!(kind_of("func.call"), OpKind::Source);
        assert_eq!(kind_of("llvm.inline_asm"), OpKind::Source);
        assert_eq!(kind_of("gpu.shuffle"), OpKind::Source);
        assert_eq!(kind_of("gpu.subgroup_reduce"), OpKind::Uniform);
        assert_eq!(kind_of("nvvm.read.ptx.sreg.ctaid.x"), OpKind::Uniform);
        assert_eq!(
            kind_of_intrinsic("llvm.nvvm.read.ptx.sreg.ctaid.x"),
            OpKind::Uniform
        );
        assert_eq!(
            kind_of_intrinsic("llvm.amdgcn.workgroup.id.x"),
            OpKind::Uniform
        );
        assert_eq!(
            kind_of_intrinsic("llvm.amdgcn.readfirstlane.i32"),
            OpKind::Uniform
        );
        assert_eq!(kind_of(names::ARITH_CONSTANT), OpKind::Constant(7));
        assert_eq!(kind_of("memref.load"), OpKind::Pure);
        assert_eq!(kind_of("arith.addi"), OpKind::Pure);
        assert_eq!(kind_of_intrinsic("llvm.smax.i32"), OpKind::Pure);
    }

    #[test]
    fn collectives_are_classified_by_their_lane_result() {
        // Data read from other lanes, a lane's share of a matrix, the one
        // elected lane: sources whatever the operands.
        for op in [
            "nvvm.shfl.sync",
            "nvvm.elect.sync",
            "nvvm.mma.sync",
            "nvvm.ldmatrix",
            "gpu.rotate",
            "gpu.subgroup_mma_compute",
            "rocdl.update.dpp",
            "rocdl.ds_swizzle",
            "rocdl.permlane16.swap",
        ] {
            assert_eq!(kind_of(op), OpKind::Source, "{op}");
        }
        for intrinsic in [
            "llvm.nvvm.shfl.sync.bfly.i32",
            "llvm.amdgcn.mov.dpp.i32",
            "llvm.amdgcn.permlane64",
        ] {
            assert_eq!(kind_of_intrinsic(intrinsic), OpKind::Source, "{intrinsic}");
        }
        // One value for every lane executing it together.
        for op in [
            "nvvm.vote.sync",
            "nvvm.redux.sync",
            "rocdl.ballot",
            "gpu.all_reduce",
        ] {
            assert_eq!(kind_of(op), OpKind::Uniform, "{op}");
        }
        for intrinsic in [
            "llvm.nvvm.vote.ballot.sync",
            "llvm.nvvm.activemask",
            "llvm.amdgcn.wave.reduce.umin",
            "llvm.amdgcn.icmp.i64.i32",
        ] {
            assert_eq!(kind_of_intrinsic(intrinsic), OpKind::Uniform, "{intrinsic}");
        }
        // Barriers and matches follow their operands; the subgroup's size
        // and id come from this module's own table, not the collectives'.
        assert_eq!(kind_of("nvvm.match.sync"), OpKind::Pure);
        assert_eq!(kind_of("nvvm.barrier0"), OpKind::Pure);
        assert_eq!(kind_of("gpu.subgroup_size"), OpKind::Uniform);
        // An intrinsic name is not an operation name, and the reverse.
        assert_eq!(kind_of("llvm.nvvm.vote.ballot.sync"), OpKind::Pure);
        assert_eq!(kind_of_intrinsic("nvvm.vote.sync"), OpKind::Source);
    }

    #[test]
    fn unknown_intrinsics_are_divergent() {
        assert_eq!(
            kind_of_intrinsic("llvm.amdgcn.some.future.thing"),
            OpKind::Source
        );
        assert_eq!(kind_of_intrinsic("llvm.nvvm.unheard.of"), OpKind::Source);
    }

    #[test]
    fn marks_and_user_names_override_the_table() {
        let extra = ExtraSources {
            divergent: vec!["acme.lane".into(), "llvm.acme.*".into()],
            uniform: vec!["func.call".into()],
        };
        let facts = |name, intrinsic| OpFacts {
            name,
            intrinsic,
            ..OpFacts::default()
        };
        assert_eq!(
            classify(&facts("acme.lane", None), &extra, || 0),
            OpKind::Source
        );
        assert_eq!(
            classify(
                &facts(names::LLVM_CALL_INTRINSIC, Some("llvm.acme.id")),
                &extra,
                || 0
            ),
            OpKind::Source
        );
        assert_eq!(
            classify(&facts("func.call", None), &extra, || 0),
            OpKind::Uniform
        );
        let marked = OpFacts {
            name: "gpu.thread_id",
            marked_uniform: true,
            ..OpFacts::default()
        };
        assert_eq!(classify(&marked, &extra, || 0), OpKind::Uniform);
        let marked = OpFacts {
            name: "arith.addi",
            marked_divergent: true,
            ..OpFacts::default()
        };
        assert_eq!(classify(&marked, &extra, || 0), OpKind::Source);
    }

    #[test]
    fn private_memory_reads_are_divergent() {
        let facts = OpFacts {
            name: "memref.load",
            reads_private_memory: true,
            ..OpFacts::default()
        };
        assert_eq!(
            classify(&facts, &ExtraSources::default(), || 0),
            OpKind::Source
        );
    }

    /// `docs/divergence-sources.md` is generated from the table;
    /// `SPMD_UPDATE_DOCS=1` rewrites it.
    #[test]
    fn docs_table_is_up_to_date() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/divergence-sources.md");
        let expected = markdown_table();
        if std::env::var_os("SPMD_UPDATE_DOCS").is_some() {
            std::fs::write(path, &expected).expect("docs/ is writable");
        }
        let actual = std::fs::read_to_string(path).unwrap_or_default();
        assert!(actual == expected, "docs/divergence-sources.md is stale: run SPMD_UPDATE_DOCS=1 cargo test --lib divergence_sources");
    }
}
