//===- SpmdBase.td - spmd dialect, types and attributes ------*- tablegen -*-===//
//
// The `spmd` dialect: divergence-aware control flow for SPMD/SIMT programs.
// This file declares the dialect itself, its types and its attributes; the
// operations live in SpmdOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_BASE_TD
#define SPMD_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Spmd_Dialect : Dialect {
  let name = "spmd";
  let cppNamespace = "::mlir::spmd";
  let summary = "Divergence-aware control flow for SPMD (GPU) programs";
  let description = [{
    The `spmd` dialect models what a thread-level control-flow graph needs on
    its way to wave-level (SIMT/SIMD) code:

    * **uniformity marks** on branches (`spmd.uniformity`), produced by the
      uniformity analysis or written by the user, and trusted by every pass;
    * **Flow blocks**, the blocks inserted by structurization and
      reconvergence, which end in `spmd.flow_br` on an `i1` path predicate;
    * **reconvergence markers** (`spmd.reconvergence.head` / `.tail`) that
      name where a divergent region starts and where its threads rejoin;
    * **convergence tokens** (`!spmd.token`, `spmd.convergence.*`) with the
      meaning of LLVM's convergence control intrinsics;
    * **wave-level exec-mask operations** (`!spmd.mask`, `spmd.exec.*`,
      `spmd.ballot`, `spmd.mask.*`) that express predicated control flow.

    Discardable attributes understood by the dialect:

    * `spmd.uniformity = #spmd.uniformity<uniform|divergent>` on any operation
      with at least two successors (`cf.cond_br`, `cf.switch`,
      `llvm.cond_br`, `spmd.flow_br`, ...). An explicit mark is trusted by the
      analyses exactly as LLVM trusts `structurizecfg.uniform`.
    * `spmd.divergent` (unit) on a function argument: the argument differs
      between threads.
    * `spmd.uniform` (unit) on a function argument or a call: the argument,
      or the results of the call, are the same in every thread.
    * `spmd.park = N` / `spmd.rejoin = N` (non-negative integers) on an
      `spmd.exec.write` made by `--spmd-predicate`: a divergent branch
      parking lanes for rejoin point N, and rejoin point N adding them back
      (the wave-level executor checks that they do).
    * `spmd.exec_full` (unit) on the rejoin's `spmd.exec.write` after which
      no lane waits any more: exec is every live lane again (checked by the
      wave-level executor; the NVVM lowering needs no lane guard there).
    * `spmd.wave_size = N` (a power of two up to 64) on a function lowered
      by `--spmd-predicate`: the lanes per wave it was lowered for.
    * `spmd.lane_shared_work` (unit) on a function: with `lane-branches`,
      `--spmd-reconverge` and `--spmd-predicate` also keep as per-lane
      branches the divergent branches whose two sides share work before
      their join (a target that structurizes divergent regions itself, as
      AMDGPU's backend does, runs that work once anyway). `spmd-compile
      --target amdgcn` sets it on the kernels whose code it makes smaller.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the discardable uniformity attribute on branch operations.
    static constexpr ::llvm::StringLiteral kUniformityAttrName = "spmd.uniformity";
    /// Name of the unit attribute marking a function argument divergent.
    static constexpr ::llvm::StringLiteral kDivergentAttrName = "spmd.divergent";
    /// Name of the unit attribute marking an argument or a call uniform.
    static constexpr ::llvm::StringLiteral kUniformAttrName = "spmd.uniform";
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Spmd_Type<string name, string typeMnemonic> : TypeDef<Spmd_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Spmd_TokenType : Spmd_Type<"Token", "token"> {
  let summary = "convergence token";
  let description = [{
    A convergence token names a set of threads that execute together, with
    the meaning of LLVM's `token` produced by the
    `llvm.experimental.convergence.*` intrinsics. Tokens are produced by
    `spmd.convergence.entry`, `spmd.convergence.anchor` and
    `spmd.convergence.loop`. As in LLVM, a token is meant to be used
    directly by the operations it controls: storing, selecting or passing
    it as a block argument has no defined meaning. The type system cannot
    forbid those uses locally; the spmd transforms never create them.

    Example:

    ```mlir
    %tok = spmd.convergence.entry : !spmd.token
    ```
  }];
  let genVerifyDecl = 0;
}

def Spmd_MaskType : Spmd_Type<"Mask", "mask"> {
  let summary = "wave-level lane mask";
  let description = [{
    A set of lanes of one wave, one bit per lane. The wave size is not part of
    the type: lowering (`--spmd-lower-to-nvvm`) chooses it (32 on NVIDIA).
    Execution masks, rejoin masks and ballots all have this type.

    Example:

    ```mlir
    %exec = spmd.exec.read : !spmd.mask
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Spmd_Uniformity : I32EnumAttr<"Uniformity", "uniformity of a branch", [
    I32EnumAttrCase<"uniform", 0>,
    I32EnumAttrCase<"divergent", 1>
  ]> {
  let cppNamespace = "::mlir::spmd";
  let genSpecializedAttr = 0;
}

def Spmd_UniformityAttr : EnumAttr<Spmd_Dialect, Spmd_Uniformity, "uniformity"> {
  let summary = "uniform or divergent mark of a branch";
  let description = [{
    Says whether all threads of a wave that reach a branch take the same
    successor (`uniform`) or may take different ones (`divergent`). It is
    attached under the name `spmd.uniformity` to any operation with at least
    two successors. The analyses trust an explicit mark: marking a divergent
    branch `uniform` is a promise from the producer, as with LLVM's
    `structurizecfg.uniform` metadata.

    Example:

    ```mlir
    cf.cond_br %c, ^a, ^b {spmd.uniformity = #spmd.uniformity<divergent>}
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

#endif // SPMD_BASE_TD
