//! Locations of the blocks the transforms insert.
//!
//! The transforms build Flow blocks, guard blocks, rejoin and exit blocks
//! with the location of the function they edit, which tells a reader (or a
//! diagnostic, or a debugger) nothing about why the block exists. After a
//! transform ran on a function, [`relocate_inserted_blocks`] gives every
//! operation of each inserted block a location that points back:
//!
//! ```text
//! loc(fused<"flow">["kernel.mlir":12:5])
//! ```
//!
//! a `FusedLoc` whose metadata is a string naming the kind of block
//! ([`InsertedKind`]: `flow`, `loop-flow`, `guard`, `rejoin`, `exit`,
//! `tail`) and whose one location is the one of the branch or join the
//! block serves. `--mlir-print-debuginfo` shows it as above; diagnostics
//! about the block point at the user's branch, because MLIR's source
//! manager handler looks through fused locations; and `--spmd-view-cfg`
//! reads the kind back ([`inserted_kind`]) to draw the block.
//!
//! Which blocks are inserted: blocks that did not exist before the
//! transform and whose terminator still carries the function's location
//! (the transforms never give an inserted block another one, and user
//! blocks never lose theirs). Which branch a block serves: the terminator of
//! its first predecessor (in block order) that is not itself inserted; if
//! all its predecessors are inserted, what the first of them (in block
//! order) among those nearest to an original block serves. That is the
//! divergent branch a Flow block reconverges, the edge a guard dispatches,
//! the last branch before a rejoin. A block with no such predecessor keeps
//! the function's location inside the fused one.
//!
//! Only operations (and block arguments) that still carry the function's
//! location are changed: operations the transform moved into an inserted
//! block keep theirs.

use crate::analysis::cfg::{BlockId, Graph};
use crate::ir::key::BlockKey;
use crate::ir::names;
use crate::ir::{edit, region_graph::RegionGraph};
use crate::support::FastSet;
use melior::{
    ir::{
        attribute::StringAttribute, block::BlockLike, operation::OperationLike, Attribute,
        Location, OperationRef, RegionRef,
    },
    Context,
};

/// The kinds of inserted blocks, as named in their locations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InsertedKind {
    /// A Flow block (`spmd.flow_br`): threads wait here for the others.
    Flow,
    /// A loop Flow block (`spmd.flow_br loop`).
    LoopFlow,
    /// A block that dispatches threads on a predicate or selector (hub
    /// guards, switch chains, never-taken exits).
    Guard,
    /// A block where paths join again.
    Rejoin,
    /// A block that leaves the function (the unified return).
    Exit,
    /// A common tail that branch-fold moved into its own block.
    Tail,
}

impl InsertedKind {
    /// Every kind, each at the index of its discriminant.
    pub(crate) const ALL: [InsertedKind; 6] = [
        Self::Flow,
        Self::LoopFlow,
        Self::Guard,
        Self::Rejoin,
        Self::Exit,
        Self::Tail,
    ];

    /// The name in the location.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Flow => "flow",
            Self::LoopFlow => "loop-flow",
            Self::Guard => "guard",
            Self::Rejoin => "rejoin",
            Self::Exit => "exit",
            Self::Tail => "tail",
        }
    }

    /// The kind called `name`.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The kind of an inserted block ending in `terminator`; `joining` is
    /// the kind of a block that neither branches nor leaves the function.
    fn of(terminator: OperationRef<'_, '_>, joining: InsertedKind) -> Self {
        let name = crate::transforms::prepare::op_name(terminator);
        if name == names::FLOW_BR {
            if terminator.attribute("loop").is_ok() {
                Self::LoopFlow
            } else {
                Self::Flow
            }
        } else if terminator.successor_count() >= 2 {
            Self::Guard
        } else if terminator.successor_count() == 0 {
            Self::Exit
        } else {
            joining
        }
    }
}

/// `fused<"kind">[served]`: the location of an inserted block of `kind`
/// serving the branch or join at `served`.
#[cfg(test)]
pub fn inserted_location<'c>(
    context: &'c Context,
    served: Location<'c>,
    kind: InsertedKind,
) -> Location<'c> {
    Location::fused(
        context,
        &[served],
        StringAttribute::new(context, kind.name()).into(),
    )
}

/// The kind named by a location built with [`inserted_location`].
pub(crate) fn inserted_kind(location: Location<'_>) -> Option<InsertedKind> {
    if !location.is_fused() {
        return None;
    }
    let metadata: Attribute = location.fused_metadata();
    let text = StringAttribute::try_from(metadata).ok()?;
    InsertedKind::from_name(text.value())
}

