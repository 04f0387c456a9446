//! SSA construction for one variable on a CFG, IR-independent.
//!
//! Transforms that reroute edges (structurize, reconverge) break SSA in
//! three ways, and all three are the same problem — "a variable is assigned
//! in some places and read in others; give every read the right value":
//!
//! * a value defined in block `D` is used in a block `D` no longer
//!   dominates (a *block definition* at the end of `D`, reads at the uses);
//! * the arguments a branch forwarded to its original target must now travel
//!   through Flow blocks (an *edge definition* on the branch's slot, a read
//!   at the start of the target);
//! * the i1 predicate of a Flow block is decided by each edge that enters
//!   its chain (edge definitions; the read is at the Flow block).
//!
//! [`solve`] places block arguments where the variable is live-in and
//! passes, on every edge into such a block, the value available at the end
//! of the predecessor (its edge definition if it has one, else its own
//! definition, else its own argument). Where no definition reaches, the
//! value is [`Available::Poison`] (`ub.poison` in MLIR): such paths never
//! read the variable in the original program.
//!
//! Then trivial arguments are removed, as in Braun et al., "Simple and
//! Efficient Construction of Static Single Assignment Form" (CC 2013): an
//! argument whose incoming values are all itself or one single other value
//! `V` is replaced by `V`, to a fixed point. An argument that also receives
//! poison on some edges is replaced by `V` only if `V`'s definition
//! dominates the block (poison paths never read the value, but `V` must
//! still be available there). On reducible CFGs this yields minimal SSA;
//! the result is always correct.
//!
//! ```text
//!   D: v = ...        F(flow)          uses of v in U get U's argument, or
//!   |     \          /    \            v itself once trivial arguments are
//!   X      F  ...  U      ...          folded away
//! ```
//!
//! Cost: proportional to the variable's live range (backward walk from the
//! reads, stopping at definitions) plus the folding worklist. A [`Solver`]
//! solves many variables on one graph with dense per-block buffers that
//! empty in O(1) (epoch stamps), so no step costs the size of the graph;
//! the first, map-based implementation stays in the tests as the reference
//! a property test compares it with on thousands of random CFGs.

use crate::analysis::cfg::{BlockId, DominatorTree, Graph};
use crate::support::{FastMap, FastSet};

/// What a read or an incoming edge receives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Available<V> {
    /// A value that existed before the repair.
    Value(V),
    /// The new block argument of this block.
    Argument(BlockId),
    /// No definition reaches: `ub.poison`.
    Poison,
}

/// The assignments and reads of one variable.
#[derive(Clone, Debug, Default)]
pub(crate) struct Variable<V> {
    /// `(block, value)`: the variable holds `value` at the end of `block`.
    pub(crate) block_defs: Vec<(BlockId, V)>,
    /// `(block, slot, value)`: the edge in successor slot `slot` of `block`
    /// carries `value` (takes precedence over a block definition).
    pub(crate) edge_defs: Vec<(BlockId, usize, V)>,
    /// Blocks that read the variable at their start.
    pub(crate) reads: Vec<BlockId>,
    /// If set, the variable only lives in these blocks (and its reads):
    /// edges from other blocks without a definition pass poison. Flow
    /// predicates use it: they only exist inside the Flow blocks.
    pub(crate) live_region: Option<std::sync::Arc<FastSet<BlockId>>>,
}

/// Where the variable lives after the repair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution<V> {
    /// Blocks that get a new block argument for the variable (sorted).
    pub(crate) arguments: Vec<BlockId>,
    /// For every block in `arguments`, its incoming values per predecessor
    /// slot: `(pred, slot, value)`.
    pub(crate) incoming: Vec<(BlockId, usize, BlockId, Available<V>)>,
    /// The value each reading block sees at its start.
    pub(crate) reads: Vec<(BlockId, Available<V>)>,
}

/// Solves one variable on `graph` (see [`Solver`] to solve many with
/// shared buffers). `dominators` must be `graph`'s dominator tree;
/// `def_block(v)` is the block defining `v`, or `None` for values available
/// everywhere (constants, values from outside the region).
#[cfg(test)]
pub fn solve<G: Graph + ?Sized, V: Copy + Eq + std::hash::Hash>(
    graph: &G,
    dominators: &DominatorTree,
    variable: &Variable<V>,
    def_block: &dyn Fn(V) -> Option<BlockId>,
) -> Solution<V> {
    Solver::new().solve(graph, dominators, variable, def_block)
}

