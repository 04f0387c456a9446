//===- SpmdCompile.cpp - LLVM IR import and the NVPTX backend -------------===//
//
// The C++ services of the spmd-compile driver (declared in SpmdCompile.h):
// everything here has a C++ API in LLVM and MLIR but none in MLIR's C API.
// Errors become MLIR diagnostics on the context, so the driver reports them
// with the rest, one message per failure with its location.
//
//===----------------------------------------------------------------------===//

#include "SpmdCompile.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/Import.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace mlir;

namespace {

llvm::StringRef toStringRef(MlirStringRef ref) {
  return llvm::StringRef(ref.data, ref.length);
}

void emitText(llvm::StringRef text, MlirStringCallback callback,
              void *userData) {
  callback(mlirStringRefCreate(text.data(), text.size()), userData);
}

/// Removes the module flag called `key`, if there is one.
void dropModuleFlag(llvm::Module &module, llvm::StringRef key) {
  llvm::NamedMDNode *flags = module.getModuleFlagsMetadata();
  if (!flags)
    return;
  llvm::SmallVector<llvm::MDNode *> kept;
  for (llvm::MDNode *flag : flags->operands()) {
    auto *name = flag->getNumOperands() >= 2
                     ? llvm::dyn_cast<llvm::MDString>(flag->getOperand(1))
                     : nullptr;
    if (!name || name->getString() != key)
      kept.push_back(flag);
  }
  flags->clearOperands();
  for (llvm::MDNode *flag : kept)
    flags->addOperand(flag);
}

const char *const kNvptxTriple = "nvptx64-nvidia-cuda";

/// A TargetMachine for `tripleName` (NVPTX or AMDGPU) as llc makes it, or
/// null with `error` set.
std::unique_ptr<llvm::TargetMachine>
createMachine(llvm::StringRef tripleName, llvm::StringRef cpu,
              llvm::StringRef features, std::string &error) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple(tripleName);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  // llc's defaults: -O2 and the assembly's explanatory comments.
  llvm::TargetOptions options;
  options.MCOptions.AsmVerbose = true;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Default));
  if (!machine) {
    error = ("cannot create a target machine for " + tripleName).str();
    return nullptr;
  }
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    error = ("the " + llvm::Twine(target->getName()) +
             " backend does not know the processor '" + cpu + "'")
                .str();
    return nullptr;
  }
  return machine;
}

std::unique_ptr<llvm::TargetMachine>
createNvptxMachine(llvm::StringRef cpu, llvm::StringRef features,
                   std::string &error) {
  return createMachine(kNvptxTriple, cpu, features, error);
}

/// Why the backend made no code.
enum class EmitFailure { None, Unsupported, Crashed };

/// Runs the backend on `module` and returns its assembly or object file.
/// A crash inside the backend (an LLVM bug: a segmentation fault, an
/// assertion) is caught and reported as `Crashed` instead of taking the
/// process down.
EmitFailure
emitCode(llvm::TargetMachine &machine, llvm::Module &module,
         llvm::SmallString<0> &code,
         llvm::CodeGenFileType type = llvm::CodeGenFileType::AssemblyFile) {
  llvm::raw_svector_ostream stream(code);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, type))
    return EmitFailure::Unsupported;
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  if (!recovery.RunSafely([&] { passes.run(module); }))
    return EmitFailure::Crashed;
  return EmitFailure::None;
}

/// The libdevice function that computes the LLVM math intrinsic `name`
/// (`llvm.exp.f32` -> `__nv_expf`), for the intrinsics the NVPTX backend
/// cannot select (it aborts on them); empty if there is none.
std::string libdeviceFunctionFor(llvm::StringRef name) {
  static const std::pair<const char *, const char *> kMath[] = {
      {"sin", "sin"},     {"cos", "cos"},     {"tan", "tan"},
      {"exp", "exp"},     {"exp10", "exp10"}, {"log", "log"},
      {"log2", "log2"},   {"log10", "log10"}, {"pow", "pow"}};
  if (!name.consume_front("llvm."))
    return "";
  for (auto [intrinsic, function] : kMath) {
    llvm::StringRef rest = name;
    if (!rest.consume_front(intrinsic) || !rest.consume_front("."))
      continue;
    if (rest == "f32")
      return std::string("__nv_") + function + "f";
    if (rest == "f64")
      return std::string("__nv_") + function;
  }
  return "";
}

