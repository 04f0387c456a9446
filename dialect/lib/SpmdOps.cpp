//===- SpmdOps.cpp - spmd dialect operations ------------------------------===//
//
// Verifiers and BranchOpInterface hooks of the `spmd` operations. Verifiers
// only check what is visible from the operation's own region: whole-function
// properties (reconvergence, structuredness) have dedicated passes.
//
//===----------------------------------------------------------------------===//

#include "Spmd/SpmdDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::spmd;

//===----------------------------------------------------------------------===//
// Local CFG helpers
//===----------------------------------------------------------------------===//

/// How many blocks a verifier may visit when it checks that a block lies on
/// a cycle. Op verifiers run once per op, so an unbounded search would make
/// verification quadratic on large functions; beyond the budget the check
/// is left to the function-level passes (--spmd-verify-reconverging).
static constexpr unsigned kCycleSearchBudget = 512;

/// False only if `to` is certainly not reachable from `from` by following at
/// least one edge (the search is bounded by kCycleSearchBudget).
static bool mayReachByAtLeastOneEdge(Block *from, Block *to) {
  llvm::SmallPtrSet<Block *, 16> seen;
  SmallVector<Block *> stack(from->getSuccessors().begin(),
                             from->getSuccessors().end());
  while (!stack.empty()) {
    Block *block = stack.pop_back_val();
    if (block == to)
      return true;
    if (!seen.insert(block).second)
      continue;
    if (seen.size() > kCycleSearchBudget)
      return true;
    for (Block *succ : block->getSuccessors())
      stack.push_back(succ);
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Convergence control
//===----------------------------------------------------------------------===//

LogicalResult ConvergenceEntryOp::verify() {
  Block *block = getOperation()->getBlock();
  if (!block->isEntryBlock())
    return emitOpError("must be in the entry block of its region");
  if (!isa<FunctionOpInterface>(getOperation()->getParentOp()))
    return emitOpError("must be in the body of a function (an operation "
                       "implementing FunctionOpInterface), not in a nested "
                       "region of '")
           << getOperation()->getParentOp()->getName() << "'";
  unsigned count = 0;
  for (auto entry : block->getOps<ConvergenceEntryOp>()) {
    (void)entry;
    ++count;
  }
  if (count > 1)
    return emitOpError("may appear at most once per region, found ") << count;
  return success();
}

LogicalResult ConvergenceLoopOp::verify() {
  Block *block = getOperation()->getBlock();
  if (block->isEntryBlock())
    return emitOpError("must be in a cycle header, not in the entry block");
  if (!mayReachByAtLeastOneEdge(block, block))
    return emitOpError("must be in a cycle header, but its block is not on "
                       "any cycle");
  // A header is entered from outside its cycle. If every edge into the
  // block comes from one block, that block lies on every cycle through
  // this one, so this block heads none of them: the token belongs in the
  // real header, where merging the two blocks (branch folding,
  // canonicalization) would otherwise put two tokens.
  if (block->getUniquePredecessor())
    return emitOpError("must be in a cycle header, but every edge into its "
                       "block comes from one block of the same cycle, which "
                       "is where the cycle is entered; move the token there");
  for (Operation &op : *block) {
    if (&op == getOperation())
      break;
    if (isa<ConvergenceLoopOp>(op))
      return emitOpError("a cycle header holds at most one "
                         "spmd.convergence.loop");
    if (isa<ConvergenceEntryOp, ConvergenceAnchorOp>(op))
      return emitOpError("must be the first convergence token producer of "
                         "its block, but follows '")
             << op.getName() << "'";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Flow branch
//===----------------------------------------------------------------------===//

LogicalResult FlowBranchOp::verify() {
  if (!getLoop())
    return success();
  Block *block = getOperation()->getBlock();
  if (!mayReachByAtLeastOneEdge(getFalseDest(), block))
    return emitOpError("is a loop Flow block, so its false successor must be "
                       "the back edge (true = leave the loop, false = "
                       "continue), but ^false cannot reach this block");
  return success();
}

SuccessorOperands FlowBranchOp::getSuccessorOperands(unsigned index) {
  assert(index < 2 && "spmd.flow_br has two successors");
  return SuccessorOperands(index == 0 ? getTrueDestOperandsMutable()
                                      : getFalseDestOperandsMutable());
}

Block *FlowBranchOp::getSuccessorForOperands(ArrayRef<Attribute> operands) {
  if (auto cond = dyn_cast_or_null<IntegerAttr>(operands.front()))
    return cond.getValue().isOne() ? getTrueDest() : getFalseDest();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Reconvergence markers
//===----------------------------------------------------------------------===//

// Pairing heads with tails (one of each per id) is a property of the whole
// function; checking it here would scan the region once per marker, which is
// quadratic. `--spmd-verify-structured` checks it in one linear pass.
/// `<id> attr-dict` of a reconvergence marker. Only the discardable
/// attributes are printed through the dictionary: `id` is a property, and
/// asking for the full dictionary would build a uniqued one per op.
template <typename MarkerOp>
static void printRegionMarker(MarkerOp op, OpAsmPrinter &printer) {
  printer << ' ';
  printer.printAttributeWithoutType(op.getIdAttr());
  printer.printOptionalAttrDict(op->getDiscardableAttrDictionary().getValue(),
                                /*elidedAttrs=*/{op.getIdAttrName().getValue()});
}

template <typename MarkerOp>
static ParseResult parseRegionMarker(OpAsmParser &parser,
                                     OperationState &result) {
  IntegerAttr id;
  if (parser.parseAttribute(id, parser.getBuilder().getI64Type()))
    return failure();
  result.getOrAddProperties<typename MarkerOp::Properties>().id = id;
  return parser.parseOptionalAttrDict(result.attributes);
}

void ReconvergenceHeadOp::print(OpAsmPrinter &printer) {
  printRegionMarker(*this, printer);
}

ParseResult ReconvergenceHeadOp::parse(OpAsmParser &parser,
                                       OperationState &result) {
  return parseRegionMarker<ReconvergenceHeadOp>(parser, result);
}

void ReconvergenceTailOp::print(OpAsmPrinter &printer) {
  printRegionMarker(*this, printer);
}

ParseResult ReconvergenceTailOp::parse(OpAsmParser &parser,
                                       OperationState &result) {
  return parseRegionMarker<ReconvergenceTailOp>(parser, result);
}

LogicalResult ReconvergenceHeadOp::verify() {
  Block *block = getOperation()->getBlock();
  if (block->empty() || !block->back().hasTrait<OpTrait::IsTerminator>() ||
      block->back().getNumSuccessors() < 2)
    return emitOpError("must be in a block that ends with a branch with at "
                       "least two successors");
  return success();
}

/// Ops that may precede a reconvergence tail at the start of its block.
static bool isBlockStartMarker(Operation *op) {
  return isa<ReconvergenceTailOp, ConvergenceEntryOp, ConvergenceAnchorOp,
             ConvergenceLoopOp>(op);
}

LogicalResult ReconvergenceTailOp::verify() {
  for (Operation *op = getOperation()->getPrevNode(); op; op = op->getPrevNode())
    if (!isBlockStartMarker(op))
      return emitOpError("must start its block: only other reconvergence "
                         "tails and convergence tokens may precede it");
  return success();
}

//===----------------------------------------------------------------------===//
// Exec-mask branch
//===----------------------------------------------------------------------===//

SuccessorOperands ExecBranchZeroOp::getSuccessorOperands(unsigned index) {
  assert(index < 2 && "spmd.exec.br_zero has two successors");
  return SuccessorOperands(index == 0 ? getZeroDestOperandsMutable()
                                      : getNonzeroDestOperandsMutable());
}


#define GET_OP_CLASSES
#include "Spmd/SpmdOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Lane-mask select
//===----------------------------------------------------------------------===//

LogicalResult MaskSelectOp::verify() {
  Type type = getResult().getType();
  if (isa<MaskType, TokenType>(type))
    return emitOpError("selects per-lane values; got ")
           << type << " (combine masks with spmd.mask.and/andn/or)";
  return success();
}


//===----------------------------------------------------------------------===//
// Masks carried in integers
//===----------------------------------------------------------------------===//

/// Checks that an integer of `type` can hold a mask of the wave of the
/// enclosing function (its `spmd.wave_size`, when it has one).
static LogicalResult verifyMaskCarrier(Operation *op, IntegerType type) {
  unsigned width = type.getWidth();
  if (width > 64)
    return op->emitOpError("carries a lane mask in ")
           << type << ", wider than the widest wave (64 lanes)";
  auto function = op->getParentOfType<FunctionOpInterface>();
  if (!function)
    return success();
  auto waveSize = function->getAttrOfType<IntegerAttr>("spmd.wave_size");
  if (waveSize && waveSize.getInt() > static_cast<int64_t>(width))
    return op->emitOpError("carries a lane mask in ")
           << type << ", narrower than the function's wave of "
           << waveSize.getInt() << " lanes";
  return success();
}

LogicalResult MaskToBitsOp::verify() {
  return verifyMaskCarrier(*this, cast<IntegerType>(getBits().getType()));
}

LogicalResult MaskFromBitsOp::verify() {
  return verifyMaskCarrier(*this, cast<IntegerType>(getBits().getType()));
}
