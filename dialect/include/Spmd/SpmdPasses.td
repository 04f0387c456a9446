//===- SpmdPasses.td - spmd passes --------------------------*- tablegen -*-===//
//
// Declarations, options and documentation of every spmd pass. The C++ side
// (SpmdPasses.cpp) is one generic shell per pass: `runOnOperation` hands the
// operation and the typed values of its options to the Rust implementation
// registered through `spmdSetPassRunner` (see spmd-c/Internal.h). This file
// is the only place where an option default or a statistic is written:
// build.rs generates the Rust tables of both from it (src/ir/ods.rs). All
// passes are op-agnostic: they process every function-like operation at or
// below the operation they run on, so they work on `builtin.module`,
// `gpu.module`, `func.func`, `gpu.func` and `llvm.func` alike.
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
  let statistics = [
    Statistic<"numRegions", "regions", "CFG regions analysed">,
    Statistic<"numBlocks", "blocks", "Blocks in the analysed regions">,
  ];
}

class SpmdUniformityPass<string name> : Pass<name> {
  list<Option> uniformityOptions = [
    Option<"defaultArguments", "default-arguments", "std::string",
           /*default=*/"\"divergent\"",
           "Uniformity of unmarked arguments of non-kernel functions: "
           "'divergent' (the default: a device function may be called from "
           "divergent code) or 'uniform' (kernel arguments are always "
           "uniform)">,
    ListOption<"divergentOps", "divergent-ops", "std::string",
           "Extra divergence sources: operation names or llvm.call_intrinsic "
           "names ('name*' matches a prefix), e.g. acme.lane_id">,
    ListOption<"uniformOps", "uniform-ops", "std::string",
           "Operation or intrinsic names whose results are uniform whatever "
           "their operands ('name*' matches a prefix)">,
  ];
}

def SpmdViewCfg : SpmdUniformityPass<"spmd-view-cfg"> {
  let summary = "Print the module's CFGs as one Graphviz DOT graph that explains divergence";
  let description = [{
    Writes one `digraph` to stderr (or to the file named by `output`) with
    a cluster per CFG region (function bodies, and multi-block regions of
    other operations), so that Graphviz draws a whole module in one
    picture. Each block shows its name and the information of
    `--spmd-print-cfg-analysis` (RPO number, idom, ipdom, loop depth, loop
    roles). On top of that, with a legend in the picture:

    | what | look |
    |---|---|
    | divergent branch (uniformity analysis, `spmd.uniformity` marks trusted) | red bold border, `divergent` line |
    | uniform branch with two or more successors | blue border, `uniform` line |
    | Flow block (`spmd.flow_br`) / loop Flow block | green diamond / green double diamond |
    | guard block (hubs, switch chains; from its location) | yellow hexagon, `[guard]` |
    | other inserted block (`rejoin`, `exit`, `tail`; from its location) | yellow rounded box, `[kind]` |
    | loop header / irreducible-cycle entry | light blue / orange fill |
    | unreachable block | grey, dashed |
    | `spmd.reconvergence.head N` ... `tail N` | `head N`, `tail N` lines, purple dotted edge `rejoin N` |
    | edges | labelled `T`/`F` (two-way), `default`/`case V` (`cf.switch`), slot index otherwise; back edges dashed |

    Inserted blocks are recognised by the kind in their location
    (`fused<"guard">[...]`, see `src/transforms/locations.rs`), so the
    same options draw the input and the output of any pass. Turn the text
    into a picture with `dot -Tsvg cfg.dot -o cfg.svg`;
    `scripts/cfg-diff.sh kernel.mlir [pipeline]` draws the CFGs before and
    after a pipeline side by side. The IR is left unchanged.
  }];
  let options = !listconcat(uniformityOptions, [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the DOT text to ('-' = stderr)">,
    Option<"legend", "legend", "bool", /*default=*/"true",
           "Add a legend cluster that shows every look">,
  ]);
  let statistics = [
    Statistic<"numRegions", "regions", "CFG regions drawn">,
    Statistic<"numBlocks", "blocks", "Blocks drawn">,
  ];
}

