//! Applying a [`ReconvergePlan`] to the MLIR region it was made for.
//!
//! 1. One empty block per Flow node, ending in `spmd.flow_br` (with `loop`
//!    for loop latches) to its two planned targets.
//! 2. Every redirected successor slot is pointed at its Flow block.
//! 3. SSA, through [`ssa::rewrite`]: each Flow predicate is a variable
//!    assigned (`true`/`false`) on the edges that enter its chain, following
//!    each edge's route (chains longer than `selector_chain_length` instead
//!    carry one `i32` selector, a value standing for the destination
//!    ([`FlowChains`]: destinations that never meet share values), and each Flow
//!    block computes its `i1` predicate from it with `arith.cmpi` against
//!    the function's constant for that value, which keeps the cost linear
//!    in the chain's length). The block arguments of the blocks that lost
//!    a direct edge (their *payloads*) share typed slots: the k-th argument
//!    of type T of every such block is one variable, read at each of them
//!    and assigned on every edge that originally reached one of them with
//!    the operand that edge forwarded. This is sound because between the
//!    edge a thread takes and its destination it passes only Flow blocks,
//!    which assign nothing, so what it reads is what its own edge assigned
//!    (other paths of the merged variable are never taken by that thread).
//!    It keeps the output linear: a Flow block merging k destinations gets
//!    one argument per slot instead of k (issue #18: blocks with thousands
//!    of arguments at 10k blocks before), and the SSA work is one live range
//!    per slot across the Flow region instead of one per destination.
//!    Block arguments carry all of these through the Flow blocks, with
//!    `ub.poison` where a path never assigns them. The graph SSA works on
//!    is built from the plan (`graph_after`), not read back from the
//!    region; debug builds check that the two agree.
//! 4. Values whose definition no longer dominates a use are repaired
//!    ([`ssa::values`]), looking only at the uses of the values defined
//!    in blocks that stopped dominating some of their old dominated blocks
//!    ([`ssa::values::lost_dominance`]).
//!
//! The result carries that graph: the edits after it only add block
//! arguments and operands, so callers check and plan the next round on it
//! without re-reading the region.

use super::plan::{Dest, FlowChains, FlowId, FlowKind, ReconvergePlan};
use crate::support::{FastMap, FastSet};
use crate::transforms::flow::ssa;
use crate::{
    analysis::cfg::{BlockId, DominatorTree, Graph},
    ir::{
        edit,
        key::{TypeKey, ValueKey},
        region_graph::{RegionGraph, RegionGraphError},
    },
    transforms::flow::ssa::{
        rewrite::{Def, IrVariable},
        solve::Variable,
    },
};
use melior::{
    ir::{
        block::BlockLike, r#type::IntegerType, Block, BlockRef, Location, OperationRef, RegionLike,
        RegionRef, Type, Value, ValueLike,
    },
    Context,
};
use std::sync::Arc;

/// What applying a plan did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ApplyStats {
    /// Flow blocks created.
    pub(crate) flows: usize,
    /// Successor slots redirected.
    pub(crate) redirected_slots: usize,
    /// Values whose dominance had to be repaired.
    pub(crate) repaired_values: usize,
}

impl ApplyStats {
    /// Adds what another application did.
    pub(crate) fn add(&mut self, other: ApplyStats) {
        self.flows += other.flows;
        self.redirected_slots += other.redirected_slots;
        self.repaired_values += other.repaired_values;
    }
}

/// A plan applied: what it did and the region's graph after it (the edits
/// after the snapshot only add block arguments and operands, so the graph
/// stays exact until the caller edits the CFG again).
pub(crate) struct Applied<'c, 'a> {
    /// What applying the plan did.
    pub(crate) stats: ApplyStats,
    /// Snapshot of the region after the edit.
    pub(crate) graph: RegionGraph<'c, 'a>,
}

/// The terminator of the new blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlowStyle {
    /// `spmd.flow_br` (with `loop` for latches): Flow blocks of the
    /// reconverging and structurizing transforms.
    SpmdFlow,
    /// Plain `cf.cond_br`: guard blocks of dispatch hubs
    /// (`--spmd-fix-irreducible`, `--spmd-unify-loop-exits`).
    CfGuard,
}

