/*===- spmd-c/Internal.h - internal C hooks of spmd ---------------*- C -*-===*\
|*                                                                            *|
|* The C++ side of the Rust crate: the pass-runner hook and the IR queries  *|
|* and edits that MLIR's C API lacks, with the C enums they use. This is    *|
|* not a stable interface: embedders include spmd-c/Dialect.h only. The     *|
|* Rust bindings (src/ir/ffi.rs) mirror this file; the conventions of       *|
|* Dialect.h (borrowed handles, caller-owned arrays) apply.                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SPMD_C_INTERNAL_H
#define SPMD_C_INTERNAL_H

#include "spmd-c/Dialect.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Passes
 *===----------------------------------------------------------------------===*/

/* What one pass run did, reported back to the pass shell. The shell fills
 * in `addStatistic` and `userData` and sets `changed` to true; the runner
 * calls `addStatistic(name, description, value, userData)` once per
 * statistic of the pass (zeros included; `name` and `description` are the
 * ones declared in SpmdPasses.td, which the Rust side reads from tables
 * generated from it at build time; borrowed for the call) and sets `changed`
 * to false if it left the IR untouched, so the shell can preserve every
 * analysis. The shell adds the values to the pass's MLIR statistics
 * (`--mlir-pass-statistics`). */
typedef struct SpmdPassOutcome {
  void (*addStatistic)(MlirStringRef name, MlirStringRef description,
                       uint64_t value, void *userData);
  void *userData;
  bool changed;
} SpmdPassOutcome;

/* The C++ types of the pass options declared in SpmdPasses.td. */
typedef enum SpmdPassOptionKind {
  /* `bool`: the value is in `flag`. */
  SpmdPassOptionKindFlag = 0,
  /* `unsigned`: the value is in `number`. */
  SpmdPassOptionKindUnsigned = 1,
  /* `std::string`: the value is in `text`. */
  SpmdPassOptionKindText = 2,
  /* `ListOption<std::string>`: the `numItems` values are in `items`. */
  SpmdPassOptionKindTextList = 3,
} SpmdPassOptionKind;

/* The value of one pass option, read by the pass shell from the typed
 * option member MLIR generated from SpmdPasses.td (so it already holds the
 * ODS default or the parsed value). `key` is the option's command-line key
 * (e.g. "selector-chain-length"); only the field of `kind` is meaningful.
 * The strings and `items` are borrowed from the pass for the call. */
typedef struct SpmdPassOption {
  MlirStringRef key;
  SpmdPassOptionKind kind;
  bool flag;
  uint64_t number;
  MlirStringRef text;
  const MlirStringRef *items;
  intptr_t numItems;
} SpmdPassOption;

/* Runs the pass called `passName` (its command-line argument, such as
 * "spmd-reconverge") on `op`, with the `numOptions` values of its options
 * in `options` (every option the pass declares, in declaration order;
 * borrowed for the call; null when there are none). Text reports (analysis
 * printers) are written through `report`; what the pass did goes to
 * `outcome` (never null, see SpmdPassOutcome). Returns failure after
 * emitting a diagnostic on `op` or inside it. */
typedef MlirLogicalResult (*SpmdPassRunner)(MlirStringRef passName,
                                            MlirOperation op,
                                            const SpmdPassOption *options,
                                            intptr_t numOptions,
                                            MlirStringCallback report,
                                            void *reportUserData,
                                            SpmdPassOutcome *outcome);

/* Installs the implementation of every spmd pass (a plain function
 * pointer; null uninstalls it). The Rust library calls this from
 * spmdRegisterAllPasses(); a pass that runs before a runner is installed
 * fails with a diagnostic. Embedders do not need to call it. */
MLIR_CAPI_EXPORTED void spmdSetPassRunner(SpmdPassRunner runner);

/* Registers the spmd pass shells and the `spmd-gpu-to-nvvm` pipeline with
 * MLIR's global pass registry, so that they can be named in textual
 * pipelines. Does not install a runner. Idempotent. */
MLIR_CAPI_EXPORTED void spmdRegisterPassShells(void);

/*===----------------------------------------------------------------------===*
 * IR queries the Rust side needs beyond MLIR's C API
 *===----------------------------------------------------------------------===*/

/* True if `op` implements FunctionOpInterface (func.func, gpu.func, ...).
 * `op` must not be null. */
MLIR_CAPI_EXPORTED bool spmdIsFunctionLike(MlirOperation op);

