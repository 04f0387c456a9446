//! AMDGPU's wave operations in lockstep waves (see the
//! [parent module](super), section *AMDGPU waves*).
//!
//! They have no member mask: the lanes that take part are the lanes that
//! execute the operation together (the hardware's exec mask), the whole
//! wave where it is converged, a diverged group inside a lane guard.
//! Operands that AMDGPU keeps in scalar registers (the mask of an inverse
//! ballot, the lane of `readlane`) must be the same in every executing
//! lane ([`WarpError::NonUniform`] otherwise); poison in any executing
//! lane makes them poison, and the result poison in every lane.

use super::{lanes_of, Operands, VotePoison, WarpError};
use crate::error::ExecError;
use crate::value::{IntValue, Value, ValueType};

/// Per executing lane, its result.
type LaneResults = Vec<(usize, Value)>;

impl Operands<'_> {
    /// The same `value` for every lane of `executing`.
    fn everywhere(executing: u64, value: Value) -> LaneResults {
        lanes_of(executing).map(|lane| (lane, value)).collect()
    }

    fn type_error(&self, lane: usize, detail: String) -> WarpError {
        self.fail(
            lane,
            ExecError::TypeMismatch {
                site: self.site(),
                detail,
            },
        )
    }

    /// Operand `operand`, which must be the same in every executing lane:
    /// `Value::Poison` if it is poison in any of them (or none executes).
    fn uniform(&self, executing: u64, operand: usize) -> Result<Value, WarpError> {
        let mut first: Option<(usize, Value)> = None;
        let mut poison = false;
        for lane in lanes_of(executing) {
            let value = self.read(lane, operand)?;
            if value == Value::Poison {
                poison = true;
                continue;
            }
            match first {
                None => first = Some((lane, value)),
                Some((other, seen)) if seen != value => {
                    return Err(WarpError::NonUniform {
                        warp: self.warp.index,
                        site: self.site(),
                        lanes: [(other as u32, seen), (lane as u32, value)],
                    })
                }
                Some(_) => {}
            }
        }
        Ok(match first {
            Some((_, value)) if !poison => value,
            _ => Value::Poison,
        })
    }

    /// `rocdl.ballot`, `llvm.amdgcn.ballot.iN`: bit `l` of the result is
    /// set iff lane `l` executes it with a true operand (the mask is
    /// truncated or zero-extended to the result's width). A poison operand
    /// is what `poison` says.
    pub(super) fn wave_ballot(
        &self,
        executing: u64,
        poison: VotePoison,
    ) -> Result<LaneResults, WarpError> {
        let first = lanes_of(executing).next().unwrap_or(0);
        let ValueType::Int(width) = self.op.result_type else {
            let found = self.op.result_type.to_string();
            return Err(self.type_error(first, format!("a ballot of type {found}")));
        };
        let mut mask = 0u64;
        for lane in lanes_of(executing) {
            match self.predicate_at(lane, 0, poison)? {
                Some(true) => mask |= 1u64 << lane,
                Some(false) => {}
                None => return Ok(Self::everywhere(executing, Value::Poison)),
            }
        }
        let value = Value::Int(IntValue::wrap(width, mask));
        Ok(Self::everywhere(executing, value))
    }

    /// `llvm.amdgcn.inverse.ballot.iN`: lane `l` gets bit `l` of the mask,
    /// which must be the same in every executing lane and as wide as the
    /// wave.
    pub(super) fn inverse_ballot(&self, executing: u64) -> Result<LaneResults, WarpError> {
        let first = lanes_of(executing).next().unwrap_or(0);
        let mask = match self.uniform(executing, 0)? {
            Value::Poison => return Ok(Self::everywhere(executing, Value::Poison)),
            Value::Int(mask) if mask.width() == self.dims.subgroup_size => mask.unsigned(),
            other => {
                let wave = self.dims.subgroup_size;
                let detail =
                    format!("expected the i{wave} mask of a wave of {wave}, found {other}");
                return Err(self.type_error(first, detail));
            }
        };
        Ok(lanes_of(executing)
            .map(|lane| (lane, Value::bool(mask & (1u64 << lane) != 0)))
            .collect())
    }

    /// `rocdl.readlane`, `llvm.amdgcn.readlane.*`: the value in the lane
    /// named by the second operand, the same in every executing lane;
    /// poison if that lane does not execute the readlane (it is in another
    /// group, returned, was never launched or lies beyond the wave).
    pub(super) fn read_lane(&self, executing: u64) -> Result<LaneResults, WarpError> {
        let first = lanes_of(executing).next().unwrap_or(0);
        let source = match self.uniform(executing, 1)? {
            Value::Poison => return Ok(Self::everywhere(executing, Value::Poison)),
            Value::Int(lane) => lane.unsigned(),
            other => {
                return Err(self.type_error(first, format!("expected an i32 lane, found {other}")))
            }
        };
        let value = match usize::try_from(source) {
            Ok(source) if source < 64 && executing & (1u64 << source) != 0 => {
                self.read(source, 0)?
            }
            _ => Value::Poison,
        };
        Ok(Self::everywhere(executing, value))
    }

    /// `rocdl.readfirstlane`, `llvm.amdgcn.readfirstlane.*`: the value in
    /// the lowest executing lane.
    pub(super) fn read_first_lane(&self, executing: u64) -> Result<LaneResults, WarpError> {
        let Some(first) = lanes_of(executing).next() else {
            return Ok(Vec::new());
        };
        let value = self.read(first, 0)?;
        Ok(Self::everywhere(executing, value))
    }
}