/// Applies `plan`, made for `graph` (a snapshot of `region`), in the phases
/// the module documentation lists.
pub(crate) fn apply_plan<'c, 'a>(
    context: &'c Context,
    region: RegionRef<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    plan: &ReconvergePlan,
    selector_chain_length: usize,
    style: FlowStyle,
    location: Location<'c>,
) -> Result<Applied<'c, 'a>, RegionGraphError<'c>> {
    let mut timer = crate::support::PhaseTimer::new("apply");
    let old_dominators = {
        let old = graph.graph().clone();
        crate::support::in_background(old.num_blocks(), move || DominatorTree::build(&old))
    };
    let flows = FlowBlocks::create(context, region, graph, plan, style, location);
    let rerouted = reroute_edges(graph, plan, &flows);
    timer.lap("flow blocks, redirects");
    let new_graph = graph_after(graph, plan, &flows.blocks, &flows.flow_branches);
    if cfg!(debug_assertions) {
        assert!(
            new_graph.same_as(&RegionGraph::snapshot(region)?),
            "the planned graph differs from the region"
        );
    }
    let new_dominators = {
        let new = new_graph.graph().clone();
        crate::support::in_background(new.num_blocks(), move || DominatorTree::build(&new))
    };
    timer.lap("graph after the edit");
    let chains = FlowChains::new(plan, selector_chain_length);
    let mut variables = FlowVariables::new(&new_graph, &flows.blocks);
    variables.declare_selectors_and_predicates(context, plan, &chains);
    variables.assign_routes(graph, plan, &chains);
    variables.declare_payload_slots(graph, &rerouted);
    timer.lap(&format!(
        "variables ({} selector values)",
        chains.num_values()
    ));
    let mut materializer = ssa::rewrite::Materializer::new(
        context,
        new_graph.block(new_graph.graph().entry()),
        location,
    );
    let dominators = new_dominators.join();
    let (reads, forwarded_definers) = variables.solve(&mut materializer, &dominators);
    timer.lap("ssa");
    variables.set_flow_predicates(
        plan,
        &chains,
        &flows.blocks,
        &reads,
        &mut materializer,
        location,
    );
    flows.builder.finish();
    retire_old_arguments(
        context,
        graph,
        &rerouted.targets,
        &variables.argument_vars,
        &reads,
        location,
    );
    timer.lap("predicates, old arguments");
    let old_dominators = old_dominators.join();
    let mut lost = ssa::values::lost_dominance(graph, &old_dominators, &new_graph, &dominators);
    lost.add_definers(forwarded_definers);
    let repaired_values = ssa::values::repair(context, &new_graph, &dominators, &lost, location);
    timer.lap(&format!("dominance repair ({lost})"));
    Ok(Applied {
        stats: ApplyStats {
            flows: plan.num_flows(),
            redirected_slots: rerouted.redirected,
            repaired_values,
        },
        graph: new_graph,
    })
}

/// Phase 1: the Flow blocks of a plan, each ending in its branch.
struct FlowBlocks<'c, 'a> {
    /// One block per Flow node, in node order.
    blocks: Vec<BlockRef<'c, 'a>>,
    /// The terminator of each of `blocks`.
    flow_branches: Vec<OperationRef<'c, 'a>>,
    builder: FlowBranchBuilder<'c, 'a>,
}

impl<'c, 'a> FlowBlocks<'c, 'a> {
    fn create(
        context: &'c Context,
        region: RegionRef<'c, 'a>,
        graph: &RegionGraph<'c, 'a>,
        plan: &ReconvergePlan,
        style: FlowStyle,
        location: Location<'c>,
    ) -> Self {
        let blocks = create_flow_blocks(region, graph, plan);
        let builder =
            FlowBranchBuilder::new(context, graph.block(graph.graph().entry()), style, location);
        let block_of = |dest| block_of(graph, &blocks, dest);
        let flow_branches = plan
            .flows()
            .map(|(flow, node)| {
                builder.terminate(
                    blocks[flow.index()],
                    block_of(node.on_true),
                    block_of(node.on_false),
                    node.kind,
                )
            })
            .collect();
        Self {
            blocks,
            flow_branches,
            builder,
        }
    }
}