/// Solves every variable of `variables` on `graph`, each as [`solve`]
/// would: the same solutions in the same order. On graphs of at least
/// [`BACKGROUND_MIN_BLOCKS`](crate::support::BACKGROUND_MIN_BLOCKS) blocks
/// the variables are shared out among the machine's cores (each worker
/// takes the next unsolved variable, with its own [`Solver`] buffers):
/// a variable's live range can span a whole Flow region, so a few of them
/// cost as much as the rest of the SSA repair. `solve` is the reference
/// the tests compare this with.
pub(crate) fn solve_all<G, V>(
    graph: &G,
    dominators: &DominatorTree,
    variables: &[&Variable<V>],
    def_block: &(dyn Fn(V) -> Option<BlockId> + Sync),
) -> Vec<Solution<V>>
where
    G: Graph + Sync + ?Sized,
    V: Copy + Eq + std::hash::Hash + Send + Sync,
{
    let workers = if graph.num_blocks() < crate::support::BACKGROUND_MIN_BLOCKS {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    solve_on_workers(workers, graph, dominators, variables, def_block)
}

/// [`solve_all`] on at most `workers` threads (the caller's included).
fn solve_on_workers<G, V>(
    workers: usize,
    graph: &G,
    dominators: &DominatorTree,
    variables: &[&Variable<V>],
    def_block: &(dyn Fn(V) -> Option<BlockId> + Sync),
) -> Vec<Solution<V>>
where
    G: Graph + Sync + ?Sized,
    V: Copy + Eq + std::hash::Hash + Send + Sync,
{
    let workers = workers.min(variables.len());
    if workers < 2 {
        let mut solver = Solver::new();
        return variables
            .iter()
            .map(|v| solver.solve(graph, dominators, v, def_block))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut solver = Solver::new();
        let mut solved = Vec::new();
        loop {
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(variable) = variables.get(k) else {
                return solved;
            };
            solved.push((k, solver.solve(graph, dominators, variable, def_block)));
        }
    };
    let mut solutions: Vec<Option<Solution<V>>> = variables.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..workers).map(|_| scope.spawn(work)).collect();
        let mine = work();
        let theirs = helpers.into_iter().flat_map(|helper| {
            helper
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        for (k, solution) in mine.into_iter().chain(theirs) {
            solutions[k] = Some(solution);
        }
    });
    solutions
        .into_iter()
        .map(|s| s.expect("every variable was solved"))
        .collect()
}

/// Block sets that empty in O(1): a block is in the set if its stamp is the
/// current epoch.
#[derive(Default)]
struct Stamps {
    stamp: Vec<u32>,
    epoch: u32,
}

impl Stamps {
    /// Empties the set and sizes it for `n` blocks.
    fn reset(&mut self, n: usize) {
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
    }

    fn contains(&self, b: BlockId) -> bool {
        self.stamp[b.index()] == self.epoch
    }

    /// Adds `b`; false if it was already in.
    fn insert(&mut self, b: BlockId) -> bool {
        let fresh = self.stamp[b.index()] != self.epoch;
        self.stamp[b.index()] = self.epoch;
        fresh
    }
}

/// Solves variables one after another on the same graph, reusing dense
/// per-block buffers: the work per variable is proportional to its live
/// range, not to the size of the graph.
#[derive(Default)]
pub(crate) struct Solver {
    /// Blocks with a block definition / with an edge definition.
    defines: Stamps,
    defines_edge: Stamps,
    /// Blocks where the variable is live on entry.
    live: Stamps,
    /// Predecessors already seen for the current argument block.
    seen: Stamps,
    /// Blocks that get an argument; `position` is its index in `arguments`.
    has_argument: Stamps,
    position: Vec<u32>,
    stack: Vec<BlockId>,
}

/// Where each read of `variable` starts: the argument of its block, or
/// poison in the entry block (which gets no argument).
fn initial_reads<G: Graph + ?Sized, V>(
    graph: &G,
    variable: &Variable<V>,
) -> Vec<(BlockId, Available<V>)> {
    variable
        .reads
        .iter()
        .map(|&b| {
            (
                b,
                if b == graph.entry() {
                    Available::Poison
                } else {
                    Available::Argument(b)
                },
            )
        })
        .collect()
}

