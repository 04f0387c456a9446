/*===- capi-test.c - calls every function of the spmd C API ------*- C -*-===*\
|*                                                                          *|
|* A C program that uses spmd only through its C interface and MLIR's C    *|
|* API, linked against an installed prefix (tests/capi/CMakeLists.txt).    *|
|* Every function of Dialect.h and Internal.h is called and checked.       *|
|* Usage: spmd-capi-test <scratch directory>. Prints "capi-test: ok".     *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#include "spmd-c/Internal.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "capi-test.c:%d: check failed: %s\n", __LINE__,          \
              #condition);                                                     \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static MlirStringRef str(const char *text) {
  return mlirStringRefCreateFromCString(text);
}

/* Appends printed text to a fixed buffer (truncating). */
typedef struct Buffer {
  char text[16384];
  size_t length;
} Buffer;

static void append(MlirStringRef piece, void *userData) {
  Buffer *buffer = (Buffer *)userData;
  size_t room = sizeof(buffer->text) - 1 - buffer->length;
  size_t n = piece.length < room ? piece.length : room;
  memcpy(buffer->text + buffer->length, piece.data, n);
  buffer->length += n;
  buffer->text[buffer->length] = 0;
}

static void printOp(MlirOperation op, Buffer *buffer) {
  buffer->length = 0;
  buffer->text[0] = 0;
  mlirOperationPrint(op, append, buffer);
}

static int nameIs(MlirOperation op, const char *name) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                            str(name));
}

/* Diagnostics go to a buffer, so that the test can check them. */
static MlirLogicalResult collect(MlirDiagnostic diagnostic, void *userData) {
  mlirDiagnosticPrint(diagnostic, append, userData);
  append(str("\n"), userData);
  return mlirLogicalResultSuccess();
}

static void countOwner(MlirOperation op, void *userData) {
  (void)op;
  ++*(int *)userData;
}

static MlirBlock blockAt(MlirRegion region, int index) {
  MlirBlock block = mlirRegionGetFirstBlock(region);
  while (index-- > 0)
    block = mlirBlockGetNextInRegion(block);
  return block;
}

static MlirOperation opAt(MlirBlock block, int index) {
  MlirOperation op = mlirBlockGetFirstOperation(block);
  while (index-- > 0)
    op = mlirOperationGetNextInBlock(op);
  return op;
}

/* ^bb0 cond_br to ^a / ^b(%x); ^a three constants-ish ops then ^c; ^c uses
 * %sum (a cross-block operand) and stores it; ^b returns; ^dead is
 * unreachable. */
static const char *kHelpers =
    "func.func @f(%c: i1, %x: i32, %m: memref<4xi32>) -> i32 {\n"
    "  cf.cond_br %c, ^a, ^b(%x : i32)\n"
    "^a:\n"
    "  %one = arith.constant 1 : i32\n"
    "  %two = arith.constant 2 : i32\n"
    "  %sum = arith.addi %one, %two : i32\n"
    "  cf.br ^c\n"
    "^c:\n"
    "  %i = arith.constant 0 : index\n"
    "  memref.store %sum, %m[%i] : memref<4xi32>\n"
    "  cf.br ^b(%sum : i32)\n"
    "^b(%v: i32):\n"
    "  return %v : i32\n"
    "^dead:\n"
    "  cf.br ^b(%x : i32)\n"
    "}\n"
    "func.func @odd(%c: i1) {\n"
    "  \"test.jump\"()[^x, ^y] : () -> ()\n"
    "^x:\n"
    "  return\n"
    "^y:\n"
    "  return\n"
    "}\n";

/* Threads with %c leave early: not reconverging, so spmd-reconverge adds a
 * Flow block. */
static const char *kKernel =
    "func.func @kernel(%c: i1 {spmd.divergent}, %m: memref<4xi32>) {\n"
    "  %i = arith.constant 0 : index\n"
    "  %one = arith.constant 1 : i32\n"
    "  cf.cond_br %c, ^early, ^rest\n"
    "^early:\n"
    "  memref.store %one, %m[%i] : memref<4xi32>\n"
    "  return\n"
    "^rest:\n"
    "  return\n"
    "}\n";

