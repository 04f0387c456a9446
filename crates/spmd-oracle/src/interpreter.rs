//! The thread-level interpreter.
//!
//! [`Executor::run_thread`] runs one function for one thread to completion:
//! it enters the entry block with the arguments bound to the entry block's
//! arguments, executes the block's operations in order, then its
//! terminator, which either returns or picks a successor and binds the
//! successor operands to the successor's block arguments (all operands are
//! read before any argument is written, so `^bb1(%a, %b)` branching to
//! itself with `(%b, %a)` swaps). Calls run the callee to completion on the
//! same thread.
//!
//! Each entered block costs one unit of fuel; a thread that exhausts its
//! fuel stops with [`ExecError::OutOfFuel`].

use super::arith::{self, Fault};
use super::error::{describe_operand, ExecError, OpSite, PoisonUse};
use super::memory::{MemRefId, Memory};
use super::program::{Function, GpuQuery, Op, OpKind, Program, Terminator, TerminatorKind};
use super::trace::{BlockSite, BranchSite, CallSite, Tracer};
use super::value::{Value, ValueType};
use melior::ir::Module;

mod llvm;
pub mod warp;
pub mod wave;

/// Launch dimensions: threads per block, blocks per grid, subgroup size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridDims {
    /// Threads per block in x, y, z.
    pub block_dim: [u32; 3],
    /// Blocks in x, y, z.
    pub grid_dim: [u32; 3],
    /// Threads per subgroup (wave, warp).
    pub subgroup_size: u32,
}

impl GridDims {
    /// Subgroup size used by [`GridDims::linear`].
    pub const DEFAULT_SUBGROUP_SIZE: u32 = 32;

    /// One block of `num_threads` threads along x, subgroups of 32.
    pub fn linear(num_threads: u32) -> Self {
        Self {
            block_dim: [num_threads.max(1), 1, 1],
            grid_dim: [1, 1, 1],
            subgroup_size: Self::DEFAULT_SUBGROUP_SIZE,
        }
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block_dim.iter().product()
    }

    /// Threads in the grid.
    pub fn num_threads(&self) -> u32 {
        self.threads_per_block() * self.grid_dim.iter().product::<u32>()
    }
}

/// The identity of a thread: its position in its block, its block's
/// position in the grid, and its lane in its subgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadId {
    /// Thread position in the block along x.
    pub x: u32,
    /// ... along y.
    pub y: u32,
    /// ... along z.
    pub z: u32,
    /// Block position in the grid (x, y, z).
    pub block: [u32; 3],
    /// Lane in the subgroup: the thread's linear id in the block modulo
    /// the subgroup size.
    pub lane: u32,
}

impl ThreadId {
    /// The thread with global linear id `id` (blocks in row-major order,
    /// threads row-major within a block).
    pub fn from_linear(id: u32, dims: &GridDims) -> Self {
        let per_block = dims.threads_per_block().max(1);
        let (local, block) = (id % per_block, id / per_block);
        let [bx, by, _] = dims.block_dim;
        let [gx, gy, _] = dims.grid_dim;
        Self {
            x: local % bx.max(1),
            y: (local / bx.max(1)) % by.max(1),
            z: local / (bx * by).max(1),
            block: [
                block % gx.max(1),
                (block / gx.max(1)) % gy.max(1),
                block / (gx * gy).max(1),
            ],
            lane: local % dims.subgroup_size.max(1),
        }
    }

    /// Linear id within the block.
    pub fn local_linear(&self, dims: &GridDims) -> u32 {
        let [bx, by, _] = dims.block_dim;
        self.x + bx * (self.y + by * self.z)
    }

    /// Linear id within the grid.
    pub fn global_linear(&self, dims: &GridDims) -> u32 {
        let [gx, gy, _] = dims.grid_dim;
        let block = self.block[0] + gx * (self.block[1] + gy * self.block[2]);
        block * dims.threads_per_block() + self.local_linear(dims)
    }
}

