//! Uniformity of an MLIR function: the adapter between a function region
//! and the IR-independent [`uniformity`](super::uniformity) core.
//!
//! ```text
//!   func.func / gpu.func region
//!      |  RegionGraph::snapshot           -> CfgGraph + CfgAnalysis
//!      |  snapshot values and operations  -> uniformity::Program
//!      v
//!   UniformityInfo  --queries by MLIR Value / Block-->  passes and users
//! ```
//!
//! Function arguments: the arguments of a kernel (in any front end's
//! spelling, see [`kernels`](super::kernels)) are uniform; other
//! functions' arguments follow [`UniformityOptions::default_arguments`]
//! (divergent unless told otherwise: a device function may be called from
//! divergent code), and `spmd.divergent` / `spmd.uniform` on an argument
//! override the default. Which operations are divergence sources is the
//! table of [`divergence_sources`], extended by
//! [`UniformityOptions::extra_sources`]. Terminators with two or more
//! successors are branches; their *condition* is every operand that is not
//! forwarded to a successor (the `i1` of `cf.cond_br`, the flag of
//! `cf.switch`, ...). An explicit `spmd.uniformity` mark on a branch is
//! trusted, as LLVM trusts `structurizecfg.uniform`. `spmd.exec.br_zero` is
//! uniform by definition (it reads the wave's exec mask).
//!
//! Operations in blocks unreachable from the entry never execute and are
//! reported uniform.

use super::{
    cfg::{BlockId, CfgAnalysis, Graph, Traversal},
    divergence_sources::{self, classify, ExtraSources, OpFacts},
    uniformity::{
        ArgumentKind, BranchMark, OpKind, ProgramBuilder, UniformityInfo, UniformityStats, ValueId,
    },
};
use crate::ir::key::{AttributeKey, NameKey, OperationKey, TypeKey, ValueKey};
use crate::ir::names;
use crate::{
    ir::{
        facts::{self, PrivateMemory, UniformityMark},
        region_graph::{RegionGraph, RegionGraphError},
    },
    support::FastMap,
};
use melior::ir::{
    attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute},
    block::BlockLike,
    operation::OperationLike,
    BlockRef, OperationRef, RegionRef, Value, ValueLike,
};
use std::{
    collections::hash_map::DefaultHasher,
    hash::{Hash, Hasher},
};

/// Name of the attribute that marks a branch uniform or divergent.
pub(crate) use crate::ir::names::UNIFORMITY_ATTR;

/// Options of the uniformity analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniformityOptions {
    /// Uniformity of non-kernel function arguments without a mark
    /// (divergent by default; kernel arguments are always uniform).
    pub default_arguments: ArgumentKind,
    /// The user's divergent and uniform op or intrinsic names, on top of
    /// the table (the `divergent-ops` / `uniform-ops` pass options).
    pub extra_sources: ExtraSources,
    /// Compute complete join lists (every block where divergent paths of a
    /// branch meet, not only those a transform uses); only reports that
    /// print them need this.
    pub complete_joins: bool,
}

/// The `default-arguments` option of the uniformity passes
/// (`uniformityOptions` in `SpmdPasses.td`): `uniform` or `divergent`.
pub fn argument_kind_of_option(name: &str) -> Option<ArgumentKind> {
    match name {
        "uniform" => Some(ArgumentKind::Uniform),
        "divergent" => Some(ArgumentKind::Divergent),
        _ => None,
    }
}

/// The defaults of the uniformity passes' options (`default-arguments` as
/// `SpmdPasses.td` declares it; no extra sources).
impl Default for UniformityOptions {
    fn default() -> Self {
        let default_arguments = crate::ir::ods::spmd_print_uniformity::DEFAULT_ARGUMENTS;
        Self {
            default_arguments: argument_kind_of_option(default_arguments)
                .expect("the ODS default of default-arguments is a valid value"),
            extra_sources: ExtraSources::default(),
            complete_joins: false,
        }
    }
}

