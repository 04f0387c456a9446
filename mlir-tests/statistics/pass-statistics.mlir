// Every spmd pass reports what it did through MLIR's pass statistics. This
// LLVM is built without LLVM_ENABLE_STATS, so MLIR's own report is empty
// and spmd-opt prints the spmd passes' statistics after it, in MLIR's list
// layout (see dialect/include/Spmd/SpmdPassStatistics.h). Debian's
// mlir-opt with the plugin has no such fallback.
// UNSUPPORTED: stock-mlir-opt

// RUN: spmd-opt %s --spmd-print-cfg-analysis --spmd-view-cfg --spmd-print-uniformity --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANALYSIS
// ANALYSIS: Pass statistics report
// ANALYSIS:      SpmdPrintCfgAnalysis
// ANALYSIS-NEXT:   (S) 16 blocks  - Blocks in the analysed regions
// ANALYSIS-NEXT:   (S)  3 regions - CFG regions analysed
// ANALYSIS-NEXT: SpmdPrintUniformity
// ANALYSIS-NEXT:   (S) 4 divergent-branches - Branches found divergent
// ANALYSIS-NEXT:   (S) 3 uniform-branches   - Branches found uniform
// ANALYSIS-NEXT: SpmdViewCfg
// ANALYSIS-NEXT:   (S) 16 blocks  - Blocks drawn
// ANALYSIS-NEXT:   (S)  3 regions - CFG regions drawn

// Without the option nothing is printed.
// RUN: spmd-opt %s --spmd-print-uniformity -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: spmd-opt %s --spmd-print-uniformity --mlir-pass-statistics=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE-NOT: (S)

// RUN: spmd-opt %s --spmd-annotate-uniformity --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANNOTATE
// ANNOTATE:      SpmdAnnotateUniformity
// ANNOTATE-NEXT:   (S) 4 divergent-branches - Branches marked divergent
// ANNOTATE-NEXT:   (S) 3 uniform-branches   - Branches marked uniform

// RUN: spmd-opt %s --spmd-reconverge --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=RECONVERGE
// RECONVERGE:      SpmdReconverge
// RECONVERGE-NEXT:   (S) 7 blocks-added          - Blocks added (Flow blocks, exit blocks, switch chains)
// RECONVERGE-NEXT:   (S) 5 divergent-branches    - Divergent branches made reconverging
// RECONVERGE-NEXT:   (S) 4 flow-blocks           - Flow blocks inserted
// RECONVERGE-NEXT:   (S) 0 infinite-loops        - Infinite loops given a never-taken exit
// RECONVERGE-NEXT:   (S) 5 returns-unified       - Return blocks routed to one exit
// RECONVERGE-NEXT:   (S) 1 switches-lowered      - Divergent switches lowered to two-way chains
// RECONVERGE-NEXT:   (S) 1 uniform-branches-kept - Uniform branches kept as they are

// The reconverged output passes the check; the input does not.
// RUN: spmd-opt %s --spmd-reconverge --spmd-verify-reconverging --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY:      SpmdVerifyReconverging
// VERIFY-NEXT:   (S) [[#]] divergent-branches - Divergent branches checked
// VERIFY-NEXT:   (S) 3 functions          - Functions checked

// RUN: spmd-opt %s --spmd-fix-irreducible --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIX
// FIX:      SpmdFixIrreducible
// FIX-NEXT:   (S) 4 edges-redirected   - Edges routed through a hub
// FIX-NEXT:   (S) 1 guard-blocks       - Guard blocks inserted
// FIX-NEXT:   (S) 1 irreducible-cycles - Irreducible cycles made reducible (one hub each)

// RUN: spmd-opt %s --spmd-unify-loop-exits --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNIFY
// UNIFY:      SpmdUnifyLoopExits
// UNIFY-NEXT:   (S) 2 edges-redirected - Edges routed through a hub
// UNIFY-NEXT:   (S) 1 guard-blocks     - Guard blocks inserted
// UNIFY-NEXT:   (S) 1 loops-unified    - Loops given a single exit block (one hub each)

