//===- Spmd.cpp - C interface of the spmd dialect -------------------------===//

#include "spmd-c/Internal.h"

#include "Spmd/SpmdDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <vector>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Spmd, spmd, spmd::SpmdDialect)

MlirAttribute spmdUniformityAttrGet(MlirContext context,
                                    SpmdUniformity value) {
  switch (value) {
  case SpmdUniformityUniform:
    return wrap(spmd::UniformityAttr::get(unwrap(context),
                                          spmd::Uniformity::uniform));
  case SpmdUniformityDivergent:
    return wrap(spmd::UniformityAttr::get(unwrap(context),
                                          spmd::Uniformity::divergent));
  case SpmdUniformityNone:
    break;
  }
  return MlirAttribute{nullptr};
}

SpmdUniformity spmdUniformityAttrGetValue(MlirAttribute attribute) {
  if (mlirAttributeIsNull(attribute))
    return SpmdUniformityNone;
  auto mark = dyn_cast<spmd::UniformityAttr>(unwrap(attribute));
  if (!mark)
    return SpmdUniformityNone;
  return mark.getValue() == spmd::Uniformity::uniform ? SpmdUniformityUniform
                                                      : SpmdUniformityDivergent;
}

intptr_t spmdReadIntegerElements(MlirAttribute attribute, int64_t *out,
                                 intptr_t capacity) {
  if (mlirAttributeIsNull(attribute))
    return -1;
  auto elements = dyn_cast<DenseIntElementsAttr>(unwrap(attribute));
  if (!elements)
    return -1;
  intptr_t count = 0;
  for (const APInt &value : elements.getValues<APInt>())
    if (value.getSignificantBits() > 64)
      return -1;
  for (const APInt &value : elements.getValues<APInt>()) {
    if (count < capacity)
      out[count] = value.getBitWidth() == 1 ? int64_t(value.getZExtValue())
                                            : value.getSExtValue();
    ++count;
  }
  return count;
}

bool spmdIsFunctionLike(MlirOperation op) {
  return isa<FunctionOpInterface>(unwrap(op));
}

void spmdWalkRegionOwners(MlirOperation root,
                          void (*callback)(MlirOperation, void *),
                          void *userData) {
  unwrap(root)->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getNumRegions() != 0)
      callback(wrap(op), userData);
  });
}

intptr_t spmdFindNonBranchTerminator(const MlirOperation *ops,
                                     intptr_t numOps) {
  for (intptr_t i = 0; i < numOps; ++i) {
    Operation *op = unwrap(ops[i]);
    if (op->getNumSuccessors() != 0 && !isa<BranchOpInterface>(op))
      return i;
  }
  return -1;
}

bool spmdIsBranch(MlirOperation op) {
  return isa<BranchOpInterface>(unwrap(op));
}

MlirOperation spmdAppendTwoWayBranch(MlirBlock block, MlirValue condition,
                                     MlirBlock trueDest, MlirBlock falseDest,
                                     SpmdBranchKind kind,
                                     MlirLocation location) {
  Block *b = unwrap(block);
  Location loc = unwrap(location);
  OpBuilder builder = OpBuilder::atBlockEnd(b);
  Value cond = unwrap(condition);
  switch (kind) {
  case SpmdBranchKindCondBr:
    return wrap(cf::CondBranchOp::create(builder, loc, cond, unwrap(trueDest),
                                         ValueRange(), unwrap(falseDest),
                                         ValueRange())
                    .getOperation());
  case SpmdBranchKindFlow:
  case SpmdBranchKindLoopFlow:
    return wrap(spmd::FlowBranchOp::create(
                    builder, loc, cond, kind == SpmdBranchKindLoopFlow,
                    ValueRange(), ValueRange(), unwrap(trueDest),
                    unwrap(falseDest))
                    .getOperation());
  }
  return MlirOperation{nullptr};
}