/* Calls `callback(op, userData)` on `root` and on every operation nested in
 * it that has at least one region, in pre-order. The callback borrows `op`
 * and must not erase or move operations. One call walks the whole
 * tree in C++, where a walk through the per-op C API would cross the
 * boundary for every operation. */
MLIR_CAPI_EXPORTED void
spmdWalkRegionOwners(MlirOperation root,
                     void (*callback)(MlirOperation op, void *userData),
                     void *userData);

/* The index of the first of the `numOps` operations of `ops` (an array the
 * caller owns, read during the call) that has successors but does not
 * implement BranchOpInterface (its successor operands cannot be rewritten),
 * or -1 if there is none. */
MLIR_CAPI_EXPORTED intptr_t
spmdFindNonBranchTerminator(const MlirOperation *ops, intptr_t numOps);

/* True if `op` implements BranchOpInterface. */
MLIR_CAPI_EXPORTED bool spmdIsBranch(MlirOperation op);

/* The two-way branches spmdAppendTwoWayBranch can create. */
typedef enum SpmdBranchKind {
  /* `spmd.flow_br`: the branch of a Flow block (reconvergence). */
  SpmdBranchKindFlow = 0,
  /* `spmd.flow_br loop`: the branch of a loop Flow block. */
  SpmdBranchKindLoopFlow = 1,
  /* `cf.cond_br`. */
  SpmdBranchKindCondBr = 2,
} SpmdBranchKind;

/* Appends a two-way branch of `kind` on `condition` to `trueDest` /
 * `falseDest` (without successor operands) at the end of `block`, which
 * must not have a terminator yet. Returns the new op, owned by `block`;
 * returns a null operation for a `kind` outside SpmdBranchKind. */
MLIR_CAPI_EXPORTED MlirOperation spmdAppendTwoWayBranch(
    MlirBlock block, MlirValue condition, MlirBlock trueDest,
    MlirBlock falseDest, SpmdBranchKind kind, MlirLocation location);

/* Inserts `arith.constant value : iN` (N = `width`, at least 1) at the
 * start of `block` and returns its result. The op is owned by `block`. */
MLIR_CAPI_EXPORTED MlirValue spmdPrependIntegerConstant(MlirBlock block,
                                                       unsigned width,
                                                       int64_t value,
                                                       MlirLocation location);

/* Creates `spmd.reconvergence.head <id>` (if `head`) or
 * `spmd.reconvergence.tail <id>` and inserts it into `block` before `before`
 * (an op of `block`), or at the start of the block if `before` is null.
 * Returns the new op, owned by `block`. */
MLIR_CAPI_EXPORTED MlirOperation spmdInsertReconvergenceMarker(
    MlirBlock block, MlirOperation before, bool head, uint64_t id,
    MlirLocation location);

/* Writes to `out` (a caller-owned array of `capacity` handles, which may be
 * null if `capacity` is 0) the operands of the operations
 * of `block`, including operations nested in their regions, that are
 * defined in another block of the same region other than its entry block,
 * and returns how many there are (call again with a larger buffer if that
 * exceeds `capacity`). These are the only uses in `block` whose dominance a
 * CFG edit can break. */
MLIR_CAPI_EXPORTED intptr_t spmdCrossBlockOperands(MlirBlock block,
                                                   MlirValue *out,
                                                   intptr_t capacity);

/* The CFG of a region, read in one call: block `i` (in region order) is
 * `blocks[i]`, its last operation (null if the block is empty) is
 * `lastOps[i]`, and its `numSuccessors[i]` successors' block indices follow
 * the previous block's in `targets`, in slot order (-1 for a successor
 * outside the region). The struct owns its arrays (`storage` is private):
 * release it exactly once with spmdRegionCfgDestroy; the handles in it are
 * borrowed from the region and go stale when the region is edited. */
typedef struct SpmdRegionCfg {
  const MlirBlock *blocks;
  const MlirOperation *lastOps;
  const int32_t *numSuccessors;
  const int32_t *targets;
  intptr_t numBlocks;
  intptr_t numEdges;
  void *storage;
} SpmdRegionCfg;

/* Reads the CFG of `region` (which must not be null). The caller owns the
 * result and releases it with spmdRegionCfgDestroy. */
MLIR_CAPI_EXPORTED SpmdRegionCfg spmdRegionCfgRead(MlirRegion region);

