//! Compilation of a module into the executor's program form.
//!
//! [`Program::compile`] walks the melior IR once and records, per function,
//! its blocks, and per operation the decoded operation kind (from the op
//! name and its attributes), operand and result *slots* (dense numbers of
//! the SSA values of the function) and successor operand lists (through
//! `spmdGetSuccessorOperandRange`, i.e. `BranchOpInterface`). The
//! interpreter then runs on these tables without calling back into MLIR.
//!
//! Compilation never fails: an operation, terminator or type outside the
//! subset is compiled to a kind that raises the matching [`ExecError`] if,
//! and only if, it is executed.
//!
//! Every operation of a function body (nested regions included) gets its
//! *pre-order number*: its position in a pre-order walk of the body. The
//! number identifies the operation in [`OpSite`] tables and in the tracer's
//! [`BranchSite`](super::trace::BranchSite)s; it is stable as long as the
//! function's text is.
//!
//! [`ExecError`]: super::error::ExecError

mod llvm;
mod rocdl;

pub(crate) use llvm::{
    int_unary, special_register, Access, CastFlags, FloatUnaryOp, GepPlan, Global, IntUnaryOp,
    LaneMaskKind, ReduxKind, ShuffleKind, VoteKind, WarpOp,
};

use super::error::OpSite;
use super::intrinsics::NvvmOp;
use super::memory::{AtomicKind, ElementType};
use super::value::{IntValue, Value, ValueType};
use melior::ir::{
    attribute::{
        AttributeLike, FlatSymbolRefAttribute, FloatAttribute, IntegerAttribute, StringAttribute,
    },
    block::BlockLike,
    operation::OperationLike,
    r#type::{IntegerType, MemRefType, ShapedTypeLike, TypeLike},
    Attribute, BlockRef, Location, Module, OperationRef, RegionLike, Type, ValueLike,
};
use spmd::testing::ir::{AttributeKey, BlockKey, TypeKey, ValueKey};
use std::collections::HashMap;

/// A dense number of an SSA value within its function.
pub(crate) type Slot = u32;

/// Integer binary operations (`arith.*i`, `arith.*si`, `arith.*ui`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    CeilDivS,
    CeilDivU,
    FloorDivS,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    MinS,
    MaxS,
    MinU,
    MaxU,
}

/// Poison-generating flags of an integer operation: `nsw`/`nuw`, and the
/// LLVM dialect's `exact` (division, right shifts) and `disjoint` (`or`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OverflowFlags {
    pub nsw: bool,
    pub nuw: bool,
    pub exact: bool,
    pub disjoint: bool,
}

/// Float binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Maximum,
    Minimum,
    MaxNum,
    MinNum,
    /// `llvm.intr.copysign`.
    CopySign,
}

/// Conversions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CastOp {
    ExtS,
    ExtU,
    Trunc,
    IndexCast,
    IndexCastUnsigned,
    SIToFP,
    UIToFP,
    FPToSI,
    FPToUI,
    ExtF,
    TruncF,
    Bitcast,
}

/// `arith.cmpi` predicates, in MLIR's enum order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntPredicate {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
}

/// GPU id and size queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GpuQuery {
    ThreadId(usize),
    BlockId(usize),
    BlockDim(usize),
    GridDim(usize),
    GlobalId(usize),
    LaneId,
    SubgroupSize,
    SubgroupId,
    NumSubgroups,
    /// `%lanemask_*`.
    LaneMask(LaneMaskKind),
}

/// What an operation does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OpKind {
    Constant(Value),
    Int(IntOp, OverflowFlags),
    CompareInt(IntPredicate),
    /// `arith.cmpf` with MLIR's predicate number (0 = false ... 15 = true).
    CompareFloat(u8),
    Float(FloatOp),
    NegF,
    Select,
    Cast(CastOp),
    Load,
    Store,
    AtomicRmw(AtomicKind),
    Dim,
    /// Element type and static sizes (`None`: taken from the operands).
    Alloca(ElementType, Vec<Option<u64>>),
    Gpu(GpuQuery),
    Poison,
    Token,
    /// An operation without effect (reconvergence markers).
    Marker,
    Call {
        callee: String,
        target: Option<usize>,
    },
    Assert {
        message: String,
    },
    /// A wave-level operation (only the wave executor runs it).
    Wave(WaveOp),
    /// `llvm.mlir.zero` of an aggregate type.
    ZeroAggregate,
    /// `llvm.intr.abs/ctlz/cttz/ctpop`; the flag (`is_int_min_poison`,
    /// `is_zero_poison`) from the attribute, or `None`: operand 1.
    IntUnary(IntUnaryOp, Option<bool>),
    FloatUnary(FloatUnaryOp),
    /// `llvm.intr.fma`, `llvm.intr.fmuladd`: `a * b + c` rounded once.
    Fma,
    /// `llvm.freeze`: poison becomes zero.
    Freeze,
    /// A conversion with poison-generating flags.
    CastChecked(CastOp, CastFlags),
    /// `llvm.insertvalue`: leaves `start..start + count` of the container.
    InsertValue {
        start: usize,
        count: usize,
    },
    /// `llvm.extractvalue`.
    ExtractValue {
        start: usize,
        count: usize,
    },
    Gep(Box<GepPlan>),
    PtrLoad(Access),
    PtrStore(Access),
    PtrAtomic(AtomicKind, Access),
    CmpXchg(Access),
    /// `llvm.alloca`: operand 0 items of `per_item` elements each.
    PtrAlloca {
        element: ElementType,
        per_item: u64,
        space: u32,
    },
    /// `llvm.mlir.addressof` of a module global.
    AddressOf {
        global: String,
        target: Option<usize>,
    },
    PtrToInt,
    IntToPtr,
    /// `llvm.addrspacecast` to this address space.
    AddrSpaceCast(u32),
    /// An NVVM or AMDGPU wave collective or barrier (only the warp
    /// executor runs it).
    Warp(WarpOp),
    /// AMDGPU's `mbcnt.lo`/`mbcnt.hi` (operands mask, addend): the addend
    /// plus the number of set bits of the mask's low (high) 32 bits that
    /// belong to lanes below the thread's.
    Mbcnt {
        high: bool,
    },
    /// libdevice's NVVM intrinsics with a rounding mode or `.ftz`, its
    /// conversions and bit-level helpers, and inline PTX.
    Nvvm(NvvmOp),
    /// An LLVM intrinsic outside the subset.
    UnsupportedIntrinsic(String),
    Unsupported,
    UnsupportedType(String),
}