MlirValue spmdPrependIntegerConstant(MlirBlock block, unsigned width,
                                     int64_t value, MlirLocation location) {
  Block *b = unwrap(block);
  OpBuilder builder = OpBuilder::atBlockBegin(b);
  return wrap(arith::ConstantIntOp::create(builder, unwrap(location),
                                           builder.getIntegerType(width), value)
                  .getResult());
}

MlirValue spmdInsertSelectorCompare(MlirOperation before, MlirValue selector,
                                    MlirValue index, bool equal,
                                    MlirLocation location) {
  OpBuilder builder(unwrap(before));
  auto predicate = equal ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ne;
  return wrap(arith::CmpIOp::create(builder, unwrap(location), predicate,
                                    unwrap(selector), unwrap(index))
                  .getResult());
}

/// The rule of what a Flow block may hold besides its branch, the only
/// copy of it (the Rust side asks through spmdReadFlowShapes and
/// spmdBlockHoldsNonFlowOps): reconvergence tails and, in a selector
/// chain, the comparison that derives the block's predicate
/// (`arith.constant`, `arith.cmpi`).
static bool holdsNonFlowOps(Block *block) {
  return llvm::any_of(block->without_terminator(), [](Operation &op) {
    return !isa<spmd::ReconvergenceTailOp, arith::ConstantOp, arith::CmpIOp>(op);
  });
}

void spmdReadFlowShapes(const MlirBlock *blocks, intptr_t numBlocks,
                        uint8_t *shapes) {
  for (intptr_t i = 0; i < numBlocks; ++i) {
    Block *block = unwrap(blocks[i]);
    auto branch = block->empty() ? spmd::FlowBranchOp()
                                 : dyn_cast<spmd::FlowBranchOp>(block->back());
    if (!branch) {
      shapes[i] = 0;
      continue;
    }
    bool otherOps = holdsNonFlowOps(block);
    shapes[i] = SpmdFlowShapeFlowBranch |
                (branch.getLoop() ? SpmdFlowShapeLoop : 0) |
                (otherOps ? SpmdFlowShapeHasOtherOps : 0);
  }
}

bool spmdBlockHoldsNonFlowOps(MlirBlock block) {
  return holdsNonFlowOps(unwrap(block));
}

MlirOperation spmdInsertReconvergenceMarker(MlirBlock block,
                                            MlirOperation before, bool head,
                                            uint64_t id,
                                            MlirLocation location) {
  Block *b = unwrap(block);
  OpBuilder builder(unwrap(location)->getContext());
  if (mlirOperationIsNull(before))
    builder.setInsertionPointToStart(b);
  else
    builder.setInsertionPoint(unwrap(before));
  Location loc = unwrap(location);
  Operation *marker =
      head ? spmd::ReconvergenceHeadOp::create(builder, loc, id).getOperation()
           : spmd::ReconvergenceTailOp::create(builder, loc, id).getOperation();
  return wrap(marker);
}

intptr_t spmdCrossBlockOperands(MlirBlock block, MlirValue *out,
                                intptr_t capacity) {
  Block *b = unwrap(block);
  Region *region = b->getParent();
  intptr_t count = 0;
  auto visit = [&](Operation *op) {
    for (Value operand : op->getOperands()) {
      Block *definedIn = operand.getParentBlock();
      if (!definedIn || definedIn == b || definedIn->getParent() != region ||
          definedIn->isEntryBlock())
        continue;
      if (count < capacity)
        out[count] = wrap(operand);
      ++count;
    }
  };
  for (Operation &op : *b) {
    if (op.getNumRegions() == 0)
      visit(&op);
    else
      op.walk(visit);
  }
  return count;
}