/// True for the math intrinsics of libdeviceFunctionFor's list at types
/// libdevice has no function for (half precision, vectors).
bool isUnselectableMath(llvm::StringRef name) {
  for (llvm::StringRef intrinsic :
       {"llvm.sin.", "llvm.cos.", "llvm.tan.", "llvm.exp.", "llvm.exp10.",
        "llvm.log.", "llvm.log2.", "llvm.log10.", "llvm.pow."})
    if (name.starts_with(intrinsic))
      return true;
  return false;
}

/// Calls of the math intrinsics that NVPTX cannot select become calls of
/// libdevice's functions (same signature); false, with `unmapped` set, if
/// one has no libdevice counterpart.
bool mapMathToLibdevice(llvm::Module &module, std::string &unmapped) {
  llvm::SmallVector<llvm::Function *> intrinsics;
  for (llvm::Function &function : module)
    if (function.isIntrinsic() && isUnselectableMath(function.getName()))
      intrinsics.push_back(&function);
  for (llvm::Function *intrinsic : intrinsics) {
    std::string name = libdeviceFunctionFor(intrinsic->getName());
    if (name.empty()) {
      unmapped = intrinsic->getName().str();
      return false;
    }
    llvm::FunctionCallee callee =
        module.getOrInsertFunction(name, intrinsic->getFunctionType());
    intrinsic->replaceAllUsesWith(callee.getCallee());
    intrinsic->eraseFromParent();
  }
  return true;
}

/// Links the libdevice functions that `module` calls from the bitcode file
/// at `path` and makes them internal, as clang does for CUDA; the backend's
/// NVVMReflect pass then resolves libdevice's __nvvm_reflect queries.
LogicalResult linkLibdevice(llvm::Module &module, llvm::StringRef path,
                            Location loc) {
  bool needed = llvm::any_of(module, [](const llvm::Function &function) {
    return function.isDeclaration() && function.getName().starts_with("__nv_");
  });
  if (!needed)
    return success();
  if (path.empty())
    return emitError(loc) << "the device code calls libdevice functions "
                             "(__nv_*) and no libdevice was given";
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> libdevice =
      llvm::parseIRFile(path, error, module.getContext());
  if (!libdevice)
    return emitError(loc) << "cannot read libdevice '" << path
                          << "': " << error.getMessage();
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  llvm::StringSet<> defined;
  for (const llvm::Function &function : *libdevice)
    if (!function.isDeclaration())
      defined.insert(function.getName());
  if (llvm::Linker::linkModules(module, std::move(libdevice),
                                llvm::Linker::LinkOnlyNeeded))
    return emitError(loc) << "cannot link libdevice '" << path << "'";
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && defined.contains(function.getName()))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  if (!module.getModuleFlag("nvvm-reflect-ftz"))
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return success();
}

} // namespace

MlirOperation spmdCompileImportLLVMIR(MlirContext context, MlirStringRef buffer,
                                      MlirStringRef bufferName) {
  MLIRContext *mlirContext = unwrap(context);
  DialectRegistry registry;
  registerAllFromLLVMIRTranslations(registry);
  mlirContext->appendDialectRegistry(registry);
  mlirContext->loadDialect<LLVM::LLVMDialect>();

  llvm::StringRef name = toStringRef(bufferName);
  llvm::LLVMContext llvmContext;
  llvm::SMDiagnostic error;
  // A copy: the text parser needs a terminating null.
  std::unique_ptr<llvm::MemoryBuffer> memory =
      llvm::MemoryBuffer::getMemBufferCopy(toStringRef(buffer), name);
  std::unique_ptr<llvm::Module> module =
      llvm::parseIR(memory->getMemBufferRef(), error, llvmContext);
  if (!module) {
    emitError(FileLineColLoc::get(mlirContext, name, error.getLineNo(),
                                  error.getColumnNo() + 1))
        << error.getMessage();
    return MlirOperation{nullptr};
  }
  module->setDataLayout("");
  dropModuleFlag(*module, "SDK Version");
  OwningOpRef<ModuleOp> imported = translateLLVMIRToModule(
      std::move(module), mlirContext, /*emitExpensiveWarnings=*/false);
  if (!imported)
    return MlirOperation{nullptr};
  return wrap(imported.release().getOperation());
}

