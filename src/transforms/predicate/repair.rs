//! Repair after the edit: SSA for the masks and the parked values, and the
//! values whose definitions no longer dominate their uses.

use super::lowerer::Lowerer;
use super::parking::Parked;
use super::*;
use crate::ir::key::ValueKey;

impl<'c, 'g, 'a> Lowerer<'c, 'g, 'a> {
    pub(super) fn repair_ssa(
        &self,
        rejoins: &BTreeMap<BlockId, i64>,
        rejoin_ors: &HashMap<BlockId, OperationRef<'c, 'a>>,
        parks: &[(BlockId, BlockId, OperationRef<'c, 'a>)],
        parked: &[Parked<'c, 'a>],
        merges: &HashMap<usize, OperationRef<'c, 'a>>,
    ) {
        let graph = self.snapshot_now();
        let id = |b: BlockId| graph.id(self.graph.block(b)).expect("block kept");
        let repair = SsaRepair {
            rejoins,
            rejoin_ors,
            parks,
            parked,
            merges,
            id: &id,
            entry: graph.graph().entry(),
        };
        let mut defs: Vec<Def<'c, 'a>> = vec![Def::Value(self.empty)];
        let mut variables = repair.mask_variables(&mut defs, self.mask);
        let variable_of = repair.parked_variables(&mut defs, &mut variables);
        let reads = ssa::rewrite::apply(self.context, &graph, &defs, &variables, self.location);
        repair.patch_rejoin_masks(&reads);
        repair.patch_parked_values(&variable_of, &reads);
        self.repair_values(parked, merges);
    }

    /// A kept value now has several definitions (its own and one merge per
    /// rejoin point keeping it): every use sees the one reaching it. Uses
    /// in the defining block follow the definition; uses in a block holding
    /// a merge follow the merge (merges come first), except the merge's own
    /// `arriving` operand, which reads the value at the start of the block;
    /// every other use reads the value at the start of its block (SSA
    /// repaired on the wave-level CFG).
    pub(super) fn repair_values(
        &self,
        parked: &[Parked<'c, 'a>],
        merges: &HashMap<usize, OperationRef<'c, 'a>>,
    ) {
        // Grouped by value, in the order of `parked` (deterministic output).
        let mut group_of: HashMap<ValueKey, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (j, item) in parked.iter().enumerate() {
            if item.argument.is_none() {
                let g = *group_of
                    .entry(ValueKey::of(&item.value))
                    .or_insert_with(|| {
                        groups.push(Vec::new());
                        groups.len() - 1
                    });
                groups[g].push(j);
            }
        }
        let by_value = groups;
        if by_value.is_empty() {
            return;
        }
        let graph = self.snapshot_now();
        let mut defs = Vec::new();
        let mut variables = Vec::new();
        // Per variable: (user, operand, block to read at).
        let mut users = Vec::new();
        for items in &by_value {
            let original = parked[items[0]].value;
            let def_block = graph
                .id(value_block(original))
                .expect("defined in the region");
            let mut variable = Variable::default();
            defs.push(Def::Value(original));
            variable.block_defs.push((def_block, defs.len() - 1));
            let mut merge_in: HashMap<BlockId, OperationRef<'c, 'a>> = HashMap::new();
            for &j in items {
                let merge = merges[&j];
                let block = graph.id(merge.block().unwrap()).unwrap();
                defs.push(Def::Value(value(merge)));
                variable.block_defs.push((block, defs.len() - 1));
                merge_in.insert(block, merge);
            }
            let mut uses = Vec::new();
            for (user, operand) in edit::uses(original) {
                let block = enclosing_block_in(&graph, user).expect("use in the region");
                match merge_in.get(&block) {
                    Some(&merge) if merge == user => {}
                    Some(&merge) => {
                        edit::set_operand(user, operand, value(merge));
                        continue;
                    }
                    None if block == def_block => continue,
                    None => {}
                }
                variable.reads.push(block);
                uses.push((user, OperandSite::of(user, operand), block));
            }
            variables.push(IrVariable {
                r#type: original.r#type(),
                variable,
            });
            users.push(uses);
        }
        let reads = ssa::rewrite::apply(self.context, &graph, &defs, &variables, self.location);
        for (k, uses) in users.into_iter().enumerate() {
            for (user, site, block) in uses {
                let seen = reads[k]
                    .iter()
                    .find(|(b, _)| *b == block)
                    .map(|&(_, v)| v)
                    .expect("read");
                edit::set_operand(user, site.index(user), seen);
            }
        }
    }
}

/// The inputs of [`Lowerer::repair_ssa`], with the map from block ids of
/// the lowerer's graph to those of the snapshot taken after the edit.
struct SsaRepair<'r, 'c, 'a> {
    rejoins: &'r BTreeMap<BlockId, i64>,
    rejoin_ors: &'r HashMap<BlockId, OperationRef<'c, 'a>>,
    parks: &'r [(BlockId, BlockId, OperationRef<'c, 'a>)],
    parked: &'r [Parked<'c, 'a>],
    merges: &'r HashMap<usize, OperationRef<'c, 'a>>,
    /// Snapshot id of a block of the lowerer's graph.
    id: &'r dyn Fn(BlockId) -> BlockId,
    /// The snapshot's entry block.
    entry: BlockId,
}