/// The blocks of `region`, to tell afterwards which blocks a transform
/// inserted.
pub(crate) fn block_set(region: RegionRef<'_, '_>) -> FastSet<BlockKey> {
    edit::blocks(region).iter().map(BlockKey::of).collect()
}

/// Gives the operations of every block of `region` inserted since `before`
/// (see the module documentation) the location of the branch or join it
/// serves, fused with its kind. `joining` names blocks that neither branch
/// nor return. Returns how many blocks were relocated (none if a block of
/// the region has no terminator: the verifier reports that region).
pub(crate) fn relocate_inserted_blocks<'c>(
    context: &'c Context,
    function: OperationRef<'c, '_>,
    region: RegionRef<'c, '_>,
    before: &FastSet<BlockKey>,
    joining: InsertedKind,
) -> usize {
    let mut timer = crate::support::PhaseTimer::new("locations");
    let Ok(graph) = RegionGraph::snapshot(region) else {
        return 0;
    };
    let function_location = function.location();
    let inserted: Vec<bool> = (0..graph.num_blocks())
        .map(BlockId::new)
        .map(|b| {
            !before.contains(&BlockKey::of(&graph.block(b)))
                && graph.snapshot_terminator(b).location() == function_location
        })
        .collect();
    if !inserted.contains(&true) {
        return 0;
    }
    timer.lap("snapshot");
    let served = served_branches(&graph, &inserted);
    timer.lap("served branches");
    let kinds = kind_attributes(context);
    let mut relocated = 0;
    for b in (0..graph.num_blocks()).filter(|&b| inserted[b]) {
        let block = graph.block(BlockId::new(b));
        let kind = InsertedKind::of(graph.snapshot_terminator(BlockId::new(b)), joining);
        let location = Location::fused(
            context,
            &[served[b].unwrap_or(function_location)],
            kinds[kind as usize],
        );
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op.location() == function_location {
                edit::set_location(op, location);
            }
        }
        for index in 0..block.argument_count() {
            let argument = block.argument(index).expect("index in range");
            if edit::argument_location(argument) == function_location {
                edit::set_argument_location(argument, location);
            }
        }
        relocated += 1;
    }
    timer.lap(&format!("{relocated} blocks relocated"));
    relocated
}

/// The metadata of each kind's locations, indexed by the kind (as
/// [`InsertedKind::ALL`]), built once per function instead of per block.
fn kind_attributes(context: &Context) -> [Attribute<'_>; 6] {
    InsertedKind::ALL.map(|kind| StringAttribute::new(context, kind.name()).into())
}