/* Releases the arrays of `cfg`, which must come from spmdRegionCfgRead and
 * not have been released yet. The IR is untouched. */
MLIR_CAPI_EXPORTED void spmdRegionCfgDestroy(SpmdRegionCfg cfg);

/* Inserts `arith.cmpi eq` (or `ne` if `equal` is false) of `selector` and
 * `index` (two values of the same integer type) right before `before`, and
 * returns its result: the i1 predicate a Flow block computes from its
 * chain's selector. The op is owned by the block of `before`. */
MLIR_CAPI_EXPORTED MlirValue spmdInsertSelectorCompare(MlirOperation before,
                                                       MlirValue selector,
                                                       MlirValue index,
                                                       bool equal,
                                                       MlirLocation location);

/* Scans the top-level operations of the `numBlocks` blocks of `region` for
 * reconvergence markers: sets `hasHead[i]` if block `i` (in region order)
 * holds an `spmd.reconvergence.head`, and returns one more than the largest
 * marker id (0 if there is none). `hasHead` is a caller-owned array of
 * `numBlocks` flags. Returns -1 (and writes nothing) if the region does not
 * have `numBlocks` blocks. */
MLIR_CAPI_EXPORTED int64_t spmdScanReconvergenceMarkers(MlirRegion region,
                                                        bool *hasHead,
                                                        intptr_t numBlocks);

/* Bits of the shapes spmdReadFlowShapes writes. */
typedef enum SpmdFlowShape {
  /* The block ends in `spmd.flow_br` (no other bit is set without it). */
  SpmdFlowShapeFlowBranch = 1,
  /* The branch is a loop Flow (`spmd.flow_br loop`). */
  SpmdFlowShapeLoop = 2,
  /* The block holds operations other than the branch, reconvergence tails
   * and a selector comparison (`arith.constant`, `arith.cmpi`). This list
   * of what a Flow block may hold is kept in Spmd.cpp only (see also
   * spmdBlockHoldsNonFlowOps). */
  SpmdFlowShapeHasOtherOps = 4,
} SpmdFlowShape;

/* Flow-block facts of each of the `numBlocks` blocks, for the structured
 * contract check: `shapes[i]` is the bitwise OR of the SpmdFlowShape bits
 * that hold for `blocks[i]` (0 if it does not end in `spmd.flow_br`).
 * `blocks` is read and `shapes` (caller-owned, `numBlocks` bytes) written
 * during the call only. */
MLIR_CAPI_EXPORTED void spmdReadFlowShapes(const MlirBlock *blocks,
                                           intptr_t numBlocks,
                                           uint8_t *shapes);

/* True if `block`, whatever its terminator, holds an operation besides its
 * terminator that a Flow block may not hold (the rule behind
 * SpmdFlowShapeHasOtherOps): for transforms that ask whether a block's
 * operations could stay in a Flow block, e.g. when merging it into one. */
MLIR_CAPI_EXPORTED bool spmdBlockHoldsNonFlowOps(MlirBlock block);

/* The last operation of `block` in constant time (null if the block is
 * empty), whether or not it is a registered terminator. Borrowed from the
 * block. */
MLIR_CAPI_EXPORTED MlirOperation spmdBlockGetLastOperation(MlirBlock block);

/* For a BranchOpInterface op: the number of operands forwarded to successor
 * `index` as block arguments and the position of the first one among the
 * op's operands. Returns false (and leaves the outputs alone) when `op` is
 * not a branch or forwards produced operands. */
MLIR_CAPI_EXPORTED bool spmdGetSuccessorOperandRange(MlirOperation op,
                                                    intptr_t index,
                                                    intptr_t *begin,
                                                    intptr_t *count);

/* Replaces the operands that BranchOpInterface op `op` forwards to successor
 * `index` with the `count` values of `values` (caller-owned, read during
 * the call), updating operand segment sizes as needed. Returns false (and
 * changes nothing) if `op` is not a branch or the successor has produced
 * operands. */
MLIR_CAPI_EXPORTED bool spmdSetSuccessorOperands(MlirOperation op,
                                                intptr_t index,
                                                intptr_t count,
                                                const MlirValue *values);

/* Appends the `count` values of `values` (caller-owned, read during the
 * call) to the operands a BranchOpInterface op forwards to successor
 * `index`. Returns false (and changes nothing) if the op is not such a
 * branch or produces operands for that successor. */