MlirOperation spmdCompileDeviceModule(MlirOperation module) {
  auto top = llvm::dyn_cast<ModuleOp>(unwrap(module));
  if (!top) {
    emitError(unwrap(module)->getLoc()) << "expected a builtin.module";
    return MlirOperation{nullptr};
  }
  llvm::SmallVector<gpu::GPUModuleOp> gpuModules(top.getOps<gpu::GPUModuleOp>());
  if (gpuModules.size() > 1) {
    emitError(gpuModules[1].getLoc())
        << "expected at most one gpu.module, found " << gpuModules.size();
    return MlirOperation{nullptr};
  }
  ModuleOp device;
  if (gpuModules.empty()) {
    device = top.clone();
  } else {
    device = ModuleOp::create(gpuModules.front().getLoc());
    IRMapping mapping;
    for (Operation &op : gpuModules.front().getBody()->getOperations())
      device.getBody()->push_back(op.clone(mapping));
  }
  if (device.getOps<LLVM::LLVMFuncOp>().empty()) {
    emitError(top.getLoc())
        << "no gpu.module and no llvm.func: nothing to compile";
    device->erase();
    return MlirOperation{nullptr};
  }
  return wrap(device.getOperation());
}

void spmdCompileKeepUniformRegions(void) {
  auto options = llvm::cl::getRegisteredOptions();
  llvm::StringRef name = "structurizecfg-skip-uniform-regions";
  auto found = options.find(name);
  // The option counts only once it has occurred (StructurizeCFG reads
  // getNumOccurrences), as on llc's command line.
  if (found != options.end() && found->second->getNumOccurrences() == 0)
    found->second->addOccurrence(0, name, "true");
}

/// Replaces every `llvm.amdgcn.inverse.ballot` of `module` by the
/// lane's bit computed in vector registers, `(mask >> lane) & 1` with the
/// lane from `mbcnt`; returns whether there was one. The intrinsic costs
/// nothing, but LLVM 22's register coalescer crashes on a few of the
/// selects it feeds; this is the fallback.
bool expandInverseBallots(llvm::Module &module) {
  llvm::SmallVector<llvm::CallInst *> calls;
  for (llvm::Function &function : module)
    if (function.getIntrinsicID() == llvm::Intrinsic::amdgcn_inverse_ballot)
      for (llvm::User *user : function.users())
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(user))
          calls.push_back(call);
  for (llvm::CallInst *call : calls) {
    llvm::IRBuilder<> builder(call);
    llvm::Value *mask = call->getArgOperand(0);
    auto *maskType = llvm::cast<llvm::IntegerType>(mask->getType());
    llvm::Value *lane = builder.CreateIntrinsic(
        llvm::Intrinsic::amdgcn_mbcnt_lo, {},
        {builder.getInt32(~0u), builder.getInt32(0)});
    if (maskType->getBitWidth() == 64)
      lane = builder.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_hi, {},
                                     {builder.getInt32(~0u), lane});
    llvm::Value *shifted =
        builder.CreateLShr(mask, builder.CreateZExt(lane, maskType));
    call->replaceAllUsesWith(builder.CreateTrunc(shifted, builder.getInt1Ty()));
    call->eraseFromParent();
  }
  return !calls.empty();
}

MlirLogicalResult spmdCompileBackend(MlirOperation deviceModule,
                                     MlirStringRef triple, MlirStringRef cpu,
                                     MlirStringRef features,
                                     MlirStringRef libdevice,
                                     SpmdCompileOutput output,
                                     MlirStringCallback callback,
                                     void *userData) {
  Operation *op = unwrap(deviceModule);
  Location loc = op->getLoc();
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  op->getContext()->appendDialectRegistry(registry);

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = createMachine(
      toStringRef(triple), toStringRef(cpu), toStringRef(features), error);
  if (!machine) {
    emitError(loc) << error;
    return wrap(failure());
  }
  bool nvptx = machine->getTargetTriple().isNVPTX();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(op, llvmContext, "spmd-device");
  if (!module)
    return wrap(failure());
  module->setTargetTriple(machine->getTargetTriple());
  module->setDataLayout(machine->createDataLayout());
  if (nvptx) {
    std::string unmapped;
    if (!mapMathToLibdevice(*module, unmapped)) {
      emitError(loc) << "the device code calls " << unmapped
                     << ", which the NVPTX backend cannot select and "
                        "libdevice has no function for";
      return wrap(failure());
    }
    if (failed(linkLibdevice(*module, toStringRef(libdevice), loc)))
      return wrap(failure());
  }
  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  if (llvm::verifyModule(*module, &problemStream)) {
    emitError(loc) << "the translated LLVM IR is invalid: " << problems;
    return wrap(failure());
  }
  if (output == SpmdCompileLLVMIR) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module->print(stream, nullptr);
    emitText(text, callback, userData);
    return wrap(success());
  }
  llvm::SmallString<0> code;
  auto type = output == SpmdCompileObject ? llvm::CodeGenFileType::ObjectFile
                                          : llvm::CodeGenFileType::AssemblyFile;
  // A crashed backend run leaves its module in pieces: keep a copy for
  // the one retry without inverse ballots.
  std::unique_ptr<llvm::Module> spare = llvm::CloneModule(*module);
  EmitFailure emitted = emitCode(*machine, *module, code, type);
  if (emitted == EmitFailure::Crashed && expandInverseBallots(*spare)) {
    code.clear();
    emitted = emitCode(*machine, *spare, code, type);
  }
  switch (emitted) {
  case EmitFailure::None:
    break;
  case EmitFailure::Unsupported:
    emitError(loc) << "the backend cannot emit "
                   << (output == SpmdCompileObject ? "an object file"
                                                   : "assembly");
    return wrap(failure());
  case EmitFailure::Crashed:
    emitError(loc) << "LLVM's " << machine->getTarget().getName()
                   << " backend crashed on this module (a bug in LLVM "
                   << LLVM_VERSION_STRING
                   << "); --emit llvm writes the module it was given";
    return wrap(failure());
  }
  emitText(code, callback, userData);
  return wrap(success());
}