impl UniformityOptions {
    /// The defaults, with unmarked non-kernel arguments uniform: for
    /// callers that know every function is entered uniformly.
    pub fn uniform_arguments() -> Self {
        Self {
            default_arguments: ArgumentKind::Uniform,
            ..Self::default()
        }
    }
}

/// The uniformity of one function region, queryable by MLIR values and blocks.
pub struct RegionUniformity<'c, 'a> {
    graph: RegionGraph<'c, 'a>,
    cfg: CfgAnalysis,
    info: UniformityInfo,
    values: FastMap<ValueKey, ValueId>,
}

impl<'c, 'a> RegionUniformity<'c, 'a> {
    /// Analyses `region`, the body of the function-like `function`.
    pub fn compute(
        function: OperationRef<'c, 'a>,
        region: RegionRef<'c, 'a>,
        options: &UniformityOptions,
    ) -> Result<Self, RegionGraphError<'c>> {
        let mut timer = crate::support::PhaseTimer::new("uniformity");
        let graph = RegionGraph::snapshot(region)?;
        timer.lap("snapshot");
        // The CFG analyses need only the IR-independent graph: on large
        // regions they run on a second thread while this one reads the
        // operations, in dominance order from its own (cheap) traversal, so
        // neither waits.
        let cfg_graph = graph.graph();
        let mut snapshot = Snapshot {
            builder: ProgramBuilder::new(),
            values: FastMap::default(),
        };
        let cfg = if graph.num_blocks() < crate::support::BACKGROUND_MIN_BLOCKS {
            let cfg = CfgAnalysis::build(cfg_graph);
            snapshot.build(function, &graph, cfg.traversal(), options);
            cfg
        } else {
            std::thread::scope(|scope| {
                let analyses = scope.spawn(|| CfgAnalysis::build(cfg_graph));
                snapshot.build(function, &graph, &Traversal::build(cfg_graph), options);
                analyses
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        };
        timer.lap("program, cfg analyses");
        let mut info = UniformityInfo::new();
        info.set_complete_joins(options.complete_joins);
        info.compute(snapshot.builder.program(), graph.graph(), &cfg);
        let stats = info.stats();
        timer.lap(&format!(
            "propagation ({} nodes, {} full re-runs)",
            stats.propagation_work, stats.full_propagations
        ));
        Ok(Self {
            graph,
            cfg,
            info,
            values: snapshot.values,
        })
    }

    /// The CFG snapshot the analysis ran on.
    pub fn graph(&self) -> &RegionGraph<'c, 'a> {
        &self.graph
    }

    /// The CFG snapshot the analysis ran on, for a caller done with the rest.
    pub fn into_graph(self) -> RegionGraph<'c, 'a> {
        self.graph
    }

    /// The CFG analyses the uniformity analysis used.
    pub fn cfg(&self) -> &CfgAnalysis {
        &self.cfg
    }

    /// The IR-independent result.
    pub(crate) fn info(&self) -> &UniformityInfo {
        &self.info
    }

    /// Counts of the result and of the work the analysis did.
    pub fn stats(&self) -> UniformityStats {
        self.info.stats()
    }

    /// True if `value` (defined in the region) may differ between threads.
    /// Values not defined in the analysed region are reported divergent.
    pub fn is_divergent(&self, value: Value<'c, '_>) -> bool {
        self.values
            .get(&value_key(&value))
            .is_none_or(|&id| self.info.is_divergent(id))
    }

    /// True if the terminator of `block` is a divergent branch.
    pub fn is_divergent_branch(&self, block: BlockRef<'c, 'a>) -> bool {
        self.graph
            .id(block)
            .is_some_and(|id| self.info.is_divergent_branch(id))
    }

    /// True if the terminator of block `id` of the snapshot
    /// ([`RegionUniformity::graph`]) is a divergent branch.
    pub fn is_divergent_branch_id(&self, id: BlockId) -> bool {
        self.info.is_divergent_branch(id)
    }

    /// The block id of `block` in the snapshot.
    pub fn block_id(&self, block: BlockRef<'c, 'a>) -> Option<BlockId> {
        self.graph.id(block)
    }
}

fn value_key(value: &Value<'_, '_>) -> ValueKey {
    ValueKey::of(value)
}

/// Builds the uniformity program of one region.
struct Snapshot {
    builder: ProgramBuilder,
    values: FastMap<ValueKey, ValueId>,
}

impl Snapshot {
    fn build(
        &mut self,
        function: OperationRef<'_, '_>,
        graph: &RegionGraph<'_, '_>,
        traversal: &Traversal,
        options: &UniformityOptions,
    ) {
        self.builder.begin(graph.num_blocks());
        let entry_kinds = argument_kinds(function, options);
        for index in 0..graph.num_blocks() {
            let block = graph.block(BlockId::new(index));
            for position in 0..block.argument_count() {
                let kind = if index == 0 {
                    entry_kinds
                        .get(position)
                        .copied()
                        .unwrap_or(options.default_arguments)
                } else {
                    ArgumentKind::Uniform
                };
                let id = self.builder.add_argument(BlockId::new(index), kind);
                self.values
                    .insert(value_key(&block.argument(position).unwrap().into()), id);
            }
        }
        // Dominance order: a definition is snapshotted before its uses.
        let reachable: Vec<BlockId> = traversal.rpo().to_vec();
        let unreachable = (0..graph.num_blocks())
            .map(BlockId::new)
            .filter(|&b| !traversal.is_reachable(b));
        for block in reachable.into_iter().chain(unreachable) {
            self.snapshot_block(graph, block, &options.extra_sources);
        }
        self.builder.finish();
    }