/// True if `value` can be used at the start of `block`. A value defined in
/// `block` itself is not (it reaches the start only round a back edge).
fn is_available_at<V: Copy>(
    dominators: &DominatorTree,
    def_block: &dyn Fn(V) -> Option<BlockId>,
    value: Available<V>,
    block: BlockId,
) -> bool {
    match value {
        Available::Value(v) => {
            def_block(v).is_none_or(|d| d != block && dominators.dominates(d, block))
        }
        Available::Argument(owner) => dominators.dominates(owner, block),
        Available::Poison => true,
    }
}

impl Solver {
    /// A solver with empty buffers.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Solves `variable` on `graph`; same contract as [`solve`].
    pub(crate) fn solve<G: Graph + ?Sized, V: Copy + Eq + std::hash::Hash>(
        &mut self,
        graph: &G,
        dominators: &DominatorTree,
        variable: &Variable<V>,
        def_block: &dyn Fn(V) -> Option<BlockId>,
    ) -> Solution<V> {
        let n = graph.num_blocks();
        self.defines.reset(n);
        self.defines_edge.reset(n);
        let block_def: FastMap<BlockId, V> = variable.block_defs.iter().copied().collect();
        variable.block_defs.iter().for_each(|&(b, _)| {
            self.defines.insert(b);
        });
        let edge_def: FastMap<(BlockId, usize), V> = variable
            .edge_defs
            .iter()
            .map(|&(b, s, v)| ((b, s), v))
            .collect();
        variable.edge_defs.iter().for_each(|&(b, _, _)| {
            self.defines_edge.insert(b);
        });
        let mut arguments = self.live_in_blocks(graph, variable, &edge_def);
        arguments.retain(|&b| b != graph.entry());
        arguments.sort_unstable();
        self.has_argument.reset(n);
        if self.position.len() < n {
            self.position.resize(n, 0);
        }
        for (index, &b) in arguments.iter().enumerate() {
            self.has_argument.insert(b);
            self.position[b.index()] = index as u32;
        }

        let end_value = |block: BlockId| -> Available<V> {
            if self.defines.contains(block) {
                Available::Value(block_def[&block])
            } else if self.has_argument.contains(block) {
                Available::Argument(block)
            } else {
                Available::Poison
            }
        };
        // Incoming values, grouped by argument block in `arguments` order.
        let mut incoming = Vec::new();
        let mut ranges = Vec::with_capacity(arguments.len());
        for &target in &arguments {
            let start = incoming.len();
            self.seen.reset(n);
            for &pred in graph.predecessors(target) {
                if !self.seen.insert(pred) {
                    continue;
                }
                for (slot, &succ) in graph.successors(pred).iter().enumerate() {
                    if succ != target {
                        continue;
                    }
                    let value = match self
                        .defines_edge
                        .contains(pred)
                        .then(|| edge_def.get(&(pred, slot)))
                        .flatten()
                    {
                        Some(&v) => Available::Value(v),
                        None => end_value(pred),
                    };
                    incoming.push((pred, slot, target, value));
                }
            }
            ranges.push(start..incoming.len());
        }
        let mut solution = Solution {
            arguments,
            incoming,
            reads: initial_reads(graph, variable),
        };
        let available_in = |value, block| is_available_at(dominators, def_block, value, block);
        self.fold_trivial_arguments(&mut solution, &ranges, &available_in);
        solution
    }

    /// Blocks where the variable is live on entry: reachable backwards from
    /// a read without crossing a definition.
    fn live_in_blocks<G: Graph + ?Sized, V>(
        &mut self,
        graph: &G,
        variable: &Variable<V>,
        edge_def: &FastMap<(BlockId, usize), V>,
    ) -> Vec<BlockId> {
        self.live.reset(graph.num_blocks());
        let mut live = Vec::new();
        self.stack.clear();
        self.stack.extend_from_slice(&variable.reads);
        while let Some(block) = self.stack.pop() {
            if !self.live.insert(block) {
                continue;
            }
            live.push(block);
            for &pred in graph.predecessors(block) {
                if self.defines.contains(pred) || self.live.contains(pred) {
                    continue;
                }
                if variable
                    .live_region
                    .as_ref()
                    .is_some_and(|region| !region.contains(&pred))
                {
                    continue;
                }
                let all_slots_defined = self.defines_edge.contains(pred)
                    && graph
                        .successors(pred)
                        .iter()
                        .enumerate()
                        .filter(|&(_, &s)| s == block)
                        .all(|(slot, _)| edge_def.contains_key(&(pred, slot)));
                if !all_slots_defined {
                    self.stack.push(pred);
                }
            }
        }
        live
    }