static void testIrHelpers(MlirContext context) {
  MlirModule module = mlirModuleCreateParse(context, str(kHelpers));
  CHECK(!mlirModuleIsNull(module));
  if (mlirModuleIsNull(module))
    return;
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirLocation loc = mlirLocationUnknownGet(context);
  MlirType i32 = mlirIntegerTypeGet(context, 32);

  MlirOperation f = opAt(mlirModuleGetBody(module), 0);
  MlirOperation odd = opAt(mlirModuleGetBody(module), 1);
  CHECK(spmdIsFunctionLike(f));
  CHECK(!spmdIsFunctionLike(moduleOp));

  int owners = 0;
  spmdWalkRegionOwners(moduleOp, countOwner, &owners);
  CHECK(owners == 3); /* the module and both functions */

  CHECK(spmdIsGraphRegion(moduleOp, 0));
  CHECK(!spmdIsGraphRegion(f, 0));
  CHECK(!spmdIsGraphRegion(f, 7));

  MlirRegion body = mlirOperationGetRegion(f, 0);
  MlirBlock entry = blockAt(body, 0), a = blockAt(body, 1), c = blockAt(body, 2),
            b = blockAt(body, 3);
  MlirOperation condBr = mlirBlockGetTerminator(entry);
  CHECK(mlirOperationEqual(spmdBlockGetLastOperation(entry), condBr));
  CHECK(spmdIsBranch(condBr));
  CHECK(!spmdIsBranch(mlirBlockGetTerminator(b)));

  /* The uniformity mark, built and read without text. */
  MlirAttribute uniform = spmdUniformityAttrGet(context, SpmdUniformityUniform);
  MlirAttribute divergent =
      spmdUniformityAttrGet(context, SpmdUniformityDivergent);
  CHECK(!mlirAttributeIsNull(uniform) && !mlirAttributeIsNull(divergent));
  CHECK(mlirAttributeIsNull(spmdUniformityAttrGet(context, SpmdUniformityNone)));
  CHECK(spmdUniformityAttrGetValue(uniform) == SpmdUniformityUniform);
  CHECK(spmdUniformityAttrGetValue(divergent) == SpmdUniformityDivergent);
  CHECK(spmdUniformityAttrGetValue(mlirUnitAttrGet(context)) ==
        SpmdUniformityNone);
  CHECK(spmdUniformityAttrGetValue((MlirAttribute){NULL}) ==
        SpmdUniformityNone);

  /* Integer elements, splats expanded. */
  int64_t cases[4] = {0, 0, 0, 0};
  MlirAttribute list = mlirAttributeParseGet(
      context, mlirStringRefCreateFromCString("dense<[3, -2]> : vector<2xi32>"));
  CHECK(spmdReadIntegerElements(list, cases, 4) == 2);
  CHECK(cases[0] == 3 && cases[1] == -2);
  MlirAttribute splat = mlirAttributeParseGet(
      context, mlirStringRefCreateFromCString("dense<7> : vector<3xi8>"));
  CHECK(spmdReadIntegerElements(splat, cases, 1) == 3);
  CHECK(cases[0] == 7 && cases[1] == -2); /* only `capacity` written */
  CHECK(spmdReadIntegerElements(uniform, cases, 4) == -1);
  CHECK(spmdReadIntegerElements((MlirAttribute){NULL}, cases, 4) == -1);

  /* Terminators with successors that are not BranchOpInterface. */
  MlirOperation terminators[3] = {condBr, mlirBlockGetTerminator(b),
                                  spmdBlockGetLastOperation(
                                      mlirRegionGetFirstBlock(
                                          mlirOperationGetRegion(odd, 0)))};
  CHECK(nameIs(terminators[2], "test.jump"));
  CHECK(spmdFindNonBranchTerminator(terminators, 2) == -1);
  CHECK(spmdFindNonBranchTerminator(terminators, 3) == 2);

  /* Cross-block operands of ^c: %sum, defined in ^a (not %i, not %m). */
  MlirValue operands[4];
  CHECK(spmdCrossBlockOperands(c, NULL, 0) == 2); /* store and br use %sum */
  intptr_t numCross = spmdCrossBlockOperands(c, operands, 4);
  MlirValue sum = mlirOperationGetResult(opAt(a, 2), 0);
  CHECK(numCross == 2 && mlirValueEqual(operands[0], sum));

  /* Successor operands of the cond_br: ^a gets none, ^b gets %x. */
  intptr_t begin = -1, count = -1;
  CHECK(spmdGetSuccessorOperandRange(condBr, 1, &begin, &count));
  CHECK(begin == 1 && count == 1);
  CHECK(!spmdGetSuccessorOperandRange(condBr, 2, &begin, &count));
  MlirValue x = mlirBlockGetArgument(entry, 1);
  MlirValue xx[2] = {x, x};
  CHECK(spmdSetSuccessorOperands(condBr, 1, 1, xx));
  mlirBlockAddArgument(a, i32, loc);
  CHECK(spmdAppendSuccessorOperands(condBr, 0, 1, xx));
  CHECK(spmdGetSuccessorOperandRange(condBr, 0, &begin, &count));
  CHECK(count == 1);
  CHECK(!spmdAppendSuccessorOperands(mlirBlockGetTerminator(b), 0, 1, xx));

  /* Folding: %one + %two becomes a constant 3; the branch is protected. */
  MlirOperation foldable[3] = {opAt(a, 0), opAt(a, 1), opAt(a, 2)};
  bool changed = false;
  MlirLogicalResult folded =
      spmdFoldOperations(foldable, 3, &condBr, 1, body, &changed);
  CHECK(mlirLogicalResultIsSuccess(folded) && changed);

  /* Lane guards: a store needs one, an integer constant does not. */
  CHECK(spmdNeedsLaneGuard(opAt(c, 1)));
  CHECK(!spmdNeedsLaneGuard(opAt(c, 0)));

  /* New constants, a selector comparison, markers. */
  MlirValue seven = spmdPrependIntegerConstant(c, 32, 7, loc);
  MlirValue eight = spmdPrependIntegerConstant(c, 32, 8, loc);
  CHECK(mlirIntegerTypeGetWidth(mlirValueGetType(seven)) == 32);
  MlirValue equal = spmdInsertSelectorCompare(mlirBlockGetTerminator(c), seven,
                                              eight, true, loc);
  CHECK(mlirTypeIsAInteger(mlirValueGetType(equal)) &&
        mlirIntegerTypeGetWidth(mlirValueGetType(equal)) == 1);
  MlirOperation head = spmdInsertReconvergenceMarker(entry, condBr, true, 5, loc);
  CHECK(nameIs(head, "spmd.reconvergence.head"));
  MlirOperation tail = spmdInsertReconvergenceMarker(
      b, (MlirOperation){NULL}, false, 5, loc);
  CHECK(nameIs(tail, "spmd.reconvergence.tail"));
  bool hasHead[5] = {false, false, false, false, false};
  CHECK(spmdScanReconvergenceMarkers(body, hasHead, 5) == 6);
  CHECK(hasHead[0] && !hasHead[1] && !hasHead[3]);
  CHECK(spmdScanReconvergenceMarkers(body, hasHead, 4) == -1);

  /* Two-way branches in fresh (unreachable) blocks; their Flow shapes. */
  MlirValue cond = mlirBlockGetArgument(entry, 0);
  MlirBlock flow = mlirBlockCreate(0, NULL, NULL);
  MlirBlock loopFlow = mlirBlockCreate(0, NULL, NULL);
  MlirBlock plain = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(body, flow);
  mlirRegionAppendOwnedBlock(body, loopFlow);
  mlirRegionAppendOwnedBlock(body, plain);
  MlirOperation flowBr =
      spmdAppendTwoWayBranch(flow, cond, c, c, SpmdBranchKindFlow, loc);
  CHECK(nameIs(flowBr, "spmd.flow_br"));
  spmdPrependIntegerConstant(loopFlow, 64, 1, loc);
  mlirBlockAppendOwnedOperation(
      loopFlow, mlirOperationClone(opAt(c, 3))); /* a store: "other ops" */
  MlirOperation loopBr = spmdAppendTwoWayBranch(loopFlow, cond, loopFlow, c,
                                                SpmdBranchKindLoopFlow, loc);
  CHECK(nameIs(loopBr, "spmd.flow_br"));
  MlirOperation plainBr =
      spmdAppendTwoWayBranch(plain, cond, c, c, SpmdBranchKindCondBr, loc);
  CHECK(nameIs(plainBr, "cf.cond_br"));
  MlirOperation none = spmdAppendTwoWayBranch(plain, cond, c, c,
                                              (SpmdBranchKind)42, loc);
  CHECK(mlirOperationIsNull(none));
  MlirBlock shaped[3] = {flow, loopFlow, plain};
  uint8_t shapes[3] = {99, 99, 99};
  spmdReadFlowShapes(shaped, 3, shapes);
  CHECK(shapes[0] == SpmdFlowShapeFlowBranch);
  CHECK(shapes[1] == (SpmdFlowShapeFlowBranch | SpmdFlowShapeLoop |
                      SpmdFlowShapeHasOtherOps));
  CHECK(shapes[2] == 0);

  /* The CFG in one call: entry -> ^a, ^b; 8 blocks with ^dead and the new. */
  SpmdRegionCfg cfg = spmdRegionCfgRead(body);
  CHECK(cfg.numBlocks == 8);
  CHECK(mlirBlockEqual(cfg.blocks[0], entry));
  CHECK(mlirOperationEqual(cfg.lastOps[0], condBr));
  CHECK(cfg.numSuccessors[0] == 2 && cfg.targets[0] == 1 &&
        cfg.targets[1] == 3);
  spmdRegionCfgDestroy(cfg);

  /* ^dead and the three new blocks are unreachable. */
  CHECK(spmdEraseUnreachableBlocks(body));
  CHECK(!spmdEraseUnreachableBlocks(body));
  cfg = spmdRegionCfgRead(body);
  CHECK(cfg.numBlocks == 4);
  spmdRegionCfgDestroy(cfg);

  mlirModuleDestroy(module);
}