/// Wave-level operations of the `spmd` dialect. Masks are kept as `i64`
/// values, the same in every lane.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum WaveOp {
    ExecRead,
    /// `spmd.exec.write`, with its `spmd.park`/`spmd.rejoin` id if any,
    /// and whether it claims every lane active again (`spmd.exec_full`).
    ExecWrite {
        park: Option<i64>,
        rejoin: Option<i64>,
        full: bool,
    },
    Ballot,
    And,
    AndNot,
    Or,
    Empty,
    Select,
    /// `spmd.mask.to_bits`: the mask as an integer of the result's width.
    ToBits,
    /// `spmd.mask.from_bits`.
    FromBits,
}
pub(crate) struct Op {
    pub kind: OpKind,
    pub operands: Vec<Slot>,
    pub results: Vec<Slot>,
    /// The type of the first result (`Unsupported("")` if none).
    pub result_type: ValueType,
    /// Pre-order number, also the index into [`Function::sites`].
    pub site: u32,
}

/// What a terminator does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TerminatorKind {
    /// One successor.
    Branch,
    /// Operand 0 is an `i1`; successor 0 if true, 1 if false.
    CondBranch,
    /// Operand 0 is the flag; successor 0 is the default, successor `1 + i`
    /// the destination of `cases[i]`.
    Switch { cases: Vec<IntValue> },
    /// Returns its operands.
    Return,
    /// `llvm.unreachable`.
    Unreachable,
    /// `spmd.exec.br_zero`: successor 0 if the wave's exec is empty.
    ExecBranchZero,
    /// Anything else (or a branch whose successor operands are unknown).
    Unsupported,
}

/// Successor block and the slots it receives as block arguments.
pub(crate) struct Successor {
    pub block: usize,
    pub arguments: Vec<Slot>,
}

/// A block's terminator.
pub(crate) struct Terminator {
    pub kind: TerminatorKind,
    /// A conditional branch marked `#spmd.uniformity<divergent>` in
    /// wave-level code: a lane branch (`--spmd-predicate=lane-branches`),
    /// which each lane takes on its own.
    pub lane_branch: bool,
    pub operands: Vec<Slot>,
    pub successors: Vec<Successor>,
    pub site: u32,
}

/// A block: arguments, operations, terminator.
pub(crate) struct Block {
    pub arguments: Vec<Slot>,
    pub ops: Vec<Op>,
    pub terminator: Terminator,
}

/// A function-like operation with its body.
pub(crate) struct Function {
    /// The symbol name.
    pub name: String,
    /// Path of the symbol table it is in (`""` at top level, `"kernels"`
    /// inside `gpu.module @kernels`).
    pub scope: String,
    /// Entry block arguments: slots and types.
    pub parameters: Vec<(Slot, ValueType)>,
    pub blocks: Vec<Block>,
    pub num_slots: usize,
    /// Name and location of every operation, by pre-order number.
    pub sites: Vec<OpSite>,
    /// The `spmd.wave_size` of wave-level code (`--spmd-predicate`).
    pub wave_size: Option<u64>,
    /// Per block: if its terminator may diverge inside a warp, the block
    /// where the warp reconverges (see [`lane_guards`]).
    pub lane_guards: Vec<Option<usize>>,
    /// Per block: its immediate post-dominator, where a warp that diverges
    /// at its terminator reconverges in
    /// [`Reconvergence::ImmediatePostDominator`](crate::interpreter::warp::Reconvergence)
    /// mode; `None` when only the virtual exit post-dominates it (some
    /// path returns without passing any common block) or when it reaches
    /// no return (infinite loops).
    pub post_dominators: Vec<Option<usize>>,
    /// Whether it runs warp operations (collectives, barriers,
    /// `activemask`), itself or through a callee: wave-level code, which a
    /// lockstep warp calls with its executing lanes together.
    pub uses_warp: bool,
}

impl Function {
    /// `scope::name`, or `name` at top level.
    pub fn qualified_name(&self) -> String {
        if self.scope.is_empty() {
            self.name.clone()
        } else {
            format!("{}::{}", self.scope, self.name)
        }
    }
}

/// Every function of a module with a body, compiled.
pub(crate) struct Program {
    pub functions: Vec<Function>,
    by_name: HashMap<String, usize>,
    /// The module's `llvm.mlir.global`s.
    pub globals: Vec<Global>,
}

impl Program {
    /// Compiles every function-like operation with a body found in the
    /// module, at top level or in nested symbol tables (`gpu.module`).
    pub fn compile(module: &Module) -> Self {
        let mut found = Vec::new();
        let mut globals_found = Vec::new();
        collect_functions(module.body(), "", &mut found, &mut globals_found);
        let mut cache = IrCache::default();
        let mut functions: Vec<Function> = found
            .iter()
            .map(|(scope, op)| compile_function(scope, *op, &mut cache))
            .collect();
        let by_name = name_table(&functions);
        resolve_calls(&mut functions, &by_name);
        mark_warp_users(&mut functions);
        let mut global_names = HashMap::new();
        let mut globals = Vec::new();
        for (index, (scope, name, op)) in globals_found.iter().enumerate() {
            let qualified = if scope.is_empty() {
                name.clone()
            } else {
                format!("{scope}::{name}")
            };
            global_names.entry(qualified).or_insert(index);
            global_names.entry(name.clone()).or_insert(index);
            globals.push(llvm::global(*op));
        }
        resolve_globals(&mut functions, &global_names);
        Self {
            functions,
            by_name,
            globals,
        }
    }

