//! Building the small instruction sequences of the lowering: an
//! [`Emitter`] inserts operations right before an anchor operation and
//! returns their single result. The few warp-level operations the lowering
//! needs (the live mask, a ballot, a vote, reading one lane's value) are
//! the target's ([`Target`]): NVVM's `.sync` operations, which name their
//! members, or ROCDL's wave intrinsics, which run in the lanes the hardware
//! has active.

use crate::ir::{edit, names};
use melior::{
    dialect::arith,
    ir::{
        attribute::{IntegerAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, Identifier, Location, Operation, OperationRef, Type, Value, ValueLike,
    },
    Context,
};

/// The machine a wave-level function is lowered for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// An NVIDIA warp of 32 threads (NVVM).
    Nvvm,
    /// An AMD wave (ROCDL).
    Rocdl {
        /// Lanes per wave: 64 (GCN, CDNA) or 32 (RDNA).
        wave_size: u32,
    },
}

impl Target {
    /// The width of a whole-wave mask: a ballot's result.
    pub(crate) fn mask_width(self) -> u32 {
        match self {
            Self::Nvvm => 32,
            Self::Rocdl { wave_size } => wave_size,
        }
    }

    /// The width of the lowered `!spmd.mask`: the thread's own bit on
    /// NVVM (a predicate register), the whole wave's mask on ROCDL (a pair
    /// of scalar registers, or one in wave32).
    pub(crate) fn lowered_mask_width(self) -> u32 {
        match self {
            Self::Nvvm => 1,
            Self::Rocdl { wave_size } => wave_size,
        }
    }
}

/// Inserts operations before `anchor`, at `location`.
pub(super) struct Emitter<'c, 'a> {
    pub(crate) context: &'c Context,
    pub(crate) target: Target,
    pub(crate) anchor: OperationRef<'c, 'a>,
    pub(crate) location: Location<'c>,
}

impl<'c, 'a> Emitter<'c, 'a> {
    /// Inserts `op` before the anchor and returns its first result.
    pub(super) fn insert(&self, op: Operation<'c>) -> Value<'c, 'a> {
        let block = self.anchor.block().expect("the anchor is in a block");
        let inserted = block.insert_operation_before(self.anchor, op);
        inserted
            .result(0)
            .expect("an emitted op has a result")
            .into()
    }