/// Interprets the functions of one module (see the module docs of
/// [`exec`](super)).
pub struct Executor {
    program: Program,
    call_depth_limit: usize,
    vote_poison: warp::VotePoison,
    reconvergence: warp::Reconvergence,
}

/// Per-thread execution state.
struct ThreadState<'r> {
    id: ThreadId,
    linear: u32,
    dims: GridDims,
    memory: &'r mut Memory,
    tracer: &'r mut dyn Tracer,
    fuel: u64,
    blocks_executed: u64,
    call_stack: Vec<CallSite>,
}

impl<'r> ThreadState<'r> {
    /// The state of one lane of a wave or warp, running one operation (or
    /// a stretch of its own path) with thread-level semantics: no fuel
    /// limit of its own, no trace, no call in progress.
    fn for_lane(
        id: ThreadId,
        linear: u32,
        dims: GridDims,
        memory: &'r mut Memory,
        tracer: &'r mut crate::trace::NoTrace,
    ) -> Self {
        Self {
            id,
            linear,
            dims,
            memory,
            tracer,
            fuel: u64::MAX,
            blocks_executed: 0,
            call_stack: Vec::new(),
        }
    }

    /// The linear index of the thread's CTA in the grid.
    fn cta_linear(&self) -> u32 {
        let [gx, gy, _] = self.dims.grid_dim;
        let [bx, by, bz] = self.id.block;
        bx + gx * (by + gy * bz)
    }

    fn consume_fuel(&mut self) -> Result<(), ExecError> {
        if self.blocks_executed >= self.fuel {
            return Err(ExecError::OutOfFuel { fuel: self.fuel });
        }
        self.blocks_executed += 1;
        Ok(())
    }
}

/// The values of one function activation.
struct Frame {
    slots: Vec<Option<Value>>,
    visits: Vec<u32>,
    /// Successor operands being forwarded (reused across branches).
    forwarded: Vec<Value>,
}

impl Frame {
    fn new(function: &Function) -> Self {
        Self {
            slots: vec![None; function.num_slots],
            visits: vec![0; function.blocks.len()],
            forwarded: Vec::new(),
        }
    }

    /// Records a visit of `block`; returns its visit number.
    fn enter(&mut self, block: usize) -> u32 {
        let visit = self.visits[block];
        self.visits[block] += 1;
        visit
    }
}

/// Where control goes after a terminator.
enum Flow {
    Return(Vec<Value>),
    Goto(usize),
}

/// The function, block and visit being executed.
#[derive(Clone, Copy)]
struct Position<'p> {
    index: usize,
    function: &'p Function,
    block: usize,
    visit: u32,
}

/// The site reported for a block without operations (only possible in
/// unverified IR).
static MISSING_SITE: OpSite = OpSite {
    op_name: String::new(),
    location: String::new(),
};

impl Position<'_> {
    fn site(&self, op: u32) -> &OpSite {
        self.function
            .sites
            .get(op as usize)
            .unwrap_or(&MISSING_SITE)
    }
}

impl Executor {
    /// Default limit of nested calls.
    pub const DEFAULT_CALL_DEPTH_LIMIT: usize = 64;

    /// Compiles every function with a body in `module` (top level and
    /// nested symbol tables such as `gpu.module`). Never fails: anything
    /// outside the supported subset fails when executed.
    pub fn new(module: &Module) -> Self {
        Self {
            program: Program::compile(module),
            call_depth_limit: Self::DEFAULT_CALL_DEPTH_LIMIT,
            vote_poison: warp::VotePoison::default(),
            reconvergence: warp::Reconvergence::default(),
        }
    }

    /// The same executor with another call depth limit.
    pub fn with_call_depth_limit(mut self, limit: usize) -> Self {
        self.call_depth_limit = limit;
        self
    }

    /// The same executor with another treatment of poison vote predicates
    /// in lockstep warps (see [`warp::VotePoison`]).
    pub fn with_vote_poison(mut self, vote_poison: warp::VotePoison) -> Self {
        self.vote_poison = vote_poison;
        self
    }

