//===- SpmdPasses.td - spmd passes --------------------------*- tablegen -*-===//
//
// Declarations, options and documentation of every spmd pass. The C++ side
// (SpmdPasses.cpp) is one generic shell per pass: `runOnOperation` hands the
// operation and the textual options to the Rust implementation registered
// through `spmdSetPassRunner` (see spmd-c/Spmd.h). All passes are
// op-agnostic: they process every function-like operation at or below the
// operation they run on, so they work on `builtin.module`, `gpu.module`,
// `func.func`, `gpu.func` and `llvm.func` alike.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_TD
#define SPMD_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpmdPrintCfgAnalysis : Pass<"spmd-print-cfg-analysis"> {
  let summary = "Print the CFG analyses of every function (for FileCheck)";
  let description = [{
    For every function-like operation, snapshots each region into the
    IR-independent CFG graph and prints, per block: the reverse-post-order
    number, the immediate dominator, the immediate post-dominator (or
    `exit` for the virtual exit), the innermost cycle and its depth, and
    the loop tags (header, latch, exiting, loop exit). It then lists back
    edges, the cycle forest (entries, latches, exits), irreducible cycles
    with their entry blocks, and unreachable blocks. The report goes to
    stderr; the IR is left unchanged.

    Blocks are named `^bbN` by their position in the region.

    Example:

    ```
    spmd-opt --spmd-print-cfg-analysis kernel.mlir -o /dev/null
    ```
  }];
}

def SpmdViewCfg : Pass<"spmd-view-cfg"> {
  let summary = "Print each function's CFG as Graphviz DOT";
  let description = [{
    Writes one `digraph` per function region to stderr (or to the file
    named by `output`), labelled with the same information as
    `--spmd-print-cfg-analysis`: RPO number, idom, ipdom and cycle depth in
    each node, back edges dashed, irreducible-cycle entries highlighted,
    unreachable blocks greyed out, Flow blocks (ending in `spmd.flow_br`)
    drawn as diamonds. Turn it into a picture with
    `dot -Tsvg cfg.dot -o cfg.svg`.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the DOT text to ('-' = stderr)">,
  ];
}

#endif // SPMD_PASSES_TD
