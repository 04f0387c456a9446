//===- Spmd.cpp - C interface of the spmd dialect -------------------------===//

#include "spmd-c/Spmd.h"

#include "Spmd/SpmdDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include <optional>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Spmd, spmd, spmd::SpmdDialect)

bool spmdIsFunctionLike(MlirOperation op) {
  return isa<FunctionOpInterface>(unwrap(op));
}

bool spmdIsBranch(MlirOperation op) {
  return isa<BranchOpInterface>(unwrap(op));
}

/// The successor operands of slot `index` of a BranchOpInterface op, if it
/// forwards them all (no produced operands).
static std::optional<SuccessorOperands> forwardedOperandsOf(MlirOperation op,
                                                            intptr_t index) {
  auto branch = dyn_cast<BranchOpInterface>(unwrap(op));
  if (!branch || index < 0 ||
      static_cast<unsigned>(index) >= branch->getNumSuccessors())
    return std::nullopt;
  SuccessorOperands operands = branch.getSuccessorOperands(index);
  if (operands.getProducedOperandCount() != 0)
    return std::nullopt;
  return operands;
}

bool spmdGetSuccessorOperandRange(MlirOperation op, intptr_t index,
                                  intptr_t *begin, intptr_t *count) {
  std::optional<SuccessorOperands> operands = forwardedOperandsOf(op, index);
  if (!operands)
    return false;
  OperandRange forwarded = operands->getForwardedOperands();
  *count = static_cast<intptr_t>(forwarded.size());
  *begin = forwarded.empty() ? 0 : forwarded.getBeginOperandIndex();
  return true;
}

bool spmdSetSuccessorOperands(MlirOperation op, intptr_t index, intptr_t count,
                              const MlirValue *values) {
  std::optional<SuccessorOperands> operands = forwardedOperandsOf(op, index);
  if (!operands)
    return false;
  SmallVector<Value> newValues;
  for (intptr_t i = 0; i < count; ++i)
    newValues.push_back(unwrap(values[i]));
  operands->getMutableForwardedOperands().assign(newValues);
  return true;
}

bool spmdEraseUnreachableBlocks(MlirRegion region) {
  Region *r = unwrap(region);
  IRRewriter rewriter(r->getContext());
  return succeeded(eraseUnreachableBlocks(rewriter, MutableArrayRef<Region>(*r)));
}

bool spmdIsGraphRegion(MlirOperation op, intptr_t index) {
  Operation *owner = unwrap(op);
  auto kind = dyn_cast<RegionKindInterface>(owner);
  return kind && index >= 0 &&
         static_cast<unsigned>(index) < owner->getNumRegions() &&
         !kind.hasSSADominance(static_cast<unsigned>(index));
}

bool spmdNeedsLaneGuard(MlirOperation op) {
  Operation *operation = unwrap(op);
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(operation);
  if (!effects)
    return true;
  bool allocatesOnly = !effects->empty();
  for (const MemoryEffects::EffectInstance &effect : *effects)
    if (!isa<MemoryEffects::Allocate>(effect.getEffect()))
      return true;
  return !allocatesOnly && !isSpeculatable(operation);
}
