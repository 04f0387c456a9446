//! Parking: the values a lane keeps while it waits at a rejoin point for
//! the other side of a divergent branch ([`Parked`]), found from the
//! liveness table, and the branch that parks lanes.

use super::lowerer::Lowerer;
use super::*;
use crate::ir::key::{OperationKey, ValueKey};

/// A value kept per lane for the lanes parked for one rejoin point.
pub(super) struct Parked<'c, 'a> {
    pub(super) rejoin: BlockId,
    /// `Some(i)`: argument `i` of the rejoin point; `None`: a value live at
    /// the rejoin point.
    pub(super) argument: Option<usize>,
    pub(super) value: Value<'c, 'a>,
    /// For an argument: every parking edge passes this value (or poison),
    /// and it is still intact in the parked lanes at the rejoin point, so
    /// the merge reads it directly (no copy at the parking branches).
    pub(super) direct: Option<Value<'c, 'a>>,
    /// `(parking block, the select made there)`.
    pub(super) selects: Vec<(BlockId, OperationRef<'c, 'a>)>,
}

impl<'c, 'g, 'a> Lowerer<'c, 'g, 'a> {
    /// The per-lane values to keep for parked lanes: the observed block
    /// arguments of every rejoin point, and every value live-in at a rejoin
    /// point `P` and defined in the region of a branch parking for `P`
    /// ([`live`]).
    pub(super) fn collect_parked(&self, branches: &[&DivergentBranch]) -> Vec<Parked<'c, 'a>> {
        let g = self.graph.graph();
        let (table, values) = self.value_table();
        let mut at = vec![false; g.num_blocks()];
        for branch in branches {
            at[branch.primary(g).index()] = true;
        }
        let live = table.live_in_at(g, &at);
        let observed = table.observed();
        let index: HashMap<ValueKey, usize> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (ValueKey::of(v), i))
            .collect();
        let dominators = DominatorTree::build(g);
        let mut by_rejoin: BTreeMap<BlockId, Vec<&DivergentBranch>> = BTreeMap::new();
        for &branch in branches {
            by_rejoin.entry(branch.primary(g)).or_default().push(branch);
        }
        let mut parked: Vec<Parked<'c, 'a>> = Vec::new();
        for (&p, parking) in &by_rejoin {
            let regions = self.parking_regions(p, parking);
            let clobbered = |d: BlockId| regions.iter().any(|region| region[d.index()]);
            let block = self.graph.block(p);
            for i in 0..block.argument_count() {
                let argument: Value<'c, 'a> = block.argument(i).unwrap().into();
                if !index
                    .get(&ValueKey::of(&argument))
                    .is_some_and(|&k| observed[k])
                {
                    continue;
                }
                let passed = self.passed_values(parking, i);
                if passed.is_empty() {
                    // Every parking edge passes poison: any value will do.
                    continue;
                }
                let direct = self.direct_value(&passed, p, &dominators, &clobbered);
                parked.push(Parked {
                    rejoin: p,
                    argument: Some(i),
                    value: argument,
                    direct,
                    selects: Vec::new(),
                });
            }
            for &v in &live[p.index()] {
                if table.values[v].def.is_some_and(clobbered) {
                    parked.push(Parked {
                        rejoin: p,
                        argument: None,
                        value: values[v],
                        direct: None,
                        selects: Vec::new(),
                    });
                }
            }
        }
        parked
    }

    /// The region of each parking branch for rejoin point `p`: what the
    /// wave may run while its lanes wait.
    fn parking_regions(&self, p: BlockId, parking: &[&DivergentBranch]) -> Vec<Vec<bool>> {
        let g = self.graph.graph();
        parking
            .iter()
            .map(|branch| {
                plan::reachable_avoiding(
                    g,
                    g.successors(branch.block)[1 - branch.primary_slot],
                    p,
                    false,
                )
            })
            .collect()
    }

    /// The distinct non-poison values the parking branches pass to
    /// argument `i` of their rejoin point, in branch order.
    fn passed_values(&self, parking: &[&DivergentBranch], i: usize) -> Vec<Value<'c, 'a>> {
        let mut passed: Vec<Value<'c, 'a>> = parking
            .iter()
            .filter_map(|branch| {
                edit::successor_operands(self.graph.terminator(branch.block), branch.primary_slot)
                    .and_then(|operands| operands.get(i).copied())
            })
            .filter(|&v| !is_poison(v))
            .collect();
        let mut distinct = std::collections::HashSet::new();
        passed.retain(|v| distinct.insert(ValueKey::of(v)));
        passed
    }

    /// The single passed value, if it is still intact in the parked lanes
    /// at rejoin point `p`: defined outside the region (or strictly
    /// dominating `p` and not in any parking region).
    fn direct_value(
        &self,
        passed: &[Value<'c, 'a>],
        p: BlockId,
        dominators: &DominatorTree,
        clobbered: &dyn Fn(BlockId) -> bool,
    ) -> Option<Value<'c, 'a>> {
        match passed[..] {
            [u] => {
                let d = self.graph.id(value_block(u));
                d.is_none_or(|d| dominators.strictly_dominates(d, p) && !clobbered(d))
                    .then_some(u)
            }
            _ => None,
        }
    }

    /// The lane-data values of the region with their uses, for [`live`].
    pub(super) fn value_table(&self) -> (live::Values, Vec<Value<'c, 'a>>) {
        let g = self.graph.graph();
        let mut values: Vec<Value<'c, 'a>> = Vec::new();
        let mut defs = Vec::new();
        for b in (0..g.num_blocks()).map(BlockId::new) {
            for v in self.defined_values(b) {
                values.push(v);
                defs.push(b);
            }
        }
        let index: HashMap<ValueKey, usize> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (ValueKey::of(v), i))
            .collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_of: HashMap<OperationKey, usize> = HashMap::new();
        let mut table = live::Values::default();
        for (i, &v) in values.iter().enumerate() {
            let mut uses = Vec::new();
            for (user, operand) in edit::uses(v) {
                let Some(b) = enclosing_block_in(self.graph, user) else {
                    continue;
                };
                let top_level = user.block().is_some_and(|ub| self.graph.id(ub) == Some(b));
                if top_level && user == self.graph.terminator(b) {
                    if let Some(target) = self
                        .forwarded_to(b, user, operand)
                        .and_then(|t| index.get(&ValueKey::of(&t)))
                    {
                        uses.push(live::Use::Forward(b, *target));
                        continue;
                    }
                } else if top_level && is_pure(user) {
                    let results: Vec<usize> = (0..user.result_count())
                        .filter_map(|r| index.get(&ValueKey::of(&user.result(r).unwrap())).copied())
                        .collect();
                    if results.len() == user.result_count() {
                        let key = OperationKey::of(&user);
                        let group = *group_of.entry(key).or_insert_with(|| {
                            groups.push(results);
                            groups.len() - 1
                        });
                        uses.push(live::Use::Through(b, group));
                        continue;
                    }
                }
                uses.push(live::Use::Plain(b));
            }
            table.values.push(live::ValueInfo {
                def: Some(defs[i]),
                uses,
            });
        }
        table.groups = groups;
        (table, values)
    }

    /// The block argument that operand `operand` of terminator `user` of
    /// `b` is forwarded to, if it is a successor operand.
    pub(super) fn forwarded_to(
        &self,
        b: BlockId,
        user: OperationRef<'c, 'a>,
        operand: usize,
    ) -> Option<Value<'c, 'a>> {
        let successors = self.graph.graph().successors(b);
        match OperandSite::of(user, operand) {
            OperandSite::Successor { slot, position } => Some(
                self.graph
                    .block(successors[slot])
                    .argument(position)
                    .ok()?
                    .into(),
            ),
            OperandSite::Plain(_) => None,
        }
    }

    /// Block arguments and op results of `block` that are per-lane data.
    pub(super) fn defined_values(&self, block: BlockId) -> Vec<Value<'c, 'a>> {
        let block = self.graph.block(block);
        let mut values: Vec<Value<'c, 'a>> = (0..block.argument_count())
            .map(|i| block.argument(i).unwrap().into())
            .collect();
        for op in edit::operations(block) {
            values.extend((0..op.result_count()).map(|i| Value::from(op.result(i).unwrap())));
        }
        values.retain(|v| self.is_lane_data(v.r#type()));
        values
    }

    pub(super) fn is_lane_data(&self, r#type: Type<'c>) -> bool {
        r#type != self.mask && !crate::ir::facts::is_spmd_type(r#type)
    }

    /// The mask code of a parking branch; returns `(m_P | c)`.
    pub(super) fn emit_park(
        &self,
        branch: &DivergentBranch,
        id: i64,
        parked: &mut [Parked<'c, 'a>],
    ) -> OperationRef<'c, 'a> {
        let block = self.graph.block(branch.block);
        let terminator = self.graph.terminator(branch.block);
        let location = terminator.location();
        let ballot = self.emit_ballot(branch, block, terminator, location);
        let primary_operands =
            edit::successor_operands(terminator, branch.primary_slot).unwrap_or_default();
        self.emit_parked_selects(branch, ballot, &primary_operands, parked, location);
        let pending = self.emit_exec_update(block, ballot, id, location);
        self.replace_terminator(branch, terminator, primary_operands);
        pending
    }

    /// The ballot of the lanes of `branch` that take its primary slot
    /// (the condition, negated when the primary slot is the false one).
    fn emit_ballot(
        &self,
        branch: &DivergentBranch,
        block: BlockRef<'c, 'a>,
        terminator: OperationRef<'c, 'a>,
        location: Location<'c>,
    ) -> Value<'c, 'a> {
        let condition: Value<'c, 'a> = terminator.operand(0).unwrap();
        let to_primary = if branch.primary_slot == 0 {
            condition
        } else {
            let one = edit::insert_before_terminator(
                block,
                edit::bool_constant(self.context, true, location),
            );
            let i1: Type = IntegerType::new(self.context, 1).into();
            value(edit::insert_before_terminator(
                block,
                build(
                    self.context,
                    "arith.xori",
                    &[condition, value(one)],
                    &[i1],
                    location,
                ),
            ))
        };
        value(edit::insert_before_terminator(
            block,
            build(
                self.context,
                names::BALLOT,
                &[to_primary],
                &[self.mask],
                location,
            ),
        ))
    }

    /// The selects at the parking branch that keep the parked lanes'
    /// copies of every value parked for its rejoin point and not read
    /// directly there.
    fn emit_parked_selects(
        &self,
        branch: &DivergentBranch,
        ballot: Value<'c, 'a>,
        primary_operands: &[Value<'c, 'a>],
        parked: &mut [Parked<'c, 'a>],
        location: Location<'c>,
    ) {
        let block = self.graph.block(branch.block);
        let p = branch.primary(self.graph.graph());
        for item in parked
            .iter_mut()
            .filter(|item| item.rejoin == p && item.direct.is_none())
        {
            // Every lane parked for `p` takes its merge from the parked
            // copy, so every branch parking for `p` keeps its lanes' values.
            let parked_value = match item.argument {
                // A lane passing poison may rejoin with any value.
                Some(i) if is_poison(primary_operands[i]) => continue,
                Some(i) => primary_operands[i],
                None => item.value,
            };
            let op = build(
                self.context,
                names::MASK_SELECT,
                &[ballot, parked_value, parked_value],
                &[parked_value.r#type()],
                location,
            );
            item.selects
                .push((branch.block, edit::insert_before_terminator(block, op)));
        }
    }

    /// The exec-mask update of a parking branch: parks the `ballot` lanes
    /// (tagged with park id `id`); returns the pending mask `(m_P | c)`.
    fn emit_exec_update(
        &self,
        block: BlockRef<'c, 'a>,
        ballot: Value<'c, 'a>,
        id: i64,
        location: Location<'c>,
    ) -> OperationRef<'c, 'a> {
        let pending = edit::insert_before_terminator(
            block,
            build(
                self.context,
                names::MASK_OR,
                &[self.empty, ballot],
                &[self.mask],
                location,
            ),
        );
        let exec = edit::insert_before_terminator(
            block,
            build(self.context, names::EXEC_READ, &[], &[self.mask], location),
        );
        let rest = edit::insert_before_terminator(
            block,
            build(
                self.context,
                names::MASK_ANDN,
                &[value(exec), ballot],
                &[self.mask],
                location,
            ),
        );
        let mut write = build(
            self.context,
            names::EXEC_WRITE,
            &[value(rest)],
            &[],
            location,
        );
        write.set_discardable_attribute(PARK_ATTR, self.i64_attr(id));
        edit::insert_before_terminator(block, write);
        pending
    }
}
