//! The [`Lowerer`]: applies a predication plan to the IR, one divergent
//! branch after another (see the module docs of [`super`] for the
//! scheme). Its work is split by concern: [`super::parking`] (the values
//! lanes keep while parked), [`super::masks`] (exec-mask updates at
//! branches and rejoin points) and [`super::repair`] (SSA and value repair
//! after the edit); this file holds the driver and the final clean-up.

use super::parking::Parked;
use super::*;
use crate::ir::{facts::UniformityMark, key::ValueKey};

/// Applies the plan to the IR.
pub(super) struct Lowerer<'c, 'g, 'a> {
    pub(super) context: &'c Context,
    pub(super) graph: &'g RegionGraph<'c, 'a>,
    pub(super) location: Location<'c>,
    pub(super) mask: Type<'c>,
    pub(super) empty: Value<'c, 'a>,
}

impl<'c, 'g, 'a> Lowerer<'c, 'g, 'a> {
    pub(super) fn new(
        context: &'c Context,
        graph: &'g RegionGraph<'c, 'a>,
        location: Location<'c>,
    ) -> Self {
        let mask = crate::ir::facts::mask_type(context);
        let entry = graph.block(graph.graph().entry());
        let empty = edit::insert_at_start(
            entry,
            build(context, names::MASK_EMPTY, &[], &[mask], location),
        );
        Self {
            context,
            graph,
            location,
            mask,
            empty: empty.result(0).unwrap().into(),
        }
    }

    pub(super) fn run(
        &self,
        lowerings: &[Lowering],
        divergent: &[bool],
        stats: &mut PredicateStats,
    ) {
        let uniform = self.uniform_branches(divergent);
        let branches = parking_branches(lowerings);
        let rejoins = self.rejoin_ids(&branches);
        let covered = self.covered_blocks(&branches);
        let mut parked = self.collect_parked(&branches);
        let (rejoin_ors, merges) = self.emit_rejoins(&rejoins, &covered, &mut parked);
        // Divergent branches.
        let (parks, lanes) = self.lower_branches(lowerings, &rejoins, &mut parked, stats);
        stats.divergent_branches = lowerings.len() - lanes.len();
        stats.rejoin_points = rejoins.len();
        stats.parked_values = parked.len();
        self.repair_ssa(&rejoins, &rejoin_ors, &parks, &parked, &merges);
        self.empty_instead_of_poison_masks();
        self.mark_uniformity(&uniform, UniformityMark::Uniform);
        let lanes: Vec<OperationRef<'c, 'a>> = lanes
            .into_iter()
            .map(|branch| self.thread_level_branch(branch))
            .collect();
        self.mark_uniformity(&lanes, UniformityMark::Divergent);
        self.drop_markers_and_fold();
    }

    /// The terminators of the blocks with several successors that are not
    /// divergent: the branches that stay scalar.
    fn uniform_branches(&self, divergent: &[bool]) -> Vec<OperationRef<'c, 'a>> {
        let g = self.graph.graph();
        (0..g.num_blocks())
            .map(BlockId::new)
            .filter(|&b| g.successors(b).len() >= 2 && !divergent[b.index()])
            .map(|b| self.graph.terminator(b))
            .collect()
    }

    /// The rejoin points of `branches` (their primary successors), each
    /// with its id: its position in block order.
    fn rejoin_ids(&self, branches: &[&DivergentBranch]) -> BTreeMap<BlockId, i64> {
        let g = self.graph.graph();
        let mut points: Vec<BlockId> = branches.iter().map(|b| b.primary(g)).collect();
        points.sort();
        points.dedup();
        points
            .into_iter()
            .enumerate()
            .map(|(i, p)| (p, i as i64))
            .collect()
    }

    /// Per block index: the block lies in the region of one of `branches`.
    fn covered_blocks(&self, branches: &[&DivergentBranch]) -> Vec<bool> {
        let g = self.graph.graph();
        let mut covered = vec![false; g.num_blocks()];
        for branch in branches {
            for (b, inside) in branch.region(g).into_iter().enumerate() {
                covered[b] |= inside;
            }
        }
        covered
    }