    /// Replaces arguments whose incoming values are only themselves and one
    /// other value (plus poison, when that value is available in the block)
    /// by that value, to a fixed point. A worklist revisits only the
    /// arguments that receive a replaced one, so this is linear in the
    /// number of incoming values (times the short replacement chains).
    /// `ranges[i]` are the incoming values of `solution.arguments[i]`.
    fn fold_trivial_arguments<V: Copy + Eq>(
        &self,
        solution: &mut Solution<V>,
        ranges: &[std::ops::Range<usize>],
        available_in: &dyn Fn(Available<V>, BlockId) -> bool,
    ) {
        let index_of = |b: BlockId| {
            self.has_argument
                .contains(b)
                .then(|| self.position[b.index()] as usize)
        };
        let users = argument_users(solution, ranges, &index_of);
        let mut replaced: Vec<Option<Available<V>>> = vec![None; solution.arguments.len()];
        let mut worklist: Vec<usize> = (0..solution.arguments.len()).collect();
        while let Some(index) = worklist.pop() {
            if replaced[index].is_some() {
                continue;
            }
            let Some(replacement) = trivial_replacement(
                solution,
                index,
                ranges[index].clone(),
                &replaced,
                &index_of,
                available_in,
            ) else {
                continue;
            };
            replaced[index] = Some(replacement);
            let first = users.partition_point(|&(source, _)| (source as usize) < index);
            worklist.extend(
                users[first..]
                    .iter()
                    .take_while(|&&(source, _)| source as usize == index)
                    .map(|&(_, receiver)| receiver as usize)
                    .filter(|&receiver| replaced[receiver].is_none()),
            );
        }
        apply_replacements(solution, &replaced, &index_of);
    }
}

/// Who receives each argument, as sorted `(source argument, receiving
/// argument)` pairs of indices into `solution.arguments`.
fn argument_users<V: Copy>(
    solution: &Solution<V>,
    ranges: &[std::ops::Range<usize>],
    index_of: &dyn Fn(BlockId) -> Option<usize>,
) -> Vec<(u32, u32)> {
    let mut users: Vec<(u32, u32)> = Vec::new();
    for (receiver, range) in ranges.iter().enumerate() {
        for &(_, _, _, value) in &solution.incoming[range.clone()] {
            if let Some(source) = argument_index(value, index_of) {
                users.push((source as u32, receiver as u32));
            }
        }
    }
    users.sort_unstable();
    users
}

/// `value` after following the replacements of folded arguments.
fn resolve_replaced<V: Copy>(
    replaced: &[Option<Available<V>>],
    mut value: Available<V>,
    index_of: &dyn Fn(BlockId) -> Option<usize>,
) -> Available<V> {
    while let Some(index) = argument_index(value, index_of) {
        match replaced[index] {
            Some(next) => value = next,
            None => break,
        }
    }
    value
}

/// The value replacing argument `index` (whose incoming values are
/// `solution.incoming[range]`) if it is trivial: its incoming values are
/// only itself and one other value, plus poison only when that value is
/// available in its block.
fn trivial_replacement<V: Copy + Eq>(
    solution: &Solution<V>,
    index: usize,
    range: std::ops::Range<usize>,
    replaced: &[Option<Available<V>>],
    index_of: &dyn Fn(BlockId) -> Option<usize>,
    available_in: &dyn Fn(Available<V>, BlockId) -> bool,
) -> Option<Available<V>> {
    let block = solution.arguments[index];
    let mut unique: Option<Available<V>> = None;
    let mut saw_poison = false;
    for &(_, _, _, value) in &solution.incoming[range] {
        let value = resolve_replaced(replaced, value, index_of);
        if value == Available::Argument(block) {
            continue;
        }
        if value == Available::Poison {
            saw_poison = true;
            continue;
        }
        match unique {
            None => unique = Some(value),
            Some(u) if u == value => {}
            Some(_) => return None,
        }
    }
    if saw_poison && unique.is_some_and(|u| !available_in(u, block)) {
        return None;
    }
    Some(unique.unwrap_or(Available::Poison))
}

