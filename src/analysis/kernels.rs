//! Which function-like operations are GPU kernels (entry points of a
//! launch), in the spelling of every front end that reaches spmd:
//!
//! | front end | marking |
//! |---|---|
//! | MLIR `gpu` dialect | `gpu.func ... kernel` (the unit attribute `gpu.kernel`) |
//! | `convert-gpu-to-nvvm` / `-to-rocdl` output | `gpu.kernel`, `nvvm.kernel`, `rocdl.kernel` on `llvm.func` |
//! | `mlir-translate --import-llvm` of clang's CUDA / HIP output | the `ptx_kernel` / `amdgpu_kernel` calling convention (`llvm.func ptx_kernelcc @k`) |
//!
//! A kernel's arguments are the same for every thread of the launch, and its
//! threads start converged; every other function can be called from
//! divergent code.

use melior::ir::{operation::OperationLike, OperationRef};

/// Discardable unit attributes that mark a kernel.
pub(crate) const KERNEL_ATTRIBUTES: &[&str] = &["gpu.kernel", "nvvm.kernel", "rocdl.kernel"];

/// Calling conventions of `llvm.func` kernels, as MLIR prints them.
pub(crate) const KERNEL_CALLING_CONVENTIONS: &[&str] =
    &["#llvm.cconv<ptx_kernelcc>", "#llvm.cconv<amdgpu_kernelcc>"];

/// True if `function` is a kernel in any of the spellings above.
pub(crate) fn is_kernel(function: OperationRef<'_, '_>) -> bool {
    if KERNEL_ATTRIBUTES
        .iter()
        .any(|name| function.has_attribute(name))
    {
        return true;
    }
    function.attribute("CConv").is_ok_and(|convention| {
        KERNEL_CALLING_CONVENTIONS.contains(&convention.to_string().as_str())
    })
}
