//===- SpmdPasses.cpp - pass shells that run the Rust implementations -----===//
//
// Every spmd pass is declared in SpmdPasses.td, which gives it a name,
// options, documentation and `--help` text. The C++ class generated from it
// is a thin shell: `runOnOperation` forwards the operation and the typed
// values of its option members (MLIR parsed them; ODS gave their defaults)
// to the runner installed by the Rust library, and adds the statistics the
// runner reports to the generated statistic members. This keeps option
// parsing, pipelines, `--mlir-print-ir-after-all` and `--mlir-timing` in
// MLIR's hands and every algorithm in Rust; Rust never parses option text
// and never restates a default (src/ir/ods.rs).
//
//===----------------------------------------------------------------------===//

#include "spmd-c/Internal.h"

#include "Spmd/SpmdDialect.h"
#include "Spmd/SpmdPassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <deque>
#include <map>
#include <mutex>
#include <string>

using namespace mlir;

namespace {
std::atomic<SpmdPassRunner> passRunner{nullptr};

/// Appends the text reported by the Rust side to a raw_ostream.
void appendToStream(MlirStringRef text, void *userData) {
  *static_cast<llvm::raw_ostream *>(userData) << unwrap(text);
}

/// Where the statistics of one pass run go: the pass's MLIR statistics
/// (which count only in builds of MLIR with LLVM_ENABLE_STATS) and, in
/// builds without them, the process-wide tally of spmd/PassStatistics.h.
struct OutcomeSink {
  Pass &pass;
};

void addStatistic(MlirStringRef name, MlirStringRef description,
                  uint64_t value, void *userData) {
  Pass &pass = static_cast<OutcomeSink *>(userData)->pass;
#if LLVM_ENABLE_STATS
  // The Rust side reports the statistics of src/ir/ods.rs, generated from
  // SpmdPasses.td like the members here, so every name has its member.
  bool declared = false;
  for (Pass::Statistic *statistic : pass.getStatistics()) {
    if (unwrap(name) == statistic->getName()) {
      *statistic += value;
      declared = true;
    }
  }
  assert(declared && "a statistic that SpmdPasses.td does not declare");
  (void)declared;
  (void)description;
#else
  spmd::recordPassStatistic(pass.getName(), unwrap(name), unwrap(description),
                            value);
#endif
}

/// The typed values of the options of one pass run, in the layout the
/// runner takes: one SpmdPassOption per option member a shell lists (see
/// Shell::listOptions), borrowing the member's strings. The member types
/// are the ones SpmdPasses.td uses; another type is a compile error here
/// (and a build error in build.rs, which generates the Rust side).
class OptionValues {
public:
  using Options = detail::PassOptions;

  OptionValues &operator<<(const Options::Option<bool> &option) {
    add(option.ArgStr, SpmdPassOptionKindFlag).flag = option.getValue();
    return *this;
  }
  OptionValues &operator<<(const Options::Option<unsigned> &option) {
    add(option.ArgStr, SpmdPassOptionKindUnsigned).number = option.getValue();
    return *this;
  }
  OptionValues &operator<<(const Options::Option<std::string> &option) {
    add(option.ArgStr, SpmdPassOptionKindText).text =
        wrap(StringRef(option.getValue()));
    return *this;
  }
  OptionValues &operator<<(const Options::ListOption<std::string> &option) {
    std::vector<MlirStringRef> &items = itemStorage.emplace_back();
    for (const std::string &item : option)
      items.push_back(wrap(StringRef(item)));
    SpmdPassOption &entry = add(option.ArgStr, SpmdPassOptionKindTextList);
    entry.items = items.data();
    entry.numItems = static_cast<intptr_t>(items.size());
    return *this;
  }

  const SpmdPassOption *data() const { return entries.data(); }
  intptr_t size() const { return static_cast<intptr_t>(entries.size()); }

private:
  SpmdPassOption &add(StringRef key, SpmdPassOptionKind kind) {
    SpmdPassOption &entry = entries.emplace_back();
    entry = SpmdPassOption{wrap(key), kind, false, 0, wrap(StringRef()),
                           nullptr, 0};
    return entry;
  }