    /// The function called `name` (bare, or `scope::name`).
    pub fn lookup(&self, name: &str) -> Option<usize> {
        self.by_name.get(name.trim_start_matches('@')).copied()
    }
}

/// Bare names (the first function with a name wins) and qualified names.
fn name_table(functions: &[Function]) -> HashMap<String, usize> {
    let mut table = HashMap::new();
    for (index, function) in functions.iter().enumerate() {
        table.entry(function.qualified_name()).or_insert(index);
        table.entry(function.name.clone()).or_insert(index);
    }
    table
}

/// The symbol `name` seen from a function in `scope`: the one in the
/// function's symbol table, or else any of that name.
fn resolve_symbol(table: &HashMap<String, usize>, scope: &str, name: &str) -> Option<usize> {
    let scoped = if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}::{name}")
    };
    table.get(&scoped).or_else(|| table.get(name)).copied()
}

/// Resolves each call to the callee in the caller's symbol table, falling
/// back to any function of that name.
fn resolve_calls(functions: &mut [Function], table: &HashMap<String, usize>) {
    for function in functions.iter_mut() {
        let scope = function.scope.clone();
        for op in function
            .blocks
            .iter_mut()
            .flat_map(|block| block.ops.iter_mut())
        {
            if let OpKind::Call { callee, target } = &mut op.kind {
                *target = resolve_symbol(table, &scope, callee);
            }
        }
    }
}

/// Sets [`Function::uses_warp`]: functions with a warp operation, then
/// their callers, transitively.
fn mark_warp_users(functions: &mut [Function]) {
    let ops = |function: &Function| -> Vec<(bool, Option<usize>)> {
        function
            .blocks
            .iter()
            .flat_map(|block| &block.ops)
            .map(|op| match &op.kind {
                OpKind::Warp(_) => (true, None),
                OpKind::Call { target, .. } => (false, *target),
                _ => (false, None),
            })
            .collect()
    };
    let summaries: Vec<Vec<(bool, Option<usize>)>> = functions.iter().map(ops).collect();
    let mut uses: Vec<bool> = summaries
        .iter()
        .map(|ops| ops.iter().any(|&(warp, _)| warp))
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (index, ops) in summaries.iter().enumerate() {
            if !uses[index]
                && ops
                    .iter()
                    .any(|&(_, callee)| callee.is_some_and(|c| uses[c]))
            {
                uses[index] = true;
                changed = true;
            }
        }
    }
    for (function, uses) in functions.iter_mut().zip(uses) {
        function.uses_warp = uses;
    }
}

/// A module global found while collecting: scope, name and op.
type FoundGlobal<'c, 'a> = (String, String, OperationRef<'c, 'a>);

/// Resolves each `llvm.mlir.addressof` like a call: the global in the
/// function's symbol table, or any global of that name.
fn resolve_globals(functions: &mut [Function], table: &HashMap<String, usize>) {
    for function in functions.iter_mut() {
        let scope = function.scope.clone();
        for op in function
            .blocks
            .iter_mut()
            .flat_map(|block| block.ops.iter_mut())
        {
            if let OpKind::AddressOf { global, target } = &mut op.kind {
                *target = resolve_symbol(table, &scope, global);
            }
        }
    }
}

fn collect_functions<'c, 'a>(
    body: BlockRef<'c, 'a>,
    scope: &str,
    found: &mut Vec<(String, OperationRef<'c, 'a>)>,
    globals: &mut Vec<FoundGlobal<'c, 'a>>,
) {
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if spmd::testing::ir::is_function_like(op) {
            if has_body(op) {
                found.push((scope.to_string(), op));
            }
        } else if op_name(op) == "llvm.mlir.global" {
            if let Some(name) = symbol_name(op) {
                globals.push((scope.to_string(), name, op));
            }
        } else if let Some(name) = symbol_name(op) {
            // A nested symbol table such as `gpu.module @kernels`.
            let inner = if scope.is_empty() {
                name
            } else {
                format!("{scope}::{name}")
            };
            for region in op.regions() {
                if let Some(block) = region.first_block() {
                    collect_functions(block, &inner, found, globals);
                }
            }
        }
    }
}

fn has_body(op: OperationRef) -> bool {
    op.regions()
        .next()
        .and_then(|region| region.first_block())
        .is_some()
}

/// Attribute `--spmd-predicate` puts on wave-level functions: the lanes per
/// wave the code was lowered for (defined by the pass, in the library).
pub use spmd::WAVE_SIZE_ATTR;

fn symbol_name(op: OperationRef) -> Option<String> {
    let attribute = op.attribute("sym_name").ok()?;
    StringAttribute::try_from(attribute)
        .ok()
        .map(|name| name.value().to_string())
}

/// Executor types of MLIR types and printed attributes, by identity (both
/// are uniqued in their context). Printing goes through an `AsmState` that
/// is expensive to set up, so each distinct one is printed once.
#[derive(Default)]
struct IrCache {
    types: HashMap<TypeKey, ValueType>,
    attributes: HashMap<AttributeKey, String>,
}