/// The block a planned destination stands for.
fn block_of<'c, 'a>(
    graph: &RegionGraph<'c, 'a>,
    flow_blocks: &[BlockRef<'c, 'a>],
    dest: Dest,
) -> BlockRef<'c, 'a> {
    match dest {
        Dest::Block(b) => graph.block(b),
        Dest::Flow(f) => flow_blocks[f.index()],
    }
}

/// Phase 2's record: the blocks with arguments that lost a direct edge,
/// every slot that reached each of them, and what those slots forwarded.
struct Rerouted<'c, 'a> {
    targets: Vec<BlockId>,
    incoming_slots: FastMap<BlockId, Vec<(BlockId, usize)>>,
    old_operands: FastMap<(BlockId, usize), Vec<Value<'c, 'a>>>,
    redirected: usize,
}

/// Phase 2: points every redirected slot at its Flow block. Blocks with
/// arguments that lose a direct edge get their arguments as variables,
/// assigned on every edge that originally reached them, so those edges'
/// forwarded operands are remembered first and then cleared.
fn reroute_edges<'c, 'a>(
    graph: &RegionGraph<'c, 'a>,
    plan: &ReconvergePlan,
    flows: &FlowBlocks<'c, 'a>,
) -> Rerouted<'c, 'a> {
    let targets: Vec<BlockId> = {
        let mut targets: Vec<BlockId> = plan
            .redirected_slots()
            .map(|(b, s, _)| plan.original_target(b, s))
            .collect();
        targets.sort();
        targets.dedup();
        targets.retain(|&d| graph.block(d).argument_count() > 0);
        targets
    };
    let incoming_slots: FastMap<BlockId, Vec<(BlockId, usize)>> = targets
        .iter()
        .map(|&d| (d, slots_targeting(graph, plan, d)))
        .collect();
    let old_operands = incoming_slots
        .values()
        .flatten()
        .map(|&(b, s)| {
            (
                (b, s),
                edit::successor_operands(graph.snapshot_terminator(b), s).unwrap_or_default(),
            )
        })
        .collect();
    let mut redirected = 0;
    for (block, slot, dest) in plan.redirected_slots() {
        // The plan edits the snapshot's terminators in place.
        edit::set_successor(
            graph.snapshot_terminator(block),
            slot,
            block_of(graph, &flows.blocks, dest),
        );
        redirected += 1;
    }
    // Every redirected slot whose old target has arguments is among these;
    // the other redirected slots forward nothing.
    for &(b, s) in incoming_slots.values().flatten() {
        edit::set_successor_operands(graph.snapshot_terminator(b), s, &[]);
    }
    Rerouted {
        targets,
        incoming_slots,
        old_operands,
        redirected,
    }
}

/// Phase 3: the SSA variables of the Flow region (predicates, selectors,
/// payload slots) and their definitions, in the order SSA numbers them.
struct FlowVariables<'g, 'c, 'a> {
    new_graph: &'g RegionGraph<'c, 'a>,
    flow_blocks: &'g [BlockRef<'c, 'a>],
    /// Definitions; `defs[0]` is `false` and `defs[1]` is `true`.
    defs: Vec<Def<'c, 'a>>,
    variables: Vec<IrVariable<'c>>,
    /// The selector variable of each chain that uses one.
    selector_var: FastMap<usize, usize>,
    /// The `i1` predicate variable of each Flow node on a short chain.
    predicate_var: FastMap<FlowId, usize>,
    /// `(block, argument, variable, read)`: where each old argument's value
    /// is read.
    argument_vars: Vec<(BlockId, usize, usize, usize)>,
    /// Flow predicates and forwarded arguments live only in the Flow blocks
    /// (and where they are read): edges from other blocks that do not
    /// assign them pass poison, which keeps every live range local.
    flow_region: Arc<FastSet<BlockId>>,
}

impl<'g, 'c, 'a> FlowVariables<'g, 'c, 'a> {
    fn new(new_graph: &'g RegionGraph<'c, 'a>, flow_blocks: &'g [BlockRef<'c, 'a>]) -> Self {
        let flow_region = Arc::new(
            flow_blocks
                .iter()
                .map(|&block| Self::id_in(new_graph, block))
                .collect(),
        );
        Self {
            new_graph,
            flow_blocks,
            defs: vec![Def::Bool(false), Def::Bool(true)],
            variables: Vec::new(),
            selector_var: FastMap::default(),
            predicate_var: FastMap::default(),
            argument_vars: Vec::new(),
            flow_region,
        }
    }