  std::vector<SpmdPassOption> entries;
  std::deque<std::vector<MlirStringRef>> itemStorage;
};

/// Runs the Rust implementation of `pass` on `op` with the option values
/// `options`, reporting into `os`. `changed` tells whether the IR may have
/// changed.
LogicalResult runInRust(Pass &pass, const OptionValues &options,
                        Operation *op, llvm::raw_ostream &os, bool &changed) {
  changed = true;
  SpmdPassRunner runner = passRunner.load();
  if (!runner)
    return op->emitError() << "the spmd pass '" << pass.getArgument()
                           << "' has no implementation: call "
                              "spmdRegisterAllPasses() (Rust library) first";
  OutcomeSink sink{pass};
  SpmdPassOutcome outcome{addStatistic, &sink, /*changed=*/true};
  MlirLogicalResult result =
      runner(wrap(pass.getArgument()), wrap(op), options.data(),
             options.size(), appendToStream, &os, &outcome);
  os.flush();
  changed = outcome.changed;
  return unwrap(result);
}

/// The tally of spmd statistics for builds without LLVM_ENABLE_STATS, by
/// pass name, then statistic name: (description, value).
struct StatisticTally {
  std::mutex mutex;
  std::map<std::string, std::map<std::string, std::pair<std::string, uint64_t>>>
      passes;
};

StatisticTally &statisticTally() {
  static StatisticTally tally;
  return tally;
}
} // namespace

void mlir::spmd::recordPassStatistic(StringRef pass, StringRef name,
                                     StringRef description, uint64_t value) {
  StatisticTally &tally = statisticTally();
  std::lock_guard<std::mutex> lock(tally.mutex);
  auto &entry = tally.passes[pass.str()][name.str()];
  entry.first = description.str();
  entry.second += value;
}

void mlir::spmd::printPassStatistics(llvm::raw_ostream &os) {
  StatisticTally &tally = statisticTally();
  std::lock_guard<std::mutex> lock(tally.mutex);
  // The layout of MLIR's list display: passes and statistics sorted by
  // name, values right-aligned, names left-aligned.
  for (const auto &[pass, statistics] : tally.passes) {
    os << "  " << pass << "\n";
    size_t nameWidth = 0, valueWidth = 0;
    for (const auto &[name, entry] : statistics) {
      nameWidth = std::max(nameWidth, name.size());
      valueWidth = std::max(valueWidth, std::to_string(entry.second).size());
    }
    for (const auto &[name, entry] : statistics)
      os << "    (S) " << llvm::right_justify(std::to_string(entry.second), valueWidth)
         << " " << llvm::left_justify(name, nameWidth) << " - "
         << entry.first << "\n";
  }
  os.flush();
}

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
#define GEN_PASS_DEF_SPMDLOWERTONVVM
#define GEN_PASS_DEF_SPMDLOWERTOROCDL
#define GEN_PASS_DEF_SPMDPREDICATE
#include "Spmd/SpmdPasses.h.inc"

namespace {
/// The shell of every pass: `listOptions` hands the pass's option members
/// (every option SpmdPasses.td declares for it, in declaration order; the
/// Rust side checks that against its generated table) to the runner, and
/// `runOnOperation` runs the pass with its report on stderr.
template <typename Base>
struct Shell : Base {
  using Base::Base;

  /// Appends the values of the pass's options to `values`.
  virtual void listOptions(OptionValues &values) { (void)values; }

  /// The options shared by the uniformity passes (`uniformityOptions`).
  void listUniformityOptions(OptionValues &values) {
    values << this->defaultArguments << this->divergentOps << this->uniformOps;
  }

  /// Runs the Rust implementation, reporting into `os`.
  LogicalResult runWithReport(llvm::raw_ostream &os, bool &changed) {
    OptionValues values;
    listOptions(values);
    return runInRust(*this, values, this->getOperation(), os, changed);
  }