/// The location each inserted block serves (see the module
/// documentation), found breadth-first from the original blocks: a block
/// with an original predecessor serves the terminator of the first one; in
/// each later round, a block all of whose predecessors are inserted serves
/// what its first predecessor settled in an earlier round serves. Each
/// block's predecessors are scanned once, when one of them settles, so
/// long chains of inserted blocks cost no more than short ones.
fn served_branches<'c>(
    graph: &RegionGraph<'c, '_>,
    inserted: &[bool],
) -> Vec<Option<Location<'c>>> {
    let g = graph.graph();
    let n = graph.num_blocks();
    let mut served: Vec<Option<Location<'c>>> = vec![None; n];
    let mut settled = vec![false; n];
    let mut round: Vec<usize> = Vec::new();
    for b in (0..n).filter(|&b| inserted[b]) {
        let original = g
            .predecessors(BlockId::new(b))
            .iter()
            .find(|p| !inserted[p.index()]);
        if let Some(&p) = original {
            served[b] = Some(graph.snapshot_terminator(p).location());
            settled[b] = true;
            round.push(b);
        }
    }
    let mut candidates = Vec::new();
    while !round.is_empty() {
        candidates.clear();
        for &b in &round {
            for &s in g.successors(BlockId::new(b)) {
                if inserted[s.index()] && !settled[s.index()] {
                    // Claimed now so that it is listed once; it reads only
                    // blocks settled in earlier rounds below.
                    settled[s.index()] = true;
                    candidates.push(s.index());
                }
            }
        }
        candidates.sort_unstable();
        let choices: Vec<Option<Location<'c>>> = candidates
            .iter()
            .map(|&b| {
                g.predecessors(BlockId::new(b))
                    .iter()
                    .find_map(|p| served[p.index()])
            })
            .collect();
        for (&b, choice) in candidates.iter().zip(choices) {
            served[b] = choice;
        }
        std::mem::swap(&mut round, &mut candidates);
    }
    served
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::region_graph::last_operation;
    use melior::ir::Module;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for (index, kind) in InsertedKind::ALL.into_iter().enumerate() {
            assert_eq!(InsertedKind::from_name(kind.name()), Some(kind));
            assert_eq!(kind as usize, index, "ALL lists the kinds in order");
        }
        assert_eq!(InsertedKind::from_name("flows"), None);
    }

    #[test]
    fn location_names_kind_and_served_branch() {
        let context = crate::dialect::context_with_all_dialects();
        let branch = Location::new(&context, "k.mlir", 3, 5);
        let location = inserted_location(&context, branch, InsertedKind::Guard);
        assert_eq!(
            location.to_string(),
            "loc(fused<\"guard\">[\"k.mlir\":3:5])"
        );
        assert_eq!(inserted_kind(location), Some(InsertedKind::Guard));
        assert_eq!(location.fused_location(0), branch);
        assert_eq!(inserted_kind(branch), None);
        let other = Location::fused(
            &context,
            &[branch],
            StringAttribute::new(&context, "user").into(),
        );
        assert_eq!(inserted_kind(other), None);
    }

    /// Parses `source` (one function) and relocates its blocks, all of
    /// them new (an empty "before" set): the module and the count.
    fn relocate_all<'c>(context: &'c Context, source: &str) -> (Module<'c>, usize) {
        let module = Module::parse(context, source).expect("valid module");
        let function = module.body().first_operation().expect("one function");
        let region = function.region(0).expect("a body");
        let relocated = relocate_inserted_blocks(
            context,
            function,
            region,
            &FastSet::default(),
            InsertedKind::Rejoin,
        );
        (module, relocated)
    }

    /// The blocks of the module's one function.
    fn function_blocks<'c, 'a>(module: &'a Module<'c>) -> Vec<melior::ir::BlockRef<'c, 'a>> {
        let function = module.body().first_operation().expect("one function");
        edit::blocks(function.region(0).expect("a body"))
    }

    /// A chain of inserted blocks, listed before the block that feeds it,
    /// serves the branch at the chain's start all along.
    #[test]
    fn chains_of_inserted_blocks_serve_the_branch_that_starts_them() {
        let context = crate::dialect::context_with_all_dialects();
        let source = r#"
            func.func @f(%c: i1) {
              cf.br ^start loc("k.mlir":2:3)
            ^third:
              cf.br ^x loc("k.mlir":1:1)
            ^second:
              cf.br ^third loc("k.mlir":1:1)
            ^start:
              cf.cond_br %c, ^first, ^x loc("k.mlir":5:3)
            ^first:
              cf.br ^second loc("k.mlir":1:1)
            ^x:
              return loc("k.mlir":9:3)
            } loc("k.mlir":1:1)
        "#;
        let (module, relocated) = relocate_all(&context, source);
        assert_eq!(relocated, 3);
        let blocks = function_blocks(&module);
        for b in [1, 2, 4] {
            assert_eq!(
                last_operation(blocks[b]).unwrap().location().to_string(),
                "loc(fused<\"rejoin\">[\"k.mlir\":5:3])",
                "block {b}"
            );
        }
    }

    /// Blocks whose terminator carries the function's location count as
    /// inserted (here with an empty "before" set); they take the location
    /// of the branch of their first original predecessor.
    #[test]
    fn relocates_blocks_that_carry_the_function_location() {
        let context = crate::dialect::context_with_all_dialects();
        let source = r#"
            func.func @f(%c: i1, %d: i1) {
              cf.cond_br %c, ^a, ^b loc("k.mlir":2:3)
            ^a:
              cf.cond_br %d, ^b, ^x loc("k.mlir":4:3)
            ^b:
              %0 = arith.constant 0 : i32 loc("k.mlir":1:1)
              cf.br ^x loc("k.mlir":1:1)
            ^x:
              return loc("k.mlir":9:3)
            } loc("k.mlir":1:1)
        "#;
        let (module, relocated) = relocate_all(&context, source);
        assert_eq!(relocated, 1);
        let blocks = function_blocks(&module);
        let b = blocks[2];
        let expected = "loc(fused<\"rejoin\">[\"k.mlir\":2:3])";
        assert_eq!(
            b.first_operation().unwrap().location().to_string(),
            expected
        );
        assert_eq!(last_operation(b).unwrap().location().to_string(), expected);
        assert_eq!(
            inserted_kind(last_operation(b).unwrap().location()),
            Some(InsertedKind::Rejoin)
        );
        // User blocks are untouched.
        assert_eq!(
            last_operation(blocks[1]).unwrap().location().to_string(),
            "loc(\"k.mlir\":4:3)"
        );
        // Known blocks are never relocated.
        let function = module.body().first_operation().expect("one function");
        let region = function.region(0).expect("a body");
        let all = block_set(region);
        assert_eq!(
            relocate_inserted_blocks(&context, function, region, &all, InsertedKind::Rejoin),
            0
        );
    }
}
