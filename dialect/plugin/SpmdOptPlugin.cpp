//===- SpmdOptPlugin.cpp - spmd dialect and passes for stock mlir-opt -----===//
//
// The installed plugin (lib/libSpmdPlugin.so of a prefix, see
// docs/embedding.md) is both a dialect plugin and a pass plugin:
//   mlir-opt --load-dialect-plugin=libSpmdPlugin.so \
//            --load-pass-plugin=libSpmdPlugin.so \
//            --pass-pipeline='builtin.module(spmd-reconverge)' in.mlir
// It holds the Rust passes (libspmd.a) and the few MLIR C API wrappers they
// call, and takes every other MLIR symbol from the libMLIR.so that mlir-opt
// itself links: one copy of MLIR in the process. Both entry points go
// through the C interface, so this file needs no generated headers.
//
//===----------------------------------------------------------------------===//

#include "spmd-c/Dialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

/// `--load-dialect-plugin`: the spmd dialect (parse, print, verify).
extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "spmd", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlirDialectHandleInsertDialect(mlirGetDialectHandle__spmd__(),
                                           wrap(registry));
          }};
}

/// `--load-pass-plugin`: every spmd pass and the spmd-gpu-to-nvvm pipeline.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "spmd", LLVM_VERSION_STRING,
          [] { spmdRegisterAllPasses(); }};
}