  void runOnOperation() override {
    bool changed = true;
    if (failed(runWithReport(llvm::errs(), changed)))
      return this->signalPassFailure();
    if (!changed)
      this->markAllAnalysesPreserved();
  }
};

/// A shell of a pass with the uniformity options only.
template <typename Base>
struct UniformityShell : Shell<Base> {
  using Shell<Base>::Shell;
  void listOptions(OptionValues &values) override {
    this->listUniformityOptions(values);
  }
};

struct PrintCfgAnalysisPass
    : Shell<impl::SpmdPrintCfgAnalysisBase<PrintCfgAnalysisPass>> {
  using Shell::Shell;
};

struct PrintUniformityPass
    : UniformityShell<impl::SpmdPrintUniformityBase<PrintUniformityPass>> {
  using UniformityShell::UniformityShell;
};

/// Annotation writes only the discardable `spmd.uniformity` attribute on
/// terminators, built by the dialect's own constructor for the block the
/// analysis saw: no op, operand, block, type or symbol changes, so every
/// analysis stays valid and the pass preserves them all. MLIR's pass
/// manager then skips the verifier after it (what it verified after the
/// previous step still holds), which on a 100k-block function is as long
/// as the analysis itself (issue #18: annotate within 1x parse+print).
struct AnnotateUniformityPass
    : UniformityShell<impl::SpmdAnnotateUniformityBase<AnnotateUniformityPass>> {
  using UniformityShell::UniformityShell;
  void runOnOperation() override {
    bool changed = true;
    if (failed(runWithReport(llvm::errs(), changed)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

struct VerifyReconvergingPass
    : UniformityShell<impl::SpmdVerifyReconvergingBase<VerifyReconvergingPass>> {
  using UniformityShell::UniformityShell;
};

struct ReconvergePass : Shell<impl::SpmdReconvergeBase<ReconvergePass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override {
    listUniformityOptions(values);
    values << ordering << selectorChainLength << laneBranches;
  }
};

struct StructurizePass : Shell<impl::SpmdStructurizeBase<StructurizePass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override {
    listUniformityOptions(values);
    values << skipUniformRegions << relaxedUniformRegions << irreducible
           << ordering << selectorChainLength;
  }
};

struct FixIrreduciblePass
    : Shell<impl::SpmdFixIrreducibleBase<FixIrreduciblePass>> {
  using Shell::Shell;
};

struct UnifyLoopExitsPass
    : Shell<impl::SpmdUnifyLoopExitsBase<UnifyLoopExitsPass>> {
  using Shell::Shell;
};

struct VerifyStructuredPass
    : Shell<impl::SpmdVerifyStructuredBase<VerifyStructuredPass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override {
    listUniformityOptions(values);
    values << useUniformity;
  }
};

struct LowerToCfPass : Shell<impl::SpmdLowerToCfBase<LowerToCfPass>> {
  using Shell::Shell;
};

struct BranchFoldPass : Shell<impl::SpmdBranchFoldBase<BranchFoldPass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override {
    listUniformityOptions(values);
    values << disable << enableTailMerge << tailMergeSize
           << tailMergeThreshold << hoistCommonCode << foldOperations
           << stats;
  }
};

struct LowerToNvvmPass : Shell<impl::SpmdLowerToNvvmBase<LowerToNvvmPass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override { values << waveSize; }
};

struct LowerToRocdlPass
    : Shell<impl::SpmdLowerToRocdlBase<LowerToRocdlPass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override { values << waveSize; }
};

struct PredicatePass : Shell<impl::SpmdPredicateBase<PredicatePass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override {
    listUniformityOptions(values);
    values << skipEmptyBlocks << waveSize << laneBranches;
  }
};

