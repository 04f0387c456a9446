/*===- SpmdCompile.h - the C++ services of spmd-compile ------------------===*\
|*                                                                          *|
|* What the spmd-compile driver needs from LLVM and MLIR that MLIR's C API  *|
|* does not offer: reading LLVM IR (text or bitcode) into the LLVM dialect, *|
|* and the NVPTX backend. Every failure is reported as an MLIR error        *|
|* diagnostic on the context (so the driver's handler sees it with its      *|
|* location) and the call returns a null operation or a failed result.      *|
|* Private to the driver: not installed, not a stable interface.            *|
\*===----------------------------------------------------------------------===*/

#ifndef SPMD_COMPILE_H
#define SPMD_COMPILE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses `buffer` (LLVM IR as text or bitcode; `bufferName` names it in
 * diagnostics) and imports it as a builtin.module of the LLVM dialect, the
 * way `mlir-translate --import-llvm` does. The module's data layout is
 * dropped (it is the target's own, and the importer would only warn about
 * its vector entries), and so is clang's informational "SDK Version"
 * module flag, which the importer cannot represent. Returns a null
 * operation on failure; the caller owns the result. */
MlirOperation spmdCompileImportLLVMIR(MlirContext context, MlirStringRef buffer,
                                      MlirStringRef bufferName);

/* The device code of `module`: the body of its one gpu.module, or the
 * module itself when it has none, cloned into a new builtin.module (owned by
 * the caller). Null, with a diagnostic, if there are several gpu.modules or
 * no llvm.func at all. */
MlirOperation spmdCompileDeviceModule(MlirOperation module);

/* What spmdCompileBackend makes. */
typedef enum {
  SpmdCompileLLVMIR = 0,
  SpmdCompileAssembly = 1,
  SpmdCompileObject = 2
} SpmdCompileOutput;

/* Translates `deviceModule` (LLVM dialect only) to LLVM IR for `triple`
 * (nvptx64-nvidia-cuda or amdgcn-amd-amdhsa). For NVPTX it turns the LLVM
 * math intrinsics that the backend cannot select (llvm.exp.f32,
 * llvm.pow.f64, ...) into calls of libdevice's functions (__nv_expf,
 * __nv_pow, ...) and links the libdevice functions it calls from
 * `libdevice` (a path; empty: none, and a call to one is an error) as
 * internal functions. Then it emits LLVM IR text, or, through LLVM's
 * backend at -O2 for `cpu` with the subtarget `features` (e.g. "+ptx78",
 * "+wavefrontsize64"), assembly (PTX, AMDGPU assembly) or an object file
 * (AMDGPU's ELF code object). The output is passed to `callback` in
 * pieces. */
MlirLogicalResult spmdCompileBackend(MlirOperation deviceModule,
                                     MlirStringRef triple, MlirStringRef cpu,
                                     MlirStringRef features,
                                     MlirStringRef libdevice,
                                     SpmdCompileOutput output,
                                     MlirStringCallback callback,
                                     void *userData);

/* Makes StructurizeCFG, in every later backend run of this process, leave
 * alone the regions whose branches are all uniform (llc's
 * -structurizecfg-skip-uniform-regions). Wave-level code reaches the AMDGPU
 * backend with uniform branches (and lane guards) only; without this the
 * backend would structurize the reconverged CFG a second time. */
void spmdCompileKeepUniformRegions(void);

/* The PTX ISA version that the NVPTX backend writes for `cpu` when no
 * feature asks for another (e.g. 78 for sm_90), or 0 if the backend does
 * not know the processor. */
int spmdCompileDefaultPtxVersion(MlirStringRef cpu);

/* The assembly (PTX) of the one object of the one gpu.binary in `module`,
 * as gpu-module-to-binary{format=isa} leaves it, passed to `callback`;
 * failure with a diagnostic if there is no such object. */
MlirLogicalResult spmdCompileBinaryAssembly(MlirOperation module,
                                            MlirStringCallback callback,
                                            void *userData);

/* Wraps the body of the builtin.module `module` (LLVM-dialect kernels with
 * no gpu.module) into `gpu.module @name`, and marks the module a GPU
 * container, so that GPU target passes apply to it. A module that has a
 * gpu.module already is left alone. */
MlirLogicalResult spmdCompileWrapInGpuModule(MlirOperation module, MlirStringRef name);

/* Makes LLVM's fatal errors (an instruction the NVPTX backend cannot
 * select, ...) print `spmd-compile: error: <fileName>: <reason>` and exit
 * with status 1 instead of aborting. */
void spmdCompileInstallFatalErrorHandler(MlirStringRef fileName);

#ifdef __cplusplus
}
#endif

#endif /* SPMD_COMPILE_H */
