//===- SpmdDialect.cpp - spmd dialect registration and attributes --------===//
//
// Registers the types, attributes and operations of the `spmd` dialect and
// verifies the discardable attributes it owns (`spmd.uniformity`,
// `spmd.uniform`, `spmd.divergent`).
//
//===----------------------------------------------------------------------===//

#include "Spmd/SpmdDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::spmd;

#include "Spmd/SpmdDialect.cpp.inc"
#include "Spmd/SpmdEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Spmd/SpmdTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Spmd/SpmdAttrs.cpp.inc"

namespace {
/// Short aliases for the uniformity marks: the transforms put one on every
/// branch they keep uniform (tens of thousands in a large function), so
/// the printer writes `{spmd.uniformity = #uniform}` and defines
/// `#uniform = #spmd.uniformity<uniform>` once at the top of the module
/// (likewise `#divergent`). Both spellings parse.
struct SpmdOpAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (auto mark = dyn_cast<UniformityAttr>(attr)) {
      os << stringifyUniformity(mark.getValue());
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void SpmdDialect::initialize() {
  addInterfaces<SpmdOpAsmInterface>();
  addTypes<
#define GET_TYPEDEF_LIST
#include "Spmd/SpmdTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Spmd/SpmdAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Spmd/SpmdOps.cpp.inc"
      >();
}

/// `spmd.uniformity` belongs on operations that choose between successors.
static LogicalResult verifyUniformityMark(Operation *op, NamedAttribute attr) {
  if (!isa<UniformityAttr>(attr.getValue()))
    return op->emitOpError() << "'" << attr.getName().getValue()
                             << "' must be a #spmd.uniformity attribute";
  if (op->getNumSuccessors() < 2)
    return op->emitOpError()
           << "'" << attr.getName().getValue()
           << "' marks a branch with at least two successors, but this "
              "operation has "
           << op->getNumSuccessors();
  return success();
}

/// `spmd.uniform` / `spmd.divergent` on an operation: the user's word on
/// the uniformity of its results, which the uniformity analysis takes over
/// its table of divergence sources (see docs/divergence-sources.md).
static LogicalResult verifyResultMark(Operation *op, StringRef name,
                                      NamedAttribute attr) {
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitOpError() << "'" << name << "' must be a unit attribute";
  if (op->getNumSuccessors() > 0)
    return op->emitOpError()
           << "'" << name
           << "' marks the results of an operation; mark branches with '"
           << SpmdDialect::kUniformityAttrName << "' instead";
  if (op->getNumResults() == 0)
    return op->emitOpError()
           << "'" << name
           << "' marks the results of an operation, but this operation has "
              "none";
  if (name == SpmdDialect::kUniformAttrName && op->hasAttr(SpmdDialect::kDivergentAttrName))
    return op->emitOpError() << "'" << SpmdDialect::kUniformAttrName << "' and '"
                             << SpmdDialect::kDivergentAttrName
                             << "' contradict each other";
  return success();
}

LogicalResult SpmdDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kUniformityAttrName)
    return verifyUniformityMark(op, attr);
  if (name == kUniformAttrName || name == kDivergentAttrName)
    return verifyResultMark(op, name, attr);
  if (name == "spmd.park" || name == "spmd.rejoin") {
    // Written by --spmd-predicate on its exec writes, read by the wave-level
    // executor to check reconvergence.
    auto id = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ExecWriteOp>(op) || !id || id.getInt() < 0)
      return op->emitOpError()
             << "'" << name
             << "' must be a non-negative integer on an spmd.exec.write";
    return success();
  }
  if (name == "spmd.exec_full") {
    // Written by --spmd-predicate on a rejoin after which every live lane is
    // active; checked by the wave-level executor, read by the NVVM lowering.
    if (!isa<ExecWriteOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a unit attribute on an spmd.exec.write";
    return success();
  }
  if (name == "spmd.wave_size") {
    // Written by --spmd-predicate on the functions it lowers: lanes per wave.
    auto size = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || !size || size.getInt() < 1 ||
        size.getInt() > 64 || !llvm::isPowerOf2_64(size.getInt()))
      return op->emitOpError()
             << "'" << name
             << "' must be a power of two from 1 to 64 on a function";
    return success();
  }
  if (name == "spmd.lane_shared_work") {
    // Read by --spmd-reconverge and --spmd-predicate with lane branches:
    // branches whose sides share work may stay per-lane branches too.
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a unit attribute on a function";
    return success();
  }
  return op->emitOpError() << "unknown spmd attribute '" << name << "'";
}

LogicalResult SpmdDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kDivergentAttrName && name != kUniformAttrName)
    return op->emitOpError() << "unknown spmd argument attribute '" << name
                             << "' on argument #" << argIndex;
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitOpError() << "'" << name << "' on argument #" << argIndex
                             << " must be a unit attribute";
  (void)regionIndex;
  // Both marks on one argument contradict each other.
  StringRef other = name == kDivergentAttrName ? kUniformAttrName
                                               : kDivergentAttrName;
  if (auto fn = dyn_cast<FunctionOpInterface>(op);
      fn && argIndex < fn.getNumArguments() && fn.getArgAttr(argIndex, other))
    return op->emitOpError() << "argument #" << argIndex
                             << " cannot be both '" << kDivergentAttrName
                             << "' and '" << kUniformAttrName << "'";
  return success();
}

LogicalResult SpmdDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  return op->emitOpError() << "spmd attribute '" << attr.getName().getValue()
                           << "' is not allowed on result #" << resultIndex
                           << "; spmd marks apply to arguments, branches "
                              "and calls";
}