    /// The same executor with another way for lockstep warps to diverge
    /// and reconverge (see [`warp::Reconvergence`]): lane guards only
    /// (wave-level NVVM code, the default) or SIMT reconvergence at
    /// immediate post-dominators (thread-level code).
    pub fn with_reconvergence(mut self, reconvergence: warp::Reconvergence) -> Self {
        self.reconvergence = reconvergence;
        self
    }

    /// The index of function `name` (`kernel`, or `kernels::kernel` for a
    /// function in `gpu.module @kernels`).
    pub fn function_index(&self, name: &str) -> Option<usize> {
        self.program.lookup(name)
    }

    /// The qualified name of function `index`.
    pub fn function_name(&self, index: usize) -> Option<String> {
        self.program
            .functions
            .get(index)
            .map(Function::qualified_name)
    }

    /// Number of blocks of function `index`.
    pub fn num_blocks(&self, index: usize) -> Option<usize> {
        self.program
            .functions
            .get(index)
            .map(|function| function.blocks.len())
    }

    /// Runs `func_name` for one thread until it returns; returns the
    /// returned values. `fuel` is the number of blocks the thread may enter.
    #[allow(clippy::too_many_arguments)]
    pub fn run_thread(
        &self,
        func_name: &str,
        args: &[Value],
        thread: ThreadId,
        dims: &GridDims,
        memory: &mut Memory,
        tracer: &mut dyn Tracer,
        fuel: u64,
    ) -> Result<Vec<Value>, ExecError> {
        let index = self
            .function_index(func_name)
            .ok_or_else(|| ExecError::UnknownFunction {
                name: func_name.to_string(),
            })?;
        let mut state = ThreadState {
            id: thread,
            linear: thread.global_linear(dims),
            dims: *dims,
            memory,
            tracer,
            fuel,
            blocks_executed: 0,
            call_stack: Vec::new(),
        };
        self.call(index, args, &mut state)
    }

    fn call(
        &self,
        index: usize,
        args: &[Value],
        thread: &mut ThreadState,
    ) -> Result<Vec<Value>, ExecError> {
        let function = &self.program.functions[index];
        check_arguments(function, args, thread.memory)?;
        let mut frame = Frame::new(function);
        for ((slot, _), value) in function.parameters.iter().zip(args) {
            frame.slots[*slot as usize] = Some(*value);
        }
        let mut block = 0;
        loop {
            thread.consume_fuel()?;
            let visit = frame.enter(block);
            let position = Position {
                index,
                function,
                block,
                visit,
            };
            thread.tracer.on_block(&BlockSite {
                thread: thread.linear,
                function: index,
                block,
                visit,
                call_stack: &thread.call_stack,
            });
            for op in &function.blocks[block].ops {
                self.execute(op, position, &mut frame, thread)?;
            }
            match self.terminate(position, &mut frame, thread)? {
                Flow::Return(values) => return Ok(values),
                Flow::Goto(next) => block = next,
            }
        }
    }

