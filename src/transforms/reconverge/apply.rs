//! Applying a [`ReconvergePlan`] to the MLIR region it was made for.
//!
//! 1. One empty block per Flow node, ending in `spmd.flow_br` (with `loop`
//!    for loop latches) to its two planned targets.
//! 2. Every redirected successor slot is pointed at its Flow block.
//! 3. SSA, through [`ssa_apply`]: each Flow predicate is a variable
//!    assigned (`true`/`false`) on the edges that enter its chain, following
//!    each edge's route; each block argument of a block that lost a direct
//!    edge becomes a variable assigned on every edge that originally
//!    reached it. Block arguments carry both through the Flow blocks, with
//!    `ub.poison` where a path never assigns them.
//! 4. Values whose definition no longer dominates a use are repaired
//!    ([`value_repair`]).

use super::plan::{Dest, FlowId, FlowKind, ReconvergePlan};
use crate::{
    analysis::{
        cfg::{BlockId, Graph},
        region_graph::{RegionGraph, RegionGraphError},
    },
    transforms::{
        ir_edit,
        ssa_apply::{self, Def, IrVariable},
        ssa_repair::Variable,
        value_repair,
    },
};
use melior::{
    ir::{
        attribute::Attribute,
        block::BlockLike,
        operation::{OperationBuilder, OperationMutLike},
        r#type::IntegerType,
        Block, BlockRef, Identifier, Location, RegionLike, RegionRef, Type, Value, ValueLike,
    },
    Context,
};
use std::collections::HashMap;

/// What applying a plan did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyStats {
    /// Flow blocks created.
    pub flows: usize,
    /// Successor slots redirected.
    pub redirected_slots: usize,
    /// Values whose dominance had to be repaired.
    pub repaired_values: usize,
}