/* A pipeline by name, through MLIR's C API pass manager. */
static MlirLogicalResult runPipeline(MlirContext context, MlirModule module,
                                     const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(context);
  Buffer errors = {.length = 0};
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm), str(pipeline), append, &errors);
  CHECK(mlirLogicalResultIsSuccess(parsed));
  if (mlirLogicalResultIsFailure(parsed))
    fprintf(stderr, "pipeline '%s': %s\n", pipeline, errors.text);
  MlirLogicalResult result =
      mlirLogicalResultIsSuccess(parsed)
          ? mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))
          : parsed;
  mlirPassManagerDestroy(pm);
  return result;
}

static void testPasses(MlirContext context) {
  MlirModule module = mlirModuleCreateParse(context, str(kKernel));
  CHECK(mlirLogicalResultIsSuccess(runPipeline(
      context, module, "builtin.module(spmd-reconverge,spmd-predicate)")));
  static Buffer printed;
  printOp(mlirModuleGetOperation(module), &printed);
  CHECK(strstr(printed.text, "spmd.exec") != NULL);
  mlirModuleDestroy(module);
}

/* spmdOptMain on a file, as spmd-opt would run. */
static void testOptMain(const char *scratch) {
  char input[4096], output[4096];
  snprintf(input, sizeof input, "%s/kernel.mlir", scratch);
  snprintf(output, sizeof output, "%s/kernel.out.mlir", scratch);
  FILE *file = fopen(input, "w");
  CHECK(file != NULL);
  if (!file)
    return;
  fputs(kKernel, file);
  fclose(file);
  char *argv[] = {"spmd-opt", input, "--spmd-reconverge", "-o", output, NULL};
  CHECK(spmdOptMain(5, argv) == 0);
  static char text[16384];
  file = fopen(output, "r");
  CHECK(file != NULL);
  if (!file)
    return;
  size_t n = fread(text, 1, sizeof text - 1, file);
  text[n] = 0;
  fclose(file);
  CHECK(strstr(text, "spmd.flow_br") != NULL);
}