    /// Executes a non-terminator.
    fn execute(
        &self,
        op: &Op,
        at: Position,
        frame: &mut Frame,
        thread: &mut ThreadState,
    ) -> Result<(), ExecError> {
        let site = at.site(op.site);
        let operand = |index: usize| read(frame, op.operands[index], site);
        let fault = |fault: Fault| fault.at(site);
        let value = match &op.kind {
            OpKind::Constant(value) => *value,
            OpKind::Int(int_op, flags) => {
                arith::int_binary(*int_op, *flags, operand(0)?, operand(1)?, &op.result_type)
                    .map_err(fault)?
            }
            OpKind::CompareInt(predicate) => {
                arith::compare_int(*predicate, operand(0)?, operand(1)?).map_err(fault)?
            }
            OpKind::CompareFloat(predicate) => {
                arith::compare_float(*predicate, operand(0)?, operand(1)?).map_err(fault)?
            }
            OpKind::Float(float_op) => {
                arith::float_binary(*float_op, operand(0)?, operand(1)?, &op.result_type)
                    .map_err(fault)?
            }
            OpKind::NegF => arith::negate_float(operand(0)?).map_err(fault)?,
            OpKind::Select => {
                arith::select(operand(0)?, operand(1)?, operand(2)?).map_err(fault)?
            }
            OpKind::Cast(cast) => {
                arith::cast(*cast, operand(0)?, &op.result_type).map_err(fault)?
            }
            OpKind::Load => load(op, frame, thread, site)?,
            OpKind::Store => return store(op, frame, thread, site),
            OpKind::AtomicRmw(kind) => {
                let (memref, indices) = address(op, frame, 1, site)?;
                let value = stored_value(read(frame, op.operands[0], site)?, site)?;
                thread
                    .memory
                    .atomic_rmw(*kind, memref, &indices, value, thread.linear)
                    .map_err(|error| Fault::Memory(error).at(site))?
            }
            OpKind::Dim => dim(op, frame, thread, site)?,
            OpKind::Alloca(element, shape) => {
                let dynamic = index_operands(frame, &op.operands, site, PoisonUse::Size)?;
                let sizes = alloca_sizes(shape, &dynamic);
                let memref = thread
                    .memory
                    .alloc_private(*element, &sizes)
                    .map_err(|error| fault(error.into()))?;
                Value::MemRef(memref)
            }
            OpKind::Gpu(query) => {
                let value = u64::from(gpu_query(*query, thread));
                op.result_type
                    .int_value(value)
                    .unwrap_or(Value::Index(value as i64))
            }
            OpKind::ZeroAggregate
            | OpKind::IntUnary(..)
            | OpKind::FloatUnary(_)
            | OpKind::Fma
            | OpKind::Freeze
            | OpKind::CastChecked(..)
            | OpKind::InsertValue { .. }
            | OpKind::ExtractValue { .. }
            | OpKind::Gep(_)
            | OpKind::PtrLoad(_)
            | OpKind::PtrStore(_)
            | OpKind::PtrAtomic(..)
            | OpKind::CmpXchg(_)
            | OpKind::PtrAlloca { .. }
            | OpKind::AddressOf { .. }
            | OpKind::PtrToInt
            | OpKind::IntToPtr
            | OpKind::AddrSpaceCast(_)
            | OpKind::Warp(_)
            | OpKind::Nvvm(_)
            | OpKind::Mbcnt { .. }
            | OpKind::UnsupportedIntrinsic(_) => {
                match llvm::execute(op, frame, thread, &self.program.globals, site)? {
                    Some(value) => value,
                    None => return Ok(()),
                }
            }
            OpKind::Poison => Value::Poison,
            OpKind::Token => Value::Token,
            OpKind::Marker => return Ok(()),
            OpKind::Assert { message } => return assert(operand(0)?, message, site),
            OpKind::Call { callee, target } => {
                return self.execute_call(op, callee, *target, at, frame, thread)
            }
            OpKind::Unsupported | OpKind::Wave(_) => {
                return Err(ExecError::Unsupported { site: site.clone() })
            }
            OpKind::UnsupportedType(text) => {
                return Err(ExecError::UnsupportedType {
                    site: site.clone(),
                    type_text: text.clone(),
                })
            }
        };
        if let Some(&result) = op.results.first() {
            frame.slots[result as usize] = Some(value);
        }
        Ok(())
    }

