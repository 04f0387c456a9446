//===- spmd-embed-cxx.cpp - a C++ compiler that embeds spmd ---------------===//
//
// Parses a thread-level kernel, runs spmd passes from a textual pipeline
// and prints the result:
//
//   spmd-embed-cxx <input.mlir> [<pipeline>]
//
// The pipeline defaults to "builtin.module(spmd-reconverge,spmd-predicate)".
// The only spmd-specific line is spmdRegisterEverything(); everything else
// is plain MLIR C++ API. Exit codes: 0 success, 1 bad input or a failed
// pass (diagnostics on stderr), 2 usage.
//
//===----------------------------------------------------------------------===//

#include "spmd-c/Dialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: " << argv[0] << " <input.mlir> [<pipeline>]\n";
    return 2;
  }
  llvm::StringRef pipeline =
      argc == 3 ? argv[2] : "builtin.module(spmd-reconverge,spmd-predicate)";

  // The host's own dialects, then spmd: the dialect into the registry and
  // the spmd-* passes into MLIR's pass registry.
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::memref::MemRefDialect>();
  spmdRegisterEverything(wrap(&registry));
  mlir::MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return 1; // the parser reported why

  // The pipeline names its anchor (builtin.module), as mlir-opt's
  // --pass-pipeline does.
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  mlir::FailureOr<mlir::OpPassManager> parsed =
      mlir::parsePassPipeline(pipeline, errorStream);
  if (mlir::failed(parsed)) {
    llvm::errs() << "error: invalid pipeline '" << pipeline << "': " << error
                 << "\n";
    return 1;
  }
  mlir::PassManager pm(&context, parsed->getOpAnchorName());
  static_cast<mlir::OpPassManager &>(pm) = *parsed;
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