    /// The mask code of the rejoin points: `exec |= m_P`, then the merges
    /// of parked arguments; the values passed around see the merged
    /// arguments; then the merges of parked values. Returns the ORs per
    /// rejoin point and the merges per index into `parked`.
    fn emit_rejoins(
        &self,
        rejoins: &BTreeMap<BlockId, i64>,
        covered: &[bool],
        parked: &mut [Parked<'c, 'a>],
    ) -> (
        HashMap<BlockId, OperationRef<'c, 'a>>,
        HashMap<usize, OperationRef<'c, 'a>>,
    ) {
        let mut rejoin_ors = HashMap::new();
        let mut anchors = HashMap::new();
        let mut merges: HashMap<usize, OperationRef<'c, 'a>> = HashMap::new();
        let mut merged_arguments: HashMap<ValueKey, Value<'c, 'a>> = HashMap::new();
        for (&p, &id) in rejoins {
            let (or, anchor) = self.emit_rejoin(p, id, !covered[p.index()]);
            rejoin_ors.insert(p, or);
            anchors.insert(p, anchor);
            for (k, merge) in self.emit_merges(p, anchor, parked, |item| item.argument.is_some()) {
                merged_arguments.insert(ValueKey::of(&parked[k].value), value(merge));
                merges.insert(k, merge);
            }
        }
        for (k, item) in parked.iter_mut().enumerate() {
            let merged = |v: Value<'c, 'a>| merged_arguments.get(&ValueKey::of(&v)).copied();
            if item.argument.is_none() {
                item.value = merged(item.value).unwrap_or(item.value);
            } else if let Some(kept) = item.direct.and_then(merged) {
                // A direct merge made before the merge of the argument it reads.
                item.direct = Some(kept);
                edit::set_operand(merges[&k], 1, kept);
            }
        }
        for &p in rejoins.keys() {
            merges.extend(self.emit_merges(p, anchors[&p], parked, |item| item.argument.is_none()));
        }
        (rejoin_ors, merges)
    }

    /// Lowers each divergent branch of `lowerings` as planned, counting
    /// lane and guarded branches in `stats`. Returns the parking branches
    /// (block, rejoin point, `(m_P | c)`) and the lane branches.
    fn lower_branches(
        &self,
        lowerings: &[Lowering],
        rejoins: &BTreeMap<BlockId, i64>,
        parked: &mut [Parked<'c, 'a>],
        stats: &mut PredicateStats,
    ) -> (
        Vec<(BlockId, BlockId, OperationRef<'c, 'a>)>,
        Vec<OperationRef<'c, 'a>>,
    ) {
        let g = self.graph.graph();
        let mut parks = Vec::new();
        let mut lanes = Vec::new();
        for lowering in lowerings {
            match lowering {
                Lowering::SameTarget(b) => self.emit_same_target(*b),
                Lowering::FreeLane(b) => {
                    lanes.push(self.graph.terminator(*b));
                    stats.lane_branches += 1;
                }
                Lowering::Lane { branch, gated } => {
                    if *gated {
                        self.gate_condition(branch);
                    }
                    lanes.push(self.graph.terminator(branch.block));
                    stats.lane_branches += 1;
                }
                Lowering::Park(branch) => {
                    let p = branch.primary(g);
                    parks.push((branch.block, p, self.emit_park(branch, rejoins[&p], parked)));
                    stats.guarded += usize::from(branch.guarded);
                }
            }
        }
        (parks, lanes)
    }

    /// Places the block arguments of the rejoin masks and parked values and
    /// patches the placeholder operands.
    /// A fresh snapshot of the region being lowered, after the edits so far.
    pub(super) fn snapshot_now(&self) -> RegionGraph<'c, 'a> {
        let region = self
            .graph
            .block(self.graph.graph().entry())
            .parent_region()
            .expect("block in a region");
        RegionGraph::snapshot(region).expect("the lowered region is well formed")
    }