impl IrCache {
    fn value_type(&mut self, r#type: Type) -> ValueType {
        self.types
            .entry(TypeKey::of(&r#type))
            .or_insert_with(|| value_type(r#type))
            .clone()
    }

    fn attribute_text(&mut self, attribute: Attribute) -> String {
        self.attributes
            .entry(AttributeKey::of(&attribute))
            .or_insert_with(|| attribute.to_string())
            .clone()
    }
}

/// Per-function compilation state.
struct FunctionCompiler<'k> {
    slots: HashMap<ValueKey, Slot>,
    block_ids: HashMap<BlockKey, usize>,
    sites: Vec<OpSite>,
    cache: &'k mut IrCache,
}

impl FunctionCompiler<'_> {
    fn slot<'c>(&mut self, value: impl ValueLike<'c>) -> Slot {
        let next = self.slots.len() as Slot;
        *self.slots.entry(ValueKey::of(&value)).or_insert(next)
    }

    /// Numbers `op` and every operation nested in it, in pre-order.
    fn number(&mut self, op: OperationRef) -> u32 {
        let site = self.sites.len() as u32;
        self.sites.push(OpSite {
            op_name: op_name(op),
            location: location_text(op.location()),
        });
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                let mut inner = current.first_operation();
                while let Some(nested) = inner {
                    self.number(nested);
                    inner = nested.next_in_block();
                }
                block = current.next_in_region();
            }
        }
        site
    }
}

fn op_name(op: OperationRef) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .unwrap_or("<invalid name>")
        .to_string()
}

/// The location as MLIR prints it, without the printer for the common
/// `loc("file":line:col)` form.
fn location_text(location: Location) -> String {
    if !location.is_file_line_col_range() {
        return location.to_string();
    }
    let file = location.file_line_col_range_filename();
    let file = file.as_string_ref().as_str().unwrap_or("?").to_string();
    let (line, column) = (
        location.file_line_col_range_start_line(),
        location.file_line_col_range_start_column(),
    );
    let (end_line, end_column) = (
        location.file_line_col_range_end_line(),
        location.file_line_col_range_end_column(),
    );
    if (end_line, end_column) == (line, column) {
        format!("loc({file:?}:{line}:{column})")
    } else {
        location.to_string()
    }
}

fn compile_function(scope: &str, function: OperationRef, cache: &mut IrCache) -> Function {
    let name = symbol_name(function).unwrap_or_default();
    let region = function
        .region(0)
        .expect("function-like ops have a body region");
    let mut blocks_ir = Vec::new();
    let mut next = region.first_block();
    while let Some(block) = next {
        blocks_ir.push(block);
        next = block.next_in_region();
    }
    let mut compiler = FunctionCompiler {
        slots: HashMap::new(),
        block_ids: blocks_ir
            .iter()
            .enumerate()
            .map(|(index, block)| (BlockKey::of(block), index))
            .collect(),
        sites: Vec::new(),
        cache,
    };
    let blocks: Vec<Block> = blocks_ir
        .iter()
        .map(|block| compile_block(&mut compiler, *block))
        .collect();
    let entry = blocks_ir[0];
    let parameters = (0..entry.argument_count())
        .map(|index| {
            let argument = entry
                .argument(index)
                .expect("index below the argument count");
            let r#type = compiler.cache.value_type(argument.r#type());
            (compiler.slot(argument), r#type)
        })
        .collect();
    let wave_size = function
        .attribute(WAVE_SIZE_ATTR)
        .ok()
        .and_then(|attribute| IntegerAttribute::try_from(attribute).ok())
        .map(|size| size.value() as u64);
    let successors = block_successors(&blocks);
    let ipdom = immediate_post_dominators(&successors);
    let lane_guards = lane_guards(&blocks, &successors, &ipdom);
    let post_dominators = ipdom
        .iter()
        .map(|&join| join.filter(|&join| join < blocks.len()))
        .collect();
    Function {
        name,
        scope: scope.to_string(),
        parameters,
        blocks,
        num_slots: compiler.slots.len(),
        sites: compiler.sites,
        wave_size,
        lane_guards,
        post_dominators,
        uses_warp: false,
    }
}

fn compile_block(compiler: &mut FunctionCompiler, block: BlockRef) -> Block {
    let arguments = (0..block.argument_count())
        .map(|index| {
            compiler.slot(
                block
                    .argument(index)
                    .expect("index below the argument count"),
            )
        })
        .collect();
    let mut ops = Vec::new();
    let mut terminator = None;
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let site = compiler.number(op);
        if next.is_none() {
            terminator = Some(compile_terminator(compiler, op, site));
        } else {
            ops.push(compile_op(compiler, op, site));
        }
    }
    let terminator = terminator.unwrap_or(Terminator {
        kind: TerminatorKind::Unsupported,
        lane_branch: false,
        operands: Vec::new(),
        successors: Vec::new(),
        site: 0,
    });
    Block {
        arguments,
        ops,
        terminator,
    }
}