impl<'c, 'a> SsaRepair<'_, 'c, 'a> {
    /// One rejoin-mask variable per rejoin point (of type `mask`), defined
    /// by the pending masks of its parking branches; their definitions are
    /// appended to `defs`.
    fn mask_variables(&self, defs: &mut Vec<Def<'c, 'a>>, mask: Type<'c>) -> Vec<IrVariable<'c>> {
        let (id, entry) = (self.id, self.entry);
        let mut variables = Vec::new();
        // One rejoin mask per rejoin point.
        for &p in self.rejoins.keys() {
            let mut variable = Variable::default();
            variable.block_defs.push((entry, 0));
            let mut reads = vec![id(p)];
            let mut p_def = 0;
            for &(b, _, pending) in self.parks.iter().filter(|(_, target, _)| *target == p) {
                let k = push_def(defs, value(pending));
                if b == p {
                    p_def = k;
                    continue;
                }
                variable.block_defs.retain(|&(block, _)| block != id(b));
                variable.block_defs.push((id(b), k));
                if id(b) != entry {
                    reads.push(id(b));
                }
            }
            variable.block_defs.push((id(p), p_def));
            variable.reads = reads;
            variables.push(IrVariable {
                r#type: mask,
                variable,
            });
        }
        variables
    }

    /// One variable per parked value copied at the parking branches,
    /// appended to `variables`; returns, per parked item, its variable.
    fn parked_variables(
        &self,
        defs: &mut Vec<Def<'c, 'a>>,
        variables: &mut Vec<IrVariable<'c>>,
    ) -> Vec<Option<usize>> {
        let id = self.id;
        let mut variable_of = vec![None; self.parked.len()];
        for (j, item) in self
            .parked
            .iter()
            .enumerate()
            .filter(|(_, item)| !item.selects.is_empty())
        {
            variable_of[j] = Some(variables.len());
            let mut variable = Variable::default();
            variable.reads.push(id(item.rejoin));
            for &(b, select) in &item.selects {
                let k = push_def(defs, value(select));
                variable.block_defs.push((id(b), k));
                variable.reads.push(id(b));
            }
            variables.push(IrVariable {
                r#type: item.value.r#type(),
                variable,
            });
        }
        variable_of
    }

    /// Sets the rejoin masks read by the rejoin ors, the merges and the
    /// pending masks of the parking branches.
    fn patch_rejoin_masks(&self, reads: &[Vec<(BlockId, Value<'c, 'a>)>]) {
        let (id, entry) = (self.id, self.entry);
        for (k, &p) in self.rejoins.keys().enumerate() {
            let m = read_at(reads, k, id(p)).expect("rejoin mask read");
            edit::set_operand(self.rejoin_ors[&p], 1, m);
            for (j, _) in self
                .parked
                .iter()
                .enumerate()
                .filter(|(_, item)| item.rejoin == p)
            {
                edit::set_operand(self.merges[&j], 0, m);
            }
            for &(b, _, pending) in self.parks.iter().filter(|(_, target, _)| *target == p) {
                if b != p && id(b) != entry {
                    edit::set_operand(
                        pending,
                        0,
                        read_at(reads, k, id(b)).expect("pending mask read"),
                    );
                }
            }
        }
    }

    /// Sets the parked copies read by the selects and the merges.
    fn patch_parked_values(
        &self,
        variable_of: &[Option<usize>],
        reads: &[Vec<(BlockId, Value<'c, 'a>)>],
    ) {
        let id = self.id;
        for (j, item) in self.parked.iter().enumerate() {
            let Some(k) = variable_of[j] else { continue };
            for &(b, select) in &item.selects {
                edit::set_operand(
                    select,
                    2,
                    read_at(reads, k, id(b)).expect("parked value read"),
                );
            }
            edit::set_operand(
                self.merges[&j],
                1,
                read_at(reads, k, id(item.rejoin)).expect("parked value read"),
            );
        }
    }
}

/// Appends definition `v` to `defs`; returns its index.
fn push_def<'c, 'a>(defs: &mut Vec<Def<'c, 'a>>, v: Value<'c, 'a>) -> usize {
    defs.push(Def::Value(v));
    defs.len() - 1
}

/// The value of variable `k` read in block `b`, if it is read there.
fn read_at<'c, 'a>(
    reads: &[Vec<(BlockId, Value<'c, 'a>)>],
    k: usize,
    b: BlockId,
) -> Option<Value<'c, 'a>> {
    reads[k]
        .iter()
        .find(|(block, _)| *block == b)
        .map(|&(_, v)| v)
}