def SpmdPrintUniformity : SpmdUniformityPass<"spmd-print-uniformity"> {
  let summary = "Print which values and branches are uniform or divergent";
  let description = [{
    Runs the uniformity analysis on every function-like operation and
    prints, for FileCheck, one line per value and per branch:

    ```
    // uniformity @kernel
    ^bb0 arguments: %arg0 uniform, %arg1 divergent
    divergent: %0 = gpu.thread_id  x
    uniform: %c0_i32 = arith.constant 0 : i32
    divergent branch: cf.cond_br %1, ^bb1, ^bb2 (joins: ^bb3)
    temporal divergence: cycle headed by ^bb1
    ```

    Sources of divergence (the table in `docs/divergence-sources.md`, in
    every spelling: dialect op, `llvm.call_intrinsic` name, NVVM and
    AMDGPU): thread and lane ids, atomics, shuffles; unknown intrinsics,
    inline assembly and calls not marked `spmd.uniform`; loads through
    private or generic memory; the arguments of non-kernel functions
    (unless `default-arguments=uniform`) and arguments marked
    `spmd.divergent`; and the names given to `divergent-ops`. Kernel
    arguments (`gpu.func ... kernel`, `gpu.kernel`, `nvvm.kernel`,
    `rocdl.kernel`, `ptx_kernelcc`, `amdgpu_kernelcc`) are uniform. Propagation: data dependence, sync
    dependence at the join blocks of divergent branches, temporal
    divergence out of cycles with divergent exits, and a conservative rule
    for irreducible cycles. Explicit `spmd.uniformity` marks on branches are
    trusted. The report goes to stderr; the IR is unchanged.
  }];
  let options = uniformityOptions;
  let statistics = [
    Statistic<"numDivergentBranches", "divergent-branches", "Branches found divergent">,
    Statistic<"numUniformBranches", "uniform-branches", "Branches found uniform">,
  ];
}

def SpmdAnnotateUniformity : SpmdUniformityPass<"spmd-annotate-uniformity"> {
  let summary = "Attach spmd.uniformity to every branch";
  let description = [{
    Runs the uniformity analysis (see `--spmd-print-uniformity`) and sets
    `spmd.uniformity = #spmd.uniformity<uniform|divergent>` on every
    terminator with two or more successors. Branches that already carry the
    attribute keep it: an explicit mark is trusted and wins over the
    analysis.
  }];
  let options = uniformityOptions;
  let statistics = [
    Statistic<"numDivergentBranches", "divergent-branches", "Branches marked divergent">,
    Statistic<"numUniformBranches", "uniform-branches", "Branches marked uniform">,
  ];
}

def SpmdVerifyReconverging : SpmdUniformityPass<"spmd-verify-reconverging"> {
  let summary = "Check that every divergent branch reconverges (Definition 1)";
  let description = [{
    A CFG is *reconverging* if every divergent branch has exactly two
    successors and one of them post-dominates it (the reconvergence paper, Definition 1).
    The pass runs the uniformity analysis (honouring `spmd.uniformity`
    marks), then checks every divergent branch against the post-dominator
    tree of the blocks that can reach an exit (paths that never terminate
    impose nothing). The first offending branch of each function gets an
    error naming it and where its threads actually meet; the pass then
    fails. The IR is never changed.
  }];
  let options = uniformityOptions;
  let statistics = [
    Statistic<"numFunctions", "functions", "Functions checked">,
    Statistic<"numDivergentBranches", "divergent-branches", "Divergent branches checked">,
  ];
}

def SpmdReconverge : SpmdUniformityPass<"spmd-reconverge"> {
  let summary = "Make every divergent branch reconverge (OpenTree-style)";
  let description = [{
    Transforms each function so that its CFG is *reconverging* (the reconvergence paper,
    Definition 1): every divergent branch has exactly two successors and one
    of them post-dominates it, which is all a wave-level lowering needs.
    Uniform branches are kept as they are; input that is already
    reconverging is left byte-for-byte unchanged.

    Divergent `cf.switch`es become chains of two-way branches, several
    returns are routed to one exit block, and Flow blocks (ending in
    `spmd.flow_br` on an i1 predicate, `loop` for loop latches with
    "true = leave the loop") are inserted by a sweep over the blocks in the
    chosen `ordering`. Irreducible cycles are handled natively, without
    node splitting. SSA is repaired with block arguments (`ub.poison` on
    paths that never define a value). Functions that change get convergence
    tokens: `spmd.convergence.entry` in the entry block and
    `spmd.convergence.loop` in each cycle header. They stay even though no
    operation uses them yet: they are the thread-level convergence contract
    of the output (which threads execute each cycle iteration together)
    for a thread-level consumer, and `--spmd-branch-fold` refuses edits
    that would move a `spmd.convergence.loop` out of its cycle header.
    `--spmd-predicate` removes the unused ones (wave-level code needs
    none), `--spmd-lower-to-cf` and `--spmd-lower-to-nvvm` erase them all.

    Blocks it inserts carry `fused<"kind">[...]` locations naming the
    branch or join they serve (see `src/transforms/locations.rs`).

    Example:

    ```
    spmd-opt --spmd-reconverge=ordering=dfpd kernel.mlir
    ```
  }];
  let dependentDialects = ["::mlir::spmd::SpmdDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::ub::UBDialect"];
  let options = !listconcat(uniformityOptions, [
    Option<"ordering", "ordering", "std::string", /*default=*/"\"dfpd\"",
           "Block ordering of the sweep: df, dfpd, bf or rpot (all correct; "
           "they differ in how many Flow blocks are inserted)">,
    Option<"selectorChainLength", "selector-chain-length", "unsigned",
           /*default=*/"4",
           "Flow chains with more blocks than this carry one i32 selector "
           "(each Flow block compares it to get its i1 predicate) instead of "
           "one i1 predicate per Flow block, keeping long chains linear">,
    Option<"laneBranches", "lane-branches", "bool", /*default=*/"false",
           "Leave alone the divergent branches that spmd-predicate's "
           "lane-branches keeps as per-lane branches without a rejoin "
           "point: nothing between them and their immediate post-dominator "
           "needs converged lanes, and no region that does covers them "
           "(for GPUs that reconverge by themselves)">,
  ]);
  let statistics = [
    Statistic<"numBlocksAdded", "blocks-added", "Blocks added (Flow blocks, exit blocks, switch chains)">,
    Statistic<"numFlowBlocks", "flow-blocks", "Flow blocks inserted">,
    Statistic<"numDivergentBranches", "divergent-branches", "Divergent branches made reconverging">,
    Statistic<"numUniformBranchesKept", "uniform-branches-kept", "Uniform branches kept as they are">,
    Statistic<"numSwitchesLowered", "switches-lowered", "Divergent switches lowered to two-way chains">,
    Statistic<"numReturnsUnified", "returns-unified", "Return blocks routed to one exit">,
    Statistic<"numInfiniteLoops", "infinite-loops", "Infinite loops given a never-taken exit">,
  ];
}