MLIR_CAPI_EXPORTED bool spmdAppendSuccessorOperands(MlirOperation op,
                                                    intptr_t index,
                                                    intptr_t count,
                                                    const MlirValue *values);

/* Erases the blocks of `region` that are unreachable from its entry block,
 * together with every use of the values they define (which can only be
 * inside other unreachable blocks). Returns true if a block was erased.
 * Handles to the erased blocks and their operations become dangling. */
MLIR_CAPI_EXPORTED bool spmdEraseUnreachableBlocks(MlirRegion region);

/* Applies the folders and the canonicalization patterns of the operations
 * in `ops` (operations of `scope`, typically a function body) to those
 * operations and to the operations the rewrites create, with MLIR's greedy
 * driver: no region simplification (no block is merged or erased), no
 * operation outside `ops` enters the worklist. Operations with successors
 * or regions, terminators and unregistered operations in `ops` are skipped.
 * `*changed` tells whether the IR changed. Fails if the driver moved,
 * replaced or erased one of `protectedOps`, created or erased a block, or
 * created an operation with successors or regions (the IR is then changed
 * anyway; callers treat this as an internal error). Both arrays are
 * caller-owned and read during the call only; handles in `ops` to
 * operations the driver erased become dangling. */
MLIR_CAPI_EXPORTED MlirLogicalResult spmdFoldOperations(
    const MlirOperation *ops, intptr_t numOps,
    const MlirOperation *protectedOps, intptr_t numProtected,
    MlirRegion scope, bool *changed);

/* True if region `index` of `op` is a graph region (its op implements
 * RegionKindInterface and reports no SSA dominance for it). False for an
 * `index` out of range. */
MLIR_CAPI_EXPORTED bool spmdIsGraphRegion(MlirOperation op, intptr_t index);

/* True if executing `op` in a lane that should be inactive could be
 * observed, so wave-level lowerings must guard it with the lane's exec bit:
 * it (or an op nested in it) reads, writes or frees memory, its effects are
 * unknown (no MemoryEffectOpInterface, e.g. calls), or it is not
 * speculatable (e.g. an integer division by a value that may be zero).
 * Operations whose only effect is allocating (memref.alloca) are not. */
MLIR_CAPI_EXPORTED bool spmdNeedsLaneGuard(MlirOperation op);

/* True if `op` has no regions, no memory effects at all (not even
 * allocation) and is speculatable: it can move into a conditionally
 * executed region without changing what the program does. */
MLIR_CAPI_EXPORTED bool spmdIsPureLeaf(MlirOperation op);

/* True if `op` could be erased when its results are unused, as MLIR's
 * dead-code elimination decides (`wouldOpBeTriviallyDead`): no terminator,
 * and no memory effects but reads and allocations of its own results
 * (nested operations included). Says nothing about convergence. */
MLIR_CAPI_EXPORTED bool spmdWouldBeTriviallyDead(MlirOperation op);

/* The values of `#spmd.uniformity<...>` (the `spmd.uniformity` mark of a
 * branch), and SpmdUniformityNone for an attribute that is not one. */
typedef enum SpmdUniformity {
  SpmdUniformityNone = -1,
  SpmdUniformityUniform = 0,
  SpmdUniformityDivergent = 1,
} SpmdUniformity;

/* `#spmd.uniformity<value>` in `context` (uniqued by the context; nothing
 * to release). Null for SpmdUniformityNone or a value outside the enum. */
MLIR_CAPI_EXPORTED MlirAttribute spmdUniformityAttrGet(MlirContext context,
                                                       SpmdUniformity value);

/* The value of a `#spmd.uniformity<...>` attribute, or SpmdUniformityNone if
 * `attribute` is null or of another kind. */
MLIR_CAPI_EXPORTED SpmdUniformity
spmdUniformityAttrGetValue(MlirAttribute attribute);

/* The integers of a dense integer elements attribute (such as the
 * `case_values` of a switch), splats expanded, each sign-extended to 64
 * bits: writes at most `capacity` of them to `out` (caller-owned) and
 * returns how many there are. Returns -1 (and writes nothing) if
 * `attribute` is not a dense integer elements attribute or an element
 * does not fit in 64 bits. */
MLIR_CAPI_EXPORTED intptr_t spmdReadIntegerElements(MlirAttribute attribute,
                                                    int64_t *out,
                                                    intptr_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* SPMD_C_INTERNAL_H */