    fn id_in(new_graph: &RegionGraph<'c, 'a>, block: BlockRef<'c, 'a>) -> BlockId {
        new_graph.id(block).expect("block of the region")
    }

    fn id_of(&self, block: BlockRef<'c, 'a>) -> BlockId {
        Self::id_in(self.new_graph, block)
    }

    /// Short chains thread one `i1` predicate per Flow block; long chains
    /// thread one `i32` selector (the destination's value in the chain)
    /// from which each Flow block computes its `i1` predicate, so that the
    /// cost stays linear in the chain's length.
    fn declare_selectors_and_predicates(
        &mut self,
        context: &'c Context,
        plan: &ReconvergePlan,
        chains: &FlowChains,
    ) {
        let i32_type: Type = IntegerType::new(context, 32).into();
        for (flow, _) in plan.flows() {
            let chain = chains.chain_of(flow);
            if chains.uses_selector(chain) {
                let var = match self.selector_var.get(&chain) {
                    Some(&var) => var,
                    None => {
                        let var =
                            push_flow_variable(&mut self.variables, i32_type, &self.flow_region);
                        self.selector_var.insert(chain, var);
                        var
                    }
                };
                let read = self.id_of(self.flow_blocks[flow.index()]);
                self.variables[var].variable.reads.push(read);
            }
        }
        let i1: Type = IntegerType::new(context, 1).into();
        for (flow, _) in plan.flows() {
            if chains.uses_selector(chains.chain_of(flow)) {
                continue;
            }
            self.predicate_var.insert(flow, self.variables.len());
            let read = self.id_of(self.flow_blocks[flow.index()]);
            self.variables.push(IrVariable {
                r#type: i1,
                variable: Variable {
                    block_defs: vec![],
                    edge_defs: vec![],
                    reads: vec![read],
                    live_region: Some(self.flow_region.clone()),
                },
            });
        }
    }

    /// Each edge entering a chain assigns the predicates on its route, or
    /// its destination's selector value (one def per value, so that edges
    /// passing the same value need no block argument where they merge).
    fn assign_routes(
        &mut self,
        graph: &RegionGraph<'c, 'a>,
        plan: &ReconvergePlan,
        chains: &FlowChains,
    ) {
        let mut selector_defs: FastMap<i64, usize> = FastMap::default();
        for (block, slot, dest) in plan.redirected_slots() {
            let Dest::Flow(entry) = dest else { continue };
            let source = self.id_of(graph.block(block));
            let destination = plan.original_target(block, slot);
            let chain = chains.chain_of(entry);
            if let Some(&var) = self.selector_var.get(&chain) {
                let value = chains.value_of(chain, destination);
                let defs = &mut self.defs;
                let def = *selector_defs.entry(value).or_insert_with(|| {
                    defs.push(Def::I32(value));
                    defs.len() - 1
                });
                self.variables[var]
                    .variable
                    .edge_defs
                    .push((source, slot, def));
                continue;
            }
            for (flow, value) in plan.route(dest, destination) {
                self.variables[self.predicate_var[&flow]]
                    .variable
                    .edge_defs
                    .push((source, slot, usize::from(value)));
            }
        }
    }

