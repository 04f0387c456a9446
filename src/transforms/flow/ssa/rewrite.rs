//! Applying [`solve`](super::solve) solutions to MLIR: new block
//! arguments, extra successor operands, and the value each read sees.
//!
//! The CFG must already have its final shape (every terminator in place);
//! the solutions are computed on a fresh [`RegionGraph`] snapshot of it.
//! New arguments are appended after a block's existing ones, and every edge
//! into such a block gets the matching operands appended, in the same
//! order. Constants and `ub.poison` are materialised once per function, at
//! the start of the entry block (which dominates every use).

use crate::ir::key::TypeKey;
use crate::support::FastMap;
use crate::{
    analysis::cfg::{BlockId, DominatorTree, Graph},
    ir::region_graph::RegionGraph,
};
use crate::{
    ir::edit,
    transforms::flow::ssa::solve::{Available, Solution, Variable},
};
use melior::{
    ir::{block::BlockLike, BlockRef, Location, Type, Value},
    Context,
};

/// What a variable is assigned: an `i1` constant or an existing value.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Def<'c, 'a> {
    /// `arith.constant true/false`.
    Bool(bool),
    /// A value already in the IR.
    Value(Value<'c, 'a>),
    /// `arith.constant N : i32` (a Flow-chain selector).
    I32(i64),
}

/// A variable to turn into SSA form: its type, its definitions (indices
/// into the definition table given to [`apply`]) and its reads.
pub(crate) struct IrVariable<'c> {
    /// The type of the variable.
    pub(crate) r#type: Type<'c>,
    /// Definitions and reads, over definition indices.
    pub(crate) variable: Variable<usize>,
}

