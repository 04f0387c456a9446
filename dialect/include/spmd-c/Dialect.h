/*===- spmd-c/Dialect.h - public C interface of spmd ---------------*- C -*-===*\
|*                                                                            *|
|* The public C interface of spmd, for C and C++ compilers that embed it:  *|
|* registration of the dialect and the passes, and spmd-opt's main. The    *|
|* hooks the Rust crate uses internally are in spmd-c/Internal.h.         *|
|*                                                                            *|
|* Embedding (see docs/embedding.md): link the `SPMD::spmd` CMake target     *|
|* (find_package(SPMD), lib/libspmd.a of an installed prefix) into a tool   *|
|* that links MLIR 22, then call                                             *|
|*   spmdRegisterEverything(registry);  // the dialect and every pass       *|
|* before creating the context. libspmd.a holds no MLIR code of its own:    *|
|* every MLIR symbol resolves against the host's single copy.               *|
|*                                                                            *|
|* Conventions, as in MLIR's C API: handles (MlirOperation, MlirBlock, ...) *|
|* are borrowed; a function never takes ownership of an argument unless it  *|
|* says so. IR that a function creates is owned by the block or region it   *|
|* is inserted into. Arrays passed in are read during the call only; arrays *|
|* passed out are owned by the caller unless the function says otherwise.   *|
|* None of these functions is thread-safe with respect to concurrent edits  *|
|* of the same IR (MLIR's own rules apply).                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SPMD_C_DIALECT_H
#define SPMD_C_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Registration
 *===----------------------------------------------------------------------===*/

/* The `spmd` dialect: mlirGetDialectHandle__spmd__() returns a handle to
 * static data (nothing to release). Insert it into a registry with
 * mlirDialectHandleInsertDialect, or load it with
 * mlirDialectHandleLoadDialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Spmd, spmd);

/* The one call an embedder needs: inserts the spmd dialect into `registry`
 * (skipped if `registry` is null) and registers every spmd pass and the
 * `spmd-gpu-to-nvvm` pipeline with MLIR's global pass registry, so that
 * textual pipelines such as "builtin.module(spmd-reconverge)" resolve.
 * Idempotent and safe to call from several threads. The registry stays
 * owned by the caller. Defined in the Rust library (libspmd.a). */
MLIR_CAPI_EXPORTED void spmdRegisterEverything(MlirDialectRegistry registry);

/*===----------------------------------------------------------------------===*
 * Passes
 *===----------------------------------------------------------------------===*/

/* Installs the Rust runner and registers every spmd pass and the
 * `spmd-gpu-to-nvvm` pipeline (defined in the Rust library). Idempotent:
 * the passes are registered once, the runner is installed again on every
 * call (undoing a spmdSetPassRunner). spmdRegisterEverything calls it. */
MLIR_CAPI_EXPORTED void spmdRegisterAllPasses(void);

/*===----------------------------------------------------------------------===*
 * spmd-opt
 *===----------------------------------------------------------------------===*/

/* The body of spmd-opt: MlirOptMain with every upstream dialect, extension
 * and pass plus the spmd dialect and passes. `argv` holds `argc` C strings
 * followed by a null pointer, as `main` receives them; they are read, not
 * kept. The spmd passes run only if the caller installed the runner
 * (spmdRegisterAllPasses). This is a program's `main`: like MlirOptMain it
 * shuts LLVM's global state (the pass registry among it) down on return,
 * so no MLIR call may follow it. Returns the process exit code. */
MLIR_CAPI_EXPORTED int spmdOptMain(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* SPMD_C_DIALECT_H */