    fn execute_call(
        &self,
        op: &Op,
        callee: &str,
        target: Option<usize>,
        at: Position,
        frame: &mut Frame,
        thread: &mut ThreadState,
    ) -> Result<(), ExecError> {
        let site = at.site(op.site);
        let target = target.ok_or_else(|| ExecError::UnknownCallee {
            site: site.clone(),
            callee: callee.to_string(),
        })?;
        if thread.call_stack.len() >= self.call_depth_limit {
            return Err(ExecError::CallDepthExceeded {
                site: site.clone(),
                limit: self.call_depth_limit,
            });
        }
        let args = op
            .operands
            .iter()
            .map(|&slot| read(frame, slot, site))
            .collect::<Result<Vec<_>, _>>()?;
        thread.call_stack.push(CallSite {
            function: at.index,
            op: op.site,
            visit: at.visit,
        });
        let results = self.call(target, &args, thread);
        thread.call_stack.pop();
        let results = results?;
        if results.len() != op.results.len() {
            return Err(ExecError::TypeMismatch {
                site: site.clone(),
                detail: format!(
                    "callee returned {} values, the call has {} results",
                    results.len(),
                    op.results.len()
                ),
            });
        }
        for (&slot, value) in op.results.iter().zip(results) {
            frame.slots[slot as usize] = Some(value);
        }
        Ok(())
    }

    /// Executes the terminator of the current block.
    fn terminate(
        &self,
        at: Position,
        frame: &mut Frame,
        thread: &mut ThreadState,
    ) -> Result<Flow, ExecError> {
        let terminator = &at.function.blocks[at.block].terminator;
        let site = at.site(terminator.site);
        let chosen = match &terminator.kind {
            TerminatorKind::Return => {
                let values: Result<Vec<Value>, ExecError> = terminator
                    .operands
                    .iter()
                    .map(|&slot| read(frame, slot, site))
                    .collect();
                return values.map(Flow::Return);
            }
            TerminatorKind::Branch => 0,
            TerminatorKind::CondBranch => usize::from(!branch_condition(
                read(frame, terminator.operands[0], site)?,
                site,
            )?),
            TerminatorKind::Switch { cases } => {
                let flag = read(frame, terminator.operands[0], site)?;
                switch_successor(flag, cases, site)?
            }
            TerminatorKind::Unreachable => {
                return Err(ExecError::UndefinedBehavior {
                    site: site.clone(),
                    reason: "reached unreachable",
                })
            }
            TerminatorKind::Unsupported | TerminatorKind::ExecBranchZero => {
                return Err(ExecError::Unsupported { site: site.clone() })
            }
        };
        if terminator.successors.len() >= 2 {
            thread.tracer.on_branch(
                &BranchSite {
                    thread: thread.linear,
                    function: at.index,
                    op: terminator.site,
                    block: at.block,
                    visit: at.visit,
                    num_successors: terminator.successors.len(),
                    call_stack: &thread.call_stack,
                },
                chosen,
            );
        }
        jump(at.function, terminator, chosen, frame, site).map(Flow::Goto)
    }
}

/// Binds the successor operands of successor `chosen` to its block
/// arguments (reading all before writing any); returns the block.
fn jump(
    function: &Function,
    terminator: &Terminator,
    chosen: usize,
    frame: &mut Frame,
    site: &OpSite,
) -> Result<usize, ExecError> {
    let Some(successor) = terminator.successors.get(chosen) else {
        return Err(ExecError::Unsupported { site: site.clone() });
    };
    let parameters = &function.blocks[successor.block].arguments;
    if parameters.len() != successor.arguments.len() {
        return Err(ExecError::TypeMismatch {
            site: site.clone(),
            detail: format!(
                "{} successor operands for {} block arguments",
                successor.arguments.len(),
                parameters.len()
            ),
        });
    }
    let mut forwarded = std::mem::take(&mut frame.forwarded);
    forwarded.clear();
    for &slot in &successor.arguments {
        forwarded.push(read(frame, slot, site)?);
    }
    for (&slot, value) in parameters.iter().zip(&forwarded) {
        frame.slots[slot as usize] = Some(*value);
    }
    frame.forwarded = forwarded;
    Ok(successor.block)
}

fn read(frame: &Frame, slot: u32, site: &OpSite) -> Result<Value, ExecError> {
    frame.slots[slot as usize].ok_or_else(|| ExecError::UndefinedValue { site: site.clone() })
}

