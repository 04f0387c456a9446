//===- SpmdPasses.cpp - pass shells that run the Rust implementations -----===//
//
// Every spmd pass is declared in SpmdPasses.td, which gives it a name,
// options, documentation and `--help` text. The C++ class generated from it
// is a thin shell: `runOnOperation` forwards the operation and the textual
// option list to the runner installed by the Rust library. This keeps option
// parsing, pipelines, `--mlir-print-ir-after-all` and `--mlir-timing` in
// MLIR's hands and every algorithm in Rust.
//
//===----------------------------------------------------------------------===//

#include "spmd-c/Spmd.h"

#include "Spmd/SpmdDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

using namespace mlir;

namespace {
std::atomic<SpmdPassRunner> passRunner{nullptr};

/// Appends the text reported by the Rust side to a raw_ostream.
void appendToStream(MlirStringRef text, void *userData) {
  *static_cast<llvm::raw_ostream *>(userData) << unwrap(text);
}

/// Runs the Rust implementation of `pass` on `op`, reporting into `os`.
LogicalResult runInRust(Pass &pass, Operation *op, llvm::raw_ostream &os) {
  SpmdPassRunner runner = passRunner.load();
  if (!runner)
    return op->emitError() << "the spmd pass '" << pass.getArgument()
                           << "' has no implementation: call "
                              "spmdRegisterAllPasses() (Rust library) first";
  std::string options;
  {
    llvm::raw_string_ostream optionStream(options);
    pass.printAsTextualPipeline(optionStream);
  }
  // printAsTextualPipeline prints "name{opts}"; keep only "{opts}".
  StringRef optionText = StringRef(options).drop_front(pass.getArgument().size());
  MlirLogicalResult result =
      runner(wrap(pass.getArgument()), wrap(op), wrap(optionText),
             appendToStream, &os);
  os.flush();
  return unwrap(result);
}
} // namespace

namespace mlir::spmd {
#define GEN_PASS_DECL
#include "Spmd/SpmdPasses.h.inc"

#define GEN_PASS_DEF_SPMDPRINTCFGANALYSIS
#define GEN_PASS_DEF_SPMDVIEWCFG
#define GEN_PASS_DEF_SPMDPRINTUNIFORMITY
#define GEN_PASS_DEF_SPMDANNOTATEUNIFORMITY
#define GEN_PASS_DEF_SPMDVERIFYRECONVERGING
#define GEN_PASS_DEF_SPMDRECONVERGE
#define GEN_PASS_DEF_SPMDSTRUCTURIZE
#define GEN_PASS_DEF_SPMDFIXIRREDUCIBLE
#define GEN_PASS_DEF_SPMDUNIFYLOOPEXITS
#define GEN_PASS_DEF_SPMDVERIFYSTRUCTURED
#define GEN_PASS_DEF_SPMDLOWERTOCF
#define GEN_PASS_DEF_SPMDBRANCHFOLD
#define GEN_PASS_DEF_SPMDPREDICATE
#include "Spmd/SpmdPasses.h.inc"

namespace {
/// Shell of a pass whose report goes to stderr.
template <typename Base>
struct ReportingShell : Base {
  using Base::Base;
  void runOnOperation() override {
    if (failed(runInRust(*this, this->getOperation(), llvm::errs())))
      this->signalPassFailure();
  }
};

struct PrintCfgAnalysisPass
    : ReportingShell<impl::SpmdPrintCfgAnalysisBase<PrintCfgAnalysisPass>> {
  using ReportingShell::ReportingShell;
};

struct PrintUniformityPass
    : ReportingShell<impl::SpmdPrintUniformityBase<PrintUniformityPass>> {
  using ReportingShell::ReportingShell;
};

struct AnnotateUniformityPass
    : ReportingShell<impl::SpmdAnnotateUniformityBase<AnnotateUniformityPass>> {
  using ReportingShell::ReportingShell;
};

struct VerifyReconvergingPass
    : ReportingShell<impl::SpmdVerifyReconvergingBase<VerifyReconvergingPass>> {
  using ReportingShell::ReportingShell;
};

struct ReconvergePass
    : ReportingShell<impl::SpmdReconvergeBase<ReconvergePass>> {
  using ReportingShell::ReportingShell;
};

struct StructurizePass
    : ReportingShell<impl::SpmdStructurizeBase<StructurizePass>> {
  using ReportingShell::ReportingShell;
};

struct FixIrreduciblePass
    : ReportingShell<impl::SpmdFixIrreducibleBase<FixIrreduciblePass>> {
  using ReportingShell::ReportingShell;
};

struct UnifyLoopExitsPass
    : ReportingShell<impl::SpmdUnifyLoopExitsBase<UnifyLoopExitsPass>> {
  using ReportingShell::ReportingShell;
};

struct VerifyStructuredPass
    : ReportingShell<impl::SpmdVerifyStructuredBase<VerifyStructuredPass>> {
  using ReportingShell::ReportingShell;
};

struct LowerToCfPass
    : ReportingShell<impl::SpmdLowerToCfBase<LowerToCfPass>> {
  using ReportingShell::ReportingShell;
};

struct BranchFoldPass
    : ReportingShell<impl::SpmdBranchFoldBase<BranchFoldPass>> {
  using ReportingShell::ReportingShell;
};

struct PredicatePass
    : ReportingShell<impl::SpmdPredicateBase<PredicatePass>> {
  using ReportingShell::ReportingShell;
};

/// Writes to stderr or to the file named by the `output` option.
struct ViewCfgPass : impl::SpmdViewCfgBase<ViewCfgPass> {
  using SpmdViewCfgBase::SpmdViewCfgBase;
  void runOnOperation() override {
    if (output == "-") {
      if (failed(runInRust(*this, getOperation(), llvm::errs())))
        signalPassFailure();
      return;
    }
    std::error_code error;
    llvm::raw_fd_ostream file(output, error, llvm::sys::fs::OF_Text);
    if (error) {
      getOperation()->emitError() << "cannot open '" << output
                                  << "' for writing: " << error.message();
      return signalPassFailure();
    }
    if (failed(runInRust(*this, getOperation(), file)))
      signalPassFailure();
  }
};
} // namespace

#define GEN_PASS_REGISTRATION
#include "Spmd/SpmdPasses.h.inc"
} // namespace mlir::spmd

void spmdSetPassRunner(SpmdPassRunner runner) { passRunner.store(runner); }

void spmdRegisterPassShells(void) {
  static bool registered = [] {
    mlir::spmd::registerSpmdPasses();
    return true;
  }();
  (void)registered;
}