/// Writes to stderr or to the file named by the `output` option.
struct ViewCfgPass : Shell<impl::SpmdViewCfgBase<ViewCfgPass>> {
  using Shell::Shell;
  void listOptions(OptionValues &values) override {
    listUniformityOptions(values);
    values << output << legend;
  }
  void runOnOperation() override {
    bool changed = true;
    if (output == "-") {
      if (failed(runWithReport(llvm::errs(), changed)))
        return signalPassFailure();
      if (!changed)
        markAllAnalysesPreserved();
      return;
    }
    std::error_code error;
    llvm::raw_fd_ostream file(output, error, llvm::sys::fs::OF_Text);
    if (error) {
      getOperation()->emitError() << "cannot open '" << output
                                  << "' for writing: " << error.message();
      return signalPassFailure();
    }
    if (failed(runWithReport(file, changed)))
      return signalPassFailure();
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace

#define GEN_PASS_REGISTRATION
#include "Spmd/SpmdPasses.h.inc"
} // namespace mlir::spmd

namespace {
/// Options of the `spmd-gpu-to-nvvm` pipeline.
struct GpuToNvvmOptions : PassPipelineOptions<GpuToNvvmOptions> {
  Option<bool> predicate{
      *this, "predicate",
      llvm::cl::desc("The input is thread-level: run spmd-reconverge and "
                     "spmd-predicate first (false: the input is already "
                     "wave-level)"),
      llvm::cl::init(true)};
  Option<unsigned> waveSize{*this, "wave-size",
                            llvm::cl::desc("Lanes per wave (32 or 64)"),
                            llvm::cl::init(32)};
  Option<bool> laneBranches{
      *this, "lane-branches",
      llvm::cl::desc("spmd-reconverge's and spmd-predicate's lane-branches "
                     "(with predicate=true): divergent branches whose region "
                     "needs no converged lanes stay per-lane branches, which "
                     "the GPU diverges and reconverges by itself"),
      llvm::cl::init(true)};
  Option<std::string> ordering{
      *this, "ordering",
      llvm::cl::desc("The spmd-reconverge ordering (with predicate=true)"),
      llvm::cl::init("dfpd")};
};

/// Stands in for a pass the pipeline needs but this build lacks, so that
/// the pipeline fails with a diagnostic instead of silently skipping it.
struct MissingPass : PassWrapper<MissingPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MissingPass)
  explicit MissingPass(std::string name) : name(std::move(name)) {}
  StringRef getArgument() const override { return "spmd-missing-pass"; }
  void runOnOperation() override {
    // On the location only: the module itself is no help in the message.
    emitError(getOperation()->getLoc())
        << "the spmd pipeline needs pass '" << name
        << "', which this build does not register (use predicate=false for "
           "wave-level input)";
    signalPassFailure();
  }
  std::string name;
};

/// The textual form of the pipeline (without the thread-level prefix).
std::string gpuToNvvmTail(const GpuToNvvmOptions &options) {
  // gpu.func kernels become llvm.func in convert-gpu-to-nvvm; llvm.func
  // kernels outside a gpu.module (mlir-translate --import-llvm of clang's
  // output) get the same arith/cf/ub conversions from convert-to-llvm,
  // nested so that host functions are left alone.
  return "spmd-lower-to-nvvm{wave-size=" + std::to_string(options.waveSize) +
         "},convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm),"
         "llvm.func(convert-to-llvm),reconcile-unrealized-casts";
}

/// Builds `spmd-gpu-to-nvvm`: thread-level gpu.func kernels (or wave-level
/// ones with predicate=false) to the LLVM/NVVM dialects.
void buildGpuToNvvm(OpPassManager &pm, const GpuToNvvmOptions &options) {
  std::string text;
  if (options.predicate) {
    if (!PassInfo::lookup("spmd-predicate")) {
      pm.addPass(std::make_unique<MissingPass>("spmd-predicate"));
      return;
    }
    std::string lanes = options.laneBranches ? "true" : "false";
    text = "spmd-reconverge{ordering=" + options.ordering +
           " lane-branches=" + lanes +
           "},spmd-predicate{wave-size=" + std::to_string(options.waveSize) +
           " lane-branches=" + lanes + "},";
  }
  text += gpuToNvvmTail(options);
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    pm.addPass(std::make_unique<MissingPass>(text));
}
/// Options of the `spmd-gpu-to-rocdl` pipeline.
struct GpuToRocdlOptions : PassPipelineOptions<GpuToRocdlOptions> {
  Option<bool> predicate{
      *this, "predicate",
      llvm::cl::desc("The input is thread-level: run spmd-reconverge and "
                     "spmd-predicate first (false: the input is already "
                     "wave-level)"),
      llvm::cl::init(true)};
  Option<unsigned> waveSize{
      *this, "wave-size",
      llvm::cl::desc("Lanes per wave: 64 (GCN, CDNA) or 32 (RDNA)"),
      llvm::cl::init(64)};
  Option<std::string> chipset{
      *this, "chipset",
      llvm::cl::desc("The AMDGPU chip, for convert-gpu-to-rocdl"),
      llvm::cl::init("gfx90a")};
  Option<bool> laneBranches{
      *this, "lane-branches",
      llvm::cl::desc("spmd-reconverge's and spmd-predicate's lane-branches "
                     "(with predicate=true): divergent branches whose region "
                     "needs no converged lanes stay per-lane branches, which "
                     "the backend lowers with its own exec-mask code; false: "
                     "every divergent branch becomes spmd's exec-mask code"),
      llvm::cl::init(true)};
  Option<std::string> ordering{
      *this, "ordering",
      llvm::cl::desc("The spmd-reconverge ordering (with predicate=true)"),
      llvm::cl::init("dfpd")};
};