fn compile_op(compiler: &mut FunctionCompiler, op: OperationRef, site: u32) -> Op {
    let operands = op
        .operands()
        .map(|operand| compiler.slot(operand))
        .collect();
    let results: Vec<Slot> = op.results().map(|result| compiler.slot(result)).collect();
    // `results().next()` rather than `result(0)`: melior prints the whole
    // operation into the error of an out-of-range `result(0)`.
    let mut result_type = op
        .results()
        .next()
        .map(|result| compiler.cache.value_type(result.r#type()))
        .unwrap_or(ValueType::Unsupported(String::new()));
    // An `!llvm.void` result (of `llvm.inline_asm` without outputs) holds
    // nothing and has no uses: the op has no result.
    let results = if result_type == ValueType::Unsupported("!llvm.void".into()) {
        result_type = ValueType::Unsupported(String::new());
        Vec::new()
    } else {
        results
    };
    let kind = if op.region_count() > 0 {
        OpKind::Unsupported
    } else {
        decode_op(op, &result_type, compiler.cache)
    };
    let kind = match (&kind, &result_type) {
        (OpKind::Unsupported | OpKind::Marker, _) => kind,
        (_, ValueType::Unsupported(text)) if !text.is_empty() => {
            OpKind::UnsupportedType(text.clone())
        }
        _ => kind,
    };
    Op {
        kind,
        operands,
        results,
        result_type,
        site,
    }
}

/// The kind of a non-terminator, from its name and attributes.
fn decode_op(op: OperationRef, result_type: &ValueType, cache: &mut IrCache) -> OpKind {
    let name = op_name(op);
    if name.starts_with("llvm.") || name.starts_with("nvvm.") {
        return llvm::decode(op, &name, result_type, cache).unwrap_or(OpKind::Unsupported);
    }
    if name.starts_with("rocdl.") {
        return rocdl::decode(&name);
    }
    if let Some(int_op) = int_op(&name) {
        return OpKind::Int(int_op, overflow_flags(op, cache));
    }
    if let Some(float_op) = float_op(&name) {
        return OpKind::Float(float_op);
    }
    if let Some(cast) = cast_op(&name) {
        return OpKind::Cast(cast);
    }
    if let Some(query) = gpu_query(op, &name, cache) {
        return OpKind::Gpu(query);
    }
    match name.as_str() {
        "arith.constant" => decode_constant(op, result_type),
        "arith.cmpi" => int_attribute(op, "predicate")
            .and_then(int_predicate)
            .map_or(OpKind::Unsupported, OpKind::CompareInt),
        "arith.cmpf" => int_attribute(op, "predicate")
            .filter(|predicate| (0..=15).contains(predicate))
            .map_or(OpKind::Unsupported, |predicate| {
                OpKind::CompareFloat(predicate as u8)
            }),
        "arith.negf" => OpKind::NegF,
        "arith.select" => OpKind::Select,
        "memref.load" => OpKind::Load,
        "memref.store" => OpKind::Store,
        "memref.atomic_rmw" => int_attribute(op, "kind")
            .and_then(atomic_kind)
            .map_or(OpKind::Unsupported, OpKind::AtomicRmw),
        "memref.dim" => OpKind::Dim,
        "memref.alloca" => decode_alloca(op, result_type),
        "ub.poison" => OpKind::Poison,
        "spmd.convergence.entry" | "spmd.convergence.anchor" | "spmd.convergence.loop" => {
            OpKind::Token
        }
        "spmd.reconvergence.head" | "spmd.reconvergence.tail" => OpKind::Marker,
        "spmd.exec.read" => OpKind::Wave(WaveOp::ExecRead),
        "spmd.exec.write" => OpKind::Wave(WaveOp::ExecWrite {
            park: int_attribute(op, "spmd.park"),
            rejoin: int_attribute(op, "spmd.rejoin"),
            full: op.has_attribute("spmd.exec_full"),
        }),
        "spmd.ballot" => OpKind::Wave(WaveOp::Ballot),
        "spmd.mask.and" => OpKind::Wave(WaveOp::And),
        "spmd.mask.andn" => OpKind::Wave(WaveOp::AndNot),
        "spmd.mask.or" => OpKind::Wave(WaveOp::Or),
        "spmd.mask.empty" => OpKind::Wave(WaveOp::Empty),
        "spmd.mask.select" => OpKind::Wave(WaveOp::Select),
        "spmd.mask.to_bits" => OpKind::Wave(WaveOp::ToBits),
        "spmd.mask.from_bits" => OpKind::Wave(WaveOp::FromBits),
        "func.call" => decode_call(op),
        "cf.assert" => OpKind::Assert {
            message: op
                .attribute("msg")
                .ok()
                .and_then(|attribute| StringAttribute::try_from(attribute).ok())
                .map(|message| message.value().to_string())
                .unwrap_or_default(),
        },
        _ => OpKind::Unsupported,
    }
}

fn int_op(name: &str) -> Option<IntOp> {
    Some(match name {
        "arith.addi" => IntOp::Add,
        "arith.subi" => IntOp::Sub,
        "arith.muli" => IntOp::Mul,
        "arith.divsi" => IntOp::DivS,
        "arith.divui" => IntOp::DivU,
        "arith.remsi" => IntOp::RemS,
        "arith.remui" => IntOp::RemU,
        "arith.ceildivsi" => IntOp::CeilDivS,
        "arith.ceildivui" => IntOp::CeilDivU,
        "arith.floordivsi" => IntOp::FloorDivS,
        "arith.andi" => IntOp::And,
        "arith.ori" => IntOp::Or,
        "arith.xori" => IntOp::Xor,
        "arith.shli" => IntOp::Shl,
        "arith.shrsi" => IntOp::ShrS,
        "arith.shrui" => IntOp::ShrU,
        "arith.minsi" => IntOp::MinS,
        "arith.maxsi" => IntOp::MaxS,
        "arith.minui" => IntOp::MinU,
        "arith.maxui" => IntOp::MaxU,
        _ => return None,
    })
}

fn float_op(name: &str) -> Option<FloatOp> {
    Some(match name {
        "arith.addf" => FloatOp::Add,
        "arith.subf" => FloatOp::Sub,
        "arith.mulf" => FloatOp::Mul,
        "arith.divf" => FloatOp::Div,
        "arith.remf" => FloatOp::Rem,
        "arith.maximumf" => FloatOp::Maximum,
        "arith.minimumf" => FloatOp::Minimum,
        "arith.maxnumf" => FloatOp::MaxNum,
        "arith.minnumf" => FloatOp::MinNum,
        _ => return None,
    })
}

fn cast_op(name: &str) -> Option<CastOp> {
    Some(match name {
        "arith.extsi" => CastOp::ExtS,
        "arith.extui" => CastOp::ExtU,
        "arith.trunci" => CastOp::Trunc,
        "arith.index_cast" => CastOp::IndexCast,
        "arith.index_castui" => CastOp::IndexCastUnsigned,
        "arith.sitofp" => CastOp::SIToFP,
        "arith.uitofp" => CastOp::UIToFP,
        "arith.fptosi" => CastOp::FPToSI,
        "arith.fptoui" => CastOp::FPToUI,
        "arith.extf" => CastOp::ExtF,
        "arith.truncf" => CastOp::TruncF,
        "arith.bitcast" => CastOp::Bitcast,
        _ => return None,
    })
}

fn gpu_query(op: OperationRef, name: &str, cache: &mut IrCache) -> Option<GpuQuery> {
    let mut dimension = || gpu_dimension(op, cache);
    Some(match name {
        "gpu.thread_id" => GpuQuery::ThreadId(dimension()?),
        "gpu.block_id" => GpuQuery::BlockId(dimension()?),
        "gpu.block_dim" => GpuQuery::BlockDim(dimension()?),
        "gpu.grid_dim" => GpuQuery::GridDim(dimension()?),
        "gpu.global_id" => GpuQuery::GlobalId(dimension()?),
        "gpu.lane_id" => GpuQuery::LaneId,
        "gpu.subgroup_size" => GpuQuery::SubgroupSize,
        "gpu.subgroup_id" => GpuQuery::SubgroupId,
        "gpu.num_subgroups" => GpuQuery::NumSubgroups,
        _ => return None,
    })
}

/// `#gpu<dim x>` -> 0, `y` -> 1, `z` -> 2.
fn gpu_dimension(op: OperationRef, cache: &mut IrCache) -> Option<usize> {
    let text = cache.attribute_text(op.attribute("dimension").ok()?);
    match text.trim_end_matches('>').chars().last()? {
        'x' => Some(0),
        'y' => Some(1),
        'z' => Some(2),
        _ => None,
    }
}

fn overflow_flags(op: OperationRef, cache: &mut IrCache) -> OverflowFlags {
    let text = op
        .attribute("overflowFlags")
        .map(|flags| cache.attribute_text(flags))
        .unwrap_or_default();
    OverflowFlags {
        nsw: text.contains("nsw"),
        nuw: text.contains("nuw"),
        ..OverflowFlags::default()
    }
}

fn int_attribute(op: OperationRef, name: &str) -> Option<i64> {
    let attribute = op.attribute(name).ok()?;
    IntegerAttribute::try_from(attribute)
        .ok()
        .map(|integer| integer.value())
}

fn int_predicate(predicate: i64) -> Option<IntPredicate> {
    use IntPredicate::*;
    [Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge]
        .get(usize::try_from(predicate).ok()?)
        .copied()
}

/// `arith::AtomicRMWKind` numbering of MLIR 22.
fn atomic_kind(kind: i64) -> Option<AtomicKind> {
    Some(match kind {
        0 => AtomicKind::AddF,
        1 => AtomicKind::AddI,
        2 => AtomicKind::AndI,
        3 => AtomicKind::Assign,
        6 => AtomicKind::MaxS,
        7 => AtomicKind::MaxU,
        10 => AtomicKind::MinS,
        11 => AtomicKind::MinU,
        12 => AtomicKind::MulF,
        13 => AtomicKind::MulI,
        14 => AtomicKind::OrI,
        15 => AtomicKind::XorI,
        _ => return None,
    })
}

fn decode_constant(op: OperationRef, result_type: &ValueType) -> OpKind {
    let Ok(attribute) = op.attribute("value") else {
        return OpKind::Unsupported;
    };
    let value = if attribute.is_integer() {
        IntegerAttribute::try_from(attribute)
            .ok()
            .and_then(|integer| result_type.int_value(integer.value() as u64))
    } else if attribute.is_float() {
        FloatAttribute::try_from(attribute)
            .ok()
            .and_then(|float| match result_type {
                ValueType::F32 => Some(Value::F32(float.value() as f32)),
                ValueType::F64 => Some(Value::F64(float.value())),
                _ => None,
            })
    } else {
        None
    };
    value.map_or(OpKind::Unsupported, OpKind::Constant)
}

fn decode_alloca(op: OperationRef, result_type: &ValueType) -> OpKind {
    let ValueType::MemRef { element, shape } = result_type else {
        return OpKind::Unsupported;
    };
    let dynamic = shape.iter().filter(|size| size.is_none()).count();
    match element_type(element) {
        Some(element) if op.operand_count() == dynamic => OpKind::Alloca(element, shape.clone()),
        _ => OpKind::Unsupported,
    }
}

fn decode_call(op: OperationRef) -> OpKind {
    op.attribute("callee")
        .ok()
        .and_then(|attribute| FlatSymbolRefAttribute::try_from(attribute).ok())
        .map_or(OpKind::Unsupported, |callee| OpKind::Call {
            callee: callee.value().to_string(),
            target: None,
        })
}

fn compile_terminator(compiler: &mut FunctionCompiler, op: OperationRef, site: u32) -> Terminator {
    let operands = op
        .operands()
        .map(|operand| compiler.slot(operand))
        .collect();
    let name = op_name(op);
    let kind = match name.as_str() {
        "cf.br" | "llvm.br" => TerminatorKind::Branch,
        "cf.cond_br" | "llvm.cond_br" | "spmd.flow_br" => TerminatorKind::CondBranch,
        "cf.switch" | "llvm.switch" => switch_cases(op, compiler.cache)
            .map_or(TerminatorKind::Unsupported, |cases| {
                TerminatorKind::Switch { cases }
            }),
        "func.return" | "gpu.return" | "llvm.return" => TerminatorKind::Return,
        "llvm.unreachable" => TerminatorKind::Unreachable,
        "spmd.exec.br_zero" => TerminatorKind::ExecBranchZero,
        _ => TerminatorKind::Unsupported,
    };
    let lane_branch = kind == TerminatorKind::CondBranch
        && op
            .attribute("spmd.uniformity")
            .is_ok_and(|mark| mark.to_string().contains("divergent"));
    let successors = compile_successors(compiler, op);
    match successors {
        Some(successors) => Terminator {
            kind,
            lane_branch,
            operands,
            successors,
            site,
        },
        None => Terminator {
            kind: TerminatorKind::Unsupported,
            lane_branch: false,
            operands,
            successors: Vec::new(),
            site,
        },
    }
}

/// Successor blocks and forwarded operands; `None` if an operand range is
/// unknown (not a `BranchOpInterface` op, or produced operands).
fn compile_successors(compiler: &mut FunctionCompiler, op: OperationRef) -> Option<Vec<Successor>> {
    let mut successors = Vec::with_capacity(op.successor_count());
    for index in 0..op.successor_count() {
        let block = op.successor(index).ok()?;
        let block = *compiler.block_ids.get(&BlockKey::of(&block))?;
        let (begin, count) = spmd::testing::ir::successor_operand_range(op, index)?;
        let arguments = (begin..begin + count)
            .map(|position| op.operand(position).map(|operand| compiler.slot(operand)))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        successors.push(Successor { block, arguments });
    }
    Some(successors)
}

/// The case values of a switch, wrapped to the flag's width.
fn switch_cases(op: OperationRef, cache: &mut IrCache) -> Option<Vec<IntValue>> {
    let width = cache.value_type(op.operand(0).ok()?.r#type()).int_width()?;
    let Ok(attribute) = op.attribute("case_values") else {
        return Some(Vec::new());
    };
    let count = op.successor_count().checked_sub(1)?;
    (0..count)
        .map(|index| {
            let element = elements_attribute_value(attribute, index)?;
            let value = IntegerAttribute::try_from(element).ok()?.value();
            Some(IntValue::wrap(width, value as u64))
        })
        .collect()
}

fn elements_attribute_value<'c>(attribute: Attribute<'c>, index: usize) -> Option<Attribute<'c>> {
    spmd::testing::ir::element_at(attribute, index)
}

/// The executor's view of an MLIR type.
fn value_type(r#type: Type) -> ValueType {
    if r#type.is_index() {
        ValueType::Index
    } else if r#type.is_integer() {
        match IntegerType::try_from(r#type).map(|integer| integer.width()) {
            Ok(width @ 1..=64) => ValueType::Int(width),
            _ => ValueType::Unsupported(r#type.to_string()),
        }
    } else if r#type.is_f32() {
        ValueType::F32
    } else if r#type.is_f64() {
        ValueType::F64
    } else if r#type.is_mem_ref() {
        memref_type(r#type)
    } else if let Some(llvm_type) = llvm::llvm_value_type(r#type) {
        llvm_type
    } else if r#type.dialect().namespace() == Ok("spmd") && r#type.to_string() == "!spmd.token" {
        ValueType::Token
    } else if r#type.dialect().namespace() == Ok("spmd") && r#type.to_string() == "!spmd.mask" {
        // Lane masks are kept as i64 bit sets (wave executor only).
        ValueType::Int(64)
    } else {
        ValueType::Unsupported(r#type.to_string())
    }
}