/* A runner of our own, then none, then Rust's again: the shells call
 * whatever is installed. */
static int runnerCalls = 0;
static MlirLogicalResult countingRunner(MlirStringRef passName,
                                        MlirOperation op,
                                        const SpmdPassOption *options,
                                        intptr_t numOptions,
                                        MlirStringCallback report,
                                        void *reportUserData,
                                        SpmdPassOutcome *outcome) {
  (void)op;
  (void)report;
  (void)reportUserData;
  CHECK(outcome != NULL && outcome->changed);
  outcome->changed = false;
  ++runnerCalls;
  CHECK(mlirStringRefEqual(passName, str("spmd-reconverge")));
  /* The typed option values: the uniformity options, then ordering,
   * selector-chain-length and lane-branches, as the pipeline set them. */
  CHECK(numOptions == 6 && options != NULL);
  CHECK(mlirStringRefEqual(options[0].key, str("default-arguments")));
  CHECK(options[0].kind == SpmdPassOptionKindText);
  CHECK(mlirStringRefEqual(options[0].text, str("divergent")));
  CHECK(options[1].kind == SpmdPassOptionKindTextList);
  CHECK(options[1].numItems == 2);
  CHECK(mlirStringRefEqual(options[1].items[1], str("acme.warp")));
  CHECK(mlirStringRefEqual(options[3].key, str("ordering")));
  CHECK(mlirStringRefEqual(options[3].text, str("rpot")));
  CHECK(options[4].kind == SpmdPassOptionKindUnsigned && options[4].number == 4);
  CHECK(options[5].kind == SpmdPassOptionKindFlag && !options[5].flag);
  return mlirLogicalResultSuccess();
}