    fn snapshot_block(&mut self, graph: &RegionGraph<'_, '_>, id: BlockId, extra: &ExtraSources) {
        let block = graph.block(id);
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if next.is_none() && op.successor_count() > 0 {
                self.snapshot_terminator(graph, id, op);
            } else {
                self.snapshot_operation(id, op, extra);
            }
        }
    }

    fn snapshot_operation(
        &mut self,
        block: BlockId,
        op: OperationRef<'_, '_>,
        extra: &ExtraSources,
    ) {
        let (kind, operands) = summarise(op, extra);
        let operands: Vec<ValueId> = operands
            .iter()
            .map(|v| self.value_or_placeholder(block, *v))
            .collect();
        let results: Vec<ValueKey> = op.results().map(|r| value_key(&r.into())).collect();
        let id = self.builder.add_op(block, kind, &operands, results.len());
        for (key, &value) in results.into_iter().zip(self.builder.op_results(id)) {
            self.values.insert(key, value);
        }
    }

    fn snapshot_terminator(
        &mut self,
        graph: &RegionGraph<'_, '_>,
        block: BlockId,
        op: OperationRef<'_, '_>,
    ) {
        let mut forwarded: Vec<Vec<ValueId>> = Vec::new();
        let mut is_forwarded = vec![false; op.operand_count()];
        for slot in 0..op.successor_count() {
            let target = graph.block(graph.graph().successors(block)[slot]);
            let values = match forwarded_range(op, slot) {
                Some((begin, count)) => {
                    is_forwarded[begin..begin + count]
                        .iter_mut()
                        .for_each(|f| *f = true);
                    (begin..begin + count)
                        .map(|i| op.operand(i).unwrap())
                        .collect::<Vec<_>>()
                }
                None => Vec::new(),
            };
            let ids = if values.len() == target.argument_count() {
                values
                    .iter()
                    .map(|v| self.value_or_placeholder(block, *v))
                    .collect()
            } else {
                // Unknown binding (not a BranchOpInterface, or produced
                // operands): the target's arguments are unknown, hence divergent.
                let source =
                    self.builder
                        .add_op(block, OpKind::Source, &[], target.argument_count());
                self.builder.op_results(source).to_vec()
            };
            forwarded.push(ids);
        }
        let selectors: Vec<ValueId> = (0..op.operand_count())
            .filter(|&i| !is_forwarded[i])
            .map(|i| self.value_or_placeholder(block, op.operand(i).unwrap()))
            .collect();
        let condition = match selectors.as_slice() {
            [] => None,
            [single] => Some(*single),
            several => {
                let combined = self.builder.add_op(block, OpKind::Pure, several, 1);
                Some(self.builder.op_results(combined)[0])
            }
        };
        let slices: Vec<&[ValueId]> = forwarded.iter().map(Vec::as_slice).collect();
        self.builder
            .set_terminator(block, condition, branch_mark(op), &slices);
    }