/// Drops the folded arguments and their incoming values from `solution`
/// and resolves every remaining incoming value and read.
fn apply_replacements<V: Copy>(
    solution: &mut Solution<V>,
    replaced: &[Option<Available<V>>],
    index_of: &dyn Fn(BlockId) -> Option<usize>,
) {
    let kept = |block: BlockId| index_of(block).is_none_or(|index| replaced[index].is_none());
    solution.incoming.retain(|&(_, _, target, _)| kept(target));
    for entry in &mut solution.incoming {
        entry.3 = resolve_replaced(replaced, entry.3, index_of);
    }
    for read in &mut solution.reads {
        read.1 = resolve_replaced(replaced, read.1, index_of);
    }
    solution.arguments.retain(|&block| kept(block));
}

/// The index (in the solution's arguments) of the argument `value` names.
fn argument_index<V>(
    value: Available<V>,
    index_of: &dyn Fn(BlockId) -> Option<usize>,
) -> Option<usize> {
    match value {
        Available::Argument(block) => index_of(block),
        _ => None,
    }
}

#[cfg(test)]
mod reference {
    use super::*;

    /// The first, map-based implementation of [`solve`](super::solve), kept
    /// as the reference the property test compares the solver with.
    ///
    /// Solves one variable on `graph`. `dominators` must be `graph`'s dominator
    /// tree; `def_block(v)` is the block defining `v`, or `None` for values
    /// available everywhere (constants, values from outside the region).
    pub(super) fn reference_solve<G: Graph + ?Sized, V: Copy + Eq + std::hash::Hash>(
        graph: &G,
        dominators: &DominatorTree,
        variable: &Variable<V>,
        def_block: &dyn Fn(V) -> Option<BlockId>,
    ) -> Solution<V> {
        let block_def: FastMap<BlockId, V> = variable.block_defs.iter().copied().collect();
        let edge_def: FastMap<(BlockId, usize), Available<V>> = variable
            .edge_defs
            .iter()
            .map(|&(b, s, v)| ((b, s), Available::Value(v)))
            .collect();
        let live_in = live_in_blocks(graph, variable, &block_def, &edge_def);

        let end_value = |block: BlockId| -> Available<V> {
            if let Some(&v) = block_def.get(&block) {
                Available::Value(v)
            } else if live_in.contains_key(&block) && block != graph.entry() {
                Available::Argument(block)
            } else {
                Available::Poison
            }
        };
        let mut arguments: Vec<BlockId> = live_in
            .keys()
            .copied()
            .filter(|&b| b != graph.entry())
            .collect();
        arguments.sort();
        let mut incoming = Vec::new();
        let mut index_of = FastMap::default();
        for &target in &arguments {
            for &pred in graph.predecessors(target) {
                for (slot, &succ) in graph.successors(pred).iter().enumerate() {
                    if succ != target || index_of.contains_key(&(pred, slot)) {
                        continue;
                    }
                    let value = edge_def
                        .get(&(pred, slot))
                        .copied()
                        .unwrap_or_else(|| end_value(pred));
                    index_of.insert((pred, slot), incoming.len());
                    incoming.push((pred, slot, target, value));
                }
            }
        }
        let mut solution = Solution {
            arguments,
            incoming,
            reads: initial_reads(graph, variable),
        };
        let available_in = |value, block| is_available_at(dominators, def_block, value, block);
        fold_trivial_arguments(&mut solution, &available_in);
        solution
    }

