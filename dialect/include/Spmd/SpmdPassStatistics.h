//===- SpmdPassStatistics.h - spmd statistics without LLVM_ENABLE_STATS ---===//
//
// Every spmd pass declares its statistics in SpmdPasses.td and the pass
// shells add what the Rust implementation reports to them. MLIR only keeps
// and prints pass statistics when LLVM is built with LLVM_ENABLE_STATS
// (assertions on); release builds such as Debian's llvm-22 compile them to
// no-ops, and `--mlir-pass-statistics` prints an empty report. In such
// builds the shells add the values to a process-wide tally instead, and
// spmd-opt prints it after MLIR's report, in MLIR's list layout.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SPMDPASSSTATISTICS_H
#define SPMD_SPMDPASSSTATISTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace mlir::spmd {
/// Adds `value` to statistic `name` of `pass` (its MLIR pass name, such as
/// `SpmdReconverge`) in the process-wide tally. Thread-safe.
void recordPassStatistic(llvm::StringRef pass, llvm::StringRef name,
                         llvm::StringRef description, uint64_t value);

/// Prints the tally as MLIR's `--mlir-pass-statistics` list display prints
/// pass statistics: one line per pass, then `(S) value name - description`
/// per statistic, both sorted by name. Prints nothing if no spmd pass ran.
void printPassStatistics(llvm::raw_ostream &os);
} // namespace mlir::spmd

#endif // SPMD_SPMDPASSSTATISTICS_H