def SpmdStructurize : SpmdUniformityPass<"spmd-structurize"> {
  let summary = "Structurize the CFG the way StructurizeCFG does (Flow blocks, i1 predicates)";
  let description = [{
    Rewrites each function into the structured form that PTX-style targets
    need (the StructurizeCFG notes' contract): single-entry loops, every conditional branch
    reconverging at one of its successors (its post-dominator), Flow blocks
    that form linear chains and branch on one `i1` path predicate each, and
    loop Flow blocks with "true = leave the loop, false = back edge".

    Before planning, unreachable blocks are removed, an entry block with
    predecessors gets a fresh entry, `cf.switch`es become chains of two-way
    branches, several returns are routed to one exit block, and every
    infinite loop gets a never-taken exit edge (`cf.cond_br` on a constant
    `true`) to that exit from the block the post-dominator tree picks as its
    representative, so that branches inside it reconverge too. Irreducible
    cycles are rejected (`irreducible=reject`, the IR is left unchanged and
    the pass fails with an error naming the cycle's entry blocks) or made
    reducible first (`irreducible=fix`, as `--spmd-fix-irreducible`).

    Every conditional branch is structurized, except with
    `skip-uniform-regions`: then a uniform branch whose region (the blocks
    between it and its immediate post-dominator) holds only uniform
    branches is kept, and so, with `relaxed-uniform-regions`, is a uniform
    branch whose region's divergent branches are all confined to their own
    single-entry single-exit sub-regions. Inner divergent branches are
    always structurized (the StructurizeCFG notes, pitfall 5). Kept branches get
    `spmd.uniformity = #spmd.uniformity<uniform>`; each structurized region
    gets an `spmd.reconvergence.head` at its branch and an
    `spmd.reconvergence.tail` at its reconvergence block.

    Blocks it inserts carry `fused<"kind">[...]` locations naming the
    branch or join they serve (see `src/transforms/locations.rs`).

    Example:

    ```
    spmd-opt --spmd-structurize=irreducible=fix kernel.mlir
    ```
  }];
  let dependentDialects = ["::mlir::spmd::SpmdDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::ub::UBDialect"];
  let options = !listconcat(uniformityOptions, [
    Option<"skipUniformRegions", "skip-uniform-regions", "bool",
           /*default=*/"false",
           "Leave regions whose branches are all uniform unstructured">,
    Option<"relaxedUniformRegions", "relaxed-uniform-regions", "bool",
           /*default=*/"true",
           "With skip-uniform-regions, also keep a uniform branch whose "
           "region's divergent branches are confined to their own "
           "single-entry single-exit sub-regions">,
    Option<"irreducible", "irreducible", "std::string", /*default=*/"\"reject\"",
           "What to do with irreducible cycles: 'reject' (error, IR "
           "unchanged) or 'fix' (route their entries through a hub first)">,
    Option<"ordering", "ordering", "std::string", /*default=*/"\"rpot\"",
           "Block ordering of the Flow sweep: df, dfpd, bf or rpot">,
    Option<"selectorChainLength", "selector-chain-length", "unsigned",
           /*default=*/"4",
           "Flow chains with more blocks than this carry one i32 selector; "
           "each of their Flow blocks derives its i1 predicate with one "
           "arith.cmpi (linear cost instead of quadratic). Set it very "
           "large for i1 block-argument predicates only">,
  ]);
  let statistics = [
    Statistic<"numBlocksAdded", "blocks-added", "Blocks added (Flow blocks, guard blocks, exit blocks, switch chains)">,
    Statistic<"numFlowBlocks", "flow-blocks", "Flow blocks inserted">,
    Statistic<"numDivergentBranches", "divergent-branches", "Branches structurized (reconvergence heads)">,
    Statistic<"numUniformBranchesKept", "uniform-branches-kept", "Uniform branches kept by skip-uniform-regions">,
    Statistic<"numIrreducibleCycles", "irreducible-cycles", "Irreducible cycles made reducible">,
    Statistic<"numGuardBlocks", "guard-blocks", "Guard blocks of the irreducible-cycle hubs">,
    Statistic<"numSwitchesLowered", "switches-lowered", "Switches lowered to two-way chains">,
    Statistic<"numInfiniteLoops", "infinite-loops", "Infinite loops given a never-taken exit">,
  ];
}

def SpmdPredicate : SpmdUniformityPass<"spmd-predicate"> {
  let summary = "Lower a reconverging CFG to wave-level code with exec masks";
  let description = [{
    Turns each function, whose divergent branches must be reconverging
    (the reconvergence paper, Definition 1; run `--spmd-reconverge` or
    `--spmd-structurize` first), into *wave-level* code: the function runs
    once per wave, per-lane values live in lanes, and every operation only
    takes effect in the lanes of the execution mask. Following the reconvergence paper's
    lowering (Listing 1), each divergent branch removes the lanes that go to
    its post-dominating successor (the *rejoin point*) from `exec`, adds
    them to that rejoin point's mask, and goes on with the other successor;
    the rejoin point adds its mask back to `exec`. Divergent loops are the
    same rule applied to their exits. Uniform branches stay scalar branches
    (marked `#spmd.uniformity<uniform>`); the block arguments of rejoin
    points, and the values live at a rejoin point that the wave may
    recompute while lanes wait for it, are kept per lane with
    `spmd.mask.select`. Every `spmd.exec.write` the pass creates
    carries `spmd.park = N` (a divergent branch parking lanes for rejoin
    point N) or `spmd.rejoin = N` (rejoin point N) so that the wave-level
    executor can check reconvergence; each lowered function carries
    `spmd.wave_size`, the `wave-size` option.

    Convergence tokens that nothing uses (those `--spmd-reconverge`
    inserts, children before parents) are removed: wave-level code runs
    converged by construction, and no later pass reads them
    (`--spmd-lower-to-nvvm` would erase them). Tokens that some operation
    uses stay, with their parents.

    Blocks it inserts carry `fused<"kind">[...]` locations naming the
    branch or join they serve (see `src/transforms/locations.rs`).

    Example:

    ```
    spmd-opt --spmd-reconverge --spmd-predicate=skip-empty-blocks=false k.mlir
    ```
  }];
  let dependentDialects = ["::mlir::spmd::SpmdDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::ub::UBDialect"];
  let options = !listconcat(uniformityOptions, [
    Option<"skipEmptyBlocks", "skip-empty-blocks", "bool", /*default=*/"true",
           "Jump over the other successor of a divergent branch when no lane "
           "is left for it (spmd.exec.br_zero, like s_cbranch_execz); with "
           "false the wave falls through with an empty exec wherever that "
           "is safe (no cycle and no uniform branch before the rejoin)">,
    Option<"waveSize", "wave-size", "unsigned", /*default=*/"32",
           "Lanes per wave (a power of two up to 64, the width of an exec "
           "mask in the wave executor), recorded on each lowered function "
           "as spmd.wave_size; other values are rejected with a diagnostic">,
    Option<"laneBranches", "lane-branches", "bool", /*default=*/"false",
           "Keep a divergent branch as a per-lane branch (marked "
           "#spmd.uniformity<divergent>) where nothing in its region needs "
           "the lanes together (no collective, barrier, activemask, call or "
           "inline assembly) and no parking region covers it: for targets "
           "whose hardware diverges and reconverges by itself (NVIDIA)">,
  ]);
  let statistics = [
    Statistic<"numBlocksAdded", "blocks-added", "Blocks added">,
    Statistic<"numDivergentBranches", "divergent-branches", "Divergent branches lowered to exec-mask updates">,
    Statistic<"numLaneBranches", "lane-branches", "Divergent branches kept as per-lane branches">,
    Statistic<"numRejoinPoints", "rejoin-points", "Rejoin points (post-dominating successors) given a mask">,
    Statistic<"numMaskOps", "mask-ops", "Exec-mask operations in the output (spmd.exec.*, spmd.mask.*)">,
    Statistic<"numBallots", "ballots", "spmd.ballot operations in the output">,
    Statistic<"numTokensRemoved", "tokens-removed", "Unused convergence tokens removed">,
  ];
}

def SpmdFixIrreducible : Pass<"spmd-fix-irreducible"> {
  let summary = "Make every irreducible cycle reducible with a dispatch hub";
  let description = [{
    For every irreducible cycle (a cycle with several entry blocks), every
    edge into one of its entries, from outside or from inside the cycle, is
    routed through a new hub: a chain of guard blocks (`cf.cond_br` on
    `i1` predicates, or on comparisons of one `i32` selector for long
    chains) that dispatches each thread to the entry it was heading for.
    The hub becomes the cycle's single header. Nested irreducible cycles
    are fixed from the outside in until none is left. No block is
    duplicated: the cost is linear in the number of redirected edges.
    Entry block arguments and values that no longer dominate their uses
    are repaired through block arguments (`ub.poison` on paths that never
    define them).

    Blocks it inserts carry `fused<"kind">[...]` locations naming the
    branch or join they serve (see `src/transforms/locations.rs`).

    Example:

    ```
    spmd-opt --spmd-fix-irreducible kernel.mlir
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::ub::UBDialect"];
  let statistics = [
    Statistic<"numIrreducibleCycles", "irreducible-cycles", "Irreducible cycles made reducible (one hub each)">,
    Statistic<"numGuardBlocks", "guard-blocks", "Guard blocks inserted">,
    Statistic<"numEdgesRedirected", "edges-redirected", "Edges routed through a hub">,
  ];
}

def SpmdUnifyLoopExits : Pass<"spmd-unify-loop-exits"> {
  let summary = "Give every loop a single exit block through a guard hub";
  let description = [{
    For every cycle whose exiting edges lead to more than one block, all
    exiting edges are routed into one new hub outside the cycle, a chain of
    guard blocks that dispatches each thread to the exit block it was
    heading for. Afterwards every cycle has exactly one exit block. Inner
    cycles are processed before the cycles around them. Values defined
    inside the loop and used after it are repaired through block arguments.

    Blocks it inserts carry `fused<"kind">[...]` locations naming the
    branch or join they serve (see `src/transforms/locations.rs`).

    Example:

    ```
    spmd-opt --spmd-unify-loop-exits kernel.mlir
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::ub::UBDialect"];
  let statistics = [
    Statistic<"numLoopsUnified", "loops-unified", "Loops given a single exit block (one hub each)">,
    Statistic<"numGuardBlocks", "guard-blocks", "Guard blocks inserted">,
    Statistic<"numEdgesRedirected", "edges-redirected", "Edges routed through a hub">,
  ];
}

def SpmdVerifyStructured : SpmdUniformityPass<"spmd-verify-structured"> {
  let summary = "Check the structured-CFG contract and name the first violation";
  let description = [{
    Checks, for every function, the contract `--spmd-structurize`
    establishes, and reports the first violation of each function as an
    error on the offending operation:

    1. every cycle has a single entry (no irreducible control flow);
    2. every conditional branch that is not marked
       `#spmd.uniformity<uniform>` has exactly two successors and one of
       them post-dominates it (with `use-uniformity`, only the branches the
       uniformity analysis calls divergent are checked);
    3. Flow blocks (ending in `spmd.flow_br`) hold nothing but their
       terminator, reconvergence tails and, in selector chains, the
       `arith.constant`/`arith.cmpi` deriving their predicate; each has at
       most one Flow-block successor, so Flow blocks form linear chains;
    4. a loop Flow block (`spmd.flow_br loop`) takes its back edge on
       `false` (its false successor is the header of a cycle containing it)
       and leaves the cycle on `true`;
    5. reconvergence markers pair up: each `spmd.reconvergence.head` id has
       exactly one `spmd.reconvergence.tail`, the tail's block
       post-dominates the head's, and ids are unique.

    The IR is never changed.
  }];
  let options = !listconcat(uniformityOptions, [
    Option<"useUniformity", "use-uniformity", "bool", /*default=*/"false",
           "Check only the branches the uniformity analysis calls divergent "
           "(for output of skip-uniform-regions or of --spmd-reconverge)">,
  ]);
  let statistics = [
    Statistic<"numFunctions", "functions", "Functions checked">,
  ];
}

def SpmdLowerToCf : Pass<"spmd-lower-to-cf"> {
  let summary = "Lower thread-level spmd control ops to plain cf";
  let description = [{
    Makes the output of `--spmd-structurize` or `--spmd-reconverge` runnable
    by any upstream lowering (for example on a CPU, one thread at a time):
    `spmd.flow_br` becomes `cf.cond_br` with the same successors and
    operands, and convergence tokens and reconvergence markers are erased.
    Discardable `spmd.*` attributes (such as `spmd.uniformity`) are stripped
    too, so tools without the spmd dialect can read the output; argument
    attributes such as `{spmd.divergent}` stay. Wave-level ops (exec masks,
    ballots) have no thread-level meaning; each is reported as an error and
    the IR is left unchanged.

    Example:

    ```
    spmd-opt --spmd-structurize --spmd-lower-to-cf kernel.mlir | \
      mlir-opt --convert-to-llvm
    ```
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
  let statistics = [
    Statistic<"numFlowBranches", "flow-branches", "spmd.flow_br lowered to cf.cond_br">,
    Statistic<"numTokensErased", "tokens-erased", "Convergence tokens erased">,
    Statistic<"numMarkersErased", "markers-erased", "Reconvergence markers erased">,
  ];
}

def SpmdLowerToNvvm : Pass<"spmd-lower-to-nvvm"> {
  let summary = "Lower wave-level spmd IR in gpu.func and llvm.func kernels to NVVM (one warp per wave)";
  let description = [{
    Lowers the wave-level form produced by `--spmd-predicate` (or written by
    hand) inside every `gpu.func` and `llvm.func` to code in which each
    thread of an NVIDIA
    warp runs the wave-level program itself. All control flow of wave-level
    code is wave-uniform, so the warp never diverges on it; every thread
    keeps its own bit of each mask, a predicate, and the warp meets only
    where a decision is warp-wide.

    * `!spmd.mask` becomes `i1`: the thread's own bit of the mask.
    * The exec bit is threaded through the CFG as SSA: one extra block
      argument per block. It starts as `true` (every thread that runs is a
      live lane). `spmd.exec.read`/`write` read and replace it.
    * The *live mask*, the member mask of the votes the lowering emits (the
      last warp of a block may be partial), is read with
      `llvm.nvvm.activemask` at the function's entry, where every thread
      of the warp that exists runs (a kernel's start; a device function's
      callers reach it through a lane guard); a function without votes
      reads none.
    * `spmd.mask.to_bits`/`from_bits` (masks carried across `llvm` branches
      by `--spmd-predicate`) become a zero-extension / truncation of the
      bit.
    * `spmd.ballot %p` becomes `my exec bit ? %p : false` (a select, so
      that a poison `%p` in an inactive lane gives false);
      `spmd.mask.and/or/andn/empty/select` become `arith.andi/ori/xori/
      constant/select` on bits.
    * `spmd.exec.br_zero ^z, ^nz` becomes `cf.cond_br` on
      `!vote.sync.any(live, exec bit)`, or, where the region it skips is
      acyclic, closed and at most 32 operations long, `cf.br ^nz`: running
      such a region with no active lane is harmless and cheaper than the
      vote.
    * Operations whose execution in an inactive lane could be observed
      (memory reads, writes and frees, unknown effects such as calls, and
      operations that are not speculatable, such as divisions) are wrapped
      in `scf.if` on my exec bit; their results are `ub.poison` in inactive
      lanes. Pure, speculatable operations run in every lane. Warp
      collectives whose members the program names (`shfl.sync`,
      `vote.sync`, `match.sync`, `redux.sync`, `bar.warp.sync` with a
      member mask, `gpu.shuffle`) are guarded too, so exactly the lanes
      that reach them at thread level execute them; `activemask` becomes
      the exec mask (`vote.sync.ballot` of the exec bits); barriers and
      whole-warp collectives run in every live lane. A function that never
      writes the exec mask needs no guards at all.
    * Convergence tokens and reconvergence markers are erased: the warp is
      converged wherever wave-level code runs, and every `.sync` operation
      names the live mask explicitly, so no token is needed to say which
      threads take part.
    * Discardable `spmd.*` attributes and `spmd.*` argument attributes are
      removed, so the output is readable without the spmd dialect.

    A function without wave-level operations is thread-level code and only
    loses its tokens, markers and spmd attributes. The pass runs on any op:
    a module, a `gpu.module`, or one function of a nested pipeline such as
    `builtin.module(gpu.module(gpu.func(spmd-lower-to-nvvm)))`. Errors (the
    IR is left unchanged): a wave-level op outside a `gpu.func`/`llvm.func`
    or in a nested region,
    a `spmd.flow_br` (run `--spmd-predicate` or `--spmd-lower-to-cf`), a
    conditional branch of a wave-level function not marked
    `#spmd.uniformity<uniform>`, a mask-typed function argument or a mask
    used by an operation that is not a spmd op or a branch, a convergence
    token used by a non-token op, and a `wave-size` other than 32 or 64.

    Example:

    ```
    spmd-opt --spmd-lower-to-nvvm --convert-scf-to-cf --convert-gpu-to-nvvm \
      --reconcile-unrealized-casts kernel.mlir
    ```
  }];
  let options = [
    Option<"waveSize", "wave-size", "unsigned", /*default=*/"32",
           "Lanes per wave of the input, 32 or 64 (the output keeps one "
           "bit per thread either way)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::scf::SCFDialect", "::mlir::ub::UBDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"
  ];
  let statistics = [
    Statistic<"numFunctions", "functions", "Wave-level functions lowered">,
    Statistic<"numTokensErased", "tokens-erased", "Convergence tokens erased">,
    Statistic<"numMarkersErased", "markers-erased", "Reconvergence markers erased">,
  ];
}

def SpmdLowerToRocdl : Pass<"spmd-lower-to-rocdl"> {
  let summary = "Lower wave-level spmd IR in gpu.func and llvm.func kernels to ROCDL (AMDGPU waves of 64 or 32 lanes)";
  let description = [{
    The AMDGPU counterpart of `--spmd-lower-to-nvvm`. Every lane of an AMD
    wave runs the wave-level program; exec and every mask are the wave's
    whole mask, a uniform `iN` (N = `wave-size`: `i64` for wave64, `i32`
    for wave32) that the backend keeps in scalar registers and that is
    threaded through the CFG as SSA. All control flow of wave-level code is
    wave-uniform:

    * `spmd.ballot %p` is `rocdl.ballot (llvm.freeze %p) & exec` (the
      freeze drops the poison of lanes that never computed `%p`); mask
      operations are `arith` on `iN`;
    * `spmd.exec.br_zero` is `exec == 0`, a scalar test; kept scalar
      branches where exec may be partial decide on the ballot of their
      condition over exec, and `switch` flags are read from the lowest
      lane of exec with `rocdl.readlane`;
    * a lane's own bit of a mask, for `spmd.mask.select` and lane guards,
      is `llvm.call_intrinsic "llvm.amdgcn.inverse.ballot.iN"`, which the
      backend lowers to nothing;
    * operations that must not run in inactive lanes are wrapped in
      `scf.if` on the lane's bit, which the backend turns into exec masking
      (`s_and_saveexec`);
    * the live mask is `rocdl.ballot true` at the function's entry;
      integer `ub.poison` forwarded to block arguments becomes 0 (LLVM 22's
      AMDGPU register coalescer crashes on some phis of poison).

    In the exec-mask code every branch the backend sees is uniform except
    the lane guards; tell it to leave uniform regions alone (`llc
    -structurizecfg-skip-uniform-regions`; `spmd-compile --target amdgcn`
    does). Lane branches (`--spmd-predicate=lane-branches=true`, the
    `spmd-gpu-to-rocdl` default) pass through unchanged: the backend lowers
    them with its own exec-mask code, which keeps the registers of the
    lanes that are off instead of merging with `v_cndmask`.

    Run `--spmd-predicate` with the same `wave-size` first. Errors as for
    `--spmd-lower-to-nvvm`.

    Example:

    ```
    spmd-opt --spmd-lower-to-rocdl=wave-size=64 --convert-scf-to-cf \
      --convert-gpu-to-rocdl=chipset=gfx90a --reconcile-unrealized-casts kernel.mlir
    ```
  }];
  let options = [
    Option<"waveSize", "wave-size", "unsigned", /*default=*/"64",
           "Lanes per wave, 64 (GCN, CDNA) or 32 (RDNA); the width of the "
           "ballots the lowering emits">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::scf::SCFDialect", "::mlir::ub::UBDialect",
    "::mlir::ROCDL::ROCDLDialect", "::mlir::LLVM::LLVMDialect"
  ];
  let statistics = [
    Statistic<"numFunctions", "functions", "Wave-level functions lowered">,
    Statistic<"numTokensErased", "tokens-erased", "Convergence tokens erased">,
    Statistic<"numMarkersErased", "markers-erased", "Reconvergence markers erased">,
  ];
}

def SpmdBranchFold : SpmdUniformityPass<"spmd-branch-fold"> {
  let summary = "BranchFolding/TailMerge cleanup that keeps reconvergence intact";
  let description = [{
    A CFG cleanup for the output of `--spmd-structurize` and
    `--spmd-reconverge`, modelled on the post-RA BranchFolding pass of a
    structured-CFG GPU target (the branch-folding notes). It repeats four steps until
    nothing changes:

    0. *FoldOperations*: the upstream folders and canonicalization
       patterns of the non-control-flow operations (everything except
       terminators, operations with successors or regions, `cf` and `spmd`
       operations, convergent operations and special-register reads) run
       on those operations only, through MLIR's greedy driver with region
       simplification disabled. Arithmetic folds to constants; a branch
       whose condition becomes a constant is then folded by step 1, through
       the gate. The driver never edits the CFG and never moves, erases or
       duplicates a convergent operation (checked; a violation is reported
       as an internal error).
    1. *OptimizeBranches*: delete unreachable blocks; move constants
       (`arith.constant`, `ub.poison`) to the entry block (merging equal
       ones, erasing unused ones), which empties blocks that only forwarded
       a Flow predicate; evaluate constant selector comparisons in Flow
       blocks; replace block arguments that every edge sets to one value
       and erase dead arguments (with the pure operations feeding only
       them); fold conditional branches (`cf.cond_br`, `spmd.flow_br`,
       `cf.switch`) whose successors and operands are equal, or whose
       predicate is a known constant (an `arith.constant`, or a block
       argument every predecessor sets to the same constant); turn a
       `cf.cond_br` to one block with different operands into
       `arith.select`s when that block then merges into the branch block;
       redirect edges into blocks that hold nothing but an unconditional
       `cf.br` (redundant Flow blocks become such blocks once folded);
       merge a block into its only predecessor. A folded branch of a
       `spmd.reconvergence.head` block dissolves its divergent region (the
       head and its tails are erased).
    2. *TailMerge*: blocks ending in a return, or in `cf.br` to the same
       block, are bucketed by a hash of their last operation and compared
       pairwise; a common tail of at least `tail-merge-size` operations
       moves into a new shared block, values that differ between the two
       tails become arguments of that block. At most
       `tail-merge-threshold` candidates are considered per target.
       Return tails and unconditional-branch tails are the only ones
       merged (the branch-folding notes tries them first because they never change a
       branch condition).
    3. *HoistCommonCode*: identical leading operations of the two
       successors of a two-way branch (each with that branch as its only
       predecessor) move in front of the branch.

    Safety gates (the counterpart of the branch-folding notes' reserved-register check):
    convergent operations (barriers, shuffles, subgroup reductions, votes,
    calls, and every `spmd` convergence, reconvergence, exec-mask and
    ballot op) are never merged or hoisted; reads of thread-identity
    registers (`gpu.thread_id`, `nvvm.read.ptx.sreg.tid.*`, ...) are
    never merged or hoisted and never become live into a merged tail;
    every CFG edit is first applied to the IR-independent graph and
    refused if it would add a Definition 1 (reconverging) violation, an
    irreducible cycle, a Flow block with other operations, a branching
    Flow chain, or leave `spmd.convergence.loop` outside a cycle header. Hoisting never moves an operation into a Flow block.
    Each round plans all rules on one snapshot (blocks an edit touches are
    claimed, so later decisions of the round still read accurate facts),
    checks the queued CFG edits with the gate as one batch, bisecting on
    refusal, and applies the accepted ones.

    With `stats`, the pass prints per function the blocks and operations
    removed, how often each rule fired, how often a gate refused, and the
    snapshots and gate checks it took. `fold-operations=false` turns off
    FoldOperations and the value-level cleanups (block arguments, dead
    values) to leave only the CFG rules.

    Blocks it inserts carry `fused<"kind">[...]` locations naming the
    branch or join they serve (see `src/transforms/locations.rs`).

    Example:

    ```
    spmd-opt --spmd-reconverge --spmd-branch-fold=stats kernel.mlir
    ```
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
  let options = !listconcat(uniformityOptions, [
    Option<"disable", "disable", "bool", /*default=*/"false",
           "Leave the IR unchanged">,
    Option<"enableTailMerge", "enable-tail-merge", "bool", /*default=*/"true",
           "Run the TailMerge step">,
    Option<"tailMergeSize", "tail-merge-size", "unsigned", /*default=*/"3",
           "Minimum number of operations (terminator excluded) in a merged tail">,
    Option<"tailMergeThreshold", "tail-merge-threshold", "unsigned",
           /*default=*/"150",
           "Maximum number of candidate blocks considered per merge target">,
    Option<"hoistCommonCode", "hoist-common-code", "bool", /*default=*/"true",
           "Run the HoistCommonCode step">,
    Option<"foldOperations", "fold-operations", "bool", /*default=*/"true",
           "Run the FoldOperations step (upstream folders and "
           "canonicalization patterns of non-control-flow operations)">,
    Option<"stats", "stats", "bool", /*default=*/"false",
           "Print per-function statistics (blocks and ops removed, rules "
           "applied, merges refused) to stderr">,
  ]);
  let statistics = [
    Statistic<"numBlocksRemoved", "blocks-removed", "Blocks removed (net, per function, never below 0)">,
    Statistic<"numOpsRemoved", "ops-removed", "Operations removed (net, per function, never below 0)">,
    Statistic<"numBranchesFolded", "branches-folded", "Conditional branches folded into unconditional ones">,
    Statistic<"numBlocksMerged", "blocks-merged", "Blocks merged into their only predecessor">,
    Statistic<"numTailsMerged", "tails-merged", "Common tails merged">,
    Statistic<"numOpsHoisted", "ops-hoisted", "Operations hoisted above a branch">,
    Statistic<"numRegionsDissolved", "regions-dissolved", "Divergent regions dissolved (head and tails erased)">,
    Statistic<"numRefusedByGate", "refused-by-gate", "CFG edits refused by the reconvergence gate">,
  ];
}

#endif // SPMD_PASSES_TD