    /// Arguments of blocks that lost a direct edge. Payloads share typed
    /// slots: the k-th argument of type T of every such block is one
    /// variable, read at each of those blocks. Every edge into one of them
    /// (direct or redirected into a Flow chain) assigns the slot with the
    /// operand it forwarded, and between that edge and its destination a
    /// thread passes only Flow blocks, which assign nothing: so the value a
    /// thread reads at its destination is the one its own edge assigned.
    /// A Flow block merging k destinations then gets one argument per slot,
    /// not one per destination, and the SSA work is linear in the Flow
    /// region instead of proportional to destinations times their chains.
    fn declare_payload_slots(&mut self, graph: &RegionGraph<'c, 'a>, rerouted: &Rerouted<'c, 'a>) {
        let mut slot_vars: FastMap<(TypeKey, usize), usize> = FastMap::default();
        let mut rank: FastMap<TypeKey, usize> = FastMap::default();
        for &d in &rerouted.targets {
            let target = graph.block(d);
            rank.clear();
            for i in 0..target.argument_count() {
                let r#type = target.argument(i).unwrap().r#type();
                let type_key = TypeKey::of(&r#type);
                let next = rank.entry(type_key).or_insert(0);
                let k = *next;
                *next += 1;
                let var = match slot_vars.get(&(type_key, k)) {
                    Some(&var) => var,
                    None => {
                        let var =
                            push_flow_variable(&mut self.variables, r#type, &self.flow_region);
                        slot_vars.insert((type_key, k), var);
                        var
                    }
                };
                let read = self.variables[var].variable.reads.len();
                let target_id = self.id_of(target);
                self.variables[var].variable.reads.push(target_id);
                for &(b, s) in &rerouted.incoming_slots[&d] {
                    self.defs
                        .push(Def::Value(rerouted.old_operands[&(b, s)][i]));
                    let source = self.id_of(graph.block(b));
                    let def = self.defs.len() - 1;
                    self.variables[var]
                        .variable
                        .edge_defs
                        .push((source, s, def));
                }
                self.argument_vars.push((d, i, var, read));
            }
        }
    }

    /// Phase 4: SSA for every variable. Returns each variable's reads and
    /// the blocks whose values got new uses (the forwarded operands, which
    /// now also travel through Flow blocks, and the values that replace the
    /// old arguments), for the dominance repair.
    #[allow(clippy::type_complexity)]
    fn solve(
        &self,
        materializer: &mut ssa::rewrite::Materializer<'c, 'a>,
        dominators: &DominatorTree,
    ) -> (Vec<Vec<(BlockId, Value<'c, 'a>)>>, Vec<BlockId>) {
        // Read now: some of these values are old arguments erased later.
        let def_blocks = ssa::rewrite::def_blocks(self.new_graph, &self.defs);
        let mut forwarded_definers: Vec<BlockId> = def_blocks.iter().flatten().copied().collect();
        let reads = ssa::rewrite::apply_with_def_blocks(
            materializer,
            self.new_graph,
            dominators,
            &self.defs,
            &def_blocks,
            &self.variables,
        );
        forwarded_definers.extend(
            self.argument_vars
                .iter()
                .map(|&(_, _, var, read)| reads[var][read].1)
                .filter_map(|value| ssa::rewrite::defining_block(self.new_graph, value)),
        );
        (reads, forwarded_definers)
    }

    /// Phase 5: each Flow branch's condition: its predicate variable, or
    /// the comparison of its chain's selector with its destination's value.
    fn set_flow_predicates(
        &self,
        plan: &ReconvergePlan,
        chains: &FlowChains,
        flow_blocks: &[BlockRef<'c, 'a>],
        reads: &[Vec<(BlockId, Value<'c, 'a>)>],
        materializer: &mut ssa::rewrite::Materializer<'c, 'a>,
        location: Location<'c>,
    ) {
        let selector_reads: FastMap<(usize, BlockId), Value<'c, 'a>> = self
            .selector_var
            .values()
            .flat_map(|&var| reads[var].iter().map(move |&(b, value)| ((var, b), value)))
            .collect();
        for (flow, node) in plan.flows() {
            let block = flow_blocks[flow.index()];
            let chain = chains.chain_of(flow);
            let flow_branch = self.new_graph.snapshot_terminator(self.id_of(block));
            let predicate = match self.selector_var.get(&chain) {
                Some(&var) => {
                    let selector = selector_reads[&(var, self.id_of(block))];
                    predicate_from_selector(
                        chains,
                        materializer,
                        flow_branch,
                        selector,
                        node,
                        chain,
                        location,
                    )
                }
                None => reads[self.predicate_var[&flow]][0].1,
            };
            edit::set_operand(flow_branch, 0, predicate);
        }
    }
}

/// Phase 6: the old arguments of the blocks that lost a direct edge take
/// their variables' values and are erased when nothing uses them any more.
fn retire_old_arguments<'c, 'a>(
    context: &'c Context,
    graph: &RegionGraph<'c, 'a>,
    targets: &[BlockId],
    argument_vars: &[(BlockId, usize, usize, usize)],
    reads: &[Vec<(BlockId, Value<'c, 'a>)>],
    location: Location<'c>,
) {
    replace_old_arguments(context, graph, argument_vars, reads, location);
    let mut count: FastMap<BlockId, usize> = FastMap::default();
    for &(b, _, _, _) in argument_vars {
        *count.entry(b).or_default() += 1;
    }
    for &d in targets {
        for i in (0..count.get(&d).copied().unwrap_or(0)).rev() {
            // Never erase a used argument: that would leave dangling uses.
            // (If one stayed used, the verifier reports it instead.)
            let block = graph.block(d);
            if !edit::is_used(block.argument(i).unwrap().into()) {
                // SAFETY: the argument is unused (just checked); `targets`
                // is deduplicated and the indices go down, so `i` still
                // names an old argument. `reads` may hold it but is not
                // used after this phase (`solve` turned what the dominance
                // repair needs into block ids first).
                unsafe { edit::erase_argument(block, i) };
            }
        }
    }
}

/// Replaces each old argument of a block that lost a direct edge by the
/// value its variable reads. A read may itself be an old argument (of the
/// same or another such block, e.g. a loop-carried value), so replacements
/// are resolved through each other first; a cycle of old arguments only
/// happens on paths that never define the value, and becomes poison.
fn replace_old_arguments<'c, 'a>(
    context: &'c Context,
    graph: &RegionGraph<'c, 'a>,
    argument_vars: &[(BlockId, usize, usize, usize)],
    reads: &[Vec<(BlockId, Value<'c, 'a>)>],
    location: Location<'c>,
) {
    let key = |v: Value<'_, '_>| ValueKey::of(&v);
    let replacement: FastMap<ValueKey, Value<'c, 'a>> = argument_vars
        .iter()
        .map(|&(d, i, var, read)| {
            (
                key(graph.block(d).argument(i).unwrap().into()),
                reads[var][read].1,
            )
        })
        .collect();
    for &(d, i, _, _) in argument_vars {
        let old: Value = graph.block(d).argument(i).unwrap().into();
        let mut value = replacement[&key(old)];
        let mut steps = 0;
        while let Some(&next) = replacement.get(&key(value)) {
            value = next;
            steps += 1;
            if steps > replacement.len() {
                let poison = edit::poison(context, old.r#type(), location);
                value = edit::insert_at_start(graph.block(d), poison)
                    .result(0)
                    .unwrap()
                    .into();
                break;
            }
        }
        edit::replace_all_uses(old, value);
    }
}

/// `selector == index(key)` for a dispatch Flow, `selector != index(header)`
/// for a loop latch (true leaves the loop), computed in `block` against
/// the function's constant for the index (the one the entering edges
/// pass, when they pass it).
fn predicate_from_selector<'c, 'a>(
    chains: &FlowChains,
    materializer: &mut ssa::rewrite::Materializer<'c, 'a>,
    flow_branch: OperationRef<'c, 'a>,
    selector: Value<'c, 'a>,
    node: &super::plan::FlowNode,
    chain: usize,
    location: Location<'c>,
) -> Value<'c, 'a> {
    let (key, equal) = match node.kind {
        FlowKind::Plain => (node.key(), true),
        FlowKind::LoopLatch { header } => (header, false),
    };
    let constant = materializer.def(Def::I32(chains.value_of(chain, key)));
    edit::insert_selector_compare(flow_branch, selector, constant, equal, location)
}

/// Every original successor slot whose original target is `d`.
fn slots_targeting(
    graph: &RegionGraph<'_, '_>,
    plan: &ReconvergePlan,
    d: BlockId,
) -> Vec<(BlockId, usize)> {
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

/// The graph of the region after `plan` was applied to the region `graph`
/// snapshotted, built from the plan instead of re-reading the region: each
/// Flow block sits right before its key block (Flows with the same key in
/// creation order), and every block's successors are its planned targets.
fn graph_after<'c, 'a>(
    graph: &RegionGraph<'c, 'a>,
    plan: &ReconvergePlan,
    flow_blocks: &[BlockRef<'c, 'a>],
    flow_branches: &[OperationRef<'c, 'a>],
) -> RegionGraph<'c, 'a> {
    let n = graph.num_blocks();
    let mut flows_before: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (flow, node) in plan.flows() {
        flows_before[node.key().index()].push(flow.index());
    }
    let mut old_id = vec![0usize; n];
    let mut flow_id = vec![0usize; plan.num_flows()];
    let mut blocks = Vec::with_capacity(n + plan.num_flows());
    let mut terminators = Vec::with_capacity(n + plan.num_flows());
    for b in 0..n {
        for &f in &flows_before[b] {
            flow_id[f] = blocks.len();
            blocks.push(flow_blocks[f]);
            terminators.push(flow_branches[f]);
        }
        old_id[b] = blocks.len();
        blocks.push(graph.block(BlockId::new(b)));
        terminators.push(graph.snapshot_terminator(BlockId::new(b)));
    }
    let id_of = |dest: Dest| match dest {
        Dest::Block(b) => BlockId::new(old_id[b.index()]),
        Dest::Flow(f) => BlockId::new(flow_id[f.index()]),
    };
    let mut edges = Vec::new();
    for b in 0..n {
        for &f in &flows_before[b] {
            let node = plan.flow(super::plan::FlowId::new(f));
            edges.push((BlockId::new(flow_id[f]), id_of(node.on_true)));
            edges.push((BlockId::new(flow_id[f]), id_of(node.on_false)));
        }
        for slot in 0..plan.num_slots(BlockId::new(b)) {
            edges.push((
                BlockId::new(old_id[b]),
                id_of(plan.redirect(BlockId::new(b), slot)),
            ));
        }
    }
    RegionGraph::from_parts(blocks, terminators, &edges)
}

/// Creates one empty block per Flow, placed before its key block.
fn create_flow_blocks<'c, 'a>(
    region: RegionRef<'c, 'a>,
    graph: &RegionGraph<'c, 'a>,
    plan: &ReconvergePlan,
) -> Vec<BlockRef<'c, 'a>> {
    plan.flows()
        .map(|(_, node)| region.insert_block_before(graph.block(node.key()), Block::new(&[])))
        .collect()
}

/// Builds the branches that end Flow blocks. Until SSA construction knows
/// the real predicates, every branch tests one shared placeholder `false`
/// at the start of the (old) entry block, erased once nothing uses it.
struct FlowBranchBuilder<'c, 'a> {
    style: FlowStyle,
    location: Location<'c>,
    placeholder: OperationRef<'c, 'a>,
}

impl<'c, 'a> FlowBranchBuilder<'c, 'a> {
    fn new(
        context: &'c Context,
        entry: BlockRef<'c, 'a>,
        style: FlowStyle,
        location: Location<'c>,
    ) -> Self {
        let placeholder =
            edit::insert_at_start(entry, edit::bool_constant(context, false, location));
        Self {
            style,
            location,
            placeholder,
        }
    }

    /// Ends `block` with a branch on the placeholder to `on_true`/`on_false`.
    fn terminate(
        &self,
        block: BlockRef<'c, 'a>,
        on_true: BlockRef<'c, 'a>,
        on_false: BlockRef<'c, 'a>,
        kind: FlowKind,
    ) -> OperationRef<'c, 'a> {
        let kind = match (self.style, kind) {
            (FlowStyle::CfGuard, _) => edit::TwoWayBranch::CondBr,
            (FlowStyle::SpmdFlow, FlowKind::LoopLatch { .. }) => edit::TwoWayBranch::LoopFlow,
            (FlowStyle::SpmdFlow, FlowKind::Plain) => edit::TwoWayBranch::Flow,
        };
        edit::append_two_way_branch(
            block,
            self.placeholder.result(0).unwrap().into(),
            on_true,
            on_false,
            kind,
            self.location,
        )
    }

    /// Erases the placeholder once every branch has its real predicate.
    fn finish(self) {
        if !edit::is_used(self.placeholder.result(0).unwrap().into()) {
            // SAFETY: an unused constant (no regions) this builder created;
            // only the builder, consumed here, held a handle to it (the
            // branches got its result as an operand, not as a handle).
            unsafe { edit::erase_operation(self.placeholder) };
        }
    }
}

/// Appends an SSA variable of `r#type` that lives in the Flow region
/// (no definitions or reads yet) and returns its index.
fn push_flow_variable<'c>(
    variables: &mut Vec<IrVariable<'c>>,
    r#type: Type<'c>,
    flow_region: &Arc<FastSet<BlockId>>,
) -> usize {
    variables.push(IrVariable {
        r#type,
        variable: Variable {
            block_defs: vec![],
            edge_defs: vec![],
            reads: vec![],
            live_region: Some(flow_region.clone()),
        },
    });
    variables.len() - 1
}