    pub(super) fn int_type(&self, width: u32) -> Type<'c> {
        IntegerType::new(self.context, width).into()
    }

    /// `arith.constant value : iN`.
    pub(super) fn constant(&self, width: u32, value: i64) -> Value<'c, 'a> {
        let attribute = IntegerAttribute::new(self.int_type(width), value).into();
        self.insert(arith::constant(self.context, attribute, self.location))
    }

    /// The live lanes, read at a point where every live lane runs:
    /// `llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32` on NVVM,
    /// `rocdl.ballot true : iN` on ROCDL.
    pub(super) fn live_mask(&self) -> Value<'c, 'a> {
        match self.target {
            Target::Nvvm => self.nvvm_active_mask(),
            Target::Rocdl { .. } => {
                let all = self.constant(1, 1);
                self.rocdl_ballot(all)
            }
        }
    }

    fn nvvm_active_mask(&self) -> Value<'c, 'a> {
        self.call_intrinsic("llvm.nvvm.activemask", &[], self.int_type(32))
    }

    /// `llvm.call_intrinsic "name"(operands) : (...) -> result`.
    fn call_intrinsic(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Value<'c, 'a> {
        let segments =
            Attribute::parse(self.context, &format!("array<i32: {}, 0>", operands.len()))
                .expect("valid segment sizes");
        let bundles = Attribute::parse(self.context, "array<i32>").expect("valid bundle sizes");
        let name = StringAttribute::new(self.context, name).into();
        let op = OperationBuilder::new(names::LLVM_CALL_INTRINSIC, self.location)
            .add_operands(operands)
            .add_attributes(&[
                (Identifier::new(self.context, "intrin"), name),
                (Identifier::new(self.context, "op_bundle_sizes"), bundles),
                (
                    Identifier::new(self.context, "operandSegmentSizes"),
                    segments,
                ),
            ])
            .add_results(&[result])
            .build()
            .expect("valid llvm.call_intrinsic");
        self.insert(op)
    }

    /// The thread's own bit of the whole-wave `mask` (ROCDL):
    /// `llvm.amdgcn.inverse.ballot`, which the backend lowers to nothing
    /// (a uniform mask in scalar registers *is* a per-lane condition).
    ///
    /// A constant mask (empty, or every lane) gives the constant bit
    /// instead: LLVM 22's AMDGPU backend crashes in its register coalescer
    /// on an inverse ballot of a constant feeding selects.
    pub(super) fn inverse_ballot(&self, mask: Value<'c, '_>) -> Value<'c, 'a> {
        let constant = edit::defining_op(mask).and_then(crate::ir::facts::constant_value);
        match constant.map(|c| c.value) {
            Some(0) => return self.constant(1, 0),
            Some(-1) => return self.constant(1, 1),
            _ => {}
        }
        let name = format!("llvm.amdgcn.inverse.ballot.i{}", self.target.mask_width());
        self.call_intrinsic(&name, &[mask], self.int_type(1))
    }

    /// `rocdl.ballot %pred : iN`, N the wave size.
    fn rocdl_ballot(&self, pred: Value<'c, '_>) -> Value<'c, 'a> {
        let op = OperationBuilder::new("rocdl.ballot", self.location)
            .add_operands(&[pred])
            .add_results(&[self.int_type(self.target.mask_width())])
            .build()
            .expect("valid rocdl.ballot");
        self.insert(op)
    }

    /// The mask of the `members` lanes whose `pred` holds:
    /// `nvvm.vote.sync ballot %members, %pred -> i32`, or `rocdl.ballot`
    /// (the members are the lanes the hardware runs).
    pub(super) fn ballot(&self, members: Value<'c, '_>, pred: Value<'c, '_>) -> Value<'c, 'a> {
        if let Target::Rocdl { .. } = self.target {
            return self.rocdl_ballot(pred);
        }
        let kind = Attribute::parse(self.context, "#nvvm<vote_sync_kind ballot>")
            .expect("nvvm dialect loaded");
        let op = OperationBuilder::new("nvvm.vote.sync", self.location)
            .add_operands(&[members, pred])
            .add_attributes(&[(Identifier::new(self.context, "kind"), kind)])
            .add_results(&[self.int_type(32)])
            .build()
            .expect("valid nvvm.vote.sync");
        self.insert(op)
    }

    /// Whether `pred` holds in some of the `members` lanes, the same `i1`
    /// in every lane: `nvvm.vote.sync any`, or a ROCDL ballot compared with
    /// 0 (a ballot is uniform, so the comparison is too).
    pub(super) fn vote_any(&self, members: Value<'c, '_>, pred: Value<'c, '_>) -> Value<'c, 'a> {
        if let Target::Rocdl { .. } = self.target {
            let mask = self.rocdl_ballot(pred);
            let zero = self.zero_of(mask.r#type());
            return self.insert(arith::cmpi(
                self.context,
                arith::CmpiPredicate::Ne,
                mask,
                zero,
                self.location,
            ));
        }
        let kind = Attribute::parse(self.context, "#nvvm<vote_sync_kind any>")
            .expect("nvvm dialect loaded");
        let op = OperationBuilder::new("nvvm.vote.sync", self.location)
            .add_operands(&[members, pred])
            .add_attributes(&[(Identifier::new(self.context, "kind"), kind)])
            .add_results(&[self.int_type(1)])
            .build()
            .expect("valid nvvm.vote.sync");
        self.insert(op)
    }

    /// `%value` (an `i32`) of lane `%source` (a lane of the wave, the same
    /// in every lane): `nvvm.shfl.sync idx %members, %value, %source, 31`,
    /// or `rocdl.readlane %value, %source`.
    pub(super) fn shuffle_index(
        &self,
        members: Value<'c, '_>,
        value: Value<'c, '_>,
        source: Value<'c, '_>,
    ) -> Value<'c, 'a> {
        if let Target::Rocdl { .. } = self.target {
            let op = OperationBuilder::new("rocdl.readlane", self.location)
                .add_operands(&[value, source])
                .add_results(&[self.int_type(32)])
                .build()
                .expect("valid rocdl.readlane");
            return self.insert(op);
        }
        let kind =
            Attribute::parse(self.context, "#nvvm<shfl_kind idx>").expect("nvvm dialect loaded");
        let clamp = self.constant(32, 31);
        let op = OperationBuilder::new("nvvm.shfl.sync", self.location)
            .add_operands(&[members, value, source, clamp])
            .add_attributes(&[(Identifier::new(self.context, "kind"), kind)])
            .add_results(&[self.int_type(32)])
            .build()
            .expect("valid nvvm.shfl.sync");
        self.insert(op)
    }

    /// The index of the lowest set bit of `value` (its width if `value`
    /// is 0): `llvm.intr.cttz` with `is_zero_poison = false`.
    pub(super) fn lowest_set_bit(&self, value: Value<'c, '_>) -> Value<'c, 'a> {
        let flag = Attribute::parse(self.context, "false").expect("valid bool");
        let op = OperationBuilder::new("llvm.intr.cttz", self.location)
            .add_operands(&[value])
            .add_attributes(&[(Identifier::new(self.context, "is_zero_poison"), flag)])
            .add_results(&[value.r#type()])
            .build()
            .expect("valid llvm.intr.cttz");
        self.insert(op)
    }

    /// The mask of the lanes of the whole-wave mask `exec` whose `pred`
    /// holds (ROCDL): `rocdl.ballot (llvm.freeze %pred) & %exec`. The
    /// freeze makes a predicate that lanes outside `exec` never computed
    /// (poison there) some fixed value, which the `and` then drops; the
    /// backend turns it all into one `s_and` of the compare's lane mask.
    pub(super) fn ballot_in(&self, exec: Value<'c, '_>, pred: Value<'c, '_>) -> Value<'c, 'a> {
        let mask = self.ballot_all(pred);
        self.and(mask, exec)
    }

    /// The mask of the lanes the hardware runs whose `pred` holds, with
    /// `pred` frozen (ROCDL): `rocdl.ballot (llvm.freeze %pred)`.
    fn ballot_all(&self, pred: Value<'c, '_>) -> Value<'c, 'a> {
        let frozen = self.insert(
            OperationBuilder::new("llvm.freeze", self.location)
                .add_operands(&[pred])
                .add_results(&[pred.r#type()])
                .build()
                .expect("valid llvm.freeze"),
        );
        self.rocdl_ballot(frozen)
    }

    /// The integer 0 of `r#type`.
    pub(super) fn zero_of(&self, r#type: Type<'c>) -> Value<'c, 'a> {
        let attribute = IntegerAttribute::new(r#type, 0).into();
        self.insert(arith::constant(self.context, attribute, self.location))
    }

    pub(super) fn shr(&self, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
        self.insert(arith::shrui(lhs, rhs, self.location))
    }

    pub(super) fn and(&self, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
        self.insert(arith::andi(lhs, rhs, self.location))
    }

    pub(super) fn or(&self, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
        self.insert(arith::ori(lhs, rhs, self.location))
    }

    /// `lhs & ~rhs` for masks of `width` bits.
    pub(super) fn and_not(
        &self,
        width: u32,
        lhs: Value<'c, '_>,
        rhs: Value<'c, '_>,
    ) -> Value<'c, 'a> {
        let ones = self.constant(width, -1);
        let inverted = self.insert(arith::xori(rhs, ones, self.location));
        self.and(lhs, inverted)
    }

    pub(super) fn shl(&self, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
        self.insert(arith::shli(lhs, rhs, self.location))
    }

    pub(super) fn select(
        &self,
        condition: Value<'c, '_>,
        on_true: Value<'c, '_>,
        on_false: Value<'c, '_>,
    ) -> Value<'c, 'a> {
        self.insert(arith::select(condition, on_true, on_false, self.location))
    }

    /// `value` zero-extended or truncated to the integer type `target`
    /// (itself when the widths agree).
    pub(super) fn resize(&self, value: Value<'c, 'a>, target: Type<'c>) -> Value<'c, 'a> {
        let width = |r#type: Type<'c>| {
            IntegerType::try_from(r#type)
                .map(|t| t.width())
                .unwrap_or(0)
        };
        let (from, to) = (width(value.r#type()), width(target));
        if from == to {
            value
        } else if from < to {
            self.insert(arith::extui(value, target, self.location))
        } else {
            self.insert(arith::trunci(value, target, self.location))
        }
    }
}