    /// The id of `value`, or a fresh uniform placeholder when the value is
    /// not (yet) known: only in unreachable code or for captured values.
    fn value_or_placeholder(&mut self, block: BlockId, value: Value<'_, '_>) -> ValueId {
        if let Some(&id) = self.values.get(&value_key(&value)) {
            return id;
        }
        let placeholder = self.builder.add_op(block, OpKind::Uniform, &[], 1);
        let id = self.builder.op_results(placeholder)[0];
        self.values.insert(value_key(&value), id);
        id
    }
}

/// The kind of `op` and the values its results depend on (operands plus, for
/// ops with regions, the values its regions capture from above).
fn summarise<'c, 'a>(
    op: OperationRef<'c, 'a>,
    extra: &ExtraSources,
) -> (OpKind, Vec<Value<'c, 'a>>) {
    let mut kind = classify_op(op, extra);
    let mut operands: Vec<Value> = op.operands().collect();
    if op.region_count() > 0 {
        let mut nested_source = false;
        let mut defined_inside = std::collections::HashSet::new();
        op.walk(melior::ir::operation::WalkOrder::PreOrder, |inner| {
            if OperationKey::of(&inner) != OperationKey::of(&op) {
                nested_source |= classify_op(inner, extra) == OpKind::Source;
                for result in inner.results() {
                    defined_inside.insert(value_key(&result.into()));
                }
            }
            for region in inner.regions() {
                let mut block = melior::ir::RegionLike::first_block(&region);
                while let Some(b) = block {
                    for i in 0..b.argument_count() {
                        defined_inside.insert(value_key(&b.argument(i).unwrap().into()));
                    }
                    block = b.next_in_region();
                }
            }
            melior::ir::operation::WalkResult::Advance
        });
        crate::ir::query::for_each_op(op, melior::ir::operation::WalkOrder::PreOrder, |inner| {
            if inner != op {
                operands.extend(
                    inner
                        .operands()
                        .filter(|operand| !defined_inside.contains(&value_key(operand))),
                );
            }
        });
        if nested_source {
            kind = OpKind::Source;
        }
    }
    (kind, operands)
}

/// The table's verdict on `op` ([`divergence_sources`]).
fn classify_op(op: OperationRef<'_, '_>, extra: &ExtraSources) -> OpKind {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or_default();
    let intrinsic = (name == divergence_sources::CALL_INTRINSIC)
        .then(|| op.attribute("intrin").ok())
        .flatten()
        .and_then(|attribute| StringAttribute::try_from(attribute).ok())
        .map(|attribute| attribute.value().to_string());
    let facts = OpFacts {
        name,
        intrinsic: intrinsic.as_deref(),
        marked_divergent: op.has_attribute(divergence_sources::DIVERGENT_ATTR),
        marked_uniform: op.has_attribute(divergence_sources::UNIFORM_ATTR),
        reads_private_memory: divergence_sources::is_memory_read(name)
            && op.operand(0).is_ok_and(may_be_private),
    };
    classify(&facts, extra, || constant_key(op))
}