    /// Blocks where the variable is live on entry: reachable backwards from a
    /// read without crossing a definition.
    fn live_in_blocks<G: Graph + ?Sized, V>(
        graph: &G,
        variable: &Variable<V>,
        block_def: &FastMap<BlockId, V>,
        edge_def: &FastMap<(BlockId, usize), Available<V>>,
    ) -> FastMap<BlockId, ()> {
        let mut live: FastMap<BlockId, ()> = FastMap::default();
        let mut stack: Vec<BlockId> = variable.reads.clone();
        while let Some(block) = stack.pop() {
            if live.insert(block, ()).is_some() {
                continue;
            }
            for &pred in graph.predecessors(block) {
                if block_def.contains_key(&pred) || live.contains_key(&pred) {
                    continue;
                }
                if variable
                    .live_region
                    .as_ref()
                    .is_some_and(|region| !region.contains(&pred))
                {
                    continue;
                }
                let all_slots_defined = graph
                    .successors(pred)
                    .iter()
                    .enumerate()
                    .filter(|&(_, &s)| s == block)
                    .all(|(slot, _)| edge_def.contains_key(&(pred, slot)));
                if !all_slots_defined {
                    stack.push(pred);
                }
            }
        }
        live
    }

    /// Replaces arguments whose incoming values are only themselves and one
    /// other value (plus poison, when that value is available in the block) by
    /// that value, to a fixed point. A worklist revisits only the arguments that
    /// receive a replaced one, so this is linear in the number of incoming
    /// values (times the short replacement chains).
    fn fold_trivial_arguments<V: Copy + Eq + std::hash::Hash>(
        solution: &mut Solution<V>,
        available_in: &dyn Fn(Available<V>, BlockId) -> bool,
    ) {
        let mut by_target: FastMap<BlockId, Vec<usize>> = FastMap::default();
        let mut users: FastMap<BlockId, Vec<BlockId>> = FastMap::default();
        for (index, &(_, _, target, value)) in solution.incoming.iter().enumerate() {
            by_target.entry(target).or_default().push(index);
            if let Available::Argument(source) = value {
                users.entry(source).or_default().push(target);
            }
        }
        let mut replaced: FastMap<BlockId, Available<V>> = FastMap::default();
        let mut worklist: Vec<BlockId> = solution.arguments.clone();
        while let Some(block) = worklist.pop() {
            if replaced.contains_key(&block) {
                continue;
            }
            let Some(unique) = trivial_value(solution, &by_target, &replaced, block, available_in)
            else {
                continue;
            };
            replaced.insert(block, unique);
            if let Some(list) = users.get(&block) {
                worklist.extend(list.iter().copied().filter(|u| !replaced.contains_key(u)));
            }
        }
        solution.arguments.retain(|b| !replaced.contains_key(b));
        solution
            .incoming
            .retain(|&(_, _, target, _)| !replaced.contains_key(&target));
        for entry in &mut solution.incoming {
            entry.3 = resolve(&replaced, entry.3);
        }
        for read in &mut solution.reads {
            read.1 = resolve(&replaced, read.1);
        }
    }

    /// The single value argument `block` can be replaced by, if it is trivial.
    fn trivial_value<V: Copy + Eq>(
        solution: &Solution<V>,
        by_target: &FastMap<BlockId, Vec<usize>>,
        replaced: &FastMap<BlockId, Available<V>>,
        block: BlockId,
        available_in: &dyn Fn(Available<V>, BlockId) -> bool,
    ) -> Option<Available<V>> {
        let mut unique: Option<Available<V>> = None;
        let mut saw_poison = false;
        for &index in by_target.get(&block).map(Vec::as_slice).unwrap_or_default() {
            let value = resolve(replaced, solution.incoming[index].3);
            if value == Available::Argument(block) {
                continue;
            }
            if value == Available::Poison {
                saw_poison = true;
                continue;
            }
            match unique {
                None => unique = Some(value),
                Some(u) if u == value => {}
                Some(_) => return None,
            }
        }
        if saw_poison && unique.is_some_and(|u| !available_in(u, block)) {
            return None;
        }
        Some(unique.unwrap_or(Available::Poison))
    }

