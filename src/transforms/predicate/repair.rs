//! Repair after the edit: SSA for the masks and the parked values, and the
//! values whose definitions no longer dominate their uses.

use super::lowerer::Lowerer;
use super::parking::Parked;
use super::*;

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
        let entry = graph.graph().entry();
        let mut defs: Vec<Def<'c, 'a>> = vec![Def::Value(self.empty)];
        let mut variables = Vec::new();
        let def = |defs: &mut Vec<Def<'c, 'a>>, v: Value<'c, 'a>| {
            defs.push(Def::Value(v));
            defs.len() - 1
        };
        // One rejoin mask per rejoin point.
        for &p in rejoins.keys() {
            let mut variable = Variable::default();
            variable.block_defs.push((entry, 0));
            let mut reads = vec![id(p)];
            let mut p_def = 0;
            for &(b, _, pending) in parks.iter().filter(|(_, target, _)| *target == p) {
                let k = def(&mut defs, value(pending));
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
                r#type: self.mask,
                variable,
            });
        }
        // One variable per parked value copied at the parking branches.
        let mut variable_of = vec![None; parked.len()];
        for (j, item) in parked
            .iter()
            .enumerate()
            .filter(|(_, item)| !item.selects.is_empty())
        {
            variable_of[j] = Some(variables.len());
            let mut variable = Variable::default();
            variable.reads.push(id(item.rejoin));
            for &(b, select) in &item.selects {
                let k = def(&mut defs, value(select));
                variable.block_defs.push((id(b), k));
                variable.reads.push(id(b));
            }
            variables.push(IrVariable {
                r#type: item.value.r#type(),
                variable,
            });
        }
        let reads = ssa::rewrite::apply(self.context, &graph, &defs, &variables, self.location);
        let read_at = |k: usize, b: BlockId| {
            reads[k]
                .iter()
                .find(|(block, _)| *block == b)
                .map(|&(_, v)| v)
        };
        // Patch rejoin masks.
        for (k, &p) in rejoins.keys().enumerate() {
            let m = read_at(k, id(p)).expect("rejoin mask read");
            edit::set_operand(rejoin_ors[&p], 1, m);
            for (j, _) in parked
                .iter()
                .enumerate()
                .filter(|(_, item)| item.rejoin == p)
            {
                edit::set_operand(merges[&j], 0, m);
            }
            for &(b, _, pending) in parks.iter().filter(|(_, target, _)| *target == p) {
                if b != p && id(b) != entry {
                    edit::set_operand(pending, 0, read_at(k, id(b)).expect("pending mask read"));
                }
            }
        }
        // Patch parked values.
        for (j, item) in parked.iter().enumerate() {
            let Some(k) = variable_of[j] else { continue };
            for &(b, select) in &item.selects {
                edit::set_operand(select, 2, read_at(k, id(b)).expect("parked value read"));
            }
            edit::set_operand(
                merges[&j],
                1,
                read_at(k, id(item.rejoin)).expect("parked value read"),
            );
        }
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
        let mut group_of: HashMap<usize, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (j, item) in parked.iter().enumerate() {
            if item.argument.is_none() {
                let g = *group_of
                    .entry(item.value.to_raw().ptr as usize)
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
