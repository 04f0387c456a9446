//! Observing execution: block visits and branch decisions.
//!
//! The interpreter calls a [`Tracer`] at every block it enters
//! ([`Tracer::on_block`], for coverage) and at every executed terminator
//! with two or more successors ([`Tracer::on_branch`], with the successor
//! index it took: for `cf.cond_br`/`spmd.flow_br` 0 = true, 1 = false; for
//! `cf.switch` 0 = default, `1 + i` = case `i`).
//!
//! ## Dynamic instances
//!
//! A *dynamic instance* of a branch is one execution of it by a thread,
//! named so that the same name in two threads means "the same execution
//! point of the program" (the notion convergence is defined on):
//!
//! * the **call stack**: for each active call, the caller's function, the
//!   call's pre-order number and the visit number of the caller's block at
//!   the time of the call ([`CallSite`]);
//! * the branch's **function** and **pre-order number** (its position in a
//!   pre-order walk of the function body, nested regions included,
//!   computed once by [`Executor::new`](super::Executor::new)), which name
//!   the static site;
//! * the **visit number** of the branch's block in the current frame: 0 the
//!   first time the frame enters the block, 1 the second time, ...
//!
//! A terminator runs once per block visit, so within one thread the key
//! ([`DynamicInstance`]) never repeats. It does not contain the thread id:
//! two threads that reach the same key executed "the same" dynamic
//! instance, e.g. the same loop iteration's exit test.
//!
//! Block visits are reported with the same frame context ([`BlockSite`]).

/// One active call: where the caller was when it made the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallSite {
    /// Index of the calling function in the executor.
    pub function: usize,
    /// Pre-order number of the call operation in that function.
    pub op: u32,
    /// Visit number of the caller's block when the call ran.
    pub visit: u32,
}

/// A block being entered.
#[derive(Clone, Copy, Debug)]
pub struct BlockSite<'a> {
    /// The linear id of the executing thread.
    pub thread: u32,
    /// Index of the function in the executor.
    pub function: usize,
    /// Position of the block in the function body (`^bbN` is block N).
    pub block: usize,
    /// How many times the current frame entered this block before.
    pub visit: u32,
    /// The active calls, outermost first.
    pub call_stack: &'a [CallSite],
}

/// A terminator with two or more successors being executed.
#[derive(Clone, Copy, Debug)]
pub struct BranchSite<'a> {
    /// The linear id of the executing thread.
    pub thread: u32,
    /// Index of the function in the executor.
    pub function: usize,
    /// Pre-order number of the terminator in its function.
    pub op: u32,
    /// Position of the terminator's block in the function body.
    pub block: usize,
    /// Visit number of the block in the current frame.
    pub visit: u32,
    /// Number of successors of the terminator.
    pub num_successors: usize,
    /// The active calls, outermost first.
    pub call_stack: &'a [CallSite],
}

impl BranchSite<'_> {
    /// The thread-independent name of this execution of the branch.
    pub fn instance(&self) -> DynamicInstance {
        DynamicInstance {
            call_stack: self.call_stack.to_vec(),
            function: self.function,
            op: self.op,
            visit: self.visit,
        }
    }
}

/// The name of one dynamic instance of an operation (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DynamicInstance {
    /// The active calls, outermost first.
    pub call_stack: Vec<CallSite>,
    /// Index of the function in the executor.
    pub function: usize,
    /// Pre-order number of the operation.
    pub op: u32,
    /// Visit number of its block in the current frame.
    pub visit: u32,
}

/// Receives execution events. Both methods default to doing nothing.
pub trait Tracer {
    /// A block is entered.
    fn on_block(&mut self, _site: &BlockSite<'_>) {}
    /// A multi-successor terminator chose successor `chosen`.
    fn on_branch(&mut self, _site: &BranchSite<'_>, _chosen: usize) {}
}

/// A tracer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTrace;

impl Tracer for NoTrace {}

/// A block entry as recorded by [`RecordingTracer`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockEvent {
    /// The thread.
    pub thread: u32,
    /// The function.
    pub function: usize,
    /// The block.
    pub block: usize,
    /// Its visit number in the frame.
    pub visit: u32,
}

/// A branch decision as recorded by [`RecordingTracer`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BranchEvent {
    /// The thread.
    pub thread: u32,
    /// The dynamic instance of the branch.
    pub instance: DynamicInstance,
    /// The successor index taken.
    pub chosen: usize,
}

/// Records every block entry and branch decision, in order.
#[derive(Clone, Debug, Default)]
pub struct RecordingTracer {
    /// Blocks entered.
    pub blocks: Vec<BlockEvent>,
    /// Branch decisions.
    pub branches: Vec<BranchEvent>,
}

impl RecordingTracer {
    /// An empty recording.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `(function, block)` pairs entered at least once, sorted.
    pub fn covered_blocks(&self) -> Vec<(usize, usize)> {
        let mut covered: Vec<(usize, usize)> = self
            .blocks
            .iter()
            .map(|event| (event.function, event.block))
            .collect();
        covered.sort_unstable();
        covered.dedup();
        covered
    }

    /// The `(site, successor)` sequence of one thread, with sites as
    /// dynamic instances.
    pub fn decisions_of(&self, thread: u32) -> Vec<(DynamicInstance, usize)> {
        self.branches
            .iter()
            .filter(|event| event.thread == thread)
            .map(|event| (event.instance.clone(), event.chosen))
            .collect()
    }
}

impl Tracer for RecordingTracer {
    fn on_block(&mut self, site: &BlockSite<'_>) {
        self.blocks.push(BlockEvent {
            thread: site.thread,
            function: site.function,
            block: site.block,
            visit: site.visit,
        });
    }

    fn on_branch(&mut self, site: &BranchSite<'_>, chosen: usize) {
        self.branches.push(BranchEvent {
            thread: site.thread,
            instance: site.instance(),
            chosen,
        });
    }
}