    fn resolve<V: Copy>(
        replaced: &FastMap<BlockId, Available<V>>,
        mut value: Available<V>,
    ) -> Available<V> {
        while let Available::Argument(block) = value {
            match replaced.get(&block) {
                Some(&next) => value = next,
                None => break,
            }
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::CfgGraph;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    /// Solves with `defs` mapping each value to its defining block.
    fn solve_with(g: &CfgGraph, var: &Variable<char>, defs: &[(char, usize)]) -> Solution<char> {
        let dominators = DominatorTree::build(g);
        let lookup = |v: char| {
            defs.iter()
                .find(|(c, _)| *c == v)
                .map(|&(_, block)| b(block))
        };
        solve(g, &dominators, var, &lookup)
    }

    #[test]
    fn diamond_with_one_side_defining_gets_an_argument_with_poison() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3; v defined in 1, read in 3.
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let var = Variable {
            block_defs: vec![(b(1), 'v')],
            edge_defs: vec![],
            reads: vec![b(3)],
            live_region: None,
        };
        // v does not dominate 3: {v, poison} must stay an argument.
        let s = solve_with(&g, &var, &[('v', 1)]);
        assert_eq!(s.arguments, vec![b(3)]);
        assert_eq!(s.reads, vec![(b(3), Available::Argument(b(3)))]);
        // A value defined in the entry dominates 3: it folds.
        let s = solve_with(&g, &var, &[('v', 0)]);
        assert!(s.arguments.is_empty());
        assert_eq!(s.reads, vec![(b(3), Available::Value('v'))]);
    }

    #[test]
    fn two_definitions_merge_in_an_argument() {
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let var = Variable {
            block_defs: vec![(b(1), 'x'), (b(2), 'y')],
            edge_defs: vec![],
            reads: vec![b(3)],
            live_region: None,
        };
        let s = solve_with(&g, &var, &[('x', 1), ('y', 2), ('v', 1)]);
        assert_eq!(s.arguments, vec![b(3)]);
        assert_eq!(s.reads, vec![(b(3), Available::Argument(b(3)))]);
        let mut incoming: Vec<_> = s.incoming.iter().map(|&(p, _, _, v)| (p, v)).collect();
        incoming.sort_by_key(|(p, _)| *p);
        assert_eq!(
            incoming,
            vec![(b(1), Available::Value('x')), (b(2), Available::Value('y'))]
        );
    }

    #[test]
    fn edge_definitions_travel_through_a_flow_block() {
        // 0 -slot0-> 2(flow), 1 -> 2(flow) -> 3; edges into the flow carry x / y.
        let g = CfgGraph::from_edges(4, b(0), &[(0, 2), (0, 1), (1, 2), (2, 3)]);
        let var = Variable {
            block_defs: vec![],
            edge_defs: vec![(b(0), 0, 'x'), (b(1), 0, 'y')],
            reads: vec![b(3)],
            live_region: None,
        };
        let s = solve_with(&g, &var, &[('x', 1), ('y', 2), ('v', 1)]);
        assert_eq!(s.arguments, vec![b(2)]);
        assert_eq!(s.reads, vec![(b(3), Available::Argument(b(2)))]);
    }

    #[test]
    fn loop_carried_reads_fold_to_the_definition() {
        // 0 -> 1 (def) -> 2 -> 1, 2 -> 3 (read)
        let g = CfgGraph::from_edges(4, b(0), &[(0, 1), (1, 2), (2, 1), (2, 3)]);
        let var = Variable {
            block_defs: vec![(b(1), 'v')],
            edge_defs: vec![],
            reads: vec![b(3), b(2)],
            live_region: None,
        };
        let s = solve_with(&g, &var, &[('x', 1), ('y', 2), ('v', 1)]);
        assert!(s.arguments.is_empty());
        assert!(s.reads.iter().all(|&(_, v)| v == Available::Value('v')));
    }

    /// A random variable on `g` for the property tests: value `v` is
    /// defined in block `homes[v]`, or anywhere when that is `None`.
    fn random_variable(
        rng: &mut crate::analysis::cfg::random::SplitMix64,
        g: &CfgGraph,
        homes: &[Option<BlockId>],
    ) -> Variable<usize> {
        let n = g.num_blocks();
        let pick =
            |rng: &mut crate::analysis::cfg::random::SplitMix64| b(rng.below(n as u64) as usize);
        let mut var = Variable::<usize>::default();
        for _ in 0..rng.range(0, 3) {
            let v = rng.below(homes.len() as u64) as usize;
            var.block_defs
                .push((homes[v].unwrap_or_else(|| pick(rng)), v));
        }
        var.block_defs.sort_by_key(|&(block, _)| block);
        var.block_defs.dedup_by_key(|&mut (block, _)| block);
        for _ in 0..rng.range(0, 4) {
            let block = pick(rng);
            let successors = g.successors(block).len();
            if successors > 0 {
                let slot = rng.below(successors as u64) as usize;
                if !var
                    .edge_defs
                    .iter()
                    .any(|&(x, y, _)| (x, y) == (block, slot))
                {
                    let v = rng.below(homes.len() as u64) as usize;
                    var.edge_defs.push((block, slot, v));
                }
            }
        }
        var.reads = (0..rng.range(1, 4)).map(|_| pick(rng)).collect();
        var.reads.sort();
        var.reads.dedup();
        if rng.chance(300) {
            let region: FastSet<BlockId> = (0..n).map(b).filter(|_| rng.chance(600)).collect();
            var.live_region = Some(std::sync::Arc::new(region));
        }
        var
    }

    /// Homes for six values on an `n`-block graph; some live everywhere.
    fn random_homes(
        rng: &mut crate::analysis::cfg::random::SplitMix64,
        n: usize,
    ) -> Vec<Option<BlockId>> {
        (0..6)
            .map(|_| (!rng.chance(300)).then(|| b(rng.below(n as u64) as usize)))
            .collect()
    }

    #[test]
    fn property_solver_matches_the_reference_on_random_cfgs() {
        use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
        let seeds: u64 = crate::testing::seed_count("SPMD_SSA_SEEDS", 2000);
        let mut solver = Solver::new();
        let (mut with_arguments, mut folded) = (0, 0);
        for seed in 0..seeds {
            let mut rng = SplitMix64::new(seed);
            let n = rng.range(2, 60);
            let g = realistic_cfg(&mut rng, n);
            let dominators = DominatorTree::build(&g);
            let homes = random_homes(&mut rng, n);
            let var = random_variable(&mut rng, &g, &homes);
            let def_block = |v: usize| homes[v];
            let expected = super::reference::reference_solve(&g, &dominators, &var, &def_block);
            let got = solver.solve(&g, &dominators, &var, &def_block);
            assert_eq!(got, expected, "seed {seed}: {var:?}");
            with_arguments += usize::from(!got.arguments.is_empty());
            folded += usize::from(
                got.reads
                    .iter()
                    .any(|&(_, v)| matches!(v, Available::Value(_))),
            );
        }
        // The corpus exercises both arguments that stay and folding.
        assert!(
            with_arguments as u64 * 5 > seeds && folded as u64 * 10 > seeds,
            "{with_arguments} {folded}"
        );
    }

    /// The parallel solver gives every variable the solution the
    /// sequential one gives, in the variables' order, whatever the number
    /// of workers.
    #[test]
    fn property_parallel_solving_matches_one_by_one() {
        use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
        let seeds: u64 = crate::testing::seed_count("SPMD_SSA_SEEDS", 2000) / 10;
        for seed in 0..seeds.max(20) {
            let mut rng = SplitMix64::new(seed ^ 0x5eed);
            let n = rng.range(2, 80);
            let g = realistic_cfg(&mut rng, n);
            let dominators = DominatorTree::build(&g);
            let homes = random_homes(&mut rng, n);
            let variables: Vec<Variable<usize>> = (0..rng.range(0, 24))
                .map(|_| random_variable(&mut rng, &g, &homes))
                .collect();
            let refs: Vec<&Variable<usize>> = variables.iter().collect();
            let def_block = |v: usize| homes[v];
            let expected: Vec<_> = refs
                .iter()
                .map(|v| solve(&g, &dominators, v, &def_block))
                .collect();
            for workers in [1, 2, 3, 5] {
                let got = solve_on_workers(workers, &g, &dominators, &refs, &def_block);
                assert_eq!(got, expected, "seed {seed}, {workers} workers");
            }
            assert_eq!(solve_all(&g, &dominators, &refs, &def_block), expected);
        }
    }

    #[test]
    fn read_with_no_reaching_definition_is_poison() {
        let g = CfgGraph::from_edges(2, b(0), &[(0, 1)]);
        let var: Variable<char> = Variable {
            block_defs: vec![],
            edge_defs: vec![],
            reads: vec![b(1)],
            live_region: None,
        };
        assert_eq!(
            solve_with(&g, &var, &[]).reads,
            vec![(b(1), Available::Poison)]
        );
    }
}
