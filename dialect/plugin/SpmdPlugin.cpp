//===- SpmdPlugin.cpp - spmd dialect as an mlir-opt dialect plugin --------===//
//
// Loads the spmd dialect into a stock mlir-opt:
//   mlir-opt --load-dialect-plugin=libSpmdPlugin.so input.mlir
// The plugin links libMLIR.so like Debian's mlir-opt does. It carries the
// dialect only: the passes are implemented in Rust over a static MLIR and
// are available in spmd-opt and in the Rust/C libraries.
//
//===----------------------------------------------------------------------===//

#include "Spmd/SpmdDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "spmd", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::spmd::SpmdDialect>();
          }};
}