static void testRunner(MlirContext context) {
  static Buffer diagnostics;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(context, collect, &diagnostics, NULL);
  MlirModule module = mlirModuleCreateParse(context, str(kKernel));
  spmdSetPassRunner(countingRunner);
  CHECK(mlirLogicalResultIsSuccess(runPipeline(
      context, module,
      "builtin.module(spmd-reconverge{ordering=rpot "
      "divergent-ops=acme.lane,acme.warp})")));
  CHECK(runnerCalls == 1);
  spmdSetPassRunner(NULL);
  CHECK(mlirLogicalResultIsFailure(
      runPipeline(context, module, "builtin.module(spmd-reconverge)")));
  CHECK(strstr(diagnostics.text, "has no implementation") != NULL);
  mlirContextDetachDiagnosticHandler(context, handler);
  spmdRegisterAllPasses(); /* installs the Rust runner again */
  CHECK(mlirLogicalResultIsSuccess(
      runPipeline(context, module, "builtin.module(spmd-reconverge)")));
  mlirModuleDestroy(module);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <scratch directory>\n", argv[0]);
    return 2;
  }
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  spmdRegisterEverything(registry);
  spmdRegisterEverything(registry); /* idempotent */
  spmdRegisterEverything((MlirDialectRegistry){NULL}); /* passes only */
  spmdRegisterAllPasses();
  spmdRegisterPassShells();
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextSetAllowUnregisteredDialects(context, true);
  mlirContextLoadAllAvailableDialects(context);
  CHECK(!mlirDialectIsNull(mlirContextGetOrLoadDialect(context, str("spmd"))));
  CHECK(!mlirDialectIsNull(mlirDialectHandleLoadDialect(
      mlirGetDialectHandle__spmd__(), context)));

  testIrHelpers(context);
  testPasses(context);
  testRunner(context);
  mlirContextDestroy(context);
  testOptMain(argv[1]); /* last: it shuts LLVM down, as any main does */

  if (failures) {
    fprintf(stderr, "capi-test: %d failure(s)\n", failures);
    return 1;
  }
  printf("capi-test: ok\n");
  return 0;
}