/// The truth of an `i1` branch condition; poison is an error.
fn branch_condition(value: Value, site: &OpSite) -> Result<bool, ExecError> {
    match value {
        Value::Int(flag) if flag.width() == 1 => Ok(flag.is_true()),
        Value::Poison => Err(Fault::Poison(PoisonUse::BranchCondition).at(site)),
        other => Err(Fault::Type(describe_operand("an i1 condition", other)).at(site)),
    }
}

/// The successor of a switch: `1 + i` for the first matching case `i`, or
/// 0 (the default).
fn switch_successor(
    flag: Value,
    cases: &[super::value::IntValue],
    site: &OpSite,
) -> Result<usize, ExecError> {
    if flag.is_poison() {
        return Err(Fault::Poison(PoisonUse::BranchCondition).at(site));
    }
    let flag = arith::int_operand(flag).map_err(|fault| fault.at(site))?;
    Ok(cases
        .iter()
        .position(|case| *case == flag)
        .map_or(0, |case| case + 1))
}

/// Memref (operand `first`) and indices (the operands after it).
fn address(
    op: &Op,
    frame: &Frame,
    first: usize,
    site: &OpSite,
) -> Result<(MemRefId, Vec<i64>), ExecError> {
    let memref = match read(frame, op.operands[first], site)? {
        Value::MemRef(memref) => memref,
        Value::Poison => return Err(Fault::Poison(PoisonUse::Address).at(site)),
        other => return Err(Fault::Type(describe_operand("a memref", other)).at(site)),
    };
    let indices = index_operands(frame, &op.operands[first + 1..], site, PoisonUse::Address)?;
    Ok((memref, indices))
}

fn index_operands(
    frame: &Frame,
    slots: &[u32],
    site: &OpSite,
    usage: PoisonUse,
) -> Result<Vec<i64>, ExecError> {
    slots
        .iter()
        .map(|&slot| match read(frame, slot, site)? {
            Value::Index(index) => Ok(index),
            Value::Poison => Err(Fault::Poison(usage).at(site)),
            other => Err(Fault::Type(describe_operand("an index", other)).at(site)),
        })
        .collect()
}

fn stored_value(value: Value, site: &OpSite) -> Result<Value, ExecError> {
    if value.is_poison() {
        Err(Fault::Poison(PoisonUse::StoredValue).at(site))
    } else {
        Ok(value)
    }
}

fn load(op: &Op, frame: &Frame, thread: &ThreadState, site: &OpSite) -> Result<Value, ExecError> {
    let (memref, indices) = address(op, frame, 0, site)?;
    let value = thread
        .memory
        .load(memref, &indices)
        .map_err(|error| Fault::Memory(error).at(site))?;
    if op.result_type.admits(&value) {
        Ok(value)
    } else {
        Err(Fault::Type(format!("loaded {value}, the result is {}", op.result_type)).at(site))
    }
}

fn store(op: &Op, frame: &Frame, thread: &mut ThreadState, site: &OpSite) -> Result<(), ExecError> {
    let (memref, indices) = address(op, frame, 1, site)?;
    let value = stored_value(read(frame, op.operands[0], site)?, site)?;
    thread
        .memory
        .store(memref, &indices, value, thread.linear)
        .map_err(|error| Fault::Memory(error).at(site))
}

fn dim(op: &Op, frame: &Frame, thread: &ThreadState, site: &OpSite) -> Result<Value, ExecError> {
    let (memref, _) = address(op, frame, 0, site).map(|(memref, _)| (memref, ()))?;
    let dimension = index_operands(frame, &op.operands[1..2], site, PoisonUse::Size)?[0];
    let size = thread
        .memory
        .dim(memref, dimension)
        .map_err(|error| Fault::Memory(error).at(site))?;
    Ok(Value::Index(size as i64))
}