/// Builds `spmd-gpu-to-rocdl`: thread-level gpu.func kernels (or wave-level
/// ones with predicate=false) to the LLVM and ROCDL dialects. A divergent
/// branch whose region needs no converged lanes stays a per-lane branch
/// (lane-branches=true), which the backend lowers with its own exec-mask
/// code as it would the thread-level kernel; every other one becomes
/// spmd's exec-mask code, which reaches the backend as uniform branches.
void buildGpuToRocdl(OpPassManager &pm, const GpuToRocdlOptions &options) {
  std::string wave = std::to_string(options.waveSize);
  std::string text;
  if (options.predicate) {
    if (!PassInfo::lookup("spmd-predicate")) {
      pm.addPass(std::make_unique<MissingPass>("spmd-predicate"));
      return;
    }
    std::string lanes = options.laneBranches ? "true" : "false";
    text = "spmd-reconverge{ordering=" + options.ordering +
           " lane-branches=" + lanes + "},spmd-predicate{wave-size=" + wave +
           " lane-branches=" + lanes + "},";
  }
  // llvm.func kernels outside a gpu.module (amdgpu_kernel, as the LLVM IR
  // import leaves them) get the arith/cf/ub conversions from
  // convert-to-llvm, as in spmd-gpu-to-nvvm.
  text += "spmd-lower-to-rocdl{wave-size=" + wave +
          "},convert-scf-to-cf,gpu.module(convert-gpu-to-rocdl{chipset=" +
          options.chipset +
          "}),llvm.func(convert-to-llvm),reconcile-unrealized-casts";
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    pm.addPass(std::make_unique<MissingPass>(text));
}
} // namespace

void spmdSetPassRunner(SpmdPassRunner runner) { passRunner.store(runner); }

void spmdRegisterPassShells(void) {
  static bool registered = [] {
    mlir::spmd::registerSpmdPasses();
    PassPipelineRegistration<GpuToNvvmOptions>(
        "spmd-gpu-to-nvvm",
        "Lower thread-level (or, with predicate=false, wave-level) gpu.func "
        "and llvm.func kernels to the LLVM and NVVM dialects: "
        "spmd-reconverge, spmd-predicate, spmd-lower-to-nvvm, "
        "convert-scf-to-cf, convert-gpu-to-nvvm (gpu.module), convert-to-llvm "
        "(top-level llvm.func), reconcile-unrealized-casts",
        buildGpuToNvvm);
    PassPipelineRegistration<GpuToRocdlOptions>(
        "spmd-gpu-to-rocdl",
        "Lower thread-level (or, with predicate=false, wave-level) gpu.func "
        "and llvm.func (amdgpu_kernel) kernels to the LLVM and ROCDL "
        "dialects for AMD waves of 64 or 32 lanes: spmd-reconverge, "
        "spmd-predicate (exec masks for the divergent branches whose region "
        "needs converged lanes, or for all with lane-branches=false), "
        "spmd-lower-to-rocdl, convert-scf-to-cf, convert-gpu-to-rocdl "
        "(gpu.module), convert-to-llvm (top-level llvm.func), "
        "reconcile-unrealized-casts",
        buildGpuToRocdl);
    return true;
  }();
  (void)registered;
}