/// Applies `plan`, made for `graph` (a snapshot of `region`).
pub fn apply_plan<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    plan: &ReconvergePlan,
    location: Location<'c>,
) -> Result<ApplyStats, RegionGraphError<'c>> {
    let flow_blocks = create_flow_blocks(context, region, graph, plan, location);
    let block_of = |dest: Dest| match dest {
        Dest::Block(b) => graph.block(b),
        Dest::Flow(f) => flow_blocks[f.index()].0,
    };
    for (flow, node) in plan.flows() {
        terminate_flow(context, flow_blocks[flow.index()], block_of(node.on_true), block_of(node.on_false), node.kind, location);
    }

    // Remember every forwarded operand before any slot changes.
    let old_operands: HashMap<(BlockId, usize), Vec<Value<'c, 'a>>> = (0..graph.num_blocks())
        .flat_map(|b| (0..plan.num_slots(BlockId::new(b))).map(move |s| (BlockId::new(b), s)))
        .map(|(b, s)| {
            let terminator = graph.block(b).terminator().expect("snapshotted");
            ((b, s), ir_edit::successor_operands(terminator, s).unwrap_or_default())
        })
        .collect();
    let rerouted_targets: Vec<BlockId> = {
        let mut targets: Vec<BlockId> = plan.redirected_slots().map(|(b, s, _)| plan.original_target(b, s)).collect();
        targets.sort();
        targets.dedup();
        targets.retain(|&d| graph.block(d).argument_count() > 0);
        targets
    };
    let mut redirected = 0;
    for (block, slot, dest) in plan.redirected_slots() {
        let mut terminator = graph.block(block).terminator_mut().expect("snapshotted");
        terminator.set_successor(slot, &block_of(dest));
        ir_edit::set_successor_operands(graph.block(block).terminator().unwrap(), slot, &[]);
        redirected += 1;
    }
    for &d in &rerouted_targets {
        for (b, s) in slots_targeting(graph, plan, d) {
            ir_edit::set_successor_operands(graph.block(b).terminator().unwrap(), s, &[]);
        }
    }

    let new_graph = RegionGraph::snapshot(region)?;
    let id_of = |block: BlockRef<'c, 'a>| new_graph.id(block).expect("block of the region");
    let i1: Type = IntegerType::new(context, 1).into();
    let mut defs: Vec<Def<'c, 'a>> = vec![Def::Bool(false), Def::Bool(true)];
    let mut variables: Vec<IrVariable<'c>> = Vec::new();

    // Flow predicates.
    let mut predicate_var = HashMap::new();
    for (flow, _) in plan.flows() {
        predicate_var.insert(flow, variables.len());
        variables.push(IrVariable {
            r#type: i1,
            variable: Variable {
                block_defs: vec![],
                edge_defs: vec![],
                reads: vec![id_of(flow_blocks[flow.index()].0)],
                undefined_edges: vec![],
            },
        });
    }
    // Each edge entering a chain assigns the predicates on its route and
    // declares the other predicates of the chain undefined, so that no
    // live range reaches past the chain's entries.
    let mut reachable_flows: HashMap<FlowId, Vec<FlowId>> = HashMap::new();
    for (block, slot, dest) in plan.redirected_slots() {
        let Dest::Flow(entry) = dest else { continue };
        let destination = plan.original_target(block, slot);
        let source = id_of(graph.block(block));
        let route = plan.route(dest, destination);
        for (flow, value) in &route {
            variables[predicate_var[flow]].variable.edge_defs.push((source, slot, usize::from(*value)));
        }
        let chain = reachable_flows.entry(entry).or_insert_with(|| flows_reachable_from(plan, entry));
        for flow in chain.iter().filter(|f| !route.iter().any(|(r, _)| r == *f)) {
            variables[predicate_var[flow]].variable.undefined_edges.push((source, slot));
        }
    }
    // Arguments of blocks that lost a direct edge.
    let mut argument_vars: Vec<(BlockId, usize, usize)> = Vec::new();
    for &d in &rerouted_targets {
        let target = graph.block(d);
        for i in 0..target.argument_count() {
            let mut variable =
                Variable { block_defs: vec![], edge_defs: vec![], reads: vec![id_of(target)], undefined_edges: vec![] };
            for (b, s) in slots_targeting(graph, plan, d) {
                defs.push(Def::Value(old_operands[&(b, s)][i]));
                variable.edge_defs.push((id_of(graph.block(b)), s, defs.len() - 1));
            }
            // Edges into chains that may lead to `d` but are bound elsewhere.
            for (b, s) in chain_entries_toward(plan, d) {
                variable.undefined_edges.push((id_of(graph.block(b)), s));
            }
            argument_vars.push((d, i, variables.len()));
            variables.push(IrVariable { r#type: target.argument(i).unwrap().r#type(), variable });
        }
    }

    let reads = ssa_apply::apply(context, &new_graph, &defs, &variables, location);
    for (flow, _) in plan.flows() {
        let (block, placeholder) = flow_blocks[flow.index()];
        let predicate = reads[predicate_var[&flow]][0].1;
        ir_edit::set_operand(block.terminator().unwrap(), 0, predicate);
        if ir_edit::uses(placeholder.into()).is_empty() {
            ir_edit::erase_operation(placeholder.owner_operation());
        }
    }
    replace_old_arguments(context, graph, &argument_vars, &reads, location);
    for &d in rerouted_targets.iter() {
        let count = argument_vars.iter().filter(|(b, _, _)| *b == d).count();
        for i in (0..count).rev() {
            // Never erase a used argument: that would leave dangling uses.
            // (If one stayed used, the verifier reports it instead.)
            if ir_edit::uses(graph.block(d).argument(i).unwrap().into()).is_empty() {
                ir_edit::erase_argument(graph.block(d), i);
            }
        }
    }
    let repaired_values = value_repair::repair_dominance(context, region, location)?;
    Ok(ApplyStats { flows: plan.num_flows(), redirected_slots: redirected, repaired_values })
}

/// Replaces each old argument of a block that lost a direct edge by the
/// value its variable reads. A read may itself be an old argument (of the
/// same or another such block, e.g. a loop-carried value), so replacements
/// are resolved through each other first; a cycle of old arguments only
/// happens on paths that never define the value, and becomes poison.
fn replace_old_arguments<'c, 'a>(
    context: &'c Context,
    graph: &RegionGraph<'c, 'a>,
    argument_vars: &[(BlockId, usize, usize)],
    reads: &[Vec<(BlockId, Value<'c, 'a>)>],
    location: Location<'c>,
) {
    let address = |v: Value<'_, '_>| v.to_raw().ptr as usize;
    let replacement: HashMap<usize, Value<'c, 'a>> = argument_vars
        .iter()
        .map(|&(d, i, var)| (address(graph.block(d).argument(i).unwrap().into()), reads[var][0].1))
        .collect();
    for &(d, i, _) in argument_vars {
        let old: Value = graph.block(d).argument(i).unwrap().into();
        let mut value = replacement[&address(old)];
        let mut steps = 0;
        while let Some(&next) = replacement.get(&address(value)) {
            value = next;
            steps += 1;
            if steps > replacement.len() {
                let poison = ir_edit::poison(context, old.r#type(), location);
                value = ir_edit::insert_at_start(graph.block(d), poison).result(0).unwrap().into();
                break;
            }
        }
        ir_edit::replace_all_uses(old, value);
    }
}

/// Every Flow reachable from `entry` through Flow blocks only.
fn flows_reachable_from(plan: &ReconvergePlan, entry: FlowId) -> Vec<FlowId> {
    let mut seen = vec![entry];
    let mut stack = vec![entry];
    while let Some(flow) = stack.pop() {
        let node = plan.flow(flow);
        for dest in [node.on_true, node.on_false] {
            if let Dest::Flow(next) = dest {
                if !seen.contains(&next) {
                    seen.push(next);
                    stack.push(next);
                }
            }
        }
    }
    seen
}

/// Redirected slots whose entry Flow may route to `d` but whose own
/// destination is another block.
fn chain_entries_toward(plan: &ReconvergePlan, d: BlockId) -> Vec<(BlockId, usize)> {
    plan.redirected_slots()
        .filter(|&(b, s, dest)| {
            matches!(dest, Dest::Flow(entry) if plan.original_target(b, s) != d && plan.destinations(entry).contains(&d))
        })
        .map(|(b, s, _)| (b, s))
        .collect()
}

/// Every original successor slot whose original target is `d`.
fn slots_targeting(graph: &RegionGraph<'_, '_>, plan: &ReconvergePlan, d: BlockId) -> Vec<(BlockId, usize)> {
    let mut slots = Vec::new();
    let mut preds = graph.graph().predecessors(d).to_vec();
    preds.sort();
    preds.dedup();
    for b in preds {
        for s in 0..plan.num_slots(b) {
            if plan.original_target(b, s) == d {
                slots.push((b, s));
            }
        }
    }
    slots
}

/// Creates one empty block per Flow, placed before its key block, with a
/// placeholder `false` predicate; returns (block, placeholder value).
fn create_flow_blocks<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    plan: &ReconvergePlan,
    location: Location<'c>,
) -> Vec<(BlockRef<'c, 'a>, PlaceholderValue<'c, 'a>)> {
    plan.flows()
        .map(|(_, node)| {
            let block = region.insert_block_before(graph.block(node.key()), Block::new(&[]));
            let constant = block.append_operation(ir_edit::bool_constant(context, false, location));
            (block, PlaceholderValue(constant.result(0).unwrap().into()))
        })
        .collect()
}

/// The placeholder predicate of a Flow block before SSA construction.
#[derive(Copy, Clone)]
struct PlaceholderValue<'c, 'a>(Value<'c, 'a>);

impl<'c, 'a> PlaceholderValue<'c, 'a> {
    fn owner_operation(self) -> melior::ir::OperationRef<'c, 'a> {
        melior::ir::operation::OperationResult::try_from(self.0).expect("an op result").owner()
    }
}

impl<'c, 'a> From<PlaceholderValue<'c, 'a>> for Value<'c, 'a> {
    fn from(value: PlaceholderValue<'c, 'a>) -> Self {
        value.0
    }
}

fn terminate_flow<'c, 'a>(
    context: &'c Context,
    (block, placeholder): (BlockRef<'c, 'a>, PlaceholderValue<'c, 'a>),
    on_true: BlockRef<'c, 'a>,
    on_false: BlockRef<'c, 'a>,
    kind: FlowKind,
    location: Location<'c>,
) {
    let segments = Attribute::parse(context, "array<i32: 1, 0, 0>").expect("valid segment sizes");
    let mut attributes = vec![(Identifier::new(context, "operandSegmentSizes"), segments)];
    if let FlowKind::LoopLatch { .. } = kind {
        attributes.push((Identifier::new(context, "loop"), Attribute::unit(context)));
    }
    let flow_branch = OperationBuilder::new("spmd.flow_br", location)
        .add_operands(&[placeholder.into()])
        .add_successors(&[&on_true, &on_false])
        .add_attributes(&attributes)
        .build()
        .expect("valid spmd.flow_br");
    block.append_operation(flow_branch);
}