/// True if `address` (a memref or an LLVM pointer) may point into memory
/// private to each thread: `!llvm.ptr` (generic: it may point there) and
/// `!llvm.ptr<5>`, memrefs in `#gpu.address_space<private>` (or space 5),
/// and memrefs allocated by `memref.alloca` (through view-like ops).
fn may_be_private(address: Value<'_, '_>) -> bool {
    const VIEWS: &[&str] = &[
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.view",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.transpose",
    ];
    match facts::private_memory(address.r#type()) {
        PrivateMemory::May => return true,
        PrivateMemory::MayNot => return false,
        PrivateMemory::DependsOnAllocation => {}
    }
    let mut value = address;
    while let Some(op) = crate::ir::edit::defining_op(value) {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        if name == names::MEMREF_ALLOCA {
            return true;
        }
        match op.operand(0) {
            Ok(source) if VIEWS.contains(&name) => value = source,
            _ => return false,
        }
    }
    false
}

/// Equality key of a constant: a hash of its name, value attribute and
/// result types. MLIR uniques identifiers, attributes and types in the
/// context, so their keys stand for their contents.
fn constant_key(op: OperationRef<'_, '_>) -> u64 {
    let mut hasher = DefaultHasher::new();
    NameKey::of(&op.name()).hash(&mut hasher);
    if let Ok(value) = op.attribute(crate::ir::names::VALUE_ATTR) {
        AttributeKey::of(&value).hash(&mut hasher);
    }
    for result in op.results() {
        TypeKey::of(&result.r#type()).hash(&mut hasher);
    }
    hasher.finish()
}

fn forwarded_range(op: OperationRef<'_, '_>, slot: usize) -> Option<(usize, usize)> {
    crate::ir::query::successor_operand_range(op, slot)
}

/// True if the branch carries the trusted mark `#spmd.uniformity<uniform>`
/// (or is an `spmd.exec.br_zero`, uniform by definition).
pub fn is_marked_uniform(op: OperationRef<'_, '_>) -> bool {
    matches!(branch_mark(op), Some(BranchMark::Uniform))
}

/// The trusted mark of a branch: `spmd.uniformity`, or uniform by
/// definition for `spmd.exec.br_zero`.
fn branch_mark(op: OperationRef<'_, '_>) -> Option<BranchMark> {
    if op.name().as_string_ref().as_str() == Ok(names::EXEC_BR_ZERO) {
        return Some(BranchMark::Uniform);
    }
    match facts::uniformity_mark(op)? {
        UniformityMark::Divergent => Some(BranchMark::Divergent),
        UniformityMark::Uniform => Some(BranchMark::Uniform),
    }
}

/// Uniformity of each entry-block argument of `function`.
fn argument_kinds(
    function: OperationRef<'_, '_>,
    options: &UniformityOptions,
) -> Vec<ArgumentKind> {
    let default = if super::kernels::is_kernel(function) {
        ArgumentKind::Uniform
    } else {
        options.default_arguments
    };
    let Some(region) = function.regions().next() else {
        return Vec::new();
    };
    let Some(entry) = melior::ir::RegionLike::first_block(&region) else {
        return Vec::new();
    };
    let attributes = function
        .attribute("arg_attrs")
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok());
    (0..entry.argument_count())
        .map(|index| {
            let dictionary = attributes
                .as_ref()
                .and_then(|array| array.element(index).ok())
                .and_then(|a| DictionaryAttribute::try_from(a).ok());
            let marked = |name: &str| {
                dictionary
                    .as_ref()
                    .is_some_and(|d| d.element_by_name(name).is_some())
            };
            if marked(names::DIVERGENT_ARGUMENT_ATTR) {
                ArgumentKind::Divergent
            } else if marked(names::UNIFORM_ARGUMENT_ATTR) {
                ArgumentKind::Uniform
            } else {
                default
            }
        })
        .collect()
}