/// Solves and materialises every variable; returns, per variable, the value
/// seen by each reading block.
pub(crate) fn apply<'c, 'a>(
    context: &'c Context,
    graph: &RegionGraph<'c, 'a>,
    defs: &[Def<'c, 'a>],
    variables: &[IrVariable<'c>],
    location: Location<'c>,
) -> Vec<Vec<(BlockId, Value<'c, 'a>)>> {
    let mut materializer = Materializer::new(context, graph.block(graph.graph().entry()), location);
    let dominators = DominatorTree::build(graph.graph());
    apply_with(&mut materializer, graph, &dominators, defs, variables)
}

/// [`apply`] with the caller's materializer, whose constants the caller can
/// then share, and `graph`'s dominator tree.
pub(crate) fn apply_with<'c, 'a>(
    materializer: &mut Materializer<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    dominators: &DominatorTree,
    defs: &[Def<'c, 'a>],
    variables: &[IrVariable<'c>],
) -> Vec<Vec<(BlockId, Value<'c, 'a>)>> {
    let def_blocks = def_blocks(graph, defs);
    apply_with_def_blocks(
        materializer,
        graph,
        dominators,
        defs,
        &def_blocks,
        variables,
    )
}

/// The block defining each entry of `defs` (`None` for constants and
/// values from outside the region).
pub(crate) fn def_blocks(
    graph: &RegionGraph<'_, '_>,
    defs: &[Def<'_, '_>],
) -> Vec<Option<BlockId>> {
    defs.iter()
        .map(|def| match *def {
            Def::Bool(_) | Def::I32(_) => None,
            Def::Value(value) => defining_block(graph, value),
        })
        .collect()
}

/// [`apply_with`] given `def_blocks(graph, defs)`: the solving then needs no
/// IR, so it can run on several threads
/// ([`solve_all`](super::solve::solve_all)).
pub(crate) fn apply_with_def_blocks<'c, 'a>(
    materializer: &mut Materializer<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    dominators: &DominatorTree,
    defs: &[Def<'c, 'a>],
    def_blocks: &[Option<BlockId>],
    variables: &[IrVariable<'c>],
) -> Vec<Vec<(BlockId, Value<'c, 'a>)>> {
    let location = materializer.location;
    let mut timer = crate::support::PhaseTimer::new("ssa");
    let def_block = |index: usize| def_blocks[index];
    let to_solve: Vec<&Variable<usize>> = variables.iter().map(|v| &v.variable).collect();
    let solutions = super::solve::solve_all(graph.graph(), dominators, &to_solve, &def_block);
    timer.lap(&format!("solve {} variables", variables.len()));

    let arguments = add_arguments(graph, &solutions, variables, location);
    timer.lap(&format!(
        "{} arguments",
        arguments.iter().map(Vec::len).sum::<usize>()
    ));
    let resolver = Resolver {
        defs,
        variables,
        solutions: &solutions,
        arguments: &arguments,
    };
    let operand_count = append_edge_operands(materializer, graph, &resolver);
    timer.lap(&format!("{operand_count} successor operands"));
    solutions
        .iter()
        .enumerate()
        .map(|(k, solution)| {
            solution
                .reads
                .iter()
                .map(|&(block, value)| (block, resolver.resolve(materializer, k, value)))
                .collect()
        })
        .collect()
}

/// Adds the new block arguments of every solution; returns them per
/// variable, in the order of each solution's sorted `arguments` (so each
/// block gets its new arguments in variable order).
fn add_arguments<'c, 'a>(
    graph: &RegionGraph<'c, 'a>,
    solutions: &[Solution<usize>],
    variables: &[IrVariable<'c>],
    location: Location<'c>,
) -> Vec<Vec<Value<'c, 'a>>> {
    solutions
        .iter()
        .enumerate()
        .map(|(k, solution)| {
            solution
                .arguments
                .iter()
                .map(|&block| {
                    graph
                        .block(block)
                        .add_argument(variables[k].r#type, location)
                })
                .collect()
        })
        .collect()
}

/// The inputs needed to turn an [`Available`] of a solution into a value.
struct Resolver<'r, 'c, 'a> {
    defs: &'r [Def<'c, 'a>],
    variables: &'r [IrVariable<'c>],
    solutions: &'r [Solution<usize>],
    /// Per variable, the new arguments (parallel to its `arguments`).
    arguments: &'r [Vec<Value<'c, 'a>>],
}

impl<'c, 'a> Resolver<'_, 'c, 'a> {
    /// The value that `value`, available for variable `k`, stands for.
    fn resolve(
        &self,
        m: &mut Materializer<'c, 'a>,
        k: usize,
        value: Available<usize>,
    ) -> Value<'c, 'a> {
        match value {
            Available::Value(index) => m.def(self.defs[index]),
            Available::Argument(owner) => {
                let position = self.solutions[k]
                    .arguments
                    .binary_search(&owner)
                    .expect("an argument of the solution");
                self.arguments[k][position]
            }
            Available::Poison => m.poison(self.variables[k].r#type),
        }
    }
}

/// Appends the extra operands on every edge into a block that got
/// arguments; returns how many operands were appended.
fn append_edge_operands<'c, 'a>(
    materializer: &mut Materializer<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    resolver: &Resolver<'_, 'c, 'a>,
) -> usize {
    // Each solution lists all such edges, so grouping the lists by edge
    // gives every edge its operands in variable order, as the arguments are.
    let mut edge_values: Vec<(BlockId, usize, usize, Available<usize>)> = resolver
        .solutions
        .iter()
        .enumerate()
        .flat_map(|(k, solution)| {
            solution
                .incoming
                .iter()
                .map(move |&(pred, slot, _, value)| (pred, slot, k, value))
        })
        .collect();
    edge_values.sort_unstable_by_key(|&(pred, slot, k, _)| (pred, slot, k));
    let operand_count = edge_values.len();
    let mut operands = Vec::new();
    for edge in edge_values.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let (pred, slot) = (edge[0].0, edge[0].1);
        operands.clear();
        operands.extend(
            edge.iter()
                .map(|&(_, _, k, value)| resolver.resolve(materializer, k, value)),
        );
        // SSA construction only appends operands to the snapshot's terminators.
        let appended =
            edit::append_successor_operands(graph.snapshot_terminator(pred), slot, &operands);
        assert!(
            appended,
            "branches of a snapshotted region forward their operands"
        );
    }
    operand_count
}

/// What the materializer creates: a constant or a poison of a (uniqued,
/// hence compared by identity) type.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Materialized {
    Bool(bool),
    I32(i64),
    Poison(TypeKey),
}

/// Creates constants and poison values once per function, at the start of
/// the entry block, which dominates every use. Keeping them out of the
/// blocks that need them keeps Flow blocks free of anything but their
/// branch (the structured contract) and the output small.
pub(crate) struct Materializer<'c, 'a> {
    context: &'c Context,
    location: Location<'c>,
    entry: BlockRef<'c, 'a>,
    constants: FastMap<Materialized, Value<'c, 'a>>,
}

impl<'c, 'a> Materializer<'c, 'a> {
    /// A materializer that creates its values at the start of `entry`.
    pub(crate) fn new(
        context: &'c Context,
        entry: BlockRef<'c, 'a>,
        location: Location<'c>,
    ) -> Self {
        Self {
            context,
            location,
            entry,
            constants: FastMap::default(),
        }
    }

    /// The value of `def`: the value itself, or the function's one constant.
    pub(crate) fn def(&mut self, def: Def<'c, 'a>) -> Value<'c, 'a> {
        match def {
            Def::Value(value) => value,
            Def::Bool(b) => self.cached_integer(Materialized::Bool(b), 1, b as i64),
            Def::I32(n) => self.cached_integer(Materialized::I32(n), 32, n),
        }
    }

    fn poison(&mut self, r#type: Type<'c>) -> Value<'c, 'a> {
        self.cached(Materialized::Poison(TypeKey::of(&r#type)), |s| {
            edit::poison(s.context, r#type, s.location)
        })
    }

    fn cached_integer(&mut self, key: Materialized, width: u32, value: i64) -> Value<'c, 'a> {
        if let Some(&value) = self.constants.get(&key) {
            return value;
        }
        let value = edit::prepend_integer_constant(self.entry, width, value, self.location);
        self.constants.insert(key, value);
        value
    }

    fn cached(
        &mut self,
        key: Materialized,
        build: impl FnOnce(&Self) -> melior::ir::Operation<'c>,
    ) -> Value<'c, 'a> {
        if let Some(&value) = self.constants.get(&key) {
            return value;
        }
        let op = edit::insert_at_start(self.entry, build(self));
        let value: Value = op.result(0).unwrap().into();
        self.constants.insert(key, value);
        value
    }
}

/// The block of `graph`'s region that defines `value`, if any.
pub(crate) fn defining_block(graph: &RegionGraph<'_, '_>, value: Value<'_, '_>) -> Option<BlockId> {
    graph.id(crate::ir::query::defining_block(value)?)
}