// RUN: spmd-opt %s --spmd-structurize="irreducible=fix skip-uniform-regions" --spmd-verify-structured=use-uniformity --spmd-lower-to-cf --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRUCTURIZE
// STRUCTURIZE:      SpmdLowerToCf
// STRUCTURIZE-NEXT:   (S) [[#FLOWS:]] flow-branches  - spmd.flow_br lowered to cf.cond_br
// STRUCTURIZE-NEXT:   (S) [[#]] markers-erased - Reconvergence markers erased
// STRUCTURIZE-NEXT:   (S) 0 tokens-erased  - Convergence tokens erased
// STRUCTURIZE-NEXT: SpmdStructurize
// STRUCTURIZE-NEXT:   (S) [[#]] blocks-added          - Blocks added (Flow blocks, guard blocks, exit blocks, switch chains)
// STRUCTURIZE-NEXT:   (S) [[#]] divergent-branches    - Branches structurized (reconvergence heads)
// STRUCTURIZE-NEXT:   (S) [[#FLOWS]] flow-blocks           - Flow blocks inserted
// STRUCTURIZE-NEXT:   (S) 1 guard-blocks          - Guard blocks of the irreducible-cycle hubs
// STRUCTURIZE-NEXT:   (S) 0 infinite-loops        - Infinite loops given a never-taken exit
// STRUCTURIZE-NEXT:   (S) 1 irreducible-cycles    - Irreducible cycles made reducible
// STRUCTURIZE-NEXT:   (S) 1 switches-lowered      - Switches lowered to two-way chains
// STRUCTURIZE-NEXT:   (S) 1 uniform-branches-kept - Uniform branches kept by skip-uniform-regions
// STRUCTURIZE-NEXT: SpmdVerifyStructured
// STRUCTURIZE-NEXT:   (S) 3 functions - Functions checked

// RUN: spmd-opt %s --spmd-reconverge --spmd-branch-fold --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOLD
// FOLD:      SpmdBranchFold
// FOLD-NEXT:   (S) [[#]] blocks-merged     - Blocks merged into their only predecessor
// FOLD-NEXT:   (S) [[#]] blocks-removed    - Blocks removed (net, per function, never below 0)
// FOLD-NEXT:   (S) [[#]] branches-folded   - Conditional branches folded into unconditional ones
// FOLD-NEXT:   (S) [[#]] ops-hoisted       - Operations hoisted above a branch
// FOLD-NEXT:   (S) [[#]] ops-removed       - Operations removed (net, per function, never below 0)
// FOLD-NEXT:   (S) [[#]] refused-by-gate   - CFG edits refused by the reconvergence gate
// FOLD-NEXT:   (S) [[#]] regions-dissolved - Divergent regions dissolved (head and tails erased)
// FOLD-NEXT:   (S) [[#]] tails-merged      - Common tails merged

// RUN: spmd-opt %s --pass-pipeline="builtin.module(gpu.module(spmd-reconverge,spmd-predicate,spmd-lower-to-nvvm))" --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=WAVE
// WAVE:      SpmdLowerToNvvm
// WAVE-NEXT:   (S) 1 functions      - Wave-level functions lowered
// WAVE-NEXT:   (S) 0 markers-erased - Reconvergence markers erased
// WAVE-NEXT:   (S) 0 tokens-erased  - Convergence tokens erased
// WAVE-NEXT: SpmdPredicate
// WAVE-NEXT:   (S) 5 ballots            - spmd.ballot operations in the output
// WAVE-NEXT:   (S) 0 blocks-added       - Blocks added
// WAVE-NEXT:   (S) 5 divergent-branches - Divergent branches lowered to exec-mask updates
// WAVE-NEXT:   (S) 0 lane-branches      - Divergent branches kept as per-lane branches
// WAVE-NEXT:   (S) [[#]] mask-ops           - Exec-mask operations in the output (spmd.exec.*, spmd.mask.*)
// WAVE-NEXT:   (S) 4 rejoin-points      - Rejoin points (post-dominating successors) given a mask
// The convergence token of the reconverged kernel is gone before
// lower-to-nvvm runs (0 tokens-erased above).
// WAVE-NEXT:   (S) 1 tokens-removed     - Unused convergence tokens removed

gpu.module @m {
  // A uniform branch around a divergent one, and a divergent switch.
  gpu.func @kernel(%n: i32, %out: memref<?xi32>) kernel {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %c0 = arith.constant 0 : i32
    %u = arith.cmpi sgt, %n, %c0 : i32
    cf.cond_br %u, ^uniform, ^done
  ^uniform:
    %d = arith.cmpi slt, %t, %n : i32
    cf.cond_br %d, ^then, ^join
  ^then:
    memref.store %t, %out[%tid] : memref<?xi32>
    cf.br ^join
  ^join:
    cf.switch %t : i32, [default: ^done, 0: ^a, 1: ^b]
  ^a:
    gpu.return
  ^b:
    gpu.return
  ^done:
    gpu.return
  }
}

// An irreducible cycle, entered at ^a or ^b (uniform entry branch).
func.func @irreducible(%c: i1 {spmd.uniform}, %d: i1 {spmd.uniform}) {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %d, ^b, ^done
^b:
  cf.br ^a
^done:
  return
}

// A loop with two exits.
func.func @two_exits(%c: i1, %d: i1, %out: memref<i1>) {
  cf.br ^h
^h:
  cf.cond_br %c, ^x, ^l
^l:
  cf.cond_br %d, ^y, ^h
^x:
  memref.store %c, %out[] : memref<i1>
  return
^y:
  return
}