int64_t spmdScanReconvergenceMarkers(MlirRegion region, bool *hasHead,
                                     intptr_t numBlocks) {
  Region *r = unwrap(region);
  int64_t nextId = 0;
  intptr_t index = 0;
  for (Block &block : *r) {
    if (index == numBlocks)
      return -1;
    hasHead[index] = false;
    for (Operation &op : block) {
      uint64_t id;
      if (auto head = dyn_cast<spmd::ReconvergenceHeadOp>(op)) {
        hasHead[index] = true;
        id = head.getId();
      } else if (auto tail = dyn_cast<spmd::ReconvergenceTailOp>(op)) {
        id = tail.getId();
      } else {
        continue;
      }
      nextId = std::max<int64_t>(nextId, static_cast<int64_t>(id) + 1);
    }
    ++index;
  }
  return index == numBlocks ? nextId : -1;
}

MlirOperation spmdBlockGetLastOperation(MlirBlock block) {
  Block *b = unwrap(block);
  return wrap(b->empty() ? nullptr : &b->back());
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

/// Appends `values` to successor `index` of a two-way branch whose operands
/// are [condition, true operands, false operands], sized by its
/// operandSegmentSizes property: one insertion, no attribute to rebuild.
template <typename BranchOp>
static void appendToTwoWayBranch(BranchOp branch, intptr_t index,
                                 ArrayRef<Value> values) {
  auto &sizes = branch.getProperties().operandSegmentSizes;
  unsigned position = sizes[0] + sizes[1] + (index == 1 ? sizes[2] : 0);
  branch->insertOperands(position, values);
  sizes[index + 1] += values.size();
}

bool spmdAppendSuccessorOperands(MlirOperation op, intptr_t index,
                                 intptr_t count, const MlirValue *values) {
  SmallVector<Value> newValues;
  for (intptr_t i = 0; i < count; ++i)
    newValues.push_back(unwrap(values[i]));
  Operation *o = unwrap(op);
  if (index == 0 || index == 1) {
    if (auto branch = dyn_cast<cf::CondBranchOp>(o)) {
      appendToTwoWayBranch(branch, index, newValues);
      return true;
    }
    if (auto branch = dyn_cast<spmd::FlowBranchOp>(o)) {
      appendToTwoWayBranch(branch, index, newValues);
      return true;
    }
  }
  std::optional<SuccessorOperands> operands = forwardedOperandsOf(op, index);
  if (!operands)
    return false;
  operands->getMutableForwardedOperands().append(newValues);
  return true;
}

bool spmdEraseUnreachableBlocks(MlirRegion region) {
  Region *r = unwrap(region);
  IRRewriter rewriter(r->getContext());
  return succeeded(eraseUnreachableBlocks(rewriter, MutableArrayRef<Region>(*r)));
}

namespace {
/// Watches the greedy driver of spmdFoldOperations: records whether it
/// touched a protected operation (moved, replaced or erased it; operand
/// updates in place are fine) or any block, or created an operation that
/// could change the CFG.
struct FoldWatcher : public RewriterBase::Listener {
  const llvm::DenseSet<Operation *> &protectedOps;
  bool violated = false;

  explicit FoldWatcher(const llvm::DenseSet<Operation *> &protectedOps)
      : protectedOps(protectedOps) {}

  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (protectedOps.contains(op) || op->getNumSuccessors() != 0 ||
        op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>())
      violated = true;
  }
  void notifyOperationReplaced(Operation *op, ValueRange) override {
    violated |= protectedOps.contains(op);
  }
  void notifyOperationErased(Operation *op) override {
    violated |= protectedOps.contains(op);
  }
  void notifyBlockInserted(Block *, Region *, Region::iterator) override {
    violated = true;
  }
  void notifyBlockErased(Block *) override { violated = true; }
};
} // namespace