/// The sizes of an alloca: static sizes from the type, dynamic ones from
/// the operands in order.
fn alloca_sizes(shape: &[Option<u64>], dynamic: &[i64]) -> Vec<i64> {
    let mut dynamic = dynamic.iter();
    shape
        .iter()
        .map(|size| match size {
            Some(size) => *size as i64,
            None => dynamic.next().copied().unwrap_or(0),
        })
        .collect()
}

fn assert(condition: Value, message: &str, site: &OpSite) -> Result<(), ExecError> {
    match condition {
        Value::Poison => Err(Fault::Poison(PoisonUse::AssertCondition).at(site)),
        _ if branch_condition(condition, site)? => Ok(()),
        _ => Err(ExecError::AssertionFailed {
            site: site.clone(),
            message: message.to_string(),
        }),
    }
}

fn gpu_query(query: GpuQuery, thread: &ThreadState) -> u32 {
    thread_query(query, &thread.id, &thread.dims)
}

/// The value of an id or size query for thread `id` of a launch of `dims`.
pub(crate) fn thread_query(query: GpuQuery, id: &ThreadId, dims: &GridDims) -> u32 {
    let thread_ids = [id.x, id.y, id.z];
    match query {
        GpuQuery::ThreadId(d) => thread_ids[d],
        GpuQuery::BlockId(d) => id.block[d],
        GpuQuery::BlockDim(d) => dims.block_dim[d],
        GpuQuery::GridDim(d) => dims.grid_dim[d],
        GpuQuery::GlobalId(d) => id.block[d] * dims.block_dim[d] + thread_ids[d],
        GpuQuery::LaneId => id.lane,
        GpuQuery::SubgroupSize => dims.subgroup_size,
        GpuQuery::SubgroupId => id.local_linear(dims) / dims.subgroup_size.max(1),
        GpuQuery::NumSubgroups => dims.threads_per_block().div_ceil(dims.subgroup_size.max(1)),
        GpuQuery::LaneMask(kind) => kind.mask(id.lane),
    }
}

/// Checks arity, value kinds, and memref shapes and element types.
fn check_arguments(function: &Function, args: &[Value], memory: &Memory) -> Result<(), ExecError> {
    let mismatch = |detail: String| ExecError::ArgumentMismatch {
        function: function.qualified_name(),
        detail,
    };
    if args.len() != function.parameters.len() {
        return Err(mismatch(format!(
            "{} arguments for {} parameters",
            args.len(),
            function.parameters.len()
        )));
    }
    for (position, ((_, expected), value)) in function.parameters.iter().zip(args).enumerate() {
        if !expected.admits(value) {
            return Err(mismatch(format!(
                "argument {position} is {value}, the parameter is {expected}"
            )));
        }
        if let (ValueType::MemRef { element, shape }, Value::MemRef(memref)) = (expected, value) {
            check_memref(*memref, element, shape, memory)
                .map_err(|detail| mismatch(format!("argument {position}: {detail}")))?;
        }
    }
    Ok(())
}

fn check_memref(
    memref: MemRefId,
    element: &ValueType,
    shape: &[Option<u64>],
    memory: &Memory,
) -> Result<(), String> {
    let actual = memory
        .shape(memref)
        .ok_or_else(|| format!("unknown memref#{}", memref.0))?;
    let shape_fits = actual.len() == shape.len()
        && shape
            .iter()
            .zip(actual)
            .all(|(expected, size)| expected.is_none_or(|expected| expected == *size));
    if !shape_fits {
        return Err(format!(
            "memref#{} has shape {actual:?}, the parameter needs {shape:?}",
            memref.0
        ));
    }
    let buffer_element = memory
        .buffer_of(memref)
        .and_then(|buffer| memory.element_type(buffer));
    match (buffer_element, super::program::element_type(element)) {
        (Some(actual), Some(expected)) if actual == expected => Ok(()),
        (actual, _) => Err(format!(
            "memref#{} has elements {actual:?}, the parameter needs {element}",
            memref.0
        )),
    }
}