int spmdCompileDefaultPtxVersion(MlirStringRef cpu) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createNvptxMachine(toStringRef(cpu), "", error);
  if (!machine)
    return 0;
  llvm::LLVMContext llvmContext;
  llvm::Module empty("spmd-empty", llvmContext);
  empty.setTargetTriple(machine->getTargetTriple());
  empty.setDataLayout(machine->createDataLayout());
  llvm::SmallString<0> assembly;
  if (emitCode(*machine, empty, assembly) != EmitFailure::None)
    return 0;
  llvm::StringRef text = assembly;
  size_t at = text.find(".version ");
  if (at == llvm::StringRef::npos)
    return 0;
  llvm::StringRef version = text.substr(at + 9).take_until(
      [](char c) { return c == '\n' || c == '\r'; });
  auto [major, minor] = version.trim().split('.');
  unsigned majorNumber = 0, minorNumber = 0;
  if (major.getAsInteger(10, majorNumber) || minor.getAsInteger(10, minorNumber))
    return 0;
  return majorNumber * 10 + minorNumber;
}

MlirLogicalResult spmdCompileBinaryAssembly(MlirOperation module,
                                            MlirStringCallback callback,
                                            void *userData) {
  Operation *top = unwrap(module);
  llvm::SmallVector<gpu::BinaryOp> binaries;
  top->walk([&](gpu::BinaryOp binary) { binaries.push_back(binary); });
  if (binaries.size() != 1 || binaries.front().getObjects().size() != 1) {
    emitError(top->getLoc())
        << "expected one gpu.binary with one object, found "
        << binaries.size() << " binaries";
    return wrap(failure());
  }
  auto object =
      llvm::dyn_cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
  if (!object) {
    emitError(binaries.front().getLoc()) << "the gpu.binary's object is not a #gpu.object";
    return wrap(failure());
  }
  emitText(object.getObject().getValue(), callback, userData);
  return wrap(success());
}

MlirLogicalResult spmdCompileWrapInGpuModule(MlirOperation module,
                                             MlirStringRef name) {
  auto top = llvm::dyn_cast<ModuleOp>(unwrap(module));
  if (!top) {
    emitError(unwrap(module)->getLoc()) << "expected a builtin.module";
    return wrap(failure());
  }
  if (!top.getOps<gpu::GPUModuleOp>().empty())
    return wrap(success());
  OpBuilder builder(top.getContext());
  builder.setInsertionPointToEnd(top.getBody());
  auto gpuModule =
      gpu::GPUModuleOp::create(builder, top.getLoc(), toStringRef(name));
  Block *body = gpuModule.getBody();
  for (Operation &op :
       llvm::make_early_inc_range(top.getBody()->getOperations())) {
    if (&op != gpuModule.getOperation())
      op.moveBefore(body, body->end());
  }
  top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
               builder.getUnitAttr());
  return wrap(success());
}

void spmdCompileInstallFatalErrorHandler(MlirStringRef fileName) {
  static std::string file;
  file = toStringRef(fileName).str();
  llvm::remove_fatal_error_handler();
  llvm::install_fatal_error_handler(
      [](void *, const char *reason, bool) {
        std::fprintf(stderr, "spmd-compile: error: %s: LLVM: %s\n",
                     file.c_str(), reason);
        std::fflush(stderr);
        std::_Exit(1);
      },
      nullptr);
}