MlirLogicalResult spmdFoldOperations(const MlirOperation *ops, intptr_t numOps,
                                     const MlirOperation *protectedOps,
                                     intptr_t numProtected, MlirRegion scope,
                                     bool *changed) {
  *changed = false;
  Region *region = unwrap(scope);
  // Only region-free, successor-free, registered non-terminators enter the
  // worklist; the patterns are those of their operation names only.
  SmallVector<Operation *> worklist;
  llvm::SetVector<OperationName> names;
  for (intptr_t i = 0; i < numOps; ++i) {
    Operation *op = unwrap(ops[i]);
    if (!op->isRegistered() || op->getNumSuccessors() != 0 ||
        op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>())
      continue;
    worklist.push_back(op);
    names.insert(op->getName());
  }
  if (worklist.empty())
    return mlirLogicalResultSuccess();
  MLIRContext *context = region->getContext();
  RewritePatternSet patterns(context);
  for (OperationName name : names)
    if (std::optional<RegisteredOperationName> info = name.getRegisteredInfo())
      info->getCanonicalizationPatterns(patterns, context);
  FrozenRewritePatternSet frozen(std::move(patterns));

  llvm::DenseSet<Operation *> guarded;
  for (intptr_t i = 0; i < numProtected; ++i)
    guarded.insert(unwrap(protectedOps[i]));
  FoldWatcher watcher(guarded);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled)
      .setScope(region)
      .setListener(&watcher)
      .enableFolding(true)
      .enableConstantCSE(true);
  (void)applyOpPatternsGreedily(worklist, frozen, config, changed);
  return watcher.violated ? mlirLogicalResultFailure()
                          : mlirLogicalResultSuccess();
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

bool spmdIsPureLeaf(MlirOperation op) {
  Operation *operation = unwrap(op);
  return operation->getNumRegions() == 0 && isPure(operation);
}

bool spmdWouldBeTriviallyDead(MlirOperation op) {
  return wouldOpBeTriviallyDead(unwrap(op));
}

namespace {
/// The arrays behind an SpmdRegionCfg.
struct RegionCfgStorage {
  std::vector<MlirBlock> blocks;
  std::vector<MlirOperation> lastOps;
  std::vector<int32_t> numSuccessors;
  std::vector<int32_t> targets;
};
} // namespace

SpmdRegionCfg spmdRegionCfgRead(MlirRegion region) {
  auto *storage = new RegionCfgStorage();
  // The read is bound by memory latency, so it goes in separate passes:
  // walking the block list is one chain of dependent loads, but once the
  // blocks are in an array, the loads of different blocks' terminators
  // and successors are independent and overlap.
  for (Block &block : *unwrap(region))
    storage->blocks.push_back(wrap(&block));
  size_t numBlocks = storage->blocks.size();
  llvm::DenseMap<Block *, int32_t> index;
  index.reserve(numBlocks);
  storage->lastOps.resize(numBlocks);
  storage->numSuccessors.resize(numBlocks);
  for (size_t i = 0; i < numBlocks; ++i) {
    Block *block = unwrap(storage->blocks[i]);
    Operation *last = block->empty() ? nullptr : &block->back();
    storage->lastOps[i] = wrap(last);
    storage->numSuccessors[i] =
        last ? static_cast<int32_t>(last->getNumSuccessors()) : 0;
    index[block] = static_cast<int32_t>(i);
  }
  for (size_t i = 0; i < numBlocks; ++i) {
    Operation *last = unwrap(storage->lastOps[i]);
    for (int32_t slot = 0; slot < storage->numSuccessors[i]; ++slot) {
      auto found = index.find(last->getSuccessor(slot));
      storage->targets.push_back(found == index.end() ? -1 : found->second);
    }
  }
  return SpmdRegionCfg{storage->blocks.data(),
                       storage->lastOps.data(),
                       storage->numSuccessors.data(),
                       storage->targets.data(),
                       static_cast<intptr_t>(storage->blocks.size()),
                       static_cast<intptr_t>(storage->targets.size()),
                       storage};
}

void spmdRegionCfgDestroy(SpmdRegionCfg cfg) {
  delete static_cast<RegionCfgStorage *>(cfg.storage);
}
