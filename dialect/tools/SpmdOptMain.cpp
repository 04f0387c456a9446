//===- SpmdOptMain.cpp - the body of spmd-opt -----------------------------===//
//
// spmd-opt is mlir-opt plus the spmd dialect and passes. Its `main` is a Rust
// binary (src/bin/spmd-opt.rs) that installs the Rust pass runner and then
// calls this function, so the whole tool links one static copy of MLIR.
//
//===----------------------------------------------------------------------===//

#include "spmd-c/Internal.h"

#include "Spmd/SpmdDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int spmdOptMain(int argc, char **argv) {
  mlir::registerAllPasses();
  spmdRegisterPassShells();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::spmd::SpmdDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "spmd optimizer: divergence-aware control flow for MLIR\n",
      registry));
}