fn memref_type(r#type: Type) -> ValueType {
    let unsupported = || ValueType::Unsupported(r#type.to_string());
    let Ok(memref) = MemRefType::try_from(r#type) else {
        return unsupported();
    };
    let element = value_type(memref.element());
    if element_type(&element).is_none() || !identity_layout(memref) {
        return unsupported();
    }
    let shape = (0..memref.rank())
        .map(|dim| match memref.dim_size(dim) {
            Ok(melior::ir::r#type::DimSize::Static(size)) => Some(size),
            _ => None,
        })
        .collect();
    ValueType::MemRef {
        element: Box::new(element),
        shape,
    }
}

fn identity_layout(memref: MemRefType) -> bool {
    let (strides, offset) = memref.strides_and_offset();
    if offset != 0 {
        return false;
    }
    let mut expected = Some(1i64);
    for dim in (0..memref.rank()).rev() {
        let stride = strides.get(dim).copied();
        // A dynamic stride after a dynamic size is still the identity
        // layout; MLIR then reports it as dynamic, which we accept.
        match (expected, stride) {
            (Some(want), Some(got)) if want == got => {}
            (None, Some(got)) if MemRefType::is_dynamic_stride_or_offset(got) => {}
            _ => return false,
        }
        expected = match (expected, memref.dim_size(dim)) {
            (Some(want), Ok(melior::ir::r#type::DimSize::Static(size))) => Some(want * size as i64),
            _ => None,
        };
    }
    true
}

/// The buffer element type of a memref element type.
pub(crate) fn element_type(element: &ValueType) -> Option<ElementType> {
    match element {
        ValueType::Int(width) => Some(ElementType::Int(*width)),
        ValueType::Index => Some(ElementType::Index),
        ValueType::F32 => Some(ElementType::F32),
        ValueType::F64 => Some(ElementType::F64),
        _ => None,
    }
}

/// Per block, where a warp that diverges at the block's terminator
/// reconverges, for the terminators at which lanes may disagree (*lane
/// guards*); `None` for the others, at which the warp executor requires
/// every lane to agree.
///
/// Wave-level NVVM code is warp-uniform by construction except for the
/// per-thread guards around side effects and around collectives with an
/// explicit member mask (`scf.if` on the thread's exec bit, which
/// `convert-scf-to-cf` turns into a branch around the guarded ops), and
/// the lane branches `--spmd-predicate=lane-branches=true` keeps (divergent
/// branches, loops included, over code that needs no converged lanes). A
/// terminator is a lane guard when its immediate post-dominator `p`
/// (`ipdom`, from [`immediate_post_dominators`] of `successors`) is a block
/// of the function and the blocks between it and `p` (reachable from its
/// successors without passing `p`, cycles allowed) hold no barrier: the
/// warp is whole again at `p`. Warp collectives may be inside: they run
/// over the lanes of the diverged group (as on the hardware), so their
/// member masks must name that group's lanes.
fn lane_guards(
    blocks: &[Block],
    successors: &[Vec<usize>],
    ipdom: &[Option<usize>],
) -> Vec<Option<usize>> {
    let n = blocks.len();
    let barrier: Vec<bool> = blocks
        .iter()
        .map(|block| {
            block
                .ops
                .iter()
                .any(|op| matches!(op.kind, OpKind::Warp(WarpOp::Barrier { .. })))
        })
        .collect();
    (0..n)
        .map(|block| {
            let join = ipdom[block].filter(|&join| join < n)?;
            (successors[block].len() >= 2
                && guard_region_is_plain(block, join, successors, &barrier))
            .then_some(join)
        })
        .collect()
}

/// Per block, its distinct successors in ascending order.
fn block_successors(blocks: &[Block]) -> Vec<Vec<usize>> {
    blocks
        .iter()
        .map(|block| {
            let mut list: Vec<usize> = block
                .terminator
                .successors
                .iter()
                .map(|s| s.block)
                .collect();
            list.sort_unstable();
            list.dedup();
            list
        })
        .collect()
}

/// Whether the blocks reachable from `branch`'s successors without passing
/// `join` hold no barrier (`barrier[b]`: block `b` holds one).
fn guard_region_is_plain(
    branch: usize,
    join: usize,
    successors: &[Vec<usize>],
    barrier: &[bool],
) -> bool {
    let mut seen = vec![false; successors.len()];
    let mut stack: Vec<usize> = successors[branch].clone();
    while let Some(block) = stack.pop() {
        if block == join || std::mem::replace(&mut seen[block], true) {
            continue;
        }
        if barrier[block] {
            return false;
        }
        stack.extend(successors[block].iter().copied());
    }
    true
}

/// Immediate post-dominators (Cooper, Harvey and Kennedy's iteration on the
/// reverse graph), with a virtual exit `n` after every block without
/// successors. `None` for blocks that reach no exit (and for the exit's own
/// entry), `Some(n)` when only the virtual exit post-dominates.
fn immediate_post_dominators(successors: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = successors.len();
    let exit = n;
    let mut predecessors = vec![Vec::new(); n + 1];
    for (block, list) in successors.iter().enumerate() {
        if list.is_empty() {
            predecessors[exit].push(block);
        }
        for &successor in list {
            predecessors[successor].push(block);
        }
    }
    // Post-order of the reverse graph from the exit.
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    seen[exit] = true;
    let mut stack = vec![(exit, 0usize)];
    while let Some((node, next)) = stack.pop() {
        if let Some(&pred) = predecessors[node].get(next) {
            stack.push((node, next + 1));
            if !seen[pred] {
                seen[pred] = true;
                stack.push((pred, 0));
            }
        } else {
            order.push(node);
        }
    }
    let mut number = vec![usize::MAX; n + 1];
    for (position, &node) in order.iter().enumerate() {
        number[node] = position;
    }
    let mut ipdom: Vec<Option<usize>> = vec![None; n + 1];
    ipdom[exit] = Some(exit);
    let mut changed = true;
    while changed {
        changed = false;
        for &node in order.iter().rev().skip(1) {
            let mut new: Option<usize> = None;
            let edges: &[usize] = if node < n { &successors[node] } else { &[] };
            let via_exit = node < n && successors[node].is_empty();
            for candidate in edges.iter().copied().chain(via_exit.then_some(exit)) {
                if ipdom[candidate].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => candidate,
                    Some(current) => {
                        let (mut a, mut b) = (current, candidate);
                        while a != b {
                            while number[a] < number[b] {
                                a = ipdom[a].expect("processed");
                            }
                            while number[b] < number[a] {
                                b = ipdom[b].expect("processed");
                            }
                        }
                        a
                    }
                });
            }
            if new.is_some() && ipdom[node] != new {
                ipdom[node] = new;
                changed = true;
            }
        }
    }
    ipdom[exit] = None;
    ipdom.truncate(n);
    ipdom
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_dominators_of_a_diamond_a_loop_and_an_infinite_loop() {
        // 0 -> {1, 2}, 1 -> 3, 2 -> 3, 3 -> {4, 3}, 4 returns; 5 -> 5 (no exit).
        let successors = vec![vec![1, 2], vec![3], vec![3], vec![3, 4], vec![], vec![5]];
        let ipdom = immediate_post_dominators(&successors);
        let exit = successors.len();
        assert_eq!(
            ipdom,
            vec![Some(3), Some(3), Some(3), Some(4), Some(exit), None]
        );
    }

    #[test]
    fn post_dominators_with_two_exits() {
        // 0 -> {1, 2}; 1 returns; 2 -> 3 returns: only the virtual exit
        // post-dominates 0.
        let successors = vec![vec![1, 2], vec![], vec![3], vec![]];
        let exit = successors.len();
        assert_eq!(
            immediate_post_dominators(&successors),
            vec![Some(exit), Some(exit), Some(3), Some(exit)]
        );
    }

    #[test]
    fn guard_regions_may_loop_but_hold_no_barrier() {
        let successors = vec![vec![1, 2], vec![2], vec![3, 2], vec![]];
        let plain = vec![false; 4];
        // 0's region {1} (up to 2) is plain; so is 2's region {2}, a self
        // loop (a lane branch around a divergent loop).
        assert!(guard_region_is_plain(0, 2, &successors, &plain));
        assert!(guard_region_is_plain(2, 3, &successors, &plain));
        let mut barrier = plain.clone();
        barrier[1] = true;
        assert!(!guard_region_is_plain(0, 2, &successors, &barrier));
        // A cycle inside the region, not through the branch, with a
        // barrier in it.
        let looping = vec![vec![1, 3], vec![2], vec![1, 3], vec![]];
        assert!(guard_region_is_plain(0, 3, &looping, &[false; 4]));
        assert!(!guard_region_is_plain(
            0,
            3,
            &looping,
            &[false, false, true, false]
        ));
    }
}