    pub(super) fn i64_attr(&self, id: i64) -> Attribute<'c> {
        IntegerAttribute::new(IntegerType::new(self.context, 64).into(), id).into()
    }

    /// A new `spmd.exec.read`.
    pub(super) fn exec_read(&self) -> melior::ir::Operation<'c> {
        build(
            self.context,
            names::EXEC_READ,
            &[],
            &[self.mask],
            self.location,
        )
    }

    /// Gates the condition `c` of a lane branch where exec may be partial:
    /// `spmd.mask.select exec, c, toward-rejoin`, so that a lane that is
    /// not active goes straight to the rejoin point.
    fn gate_condition(&self, branch: &DivergentBranch) {
        let terminator = self.graph.terminator(branch.block);
        let block = terminator.block().expect("a terminator is in a block");
        let condition = terminator
            .operand(0)
            .expect("a two-way branch has a condition");
        let i1 = condition.r#type();
        let read = edit::insert_before_terminator(block, self.exec_read());
        // Slot 0 is taken on true. In the entry block, like every constant
        // here: an op of this block would not define it in the lanes that
        // are not active, which are the ones that read it.
        let entry = self.graph.block(self.graph.graph().entry());
        let toward_rejoin = edit::insert_at_start(
            entry,
            edit::bool_constant(self.context, branch.primary_slot == 0, self.location),
        );
        let gated = edit::insert_before_terminator(
            block,
            build(
                self.context,
                names::MASK_SELECT,
                &[value(read), condition, value(toward_rejoin)],
                &[i1],
                self.location,
            ),
        );
        edit::set_operand(terminator, 0, value(gated));
    }

    /// A lane branch as a plain conditional branch: `spmd.flow_br` becomes
    /// `cf.cond_br` (the Flow block's condition is per lane already). A
    /// replaced `branch` is erased: the caller must use the returned branch
    /// instead, and no other handle to `branch`.
    fn thread_level_branch(&self, branch: OperationRef<'c, 'a>) -> OperationRef<'c, 'a> {
        if op_name(branch) != names::FLOW_BR {
            return branch;
        }
        // SAFETY: the only caller maps each lane branch to its replacement,
        // consuming its list of the (distinct) lane terminators, and the
        // snapshot reads terminators afresh (`RegionGraph::terminator`).
        unsafe { edit::replace_flow_branch(self.context, branch) }
    }

    /// Marks the branches that stay branches: scalar ones `uniform`, lane
    /// branches `divergent`.
    pub(super) fn mark_uniformity(&self, branches: &[OperationRef<'c, 'a>], mark: UniformityMark) {
        let attribute = crate::ir::facts::uniformity_attribute(self.context, mark);
        for branch in branches {
            crate::ir::facts::set_attribute(*branch, UNIFORMITY_ATTR, attribute);
        }
    }

    /// Drops reconvergence markers and folds `spmd.mask.or %empty, %x`.
    pub(super) fn drop_markers_and_fold(&self) {
        let region = self
            .graph
            .block(self.graph.graph().entry())
            .parent_region()
            .expect("block in a region");
        let mut block = region.first_block();
        while let Some(b) = block {
            for op in edit::operations(b) {
                let name = op_name(op);
                if name == names::RECONVERGENCE_HEAD || name == names::RECONVERGENCE_TAIL {
                    // SAFETY: a marker (no results, no regions) of a fresh
                    // snapshot, visited once; no list of the lowering holds
                    // markers.
                    unsafe { edit::erase_operation(op) };
                } else if name == names::MASK_OR {
                    let (x, y): (Value, Value) = (op.operand(0).unwrap(), op.operand(1).unwrap());
                    let other = if x == self.empty {
                        Some(y)
                    } else if y == self.empty {
                        Some(x)
                    } else {
                        None
                    };
                    if let Some(other) = other {
                        edit::replace_all_uses(value(op), other);
                        // SAFETY: a `spmd.mask.or` (one result, no regions)
                        // whose result was just replaced by an operand of
                        // it, defined elsewhere; the current op of a fresh
                        // snapshot, visited once. `run` calls this last: its
                        // lists (`rejoin_ors` holds `mask.or`s) are not read
                        // again.
                        unsafe { edit::erase_operation(op) };
                    }
                }
            }
            block = b.next_in_region();
        }
        if !edit::is_used(self.empty) {
            let empty = edit::defining_op(self.empty).expect("mask.empty op");
            // SAFETY: the unused `spmd.mask.empty` (no regions) that `new`
            // created; the loop above erases only markers and `mask.or`s.
            // This is the lowering's last step: `run` returns right after,
            // and the `Lowerer` (with `self.empty`) is a temporary of its
            // caller, dropped then.
            unsafe { edit::erase_operation(empty) };
        }
    }
}

/// The branches of `lowerings` that park lanes.
fn parking_branches(lowerings: &[Lowering]) -> Vec<&DivergentBranch> {
    lowerings
        .iter()
        .filter_map(|l| {
            if let Lowering::Park(b) = l {
                Some(b)
            } else {
                None
            }
        })
        .collect()
}
