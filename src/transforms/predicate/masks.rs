//! Exec-mask updates: the `exec |= m` of a rejoin point, the merges of the
//! parked values there, the terminator that replaces a divergent branch
//! and the branches whose two successors are the same block.

use super::lowerer::Lowerer;
use super::parking::Parked;
use super::*;

impl<'c, 'g, 'a> Lowerer<'c, 'g, 'a> {
    /// `exec |= m_P` at the start of `p` (after markers and tokens); the
    /// mask operand is a placeholder until SSA repair. Returns the OR and
    /// the operation the merges go before (`None`: the terminator).
    pub(super) fn emit_rejoin(
        &self,
        p: BlockId,
        id: i64,
        full: bool,
    ) -> (OperationRef<'c, 'a>, Option<OperationRef<'c, 'a>>) {
        let block = self.graph.block(p);
        let at = first_non_marker(block);
        let read = self.insert_at(p, at, self.exec_read());
        let or = self.insert_at(
            p,
            at,
            build(
                self.context,
                names::MASK_OR,
                &[value(read), self.empty],
                &[self.mask],
                self.location,
            ),
        );
        let mut write = build(
            self.context,
            names::EXEC_WRITE,
            &[value(or)],
            &[],
            self.location,
        );
        write.set_discardable_attribute(REJOIN_ATTR, self.i64_attr(id));
        if full {
            write.set_discardable_attribute(EXEC_FULL_ATTR, Attribute::unit(self.context));
        }
        self.insert_at(p, at, write);
        (or, at)
    }

    pub(super) fn insert_at(
        &self,
        p: BlockId,
        at: Option<OperationRef<'c, 'a>>,
        op: melior::ir::Operation<'c>,
    ) -> OperationRef<'c, 'a> {
        let block = self.graph.block(p);
        match at {
            Some(before) => block.insert_operation_before(before, op),
            None => edit::insert_before_terminator(block, op),
        }
    }

    /// One merge `spmd.mask.select m_P, parked, arriving` per parked item
    /// of `p` selected by `which` (operands are placeholders until SSA
    /// repair). Every use of a merged argument but its merge sees the merge.
    pub(super) fn emit_merges(
        &self,
        p: BlockId,
        at: Option<OperationRef<'c, 'a>>,
        parked: &[Parked<'c, 'a>],
        which: impl Fn(&Parked<'c, 'a>) -> bool,
    ) -> Vec<(usize, OperationRef<'c, 'a>)> {
        let mut merges = Vec::new();
        for (k, item) in parked
            .iter()
            .enumerate()
            .filter(|(_, item)| item.rejoin == p && which(item))
        {
            let r#type = item.value.r#type();
            let kept = item.direct.unwrap_or(item.value);
            let op = build(
                self.context,
                names::MASK_SELECT,
                &[self.empty, kept, item.value],
                &[r#type],
                self.location,
            );
            let merge = self.insert_at(p, at, op);
            if item.argument.is_some() {
                let merged = value(merge);
                for (user, operand) in edit::uses(item.value) {
                    if user != merge {
                        edit::set_operand(user, operand, merged);
                    }
                }
            }
            merges.push((k, merge));
        }
        merges
    }

    /// `spmd.exec.br_zero ^P, ^S` (guarded) or `cf.br ^S`.
    pub(super) fn replace_terminator(
        &self,
        branch: &DivergentBranch,
        terminator: OperationRef<'c, 'a>,
        primary_operands: Vec<Value<'c, 'a>>,
    ) {
        let g = self.graph.graph();
        let secondary_slot = 1 - branch.primary_slot;
        let secondary_operands =
            edit::successor_operands(terminator, secondary_slot).unwrap_or_default();
        let primary = self.graph.block(branch.primary(g));
        let secondary = self.graph.block(g.successors(branch.block)[secondary_slot]);
        let location = terminator.location();
        let op = if branch.guarded {
            let sizes = format!(
                "array<i32: {}, {}>",
                primary_operands.len(),
                secondary_operands.len()
            );
            let mut operands = primary_operands;
            operands.extend(secondary_operands);
            OperationBuilder::new(names::EXEC_BR_ZERO, location)
                .add_operands(&operands)
                .add_successors(&[&primary, &secondary])
                .add_attributes(&[(
                    Identifier::new(self.context, "operandSegmentSizes"),
                    Attribute::parse(self.context, &sizes).expect("valid segment sizes"),
                )])
                .build()
                .expect("valid spmd.exec.br_zero")
        } else {
            OperationBuilder::new(names::CF_BR, location)
                .add_operands(&secondary_operands)
                .add_successors(&[&secondary])
                .build()
                .expect("valid cf.br")
        };
        let block = self.graph.block(branch.block);
        block.insert_operation_before(terminator, op);
        // SAFETY: the divergent branch (no results) that `op` replaces. Its
        // only caller, `emit_park`, read it from the snapshot just before
        // and returns without using it; each parked branch is lowered once,
        // `run` collects the other terminators it keeps (uniform and lane
        // branches) from other blocks, and the snapshot reads terminators
        // afresh (`RegionGraph::terminator`).
        unsafe { edit::erase_operation(terminator) };
    }

    /// A divergent branch whose slots target one block: `cf.br` with
    /// `arith.select`ed operands.
    pub(super) fn emit_same_target(&self, b: BlockId) {
        let block = self.graph.block(b);
        let terminator = self.graph.terminator(b);
        let location = terminator.location();
        let condition: Value<'c, 'a> = terminator.operand(0).unwrap();
        let first = edit::successor_operands(terminator, 0).unwrap_or_default();
        let second = edit::successor_operands(terminator, 1).unwrap_or_default();
        let operands: Vec<Value<'c, 'a>> = first
            .iter()
            .zip(&second)
            .map(|(&x, &y)| {
                if x == y {
                    return x;
                }
                value(block.insert_operation_before(
                    terminator,
                    build(
                        self.context,
                        "arith.select",
                        &[condition, x, y],
                        &[x.r#type()],
                        location,
                    ),
                ))
            })
            .collect();
        let target = self.graph.block(self.graph.graph().successors(b)[0]);
        let op = OperationBuilder::new(names::CF_BR, location)
            .add_operands(&operands)
            .add_successors(&[&target])
            .build();
        block.insert_operation_before(terminator, op.expect("valid cf.br"));
        // SAFETY: the divergent branch (no results) that the new `cf.br`
        // replaces, read from the snapshot above and not used after; each
        // same-target branch is lowered once, and `run` keeps only the
        // terminators of other blocks (uniform and lane branches).
        unsafe { edit::erase_operation(terminator) };
    }

    /// SSA construction passes `ub.poison` where a variable has no
    /// definition (edges from unreachable blocks). A mask is never poison:
    /// there it is the empty mask, which every consumer of wave-level code
    /// understands.
    pub(super) fn empty_instead_of_poison_masks(&self) {
        let entry = self.graph.block(self.graph.graph().entry());
        for op in edit::operations(entry) {
            if op_name(op) == names::UB_POISON
                && op
                    .result(0)
                    .is_ok_and(|result| result.r#type() == self.mask)
            {
                edit::replace_all_uses(value(op), self.empty);
                // SAFETY: a mask `ub.poison` (one result, no regions) whose
                // result was just replaced; the current op of a fresh
                // snapshot, visited once. It was made by SSA construction,
                // which `run` has finished: `run` does not read the values
                // it kept from there (`parked`, `merges`) again.
                unsafe { edit::erase_operation(op) };
            }
        }
    }
}
