//===- SpmdOptMain.cpp - the body of spmd-opt -----------------------------===//
//
// spmd-opt is mlir-opt plus the spmd dialect and passes. Its `main` is a Rust
// binary (src/bin/spmd-opt.rs) that installs the Rust pass runner and then
// calls this function, so the whole tool links one static copy of MLIR.
//
//===----------------------------------------------------------------------===//

#include "spmd-c/Internal.h"

#include "Spmd/SpmdDialect.h"
#include "Spmd/SpmdPassStatistics.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringRef.h"

/// True if the command line asks for `--mlir-pass-statistics` (the last
/// occurrence wins, as with cl::opt).
static bool wantsPassStatistics(int argc, char **argv) {
  bool wanted = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--")
      break;
    arg = arg.ltrim('-');
    if (arg == "mlir-pass-statistics" || arg == "mlir-pass-statistics=true" ||
        arg == "mlir-pass-statistics=1")
      wanted = true;
    else if (arg == "mlir-pass-statistics=false" ||
             arg == "mlir-pass-statistics=0")
      wanted = false;
  }
  return wanted;
}

int spmdOptMain(int argc, char **argv) {
  // Read before MlirOptMain, which shuts LLVM's option registry down.
  bool printStatistics = !LLVM_ENABLE_STATS && wantsPassStatistics(argc, argv);
  mlir::registerAllPasses();
  spmdRegisterPassShells();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::spmd::SpmdDialect>();

  int code = mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "spmd optimizer: divergence-aware control flow for MLIR\n",
      registry));
  // MLIR's report of this build is empty (see SpmdPassStatistics.h): the
  // spmd passes' statistics follow it.
  if (printStatistics)
    mlir::spmd::printPassStatistics(llvm::errs());
  return code;
}
